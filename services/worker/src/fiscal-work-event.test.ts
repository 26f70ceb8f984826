/**
 * Staff work events through the outbox (issue 10 item 4): pin-login and pin-logout write a
 * `fiscal.work-event` job in the transaction that opens or ends the session; the worker (relay,
 * queue, processor, handler) signs it through the signed-change step, once. A refusal of the fiscal
 * module is not swallowed: the job fails and is retried, and the retry signs it once the module
 * accepts. Real PostgreSQL and Redis, the API through its test harness, the FDM simulator over HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { startFdmSimulator, type FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { recoverPendingEntries } from '@pos/core/fiscal/index';
import { endStaffSession, openStaffSession } from '@pos/core/pos/staff/staff-session';
import { systemClock } from '@pos/kernel';
import { createFiscalWorkEventHandler } from './jobs/fiscal-work-event.handler.ts';
import type { JobContext } from './jobs/job-handler.ts';
import { createTestApi, TEST_ENV, type TestApi } from '../../api/src/testing/harness.ts';
import { startWorker, type RunningWorker } from './worker.ts';
import { dropPrefix, openTestEnv, testFiscal, testWorkerDeps, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

const SECRET = 'worker-work-event-secret';

let env: TestEnv;
let m: DemoSeedResult;
let tdb: TenantDb;
let fdmId: string;
let sim: FdmSimulator;
let api: TestApi;
let device: string;
const workers: RunningWorker[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  env = await openTestEnv();
  m = await seedDemo(env.handle.db, {
    slug: `worker-work-${crypto.randomUUID().slice(0, 8)}`,
    reset: false,
    apiKey: TEST_ENV.DEVICE_API_KEY,
    pinPepper: TEST_ENV.PIN_PEPPER,
  });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  // The seeded enrolment, switched to a remote module served by the simulator.
  const fdm = await tdb.selectFrom('fdm_devices').select('fdm_id').where('location_id', '=', m.devices[0]!.location_id).executeTakeFirstOrThrow();
  fdmId = fdm.fdm_id;
  await tdb.updateTable('fdm_devices').set({ mode: 'remote' }).where('fdm_id', '=', fdmId).execute();
  sim = startFdmSimulator({ port: 0, sharedSecret: SECRET, deviceId: fdmId });
  api = await createTestApi({ env: { FDM_REMOTE_URL: sim.url, FDM_REMOTE_SECRETS: JSON.stringify({ [fdmId]: SECRET }) } });
  device = await api.deviceToken(m, 'pos', 0);
});

afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
});

afterAll(async () => {
  await api?.close();
  await sim?.stop();
  if (m) await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  for (const p of prefixes) await dropPrefix(env.redis, p);
  await env.close();
});

/** A worker as `main.ts` runs it, reaching the module with `secret`, on the queues of `prefix`. */
async function startWith(secret: string, prefix: string): Promise<RunningWorker> {
  if (!prefixes.includes(prefix)) prefixes.push(prefix);
  const w = await startWorker({
    ...testWorkerDeps(env, prefix),
    fiscal: testFiscal(env.log, { FDM_REMOTE_URL: sim.url, FDM_REMOTE_SECRETS: JSON.stringify({ [fdmId]: secret }) }),
    fiscalRecoverMs: 0,
  });
  workers.push(w);
  return w;
}

const entriesOf = (sessionId: string) =>
  tdb
    .selectFrom('fiscal_journal')
    .select(['event_kind', 'status', 'subject_id'])
    .where('subject_type', '=', 'pos_staff_session')
    .where('subject_id', 'like', `${sessionId}:%`)
    .orderBy('seq')
    .execute();

/** Work events of a session with their journal order (`seq`), for the ordering checks. */
const orderedEntriesOf = (sessionId: string) =>
  tdb
    .selectFrom('fiscal_journal')
    .select(['event_kind', 'status', 'seq'])
    .where('subject_type', '=', 'pos_staff_session')
    .where('subject_id', 'like', `${sessionId}:%`)
    .orderBy('seq')
    .execute();

/** A staff session opened and closed as pin-login and pin-logout do (their jobs stay in the outbox: no worker runs); its two jobs' payloads. */
async function loginLogout() {
  const staff = await tdb.selectFrom('staff_credentials').select('id').where('deleted_at', 'is', null).executeTakeFirstOrThrow();
  const d = m.devices[0]!;
  const s = { staff_id: staff.id, device_id: d.id, location_id: d.location_id };
  const { sessionId } = await openStaffSession(tdb, { staffId: s.staff_id, deviceId: s.device_id, locationId: s.location_id, now: new Date() });
  await endStaffSession(tdb, sessionId, new Date());
  const payload = (kind: 'work_in' | 'work_out') => ({ tenant_database: m.merchant.tenant_database, kind, session_id: sessionId, ...s });
  return { id: sessionId, workIn: payload('work_in'), workOut: payload('work_out') };
}

/** The `fiscal.work-event` handler as the worker runs it, called directly (the job's order is the test's). */
function directHandler() {
  const handle = createFiscalWorkEventHandler(testFiscal(env.log, { FDM_REMOTE_URL: sim.url, FDM_REMOTE_SECRETS: JSON.stringify({ [fdmId]: SECRET }) }));
  const ctx = { db: env.handle.db, log: env.log, clock: systemClock, notifications: undefined as never, jobId: 'direct' } satisfies JobContext;
  return (p: Parameters<typeof handle>[0]) => handle(p, ctx);
}

const latestSession = () => tdb.selectFrom('pos_staff_sessions').select('id').orderBy('created_at', 'desc').executeTakeFirstOrThrow();

describe('fiscal.work-event in the worker', () => {
  test('pin-login and pin-logout are signed by the worker through the outbox, once each', async () => {
    const w = await startWith(SECRET, uniquePrefix());
    const signedBefore = sim.signedCount;
    const staff = await api.staffLogin(m, 'cashier', device);
    const { id } = await latestSession();
    expect((await api.call('POST', '/api/pos/staff/pin-logout', { token: device, deviceKey: true, staffToken: staff })).status).toBe(200);

    const entries = await waitFor(async () => {
      const rows = await entriesOf(id);
      return rows.length === 2 && rows.every((r) => r.status === 'signed') ? rows : undefined;
    }, 15_000, 'work-in and work-out signed by the worker');
    expect(entries).toEqual([
      { event_kind: 'work_in', status: 'signed', subject_id: `${id}:work_in` },
      { event_kind: 'work_out', status: 'signed', subject_id: `${id}:work_out` },
    ]);
    await waitFor(async () => ((await w.metrics.processedCount('fiscal.work-event')) >= 2 ? true : undefined), 5_000, 'both jobs processed');
    expect(sim.signedCount).toBe(signedBefore + 2);
  });

  test('a refusal fails the job instead of being swallowed; its retry signs the event once the module accepts', async () => {
    const prefix = uniquePrefix();
    const refusing = await startWith('not-the-shared-secret', prefix);
    await api.staffLogin(m, 'cashier', device);
    const { id } = await latestSession();

    await waitFor(async () => ((await refusing.metrics.failedCount('fiscal.work-event')) >= 1 ? true : undefined), 15_000, 'the refused job counted as failed');
    expect(await entriesOf(id)).toEqual([{ event_kind: 'work_in', status: 'failed', subject_id: `${id}:work_in` }]);
    await refusing.stop();
    workers.splice(workers.indexOf(refusing), 1);

    // Same queues, a worker that reaches the module: the job's retry (backoff) signs it.
    const signedBefore = sim.signedCount;
    await startWith(SECRET, prefix);
    const entries = await waitFor(async () => {
      const rows = await entriesOf(id);
      return rows.some((r) => r.status === 'signed') ? rows : undefined;
    }, 20_000, 'the retried work-in signed');
    // The refused attempt(s) stay in the journal as failed (the module counted nothing); one signature.
    expect(entries.at(-1)).toEqual({ event_kind: 'work_in', status: 'signed', subject_id: `${id}:work_in` });
    expect(entries.slice(0, -1).length).toBeGreaterThanOrEqual(1);
    expect(entries.slice(0, -1).every((e) => e.status === 'failed')).toBe(true);
    expect(sim.signedCount).toBe(signedBefore + 1);
  });

  describe('a session\'s work-in is signed before its work-out, whatever order the jobs run in', () => {
    test('the work-out job run first signs the work-in, then the work-out; the work-in job then signs nothing', async () => {
      const run = directHandler();
      const { id, workIn, workOut } = await loginLogout();
      const signedBefore = sim.signedCount;

      await run(workOut);
      const afterOut = await orderedEntriesOf(id);
      expect(afterOut.map((r) => [r.event_kind, r.status])).toEqual([
        ['work_in', 'signed'],
        ['work_out', 'signed'],
      ]);
      expect(Number(afterOut[0]!.seq)).toBeLessThan(Number(afterOut[1]!.seq));

      await run(workIn);
      await run(workOut);
      expect(await orderedEntriesOf(id)).toEqual(afterOut);
      expect(sim.signedCount).toBe(signedBefore + 2);
    });

    test('both jobs run at once (and twice each), many times: one work-in, then one work-out, per session', async () => {
      const run = directHandler();
      for (let i = 0; i < 8; i++) {
        const { id, workIn, workOut } = await loginLogout();
        const signedBefore = sim.signedCount;
        const jobs = i % 2 === 0 ? [workOut, workIn, workOut, workIn] : [workIn, workOut, workIn, workOut];
        await Promise.all(jobs.map((p) => run(p)));
        const rows = await orderedEntriesOf(id);
        expect(rows.map((r) => [r.event_kind, r.status])).toEqual([
          ['work_in', 'signed'],
          ['work_out', 'signed'],
        ]);
        expect(Number(rows[0]!.seq)).toBeLessThan(Number(rows[1]!.seq));
        expect(sim.signedCount).toBe(signedBefore + 2);
      }
    });

    test('a work-in still pending with the module: the work-out is journaled pending behind it, not sent; recovery signs both in order', async () => {
      const run = directHandler();
      const { id, workIn, workOut } = await loginLogout();
      const signedBefore = sim.signedCount;
      sim.simulateOutage(1);
      await run(workIn);
      expect((await orderedEntriesOf(id)).map((r) => [r.event_kind, r.status])).toEqual([['work_in', 'pending']]);

      // The work-out job sends the pending work-in again first; the module is still away, and the
      // work-out must not reach it before the work-in: reserved behind it, not sent.
      sim.simulateOutage(1);
      await run(workOut);
      expect((await orderedEntriesOf(id)).map((r) => [r.event_kind, r.status])).toEqual([
        ['work_in', 'pending'],
        ['work_out', 'pending'],
      ]);
      expect(sim.signedCount).toBe(signedBefore);

      await recoverPendingEntries(tdb, testFiscal(env.log, { FDM_REMOTE_URL: sim.url, FDM_REMOTE_SECRETS: JSON.stringify({ [fdmId]: SECRET }) }), { olderThanMs: -1000 });
      const rows = await orderedEntriesOf(id);
      expect(rows.map((r) => [r.event_kind, r.status])).toEqual([
        ['work_in', 'signed'],
        ['work_out', 'signed'],
      ]);
      expect(Number(rows[0]!.seq)).toBeLessThan(Number(rows[1]!.seq));
      expect(sim.signedCount).toBe(signedBefore + 2);
    });

    test('a work-in left pending: the work-out job, the module back, sends the work-in first, then signs the work-out', async () => {
      const run = directHandler();
      const { id, workIn, workOut } = await loginLogout();
      const signedBefore = sim.signedCount;
      sim.simulateOutage(1);
      await run(workIn);
      await run(workOut);
      const rows = await orderedEntriesOf(id);
      expect(rows.map((r) => [r.event_kind, r.status])).toEqual([
        ['work_in', 'signed'],
        ['work_out', 'signed'],
      ]);
      expect(Number(rows[0]!.seq)).toBeLessThan(Number(rows[1]!.seq));
      expect(sim.signedCount).toBe(signedBefore + 2);
    });
  });
});
