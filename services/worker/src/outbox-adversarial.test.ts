import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { systemClock } from '@pos/kernel';
import { createQueue, FAN_OUT_JOB, FAN_OUT_QUEUE, fanOut, heartbeatJob, jobMessage, notificationSendJob, orderDispatchJob, paymentCaptureJob, paymentFinaliseJob, paymentPostCaptureJob, postCaptureSweepJob, QUEUES, statsDailyJob, stockEdgeSyncJob, stockReleaseReservationJob } from '@pos/kernel/queues/index';
import { OutboxScheduler } from './outbox-scheduler.ts';
import { bindTenant } from '@pos/db';
import { seedDemo } from '@pos/core/seed/demo-seed';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { endStaffSession, openStaffSession } from '@pos/core/pos/staff/staff-session';
import { sweepFiscalJournals } from './jobs/fiscal-recover.handler.ts';
import { createFiscalWorkEventHandler } from './jobs/fiscal-work-event.handler.ts';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { buildWorkerDeps } from './deps.ts';
import { renderNotification } from './notifications/templates.ts';
import { UnrecoverableJobError } from './jobs/job-handler.ts';
import { startSmtpCatcher } from '@pos/providers/mail/smtp-catcher';
import { startSmsSimulator } from '@pos/providers/sms/sms-simulator';
import { startWorker, stopWorker, type RunningWorker } from './worker.ts';
import { createHandlers } from './jobs/index.ts';
import type { BatchJobHandler, JobHandler } from './jobs/job-handler.ts';
import { OutboxRelay, outboxJobId } from './outbox-relay.ts';
import { NEWER_RELEASE_DEFERRAL } from './processor.ts';
import { dropPrefix, openTestEnv, TEST_REDIS_URL, TEST_WORKER_ENV, testFiscal, testWorkerDeps, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * The worker and its outbox attacked with what an older or buggy writer leaves behind (poison rows
 * and jobs), and with a stop in the middle of a job. A poison message fails visibly once (or waits,
 * visible in the pending gauges, for a worker that understands it); it never loops, never blocks the
 * relay and never takes the good rows travelling with it down.
 */
let env: TestEnv;
const prefixes: string[] = [];
let worker: RunningWorker | undefined;
const written: number[] = [];

beforeAll(async () => {
  env = await openTestEnv();
});
afterEach(async () => {
  await stopWorker(worker);
  worker = undefined;
});
afterAll(async () => {
  if (written.length) await env.handle.db.deleteFrom('outbox').where('id', 'in', written.map(String)).execute();
  for (const p of prefixes) await dropPrefix(env.redis, p);
  await env.close();
});

function prefix(): string {
  const p = uniquePrefix();
  prefixes.push(p);
  return p;
}

/** Writes a raw outbox row (as an older or buggy writer would), removed after the file. */
async function insert(row: { queue: string; job: string; payload: unknown }): Promise<{ id: number; created_at: Date }> {
  const r = await env.handle.db
    .insertInto('outbox')
    .values({ queue: row.queue, job: row.job, payload: JSON.stringify(row.payload) as never })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
  written.push(Number(r.id));
  return { id: Number(r.id), created_at: r.created_at };
}

const outboxRow = (id: number) => env.handle.db.selectFrom('outbox').select(['relayed_at', 'attempts']).where('id', '=', String(id)).executeTakeFirstOrThrow();

const tenant = `t_adv_${crypto.randomUUID().slice(0, 8)}`;
const edge = (transactionId: string) => jobMessage(stockEdgeSyncJob, { tenant_database: tenant, transaction_id: transactionId, location_id: crypto.randomUUID(), item_ids: [] });
const beat = (service: string) => jobMessage(heartbeatJob, { service, at: new Date().toISOString() });

async function start(handlers: Record<string, JobHandler<any>> = {}, batchHandlers: Record<string, BatchJobHandler<any>> = {}): Promise<RunningWorker> {
  worker = await startWorker({
    ...testWorkerDeps(env, prefix()),
    handlers: { ...createHandlers({ fiscal: testFiscal(env.log), clock: systemClock }), ...handlers },
    batchHandlers,
  });
  return worker;
}

describe('poison outbox rows', () => {
  test('a fan-out row of a shape the relay does not know stays pending and blocks nothing: the rows around it are relayed', async () => {
    const shapes: unknown[] = [
      { messages: { job: 'heartbeat' } },
      { messages: 'heartbeat' },
      { messages: [1, 'x'] },
      { messages: [{ payload: {} }] },
      { messages: [{ job: 7, payload: {} }] },
      { messages: [null] },
    ];
    const poison = [];
    for (const payload of shapes) poison.push(await insert({ queue: FAN_OUT_QUEUE, job: FAN_OUT_JOB, payload }));
    const good = await insert(beat(`adv-${crypto.randomUUID()}`));
    const relay = new OutboxRelay({ db: env.handle.db, redisUrl: TEST_REDIS_URL, log: env.log, prefix: prefix(), listen: false });
    try {
      // Rows other files left may come first: poll until the good row went.
      for (let i = 0; i < 20 && (await outboxRow(good.id)).relayed_at === null; i++) expect((await relay.runOnce()).failed).toBe(0);
      expect((await outboxRow(good.id)).relayed_at).not.toBeNull();
      for (const p of poison) expect(await outboxRow(p.id)).toEqual({ relayed_at: null, attempts: 0 });
    } finally {
      await relay.stop();
    }
  });

  test('a fan-out message without a payload is refused alone; the rows of its batch still run', async () => {
    const [t1, t2] = [crypto.randomUUID(), crypto.randomUUID()];
    const seen: string[] = [];
    const row = await insert({ queue: FAN_OUT_QUEUE, job: FAN_OUT_JOB, payload: { messages: [edge(t1), { job: stockEdgeSyncJob.name }, edge(t2)].map((m) => ('payload' in m ? { job: m.job, payload: m.payload } : m)) } });
    const w = await start(
      {
        [stockEdgeSyncJob.name]: async () => {
          throw new Error('not expected: the batch handler runs these');
        },
      },
      {
        [stockEdgeSyncJob.name]: (async (ps) => {
          seen.push(...ps.filter((p) => p.tenant_database === tenant).map((p) => p.transaction_id));
          return ps.map(() => null);
        }) satisfies BatchJobHandler<typeof stockEdgeSyncJob>,
      },
    );
    await waitFor(() => seen.length >= 2, 10_000, 'the two good messages');
    await Bun.sleep(200);
    expect(seen.sort()).toEqual([t1, t2].sort());
    expect(await w.metrics.failedCount(stockEdgeSyncJob.name)).toBe(1);
    expect((await outboxRow(row.id)).relayed_at).not.toBeNull();
  });
});

describe('poison bee-queue jobs', () => {
  test('a batch envelope for a job that takes no batches (an older build batched it) fails once, never retried', async () => {
    const service = `adv-batch-${crypto.randomUUID()}`;
    const ran: string[] = [];
    const w = await start({ [heartbeatJob.name]: async (p: { service: string }) => void (p.service === service && ran.push(p.service)) });
    const producer = createQueue(QUEUES.system, TEST_REDIS_URL, { prefix: w.prefix });
    try {
      const job = await producer
        .createJob({ job: heartbeatJob.name, version: heartbeatJob.version, payload: null, items: [{ outbox_id: 1, enqueued_at: new Date().toISOString(), payload: beat(service).payload }] })
        .retries(3)
        .save();
      const failed = await waitFor(async () => (await producer.getJobs('failed', { size: 100 })).find((j) => j.id === job.id), 10_000, 'the failed job');
      await Bun.sleep(300);
      expect(failed.options.retries).toBe(0);
      expect(String(failed.options.stacktraces[0])).toContain('job heartbeat does not take batches');
      expect(await w.metrics.failedCount(heartbeatJob.name)).toBe(1);
      expect(ran).toEqual([]);
    } finally {
      await producer.close();
    }
  });

  test('a payload of a newer version than this worker knows is handed back to its queue, handler not run', async () => {
    const service = `adv-version-${crypto.randomUUID()}`;
    const ran: string[] = [];
    const w = await start({ [heartbeatJob.name]: async (p: { service: string }) => void (p.service === service && ran.push(p.service)) });
    const producer = createQueue(QUEUES.system, TEST_REDIS_URL, { prefix: w.prefix });
    try {
      const job = await producer
        .createJob({ job: heartbeatJob.name, version: heartbeatJob.version + 1, payload: beat(service).payload })
        .retries(3)
        .save();
      const deferred = await waitFor(async () => {
        const j = await producer.getJob(job.id);
        return j.status === 'retrying' ? j : undefined;
      }, 10_000, 'the deferred job');
      // The deferral's own retries (NEWER_RELEASE_DEFERRAL), not the job's three, one spent.
      expect(deferred.options).toMatchObject({ newerRelease: { retries: 3 }, retries: NEWER_RELEASE_DEFERRAL.retries - 1 });
      expect(String(deferred.options.stacktraces[0])).toContain(`unsupported payload version ${heartbeatJob.version + 1} (this worker knows ${heartbeatJob.version})`);
      expect(await w.metrics.failedCount(heartbeatJob.name)).toBe(0);
      expect(ran).toEqual([]);
    } finally {
      await producer.close();
    }
  });
});

describe('stopping mid-job', () => {
  test('a stop waits for the job running, which finishes and gets its done marker: relayed again, it is skipped', async () => {
    const service = `adv-stop-${crypto.randomUUID()}`;
    const events: string[] = [];
    const slow = async (p: { service: string }) => {
      if (p.service !== service) return;
      events.push('start');
      await Bun.sleep(600);
      events.push('end');
    };
    const w = await start({ [heartbeatJob.name]: slow });
    const row = await insert(beat(service));
    w.relay.trigger();
    await waitFor(() => events.includes('start'), 10_000, 'the job to start');
    await stopWorker(w);
    worker = undefined;
    expect(events).toEqual(['start', 'end']);
    const system = w.processors.find((p) => p.queueName === QUEUES.system)!;
    expect(await env.redis.exists(system.doneKey(outboxJobId(row)))).toBe(1);

    // A relay that died before its commit sends the row again: the next worker skips it.
    await env.handle.db.updateTable('outbox').set({ relayed_at: null }).where('id', '=', String(row.id)).execute();
    const next = await startWorker({
      ...testWorkerDeps(env, w.prefix),
      handlers: { ...createHandlers({ fiscal: testFiscal(env.log), clock: systemClock }), [heartbeatJob.name]: slow },
      batchHandlers: {},
    });
    worker = next;
    await waitFor(async () => (await next.metrics.render(undefined, [])).includes('worker_jobs_skipped_total{job="heartbeat"} 1'), 10_000, 'the skipped run');
    expect(events).toEqual(['start', 'end']);
  });
});

describe('scheduled runs while the relay cannot relay', () => {
  test('a schedule writes no second run while its last one is still pending; once that one went, the next is written', async () => {
    const tenantDatabase = `t_adv_sched_${crypto.randomUUID().slice(0, 8)}`;
    const other = `t_adv_other_${crypto.randomUUID().slice(0, 8)}`;
    const ticks: number[] = [];
    let n = 0;
    const schedule = (t: string) =>
      new OutboxScheduler({
        db: env.handle.db,
        log: env.log,
        what: 'adversarial sweep',
        intervalMs: 3_600_000,
        // Each run carries its own scheduled time, as the real schedules' do.
        message: () => jobMessage(postCaptureSweepJob, { tenant_database: t, at: new Date(Date.UTC(2026, 10, 28, 12, 0, n++)).toISOString() }),
        onEnqueued: () => ticks.push(n),
      });
    const runs = async (t: string) =>
      env.handle.db
        .selectFrom('outbox')
        .select(['id', 'relayed_at', 'payload'])
        .where('job', '=', postCaptureSweepJob.name)
        .where(sql<string>`payload->>'tenant_database'`, '=', t)
        .orderBy('id')
        .execute();
    const s = schedule(tenantDatabase);
    const o = schedule(other);
    // As while Redis is away: nothing relays, the schedule keeps firing.
    for (let i = 0; i < 4; i++) await s.enqueue();
    await o.enqueue();
    const pending = await runs(tenantDatabase);
    written.push(...pending.map((r) => Number(r.id)), ...(await runs(other)).map((r) => Number(r.id)));
    expect(pending.length).toBe(1);
    expect(pending[0]!.payload).toEqual({ tenant_database: tenantDatabase, at: '2026-11-28T12:00:00.000Z' });
    // Another payload (another merchant's sweep) is its own run.
    expect((await runs(other)).length).toBe(1);

    await env.handle.db.updateTable('outbox').set({ relayed_at: new Date() }).where('id', '=', String(pending[0]!.id)).execute();
    await s.enqueue();
    const after = await runs(tenantDatabase);
    written.push(...after.map((r) => Number(r.id)));
    expect(after.length).toBe(2);
    expect(after[1]!.relayed_at).toBeNull();
    expect(after[1]!.payload).toEqual({ tenant_database: tenantDatabase, at: '2026-11-28T12:00:05.000Z' });
    await s.stop();
    await o.stop();
  });
});

describe('notification.send leaves the worker', () => {
  test('with SMTP and the SMS provider configured, the worker mails e-mails and texts SMS (not a log line)', async () => {
    const smtp = await startSmtpCatcher();
    const sms = startSmsSimulator({ apiKey: 'sms-key-0123456789' });
    const built = await buildWorkerDeps({ ...TEST_WORKER_ENV, SMTP_URL: smtp.smtpUrl, MAIL_FROM: 'Ordering <no-reply@example.test>', SMS_BASE_URL: sms.url, SMS_API_KEY: 'sms-key-0123456789' });
    try {
      const driver = built.deps.notifications;
      expect(driver?.name).toBe('messaging');
      const to = `adv-${crypto.randomUUID().slice(0, 8)}@example.test`;
      await driver!.send(renderNotification({ channel: 'email', to, template: 'payment-receipt', data: { order_no: '12', receipt_no: '7', total: '3.50', lines: '1 x Espresso  3.50' } }));
      const mail = await smtp.waitFor(to);
      expect(mail.subject).toBe('Your receipt 7 (order 12)');
      expect(mail.text.trim()).toBe('Thank you for your order 12.\n1 x Espresso  3.50\nTotal: 3.50\nReceipt 7');
      expect(mail.from).toContain('no-reply@example.test');
      await driver!.send(renderNotification({ channel: 'sms', to: '+32470123456', template: 'device-activation-code', data: { code: '482913', device_name: 'Kiosk 1' } }));
      expect(sms.sent.map((m) => ({ to: m.to, text: m.text }))).toEqual([{ to: '+32470123456', text: 'Open the app on Kiosk 1 and enter the activation code 482913. The code works once.' }]);
    } finally {
      await built.close();
      await smtp.stop();
      await sms.stop();
    }
  });

  test('an SMS number typed with spaces goes out in E.164; one the provider refuses (a national number) fails for good, not five times', async () => {
    const sms = startSmsSimulator({ apiKey: 'sms-key-0123456789' });
    const built = await buildWorkerDeps({ ...TEST_WORKER_ENV, SMS_BASE_URL: sms.url, SMS_API_KEY: 'sms-key-0123456789' });
    try {
      const send = (to: string) => built.deps.notifications!.send(renderNotification({ channel: 'sms', to, template: 'device-activation-code', data: { code: '5', device_name: 'K' } }));
      await send('+32 (470) 12-34 56');
      expect(sms.sent.map((m) => m.to)).toEqual(['+32470123456']);
      const refused = await send('0470 12 34 56').then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(UnrecoverableJobError);
      expect((refused as Error).message).toBe('notification.send: the SMS provider refused the message (answered 422)');
      expect(sms.sent.length).toBe(1);
    } finally {
      await built.close();
      await sms.stop();
    }
  });

  test('with only SMTP configured, an SMS fails (retried, visible) instead of being reported sent', async () => {
    const smtp = await startSmtpCatcher();
    const built = await buildWorkerDeps({ ...TEST_WORKER_ENV, SMTP_URL: smtp.smtpUrl });
    try {
      await expect(built.deps.notifications!.send(renderNotification({ channel: 'sms', to: '+32470123456', template: 'device-activation-code', data: { code: '1', device_name: 'K' } }))).rejects.toThrow(
        'notification.send: the worker has no SMS provider (SMS_BASE_URL, SMS_API_KEY)',
      );
    } finally {
      await built.close();
      await smtp.stop();
    }
  });

  test('an unknown template fails once, not retried: no retry can make it known', async () => {
    const sent: string[] = [];
    const prefixUsed = prefix();
    worker = await startWorker({ ...testWorkerDeps(env, prefixUsed), notifications: { name: 'capture', send: async (n) => void sent.push(n.to) } });
    const to = `adv-tpl-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const row = await insert(jobMessage(notificationSendJob, { channel: 'email', to, template: 'no-such-template', data: {} }));
    worker.relay.trigger();
    const inspector = createQueue(QUEUES.notifications, TEST_REDIS_URL, { prefix: prefixUsed });
    try {
      const jobId = outboxJobId(row);
      const failed = await waitFor(async () => (await inspector.getJobs('failed', { size: 100 })).find((j) => j.id === jobId), 10_000, 'the failed job');
      await Bun.sleep(300);
      expect(failed.options.retries).toBe(0);
      expect(String(failed.options.stacktraces[0])).toContain('Unknown notification template: no-such-template');
      expect(await worker.metrics.failedCount(notificationSendJob.name)).toBe(1);
      expect(sent).toEqual([]);
    } finally {
      await inspector.close();
    }
  });
});

describe('jobs of a merchant deleted meanwhile', () => {
  test('its payment jobs end as done, logged, instead of failing through every retry: nothing is left to do', async () => {
    const gone = `t_adv_gone_${crypto.randomUUID().slice(0, 8)}`;
    const base = { tenant_database: gone, transaction_id: crypto.randomUUID() };
    const w = (worker = await startWorker({ ...testWorkerDeps(env, prefix()), payments: paymentProvidersFromEnv({}) }));
    await insert(jobMessage(paymentCaptureJob, base));
    await insert(jobMessage(paymentPostCaptureJob, { ...base, stock_changed: true }));
    await insert(
      fanOut([
        jobMessage(orderDispatchJob, base),
        jobMessage(stockReleaseReservationJob, { ...base, cart_session_id: base.transaction_id }),
        jobMessage(statsDailyJob, base),
        jobMessage(paymentFinaliseJob, base),
        jobMessage(stockEdgeSyncJob, { ...base, location_id: crypto.randomUUID(), item_ids: [] }),
      ]),
    );
    const jobs = ['payment.capture', 'payment.post-capture', 'order.dispatch', 'stock.release-reservation', 'stats.daily', 'payment.finalise', 'stock.edge-sync'];
    const outcome = async () => Promise.all(jobs.map(async (j) => (await w.metrics.processedCount(j)) + (await w.metrics.failedCount(j))));
    await waitFor(async () => (await outcome()).every((n) => n >= 1), 10_000, 'every job to run once');
    await Bun.sleep(300);
    expect(Object.fromEntries(await Promise.all(jobs.map(async (j) => [j, { processed: await w.metrics.processedCount(j), failed: await w.metrics.failedCount(j) }])))).toEqual(
      Object.fromEntries(jobs.map((j) => [j, { processed: 1, failed: 0 }])),
    );
  });
});

describe('staff work events whose job was lost', () => {
  test('the fiscal sweep queues a lost work-in and work-out again, once per ten minutes; signed, they are never queued again', async () => {
    const m = await seedDemo(env.handle.db, { slug: `adv-work-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
    const tenantDatabase = m.merchant.tenant_database;
    const tdb = bindTenant(env.handle.db, tenantDatabase);
    try {
      const d = m.devices[0]!;
      const staff = await tdb.selectFrom('staff_credentials').select('id').where('deleted_at', 'is', null).executeTakeFirstOrThrow();
      // The location enrolled an hour ago; the session ran ten minutes ago.
      await tdb.updateTable('fdm_devices').set({ created_at: new Date(Date.now() - 3_600_000) }).where('location_id', '=', d.location_id).execute();
      const at = new Date(Date.now() - 10 * 60_000);
      const { sessionId } = await openStaffSession(tdb, { staffId: staff.id, deviceId: d.id, locationId: d.location_id, now: at });
      await endStaffSession(tdb, sessionId, at);
      await tdb.updateTable('pos_staff_sessions').set({ ended_at: at }).where('id', '=', sessionId).execute();
      const jobsOf = () =>
        env.handle.db
          .selectFrom('outbox')
          .select(['id', 'payload'])
          .where('job', '=', 'fiscal.work-event')
          .where(sql<string>`payload->>'session_id'`, '=', sessionId)
          .orderBy('id')
          .execute();
      // Relayed, then lost with Redis's data (or out of retries while the database was away).
      expect((await jobsOf()).length).toBe(2);
      await env.handle.db.deleteFrom('outbox').where('job', '=', 'fiscal.work-event').where(sql<string>`payload->>'session_id'`, '=', sessionId).execute();

      const sweep = () => sweepFiscalJournals(env.handle.db, { fiscal: testFiscal(env.log), redis: env.redis, olderThanMs: 0 }, env.log, tenantDatabase);
      expect((await sweep()).requeued).toBe(2);
      const again = await jobsOf();
      written.push(...again.map((r) => Number(r.id)));
      const base = { tenant_database: tenantDatabase, session_id: sessionId, staff_id: staff.id, device_id: d.id, location_id: d.location_id };
      expect(again.map((r) => r.payload)).toEqual([
        { ...base, kind: 'work_in' },
        { ...base, kind: 'work_out' },
      ]);
      // Claimed for ten minutes: the next sweep (a minute later) leaves them to their jobs.
      expect((await sweep()).requeued).toBe(0);
      expect((await jobsOf()).length).toBe(2);

      const handle = createFiscalWorkEventHandler(testFiscal(env.log));
      const ctx = { db: env.handle.db, log: env.log, clock: systemClock, notifications: undefined as never, jobId: 'adv' };
      for (const r of again) await handle(r.payload as never, ctx);
      const entries = await tdb.selectFrom('fiscal_journal').select(['subject_id', 'status']).where('subject_type', '=', 'pos_staff_session').where('subject_id', 'like', `${sessionId}:%`).orderBy('seq').execute();
      expect(entries).toEqual([
        { subject_id: `${sessionId}:work_in`, status: 'signed' },
        { subject_id: `${sessionId}:work_out`, status: 'signed' },
      ]);
      // Signed: with the claims gone, a sweep finds nothing to queue.
      await env.redis.del(`work_event_requeue:${tenantDatabase}:${sessionId}:work_in`, `work_event_requeue:${tenantDatabase}:${sessionId}:work_out`);
      expect((await sweep()).requeued).toBe(0);
    } finally {
      await env.handle.db.deleteFrom('outbox').where(sql<string>`payload->>'tenant_database'`, '=', tenantDatabase).execute();
      await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: tenantDatabase });
    }
  });

  test('a session that ran out without a pin-logout is ended at its expiry by the sweep, and its work-out queued', async () => {
    const m = await seedDemo(env.handle.db, { slug: `adv-expired-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
    const tenantDatabase = m.merchant.tenant_database;
    const tdb = bindTenant(env.handle.db, tenantDatabase);
    try {
      const d = m.devices[0]!;
      const staff = await tdb.selectFrom('staff_credentials').select('id').where('deleted_at', 'is', null).executeTakeFirstOrThrow();
      await tdb.updateTable('fdm_devices').set({ created_at: new Date(Date.now() - 20 * 3_600_000) }).where('location_id', '=', d.location_id).execute();
      // Signed in 13 hours ago: its 12 hours ran out an hour ago, nobody signed out.
      const { sessionId } = await openStaffSession(tdb, { staffId: staff.id, deviceId: d.id, locationId: d.location_id, now: new Date(Date.now() - 13 * 3_600_000) });
      const session = () => tdb.selectFrom('pos_staff_sessions').select(['ended_at', 'expires_at']).where('id', '=', sessionId).executeTakeFirstOrThrow();
      expect((await session()).ended_at).toBeNull();
      await sweepFiscalJournals(env.handle.db, { fiscal: testFiscal(env.log), redis: env.redis, olderThanMs: 0 }, env.log, tenantDatabase);
      // Before: never ended, so its work-out was never queued (and no sweep could find it).
      const s = await session();
      expect(s.ended_at).toEqual(s.expires_at);
      const kinds = await env.handle.db.selectFrom('outbox').select(sql<string>`payload->>'kind'`.as('kind')).where('job', '=', 'fiscal.work-event').where(sql<string>`payload->>'session_id'`, '=', sessionId).execute();
      expect(kinds.filter((k) => k.kind === 'work_out')).toHaveLength(1);
    } finally {
      await env.handle.db.deleteFrom('outbox').where(sql<string>`payload->>'tenant_database'`, '=', tenantDatabase).execute();
      await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: tenantDatabase });
    }
  });
});

