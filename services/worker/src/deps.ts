import { createLogger, createRedis, ensureRedis, portOf, readEnv, systemClock, WorkerEnv, type Clock, type Logger } from '@pos/kernel';
import { createDatabase, resolveDatabase } from '@pos/db';
import { createFiscalService } from '@pos/core/fiscal/fiscal-service';
import { fiscalConfigFromEnv } from '@pos/core/fiscal/fiscal-config';
import { registerRecoveryHooks } from '@pos/core/pos/fiscal-recovery/recovery-hooks';
import { DEFAULT_FISCAL_RECOVER_MS } from './fiscal-recover-scheduler.ts';
import { DEFAULT_HEARTBEAT_MS } from './heartbeat-scheduler.ts';
import { DEFAULT_WEBHOOK_PURGE_MS } from './webhooks-purge-scheduler.ts';
import { DEFAULT_POST_CAPTURE_SWEEP_MS } from './post-capture-sweep-scheduler.ts';
import { DEFAULT_ORDER_IMPORT_SWEEP_MS } from './order-import-sweep-scheduler.ts';
import { DEFAULT_AUTO_SYNC_MS } from './auto-sync-scheduler.ts';
import type { WorkerDeps } from './worker.ts';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { registerDispatchFromEnv } from '@pos/core/integrations/dispatch-register';
import { syncClientsFromEnv } from '@pos/core/integrations/sync-runners';
import { mailerFromEnv } from '@pos/providers/mail/mailer';
import { createSmsClient } from '@pos/providers/sms/sms-client';
import { notificationDriverFromEnv } from './notifications/driver.ts';

/**
 * The worker's PostgreSQL connections. More is slower here, not faster: its jobs are batches of
 * writes, and on a server with few cores twice as many backends mostly wait on each other (the post-capture
 * bench ran ~1,250 sequences/s with 20 connections, ~1,800 with 10, on two cores).
 */
export const WORKER_DB_POOL = 10;

/** Builds the worker's dependencies from the environment (`log`: the worker's logger, tests pass their own); `close` releases the connections. */
export async function buildWorkerDeps(env: Record<string, string | undefined>, opts: { clock?: Clock; log?: Logger } = {}) {
  const config = readEnv(WorkerEnv, env);
  // Parsed before any connection is opened: a bad fiscal setting stops the worker with its one line.
  const fiscalConfig = fiscalConfigFromEnv(config);
  const payments = paymentProvidersFromEnv(config);
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? createLogger({ service: 'worker' });
  const database = await resolveDatabase(env, process.cwd(), (m) => log.info(m));
  const handle = createDatabase(database.url, { applicationName: 'worker', max: WORKER_DB_POOL });
  const redisUrl = await ensureRedis(config.REDIS_URL);
  const redis = createRedis(redisUrl, 'worker');
  redis.on('error', (e) => log.warn('redis error', { err: e.message }));
  const mailer = mailerFromEnv(config);
  const sms = config.SMS_BASE_URL && config.SMS_API_KEY ? createSmsClient({ baseUrl: config.SMS_BASE_URL, apiKey: config.SMS_API_KEY }) : null;
  const deps: WorkerDeps = {
    db: handle.db,
    redis,
    redisUrl,
    log,
    clock,
    port: portOf(config.WORKER_PORT, 3200),
    heartbeatMs: config.WORKER_HEARTBEAT_MS ? Number(config.WORKER_HEARTBEAT_MS) : DEFAULT_HEARTBEAT_MS,
    fiscal: createFiscalService(fiscalConfig, log, { clock, hooks: registerRecoveryHooks(clock, log) }),
    payments,
    registers: registerDispatchFromEnv(handle.db, config),
    integrations: syncClientsFromEnv(config),
    accountMailing: { db: handle.db, mailer, appUrl: config.APP_URL ?? 'http://localhost:3000' },
    // `notification.send` (receipts, invitations, activation codes) mails and texts for real once a
    // transport is configured; with neither, the development driver logs them in local and test, and in
    // production each fails for good (after one warning now naming the missing settings).
    notifications: notificationDriverFromEnv(config, { mailer, sms }, log),
    fiscalRecoverMs: config.FISCAL_RECOVER_MS ? Number(config.FISCAL_RECOVER_MS) : DEFAULT_FISCAL_RECOVER_MS,
    webhookPurgeMs: DEFAULT_WEBHOOK_PURGE_MS,
    postCaptureSweepMs: config.POST_CAPTURE_SWEEP_MS ? Number(config.POST_CAPTURE_SWEEP_MS) : DEFAULT_POST_CAPTURE_SWEEP_MS,
    autoSyncMs: DEFAULT_AUTO_SYNC_MS,
    orderImportSweepMs: DEFAULT_ORDER_IMPORT_SWEEP_MS,
  };
  return {
    deps,
    close: async () => {
      mailer?.close();
      redis.disconnect();
      await handle.close();
      await database.stop();
    },
  };
}
