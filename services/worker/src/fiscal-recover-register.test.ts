/**
 * Fiscal recovery of the register's signed changes (DESIGN 2, Fiscal): a till movement, a refund
 * and a Z close made while their remote fiscal module is unreachable are kept (503; the movement
 * 200, unsigned) with a pending journal entry; recovery with `registerRecoveryHooks` then records
 * the late signature on them as the synchronous path would have, or, when the module refuses (wrong
 * shared secret), undoes them as the synchronous refusal does. Real PostgreSQL, the API driven
 * through its test harness, the FDM simulator over HTTP, and the worker's own `fiscal.recover`
 * handler (`createHandlers`).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger, systemClock } from '@pos/kernel';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { recoverPendingEntries } from '@pos/core/fiscal/recover-pending';
import { signedEventOf, type JournalRow } from '@pos/core/fiscal/journal-rows';
import { storedSignature } from '@pos/core/pos/signed-change/signed-change';
import { registerRecoveryHooks } from '@pos/core/pos/fiscal-recovery/recovery-hooks';
import type { FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { createTestApi, type TestApi } from '../../api/src/testing/harness.ts';
import { remoteFdm, type RemoteFdm } from '../../api/src/testing/remote-fdm.ts';
import { call, journalOf, line, sell, signIn, type Register } from '../../api/src/routes/pos-tills/register-test-support.ts';
import { createHandlers } from './jobs/index.ts';
import { devLogDriver } from './notifications/driver.ts';
import { testFiscal } from './test-support.ts';

const SECRET = 'register-recovery-secret';
const log = createLogger({ service: 'worker-test' }, 'error');

let seeding: TestApi;
let remote: RemoteFdm;
let api: TestApi;
let sim: FdmSimulator;
let fdmId: string;
let m: DemoSeedResult;
let manager: Register;

beforeAll(async () => {
  seeding = await createTestApi();
  m = await seeding.seed('register-recovery');
  remote = await remoteFdm(seeding.deps.db, m, SECRET);
  ({ api, sim, fdmId } = remote);
  manager = await signIn(api, m, 'manager');
});
afterAll(async () => {
  await remote?.close();
  await seeding?.close(); // drops the merchant
});

/** A recovery run with the register's hooks, through a module holding `secret`. */
const recoverWith = (secret: string) =>
  recoverPendingEntries(manager.tdb, testFiscal(log, remote.env(secret)), {
    olderThanMs: 0,
    hooks: registerRecoveryHooks(systemClock),
  });

/** The worker's `fiscal.recover` job for this merchant, as `createHandlers` wires it. */
async function runWorkerJob(): Promise<void> {
  const handlers = createHandlers({ fiscal: testFiscal(log, remote.env()), clock: systemClock, fiscalRecoverOlderThanMs: 0 });
  await handlers['fiscal.recover']({ tenant_database: m.merchant.tenant_database }, { db: api.deps.db, log, clock: systemClock, notifications: devLogDriver(log), jobId: 'test-register-recovery' });
}

/** `path` answered 503 `fiscal_unreachable` while the module is down (a till movement: 200, unsigned). */
async function duringOutage(method: string, path: string, body?: unknown): Promise<void> {
  sim.simulateOutage(1000);
  try {
    const kept = path.endsWith('/movements') ? { status: 200, body: { fiscal: {} } } : { status: 503, body: { reason: 'fiscal_unreachable' } };
    expect(await call(manager, method, path, body)).toMatchObject(kept);
  } finally {
    sim.simulateOutage(0);
  }
}

const json = (v: unknown): any => (typeof v === 'string' ? JSON.parse(v) : v);
const movementsOf = (tillId: string) => manager.tdb.selectFrom('pos_till_movements').selectAll().where('till_id', '=', tillId).execute();
const refundsOf = (transactionId: string) => manager.tdb.selectFrom('pos_refunds').selectAll().where('transaction_id', '=', transactionId).execute();
const refundLinesOf = (transactionId: string) => manager.tdb.selectFrom('pos_refund_lines').selectAll().where('transaction_id', '=', transactionId).execute();
const dayRow = () => manager.tdb.selectFrom('pos_business_days').selectAll().where('location_id', '=', m.locations[0]!.id).executeTakeFirstOrThrow();
const only = async (rows: Promise<JournalRow[]>): Promise<JournalRow> => {
  const all = await rows;
  expect(all).toHaveLength(1);
  return all[0]!;
};

async function openTill(): Promise<string> {
  const r = await call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 5000 });
  expect(r.status).toBe(200);
  return r.body.id as string;
}

async function closeTill(tillId: string, counted: number): Promise<void> {
  expect((await call(manager, 'POST', `/pos/tills/${tillId}/end`)).status).toBe(200);
  expect((await call(manager, 'POST', `/pos/tills/${tillId}/count`, { counted })).body).toMatchObject({ expected: counted, variance: 0 });
  expect((await call(manager, 'POST', `/pos/tills/${tillId}/close`)).body.till.state).toBe('closed');
}

// Before the Z closes below: after a day's Z, a signing fire is refused (409 business_day_closed).
describe('fiscal recovery of a fire (remote module)', () => {
  test('a fire while the module is unreachable stands (200) with a pending order entry; the fiscal.recover job signs it', async () => {
    const id = crypto.randomUUID();
    expect((await call(manager, 'PUT', `/pos/orders/${id}`, { lines: [line(manager, 'Espresso', 2)] })).status).toBe(200);
    sim.simulateOutage(1000);
    try {
      expect(await call(manager, 'POST', `/pos/orders/${id}/fire`)).toMatchObject({ status: 200, body: { fired: true, version: 2 } });
    } finally {
      sim.simulateOutage(0);
    }
    const pending = await only(journalOf(manager, 'pos_order_fire', id));
    expect([pending.event_kind, pending.status]).toEqual(['order', 'pending']);
    const signedBefore = sim.signedCount;
    await runWorkerJob();
    const signed = await only(journalOf(manager, 'pos_order_fire', id));
    expect([signed.id, signed.status, json(signed.sign_result).eventOperation, json(signed.sign_result).fdmRef.eventLabel]).toEqual([pending.id, 'signed', 'ORDER', 'N']);
    expect(sim.signedCount).toBe(signedBefore + 1);
  });
});

describe('fiscal recovery of till movements, refunds and Z closes (remote module)', () => {
  // Espresso x2 (560) + croissant (220) settled in cash while the module answers; its espresso
  // line is refunded during the outages.
  let sale: { id: string; transaction_id: string; body: any };
  let espresso: string;
  const failedEntries: JournalRow[] = [];

  test('a refusal undoes them: the movement and the refund (with its lines) are deleted, the day reopens', async () => {
    const till = await openTill();
    sale = await sell(manager, [line(manager, 'Espresso', 2), line(manager, 'Croissant')], { amount_tendered: 1000 });
    espresso = sale.body.lines[0].uuid as string;

    await duringOutage('POST', `/pos/tills/${till}/movements`, { type: 'paid_in', amount: 500, reason: 'float top-up' });
    await duringOutage('POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [espresso] });
    const [movement] = await movementsOf(till);
    const [refund] = await refundsOf(sale.transaction_id);
    expect(movement).toMatchObject({ type: 'paid_in', amount: 500, journal_id: null });
    expect(refund).toMatchObject({ amount: 560, fiscal: null });
    expect(await refundLinesOf(sale.transaction_id)).toHaveLength(1);
    expect((await journalOf(manager, 'pos_till_movement', movement!.id)).map((j) => j.status)).toEqual(['pending']);
    expect((await journalOf(manager, 'pos_refund', refund!.id)).map((j) => j.status)).toEqual(['pending']);

    const signedBefore = sim.signedCount;
    // A wrong shared secret: the module answers 401, a refusal (it counted nothing).
    expect(await recoverWith('not-the-module-secret')).toMatchObject({ signed: 0, failed: 2, pending: 0 });
    expect(sim.signedCount).toBe(signedBefore);
    expect(await movementsOf(till)).toHaveLength(0);
    expect(await refundsOf(sale.transaction_id)).toHaveLength(0);
    expect(await refundLinesOf(sale.transaction_id)).toHaveLength(0);
    failedEntries.push(await only(journalOf(manager, 'pos_till_movement', movement!.id)), await only(journalOf(manager, 'pos_refund', refund!.id)));
    expect(failedEntries.map((j) => j.status)).toEqual(['failed', 'failed']);

    // The till holds the float and the sale's cash only; the day can then be Z closed.
    await closeTill(till, 5780);
    await duringOutage('POST', '/pos/business-day/close', {});
    const closed = await dayRow();
    expect(closed).toMatchObject({ status: 'closed', z_report_no: 1, journal_id: null });
    expect(json(closed.z_report).fiscal).toBeUndefined();

    expect(await recoverWith('not-the-module-secret')).toMatchObject({ signed: 0, failed: 1, pending: 0 });
    expect(await dayRow()).toMatchObject({ status: 'open', closed_at: null, closed_by: null, z_report_no: null, z_report: null, journal_id: null });
    const zEntry = await only(journalOf(manager, 'pos_business_day', closed.id));
    expect(zEntry.status).toBe('failed');
    failedEntries.push(zEntry);

    // Nothing left to resend.
    expect(await recoverWith('not-the-module-secret')).toMatchObject({ signed: 0, failed: 0, pending: 0 });
    expect((await call(manager, 'GET', '/pos/business-day')).body).toMatchObject({ status: 'open', z_report_no: null });
  });

  test('the worker’s fiscal.recover job records the late signatures exactly as the synchronous path would have', async () => {
    // The refused refund freed its line: the same espresso is refunded again, now from a new till.
    const till = await openTill();
    await duringOutage('POST', `/pos/tills/${till}/movements`, { type: 'paid_in', amount: 500, reason: 'float top-up' });
    await duringOutage('POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [espresso] });
    const [movement] = await movementsOf(till);
    const [refund] = await refundsOf(sale.transaction_id);
    expect(movement!.journal_id).toBeNull();
    expect(refund!.fiscal).toBeNull();

    // While they wait for the module the till cannot be counted (a late refusal would change its
    // expected cash), nor the day Z closed.
    expect((await call(manager, 'POST', `/pos/tills/${till}/end`)).status).toBe(200);
    expect(await call(manager, 'POST', `/pos/tills/${till}/count`, { counted: 5000 + 500 - 560 })).toMatchObject({ status: 409, body: { reason: 'fiscal_pending' } });
    expect(await call(manager, 'POST', '/pos/business-day/close', {})).toMatchObject({ status: 409, body: { reason: 'open_tills' } });

    const signedBefore = sim.signedCount;
    await runWorkerJob();
    expect(sim.signedCount).toBe(signedBefore + 2);
    // The recovered movement and refund count in the till: float + paid in - refund.
    expect((await call(manager, 'POST', `/pos/tills/${till}/count`, { counted: 5000 + 500 - 560 })).body).toMatchObject({ expected: 5000 + 500 - 560, variance: 0 });
    expect((await call(manager, 'POST', `/pos/tills/${till}/close`)).body.till.state).toBe('closed');

    const movementEntry = await only(journalOf(manager, 'pos_till_movement', movement!.id));
    expect(movementEntry.status).toBe('signed');
    expect((await movementsOf(till))[0]).toMatchObject({ id: movement!.id, journal_id: movementEntry.id });

    const refundEntry = await only(journalOf(manager, 'pos_refund', refund!.id));
    expect(refundEntry.status).toBe('signed');
    const [signedRefund] = await refundsOf(sale.transaction_id);
    expect(json(signedRefund!.fiscal)).toEqual(storedSignature(signedEventOf(refundEntry)));
    expect(json(signedRefund!.fiscal)).toMatchObject({ fdm_id: fdmId, journal_id: refundEntry.id, digital_signature: json(refundEntry.sign_result).digitalSignature });
    expect(await refundLinesOf(sale.transaction_id)).toHaveLength(1);

    await duringOutage('POST', '/pos/business-day/close', {});
    const closed = await dayRow();
    expect(closed).toMatchObject({ status: 'closed', z_report_no: 1, journal_id: null });
    const unsigned = json(closed.z_report);
    expect(unsigned.fiscal).toBeUndefined();

    await runWorkerJob();
    expect(sim.signedCount).toBe(signedBefore + 3);
    const zEntries = await journalOf(manager, 'pos_business_day', closed.id);
    expect(zEntries.map((j) => j.status)).toEqual(['failed', 'signed']);
    const zEntry = zEntries[1]!;
    const sig = storedSignature(signedEventOf(zEntry));
    const day = await dayRow();
    expect(day).toMatchObject({ status: 'closed', z_report_no: 1, journal_id: zEntry.id });
    expect(json(day.z_report)).toEqual({
      ...unsigned,
      fiscal: { digital_signature: sig.digital_signature, fdm_id: fdmId, journal_id: zEntry.id, journal_seq: Number(zEntry.seq), fdm_ref: sig.fdm_ref },
    });
    expect((await call(manager, 'GET', '/pos/business-day')).body).toMatchObject({ status: 'closed', z_report_no: 1 });
  });

  test('running recovery and its hooks again changes nothing', async () => {
    const snapshot = async () => ({
      movements: await manager.tdb.selectFrom('pos_till_movements').selectAll().orderBy('id').execute(),
      refunds: await refundsOf(sale.transaction_id),
      lines: await refundLinesOf(sale.transaction_id),
      day: await dayRow(),
      journal: await manager.tdb.selectFrom('fiscal_journal').selectAll().orderBy('seq').execute(),
    });
    const before = await snapshot();
    const signedBefore = sim.signedCount;

    await runWorkerJob();
    expect(await recoverWith(SECRET)).toMatchObject({ signed: 0, failed: 0, pending: 0 });

    // Every hook replayed by hand, signed and refused alike: a late refusal of the first Z close
    // does not reopen the day a later close signed, and a signature is never written twice.
    const hooks = registerRecoveryHooks(systemClock);
    for (const row of before.journal) {
      if (row.status === 'signed') await hooks.onSigned!(manager.tdb, signedEventOf(row));
    }
    for (const row of failedEntries) {
      await hooks.onFailed!(manager.tdb, { journal_id: row.id, subject: { type: row.subject_type!, id: row.subject_id! }, error: json(row.sign_result) });
    }
    // Subjects that need nothing (X reports, work events) and unknown ones are harmless.
    for (const type of ['pos_x_report', 'pos_staff_session', 'something_else']) {
      await hooks.onFailed!(manager.tdb, { journal_id: crypto.randomUUID(), subject: { type, id: crypto.randomUUID() }, error: { code: 'X', message: 'x', status: 401 } });
    }
    await hooks.onFailed!(manager.tdb, { journal_id: crypto.randomUUID(), subject: null, error: { code: 'X', message: 'x', status: 401 } });

    expect(await snapshot()).toEqual(before);
    expect(sim.signedCount).toBe(signedBefore);
  });
});
