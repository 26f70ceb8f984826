import type Redis from 'ioredis';
import { systemClock, type Clock, type Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { checkDependencies, HealthMonitor } from '@pos/core/health/check-dependencies';
import { JOB_QUEUES, QUEUE_PREFIX } from '@pos/kernel/queues/index';
import { HeartbeatScheduler, DEFAULT_HEARTBEAT_MS } from './heartbeat-scheduler.ts';
import { DEFAULT_FISCAL_RECOVER_MS, fiscalRecoverScheduler } from './fiscal-recover-scheduler.ts';
import { webhooksPurgeScheduler } from './webhooks-purge-scheduler.ts';
import { postCaptureSweepScheduler } from './post-capture-sweep-scheduler.ts';
import { orderImportSweepScheduler } from './order-import-sweep-scheduler.ts';
import { AutoSyncScheduler } from './auto-sync-scheduler.ts';
import type { OutboxScheduler } from './outbox-scheduler.ts';
import { workerFetch } from './http.ts';
import { WorkerMetrics } from './metrics.ts';
import { devLogDriver, type NotificationDriver } from './notifications/driver.ts';
import { OutboxRelay } from './outbox-relay.ts';
import { QueueProcessor } from './processor.ts';
import { findFormerQueues, FORMER_QUEUE_SCAN_MS } from './former-queues.ts';
import { FAILED_JOB_PURGE_MS, purgeFailedJobs } from './failed-jobs.ts';
import { createBatchHandlers, createHandlers } from './jobs/index.ts';
import type { RegisterDispatchDeps } from '@pos/core/integrations/dispatch-register';
import type { SyncClients } from '@pos/core/integrations/sync-runners';
import type { BatchJobHandler, JobHandler } from './jobs/job-handler.ts';
import type { WorkerFiscal } from './jobs/index.ts';
import type { PaymentProviders } from '@pos/core/payments/payment-providers';
import type { AccountMailing } from '@pos/core/accounts/sign-up';

export interface WorkerDeps {
  db: CentralDb;
  /** ioredis connection for health checks and done markers. */
  redis: Redis;
  /** bee-queue opens its own connections to this URL. */
  redisUrl: string;
  log: Logger;
  clock?: Clock;
  /** Redis key prefix of the queues (default `bq`); tests pass a unique one. */
  prefix?: string;
  /** Between heartbeats (default 15 s). */
  heartbeatMs?: number;
  /** Between auto-sync scheduler passes (integration daily syncs); none when absent or 0. */
  autoSyncMs?: number;
  /** Between `webhooks.purge` jobs (webhook log retention); none when absent or 0. */
  webhookPurgeMs?: number;
  /** Between `payment.post-capture-sweep` jobs (post-capture steps lost with Redis's data re-queued); none when absent or 0. */
  postCaptureSweepMs?: number;
  /** Between `integration.order-import-sweep` jobs (marketplace order events whose import never finished, re-queued); none when absent or 0. */
  orderImportSweepMs?: number;
  /** Completes pending fiscal journal entries (`fiscal.recover`): the fiscal service built from the worker's env. */
  fiscal: WorkerFiscal;
  /** Between scheduled fiscal recovery sweeps (default 60 s); 0: none scheduled (an enqueued `fiscal.recover` still runs). */
  fiscalRecoverMs?: number;
  /** A sweep leaves pending entries younger than this to the call in flight (default 60 s). */
  fiscalRecoverOlderThanMs?: number;
  /** Relay poll interval (default 250 ms). */
  relayIntervalMs?: number;
  /** The relay is woken by `NOTIFY outbox_pending` at each commit that wrote outbox rows (default true; the poll stays as the fallback). */
  relayListen?: boolean;
  /** Jobs at once per queue (default 4). */
  concurrency?: number;
  /** A failed bee-queue job is purged from Redis this long after its failure (default 7 days); `job_failures` keeps its record. */
  failedRetentionMs?: number;
  /** Between two purges of each queue's failed jobs (default 1 hour, the first at start). */
  failedPurgeIntervalMs?: number;
  /** How a job written by a newer release is handed back (default `NEWER_RELEASE_DEFERRAL`). */
  newerReleaseDeferral?: { retries: number; backoffMs: number };
  /** Between looks for former queues (renamed or retired) still holding jobs, each then given a processor (default 60 s; the first at start). */
  formerQueueScanMs?: number;
  /** Delivers `notification.send` (`buildWorkerDeps` always gives one); absent: the dev-log driver, logging no rendered content. */
  notifications?: NotificationDriver;
  /** Listen for /health and /metrics on this port (0 = any free port); omitted: no HTTP server. */
  port?: number;
  hostname?: string;
  /** Cache of the health report (default 2000 ms). */
  healthTtlMs?: number;
  /** Payment provider clients (`payment.capture` polls them). */
  payments?: PaymentProviders;
  /** Registers captured orders are dispatched to (`order.dispatch`, issue 17). */
  registers?: RegisterDispatchDeps;
  /** Provider clients of integration syncs and marketplace order imports (issue 17). */
  integrations?: SyncClients;
  /** Back-office account mails (`account.mail`): the SMTP mailer and the base of the links. */
  accountMailing?: Omit<AccountMailing, 'log'> | null;
  /** Handlers by job name (default the worker's own, `createHandlers`); tests may swap them. */
  handlers?: Readonly<Record<string, JobHandler<any>>>;
  /** Batch handlers by job name (default the worker's own unless `handlers` is given: then batches run row by row through `handlers`). */
  batchHandlers?: Readonly<Record<string, BatchJobHandler<any>>>;
}

export interface RunningWorker {
  /** The Redis key prefix of its queues. */
  readonly prefix: string;
  readonly relay: OutboxRelay;
  readonly metrics: WorkerMetrics;
  readonly processors: readonly QueueProcessor[];
  readonly heartbeat: HeartbeatScheduler;
  /** Enqueues `fiscal.recover` sweeps; undefined when `fiscalRecoverMs` is 0. */
  readonly fiscalRecovery: OutboxScheduler | undefined;
  /** The /health and /metrics handler (also served on `port` when one was given). */
  readonly fetch: (req: Request) => Promise<Response>;
  /** The port the HTTP server listens on, when it was started. */
  readonly port: number | undefined;
  stop(): Promise<void>;
}

let current: RunningWorker | undefined;

/**
 * Starts the worker in this process: one processor per queue in use, the outbox relay, the heartbeat
 * and fiscal recovery schedulers and (with `port`) the HTTP server. The connections in `deps` stay
 * the caller's to close.
 */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  const log = deps.log;
  const clock = deps.clock ?? systemClock;
  const metrics = new WorkerMetrics();
  const prefix = deps.prefix ?? QUEUE_PREFIX;
  const handlers =
    deps.handlers ??
    createHandlers({
      fiscal: deps.fiscal,
      clock,
      redis: deps.redis,
      ...(deps.payments ? { payments: deps.payments } : {}),
      ...(deps.registers ? { registers: deps.registers } : {}),
      ...(deps.integrations ? { integrations: deps.integrations } : {}),
      ...(deps.accountMailing ? { accountMailing: deps.accountMailing } : {}),
      ...(deps.fiscalRecoverOlderThanMs !== undefined ? { fiscalRecoverOlderThanMs: deps.fiscalRecoverOlderThanMs } : {}),
    });

  const batchHandlers =
    deps.batchHandlers ??
    (deps.handlers
      ? {}
      : createBatchHandlers({
          redis: deps.redis,
          ...(deps.payments ? { payments: deps.payments } : {}),
          ...(deps.registers ? { registers: deps.registers } : {}),
        }));

  // The done markers (a check before and a write after every relayed job) on their own connection
  // with auto-pipelining: the markers of jobs running side by side go out in one socket write.
  const markers = deps.redis.duplicate({ enableAutoPipelining: true, connectionName: 'worker-done-markers' });
  markers.on('error', () => {});
  const processorFor = (q: string) =>
    new QueueProcessor(q, {
      db: deps.db,
      redis: markers,
      redisUrl: deps.redisUrl,
      log,
      clock,
      metrics,
      prefix,
      notifications: deps.notifications ?? devLogDriver(log),
      ...(deps.concurrency !== undefined ? { concurrency: deps.concurrency } : {}),
      ...(deps.failedRetentionMs !== undefined ? { failedRetentionMs: deps.failedRetentionMs } : {}),
      ...(deps.failedPurgeIntervalMs !== undefined ? { failedPurgeIntervalMs: deps.failedPurgeIntervalMs } : {}),
      ...(deps.newerReleaseDeferral ? { newerReleaseDeferral: deps.newerReleaseDeferral } : {}),
      handlers,
      batchHandlers,
    });
  const processors: QueueProcessor[] = JOB_QUEUES.map(processorFor);
  try {
    await Promise.all(processors.map((p) => p.start()));
  } catch (e) {
    await Promise.all(processors.map((p) => p.stop(500)));
    markers.disconnect();
    throw e;
  }

  // Jobs still on a queue this build no longer uses (renamed or retired; an older relay may keep writing
  // to it during a rolling deploy) get a processor of their own, so they run instead of waiting forever.
  const served = new Set<string>(JOB_QUEUES);
  let formerScan: Promise<void> = Promise.resolve();
  let formerStopped = false;
  const formerPurgedAt = new Map<string, number>();
  const serveFormerQueues = async () => {
    const found = await findFormerQueues(deps.redis, prefix, served).catch((e: unknown) => {
      log.warn('could not look for former queues', { err: e instanceof Error ? e.message : String(e) });
      return { withWork: [], failedOnly: [] };
    });
    // Failed jobs alone need no processor: recorded and purged like a served queue's, as often.
    for (const q of found.failedOnly) {
      const last = formerPurgedAt.get(q) ?? 0;
      if (formerStopped || Date.now() - last < (deps.failedPurgeIntervalMs ?? FAILED_JOB_PURGE_MS)) continue;
      formerPurgedAt.set(q, Date.now());
      await purgeFailedJobs(deps.db, deps.redis, { prefix, queue: q }, clock.now(), deps.failedRetentionMs !== undefined ? { retentionMs: deps.failedRetentionMs } : {}).catch((e: unknown) =>
        log.warn('failed job purge of a former queue failed', { queue: q, err: e instanceof Error ? e.message : String(e) }),
      );
    }
    for (const q of found.withWork) {
      if (formerStopped || served.has(q)) continue;
      served.add(q);
      const p = processorFor(q);
      processors.push(p);
      log.warn('former queue still holds jobs; running them', { queue: q });
      await p.start().catch((e: unknown) => log.warn('former queue processor did not start', { queue: q, err: e instanceof Error ? e.message : String(e) }));
    }
  };
  await (formerScan = serveFormerQueues());
  const formerTimer = setInterval(() => {
    formerScan = formerScan.then(serveFormerQueues);
  }, deps.formerQueueScanMs ?? FORMER_QUEUE_SCAN_MS);

  const relay = new OutboxRelay({
    db: deps.db,
    redisUrl: deps.redisUrl,
    log,
    metrics,
    prefix,
    ...(deps.relayIntervalMs !== undefined ? { intervalMs: deps.relayIntervalMs } : {}),
    ...(deps.relayListen !== undefined ? { listen: deps.relayListen } : {}),
  });
  relay.start();

  const heartbeat = new HeartbeatScheduler({
    db: deps.db,
    log,
    clock,
    intervalMs: deps.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    onEnqueued: () => relay.trigger(),
  });
  heartbeat.start();

  const fiscalRecoverMs = deps.fiscalRecoverMs ?? DEFAULT_FISCAL_RECOVER_MS;
  const fiscalRecovery = fiscalRecoverMs > 0 ? fiscalRecoverScheduler({ db: deps.db, log, clock, intervalMs: fiscalRecoverMs, onEnqueued: () => relay.trigger() }) : undefined;
  fiscalRecovery?.start();

  const webhookPurge = deps.webhookPurgeMs ? webhooksPurgeScheduler({ db: deps.db, log, clock, intervalMs: deps.webhookPurgeMs, onEnqueued: () => relay.trigger() }) : undefined;
  webhookPurge?.start();

  const postCaptureSweep = deps.postCaptureSweepMs ? postCaptureSweepScheduler({ db: deps.db, log, clock, intervalMs: deps.postCaptureSweepMs, onEnqueued: () => relay.trigger() }) : undefined;
  postCaptureSweep?.start();

  const orderImportSweep = deps.orderImportSweepMs ? orderImportSweepScheduler({ db: deps.db, log, clock, intervalMs: deps.orderImportSweepMs, onEnqueued: () => relay.trigger() }) : undefined;
  orderImportSweep?.start();

  const autoSync = deps.autoSyncMs ? new AutoSyncScheduler({ db: deps.db, log, clock, intervalMs: deps.autoSyncMs, onEnqueued: () => relay.trigger() }) : undefined;
  autoSync?.start();

  const health = new HealthMonitor(() => checkDependencies(deps.db, deps.redis), deps.healthTtlMs ?? 2000);
  const fetch = workerFetch({ db: deps.db, health, metrics });
  const server = deps.port === undefined ? undefined : Bun.serve({ port: deps.port, hostname: deps.hostname ?? '0.0.0.0', fetch });

  let stopping: Promise<void> | undefined;
  const worker: RunningWorker = {
    prefix,
    relay,
    metrics,
    processors,
    heartbeat,
    fiscalRecovery,
    fetch,
    port: server?.port,
    stop: () =>
      (stopping ??= (async () => {
        await heartbeat.stop();
        await fiscalRecovery?.stop();
        await webhookPurge?.stop();
        await postCaptureSweep?.stop();
        await orderImportSweep?.stop();
        await autoSync?.stop();
        await relay.stop();
        formerStopped = true;
        clearInterval(formerTimer);
        await formerScan;
        await Promise.all(processors.map((p) => p.stop()));
        markers.disconnect();
        await server?.stop(true);
        if (current === worker) current = undefined;
        log.info('worker stopped');
      })()),
  };
  current = worker;
  log.info('worker started', { queues: JOB_QUEUES, prefix, port: server?.port, fiscal_recover_ms: fiscalRecoverMs });
  return worker;
}

/** Stops `worker` (default: the last one started in this process). */
export async function stopWorker(worker: RunningWorker | undefined = current): Promise<void> {
  await worker?.stop();
}
