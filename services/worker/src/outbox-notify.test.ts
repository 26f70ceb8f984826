import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { enqueueOutbox } from '@pos/db';
import { heartbeatJob, jobMessage } from '@pos/kernel/queues/index';
import { startWorker, type RunningWorker } from './worker.ts';
import { dropPrefix, openTestEnv, TEST_REDIS_URL, testFiscal, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * The relay is woken by `NOTIFY outbox_pending` at the commit of a transaction that wrote outbox rows
 * (issue 12 item 10): with a poll interval of a minute, a row is still relayed and run at once, and
 * after the listening connection is killed the relay listens again and is woken again.
 */
let env: TestEnv;
let worker: RunningWorker;
const prefix = uniquePrefix();

beforeAll(async () => {
  env = await openTestEnv();
  worker = await startWorker({ db: env.handle.db, redis: env.redis, redisUrl: TEST_REDIS_URL, log: env.log, prefix, heartbeatMs: 3_600_000, fiscal: testFiscal(env.log), fiscalRecoverMs: 0, relayIntervalMs: 60_000 });
  await waitFor(() => worker.relay.listening, 5000, 'relay listening');
});
afterAll(async () => {
  await worker.stop();
  await dropPrefix(env.redis, prefix);
  await env.close();
});

const beatOf = (service: string) => env.handle.db.selectFrom('heartbeats').select('service').where('service', '=', service).executeTakeFirst();

async function relayedWithin(ms: number): Promise<string> {
  const service = `notify-${crypto.randomUUID()}`;
  // A transaction like a capture's: the notification goes out at its commit, not before.
  await env.handle.db.transaction().execute(async (tx) => {
    await enqueueOutbox(tx, jobMessage(heartbeatJob, { service, at: new Date().toISOString() }));
    await Bun.sleep(100);
    expect(await beatOf(service)).toBeUndefined();
  });
  await waitFor(() => beatOf(service), ms, 'heartbeat woken by NOTIFY');
  return service;
}

test('a committed outbox row is relayed at once although the poll is a minute away', async () => {
  // The start-up poll is long done; only the notification can wake the relay now.
  await Bun.sleep(200);
  await relayedWithin(10_000);
  await relayedWithin(10_000);
}, 30_000);

test('after its connection is killed the listener reconnects and the relay is woken again', async () => {
  const killed = await sql<{ n: number }>`select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = 'outbox-listener' and datname = current_database()`.execute(env.handle.db);
  expect(killed.rows[0]!.n).toBeGreaterThanOrEqual(1);
  await waitFor(() => !worker.relay.listening, 5000, 'listener down');
  await waitFor(() => worker.relay.listening, 10_000, 'listener back');
  await relayedWithin(10_000);
}, 30_000);
