import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createQueue, QUEUES } from '@pos/kernel';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let admin: string;
const P = '/api/back-office/async-monitoring';
const counts = async () => {
  const r = await api.call('GET', P, { token: admin });
  expect(r.status).toBe(200);
  return Object.fromEntries((r.body.data as { queue: string; waiting: number; failed: number }[]).map((q) => [q.queue, q]));
};

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('mon-a');
  await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('email', '=', a.backoffice.email).execute();
  admin = await api.ownerToken(a);
}, 60_000);
afterAll(() => api.close());

test('counts, summary and job list come from bee-queue, across tenants, for global admins only', async () => {
  const redisUrl = api.deps.config.REDIS_URL!;
  const c0 = await counts();
  expect(Object.keys(c0).sort()).toEqual(Object.values(QUEUES).sort());

  // Three waiting jobs on the notifications queue (no worker here): two of merchant a, one central.
  const producer = createQueue(QUEUES.notifications, redisUrl);
  await producer.ready();
  const envelope = (payload: Record<string, unknown>) => ({ job: 'test.monitoring', version: 1, payload, enqueued_at: new Date().toISOString() });
  const waiting: string[] = [];
  for (const p of [{ merchant_id: a.merchant.id }, { merchant_id: a.merchant.id }, {}]) waiting.push((await producer.createJob(envelope(p)).save()).id);
  // One failed job on the system queue: a worker whose handler throws.
  const worker = createQueue(QUEUES.system, redisUrl, { isWorker: true });
  const sysProducer = createQueue(QUEUES.system, redisUrl);
  await Promise.all([worker.ready(), sysProducer.ready()]);
  const failedOnce = new Promise<void>((resolve) => worker.on('failed', () => resolve()));
  worker.process(async () => {
    throw new Error('handler exploded\n    at somewhere');
  });
  const failedId = (await sysProducer.createJob(envelope({ merchant_id: a.merchant.id })).save()).id;
  await failedOnce;
  await worker.close();

  const c1 = await counts();
  expect(c1[QUEUES.notifications]!.waiting).toBe(c0[QUEUES.notifications]!.waiting + 3);
  expect(c1[QUEUES.system]!.failed).toBe(c0[QUEUES.system]!.failed + 1);

  const summary = await api.call('GET', `${P}/summary`, { token: admin });
  expect(summary.status).toBe(200);
  const mine = summary.body.data.by_tenant.find((t: { tenant: string }) => t.tenant === a.merchant.id);
  expect(mine).toEqual({ tenant: a.merchant.id, pending: 2, failed: 1 });
  expect(summary.body.data.totals.waiting).toBeGreaterThanOrEqual(3);

  const list = await api.call('GET', `${P}/queue?limit=1000`, { token: admin });
  expect(list.status).toBe(200);
  const rows = list.body.data as { queue: string; id: string; state: string; tenant: string; job: string; error: string | null }[];
  const failed = rows.find((r) => r.queue === QUEUES.system && r.id === failedId)!;
  expect(failed).toMatchObject({ state: 'failed', tenant: a.merchant.id, job: 'test.monitoring', error: 'Error: handler exploded' });
  const pending = rows.filter((r) => r.queue === QUEUES.notifications && waiting.includes(r.id));
  expect(pending.map((r) => [r.state, r.tenant]).sort()).toEqual([['waiting', 'central'], ['waiting', a.merchant.id], ['waiting', a.merchant.id]].sort());
  expect((await api.call('GET', `${P}/queue?limit=1`, { token: admin })).body.data).toHaveLength(1);
  expect((await api.call('GET', `${P}/queue?limit=0`, { token: admin })).status).toBe(422);
  expect((await api.call('GET', `${P}/queue?limit=1001`, { token: admin })).status).toBe(422);

  // Drain what this test queued.
  await producer.removeJob(waiting[0]!);
  for (const id of waiting) await producer.removeJob(id);
  await sysProducer.removeJob(failedId);
  await Promise.all([producer.close(), sysProducer.close()]);

  const member = await limitedUserToken(api, a, [], []);
  for (const path of ['', '/summary', '/queue']) {
    expect(await api.call('GET', `${P}${path}`, { token: member })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
  }
  expect((await api.call('GET', P)).status).toBe(401);
}, 60_000);
