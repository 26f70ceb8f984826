import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { verifyJournal, type ReportXTurnoverEvent, type ReportXUserEvent, type ReportZEvent } from '@pos/fiscal';
import { exportJournal } from '@pos/core/fiscal/export-journal';
import { toJournalEntry } from '@pos/core/fiscal/journal-rows';
import { ManualClock, systemClock } from '@pos/kernel';
import { recoverPendingEntries } from '@pos/core/fiscal/recover-pending';
import { registerRecoveryHooks } from '@pos/core/pos/fiscal-recovery/recovery-hooks';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { remoteFdm, type RemoteFdm } from '../../testing/remote-fdm.ts';
import { call, escalate, journalOf, line, sell, signIn, type Register } from '../pos-tills/register-test-support.ts';

const FORBIDDEN = { message: 'Unauthorized: Insufficient permissions' };
const CLOSED = 'The business day is closed (its Z report is done). New sales, refunds and till activity start with the next business day at local midnight.';

let api: TestApi;
let clock: ManualClock;
let cashier: Register;
let manager: Register;
let locationId: string;

beforeAll(async () => {
  // 10:00 in Brussels on 2026-11-20.
  clock = new ManualClock(new Date('2026-11-20T09:00:00.000Z'));
  api = await createTestApi({ clock });
  const m = await api.seed('business-day');
  cashier = await signIn(api, m, 'cashier', 0);
  manager = await signIn(api, m, 'manager', 0);
  locationId = m.locations[0]!.id;
});
afterAll(() => api.close());

const peek = (r: Register = cashier) => call(r, 'GET', '/pos/business-day');
const order780 = (r: Register) => [line(r, 'Espresso', 2), line(r, 'Croissant')];
const rows = (label: string, amount: number, count: number) => ({ label, amount, count });

/** The exact X (and Z) report of 2026-11-20, decimal major units. */
const TURNOVER_DAY1 = {
  sales_count: 4,
  refunds_count: 1,
  gross: 30.13,
  refunds: 5.6,
  net: 24.53,
  by_vat_rate: [
    { rate: 21, net: 8.35, vat: 1.75, gross: 10.1 },
    { rate: 6, net: 13.62, vat: 0.81, gross: 14.43 },
  ],
  by_tender: [rows('Cash', 12.23, 2), rows('Card', 4.5, 1), rows('Meal voucher', 5, 1), rows('Gift voucher', 2.8, 1), rows('Unknown', 0, 0)],
};
let cashierId: string;
let managerId: string;
const usersDay1 = () => [
  {
    staff_id: cashierId,
    name: 'Carl Cashier',
    sales_count: 2,
    refunds_count: 0,
    gross: 15.6,
    refunds: 0,
    net: 15.6,
    by_tender: [rows('Cash', 7.8, 1), rows('Card', 0, 0), rows('Meal voucher', 5, 1), rows('Gift voucher', 2.8, 1), rows('Unknown', 0, 0)],
  },
  {
    staff_id: managerId,
    name: 'Marie Manager',
    sales_count: 2,
    refunds_count: 1,
    gross: 14.53,
    refunds: 5.6,
    net: 8.93,
    by_tender: [rows('Cash', 4.43, 1), rows('Card', 4.5, 1), rows('Meal voucher', 0, 0), rows('Gift voucher', 0, 0), rows('Unknown', 0, 0)],
  },
];

describe('the fiscal business day', () => {
  let till: any;
  let firstSale: { id: string; transaction_id: string; body: any };

  test('the peek before any booking: today, open, nothing created', async () => {
    const staff = await cashier.tdb.selectFrom('staff_credentials').select(['id', 'role']).execute();
    cashierId = staff.find((s) => s.role === 'cashier')!.id;
    managerId = staff.find((s) => s.role === 'manager')!.id;
    const r = await peek();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ business_date: '2026-11-20', status: 'open', location_id: locationId, opened_at: null, closed_at: null, sales_count: 0, open_tills: 0, z_report_no: null });
    expect(await cashier.tdb.selectFrom('pos_business_days').select('id').execute()).toHaveLength(0);
  });

  test('X report: exact decimal major units over the day of cash, card and voucher sales and a refund; signed as two report events', async () => {
    till = (await call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 5000 })).body;
    clock.advance(60_000);
    firstSale = await sell(cashier, order780(cashier), { amount_tendered: 1000 });
    await sell(manager, [line(manager, 'Belgian beer')], { tenders: [{ method: 'card', funding: 'debit' }] });
    await sell(cashier, order780(cashier), { tenders: [{ method: 'meal_voucher', amount: 500 }, { method: 'gift_voucher' }] });
    await sell(manager, [line(manager, 'Croissant', 1, { unit_price: 1003, price_source: 'open_price' })], { amount_tendered: 2000 });
    const espresso = firstSale.body.lines[0].uuid as string;
    expect((await call(manager, 'POST', '/pos/refunds', { transaction_id: firstSale.transaction_id, mode: 'partial', line_uuids: [espresso] })).body.refund.amount).toBe(560);

    const x = await call(cashier, 'GET', '/pos/business-day/x-report');
    expect(x.status).toBe(200);
    expect(x.body).toEqual({ turnover_x: TURNOVER_DAY1, user_x: usersDay1() });

    // Each print is signed: the turnover, then the users, in cents.
    const prints = await cashier.tdb.selectFrom('fiscal_journal').selectAll().where('subject_type', '=', 'pos_x_report').orderBy('seq').execute();
    expect(prints.map((p) => [p.event_kind, p.status])).toEqual([
      ['report_x_turnover', 'signed'],
      ['report_x_user', 'signed'],
    ]);
    const turnover = {
      saleCount: 4,
      refundCount: 1,
      sales: 3013,
      refunds: -560,
      total: 2453,
      vats: [
        { label: 'A', taxableAmount: 835, vatAmount: 175, totalAmount: 1010 },
        { label: 'C', taxableAmount: 1362, vatAmount: 81, totalAmount: 1443 },
      ],
      payments: [
        { type: 'CASH', amountType: 'PAYMENT', amount: 1225 },
        { type: 'CASH', amountType: 'ROUNDING', amount: -2 },
        { type: 'CARD_DEBIT', amountType: 'PAYMENT', amount: 450 },
        { type: 'CHEQUE_MEAL', amountType: 'PAYMENT', amount: 500 },
        { type: 'VOUCHER_STORE', amountType: 'PAYMENT', amount: 280 },
      ],
    };
    const xt = JSON.parse(prints[0]!.payload) as ReportXTurnoverEvent;
    expect(xt).toMatchObject({ kind: 'report_x_turnover', bookingDate: '2026-11-20', employeeId: cashierId, turnover });
    const xu = JSON.parse(prints[1]!.payload) as ReportXUserEvent;
    expect(xu.users.map((u) => [u.employeeId, u.turnover.total, u.turnover.saleCount, u.turnover.refundCount])).toEqual([
      [cashierId, 1560, 2, 0],
      [managerId, 893, 2, 1],
    ]);
    expect(JSON.parse(prints[0]!.sign_result!).fdmRef.eventLabel).toBe('R');

    const day = await peek();
    expect(day.body).toEqual({
      business_date: '2026-11-20',
      status: 'open',
      location_id: locationId,
      opened_at: '2026-11-20T09:00:00.000Z',
      closed_at: null,
      sales_count: 4,
      open_tills: 1,
      z_report_no: null,
    });
  });

  test('Z close: refused while a till of the day is open; needs close_business_day; numbered 1; the day is closed to new bookings', async () => {
    const refused = await call(cashier, 'POST', '/pos/business-day/close');
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: 'Tills of this business day are not closed yet: end, count and close them before the Z close.', reason: 'open_tills', tills: [till] });

    expect((await call(manager, 'POST', `/pos/tills/${till.id}/end`)).status).toBe(200);
    // 5000 float + 780 + 1005 cash kept - 560 refunded.
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/count`, { counted: 6225 })).body).toMatchObject({ expected: 6225, variance: 0 });
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/close`)).body.till.state).toBe('closed');

    expect(await call(cashier, 'POST', '/pos/business-day/close', {})).toMatchObject({ status: 403, body: FORBIDDEN });
    // An order fired before the Z and left open (voided after it, below).
    const firedBefore = crypto.randomUUID();
    expect((await call(cashier, 'PUT', `/pos/orders/${firedBefore}`, { lines: [line(cashier, 'Espresso')] })).status).toBe(200);
    expect((await call(cashier, 'POST', `/pos/orders/${firedBefore}/fire`)).status).toBe(200);
    // A receipt printer at the location (issue 15): the Z report prints on it.
    const printerId = crypto.randomUUID();
    await cashier.tdb.insertInto('printers').values({ id: printerId, location_id: locationId, mac: '00:11:62:2E:00:01', state: 'paired', name: 'Counter', last_reported_at: new Date(), created_at: new Date(), updated_at: new Date() }).execute();
    clock.advance(3600_000);
    const z = await call(cashier, 'POST', '/pos/business-day/close', { approval_token: await escalate(cashier, 'close_business_day') });
    expect(z.status).toBe(200);
    const printed = await cashier.tdb.selectFrom('print_jobs').select(['kind', 'source_key', 'document']).where('printer_id', '=', printerId).execute();
    expect(printed.map((j) => [j.kind, j.source_key])).toEqual([['report', `z:${locationId}:2026-11-20`]]);
    expect(printed[0]!.document).toContain('Z report 1');
    expect(printed[0]!.document).toContain('Business date                         2026-11-20');
    expect(printed[0]!.document).toContain('Net                                        24.53');
    expect(printed[0]!.document).toContain('Meal voucher (1)                            5.00');
    expect(printed[0]!.document).toContain('Marie Manager');
    await cashier.tdb.deleteFrom('printers').where('id', '=', printerId).execute();
    expect(z.body).toEqual({
      business_date: '2026-11-20',
      status: 'closed',
      location_id: locationId,
      opened_at: '2026-11-20T09:00:00.000Z',
      closed_at: '2026-11-20T10:01:00.000Z',
      sales_count: 4,
      open_tills: 0,
      z_report_no: 1,
      z_report: {
        report_number: 1,
        business_date: '2026-11-20',
        turnover_z: TURNOVER_DAY1,
        user_z: usersDay1(),
        fiscal: { digital_signature: expect.any(String), fdm_id: expect.any(String), journal_id: expect.any(String), journal_seq: expect.any(Number), fdm_ref: expect.objectContaining({ eventLabel: 'R' }) },
      },
    });

    const stored = await cashier.tdb.selectFrom('pos_business_days').selectAll().executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ business_date: '2026-11-20', status: 'closed', z_report_no: 1, closed_by: cashierId, journal_id: z.body.z_report.fiscal.journal_id });
    expect(stored.z_report).toEqual(JSON.parse(JSON.stringify(z.body.z_report)));
    const [entry] = await journalOf(cashier, 'pos_business_day', stored.id);
    const event = JSON.parse(entry!.payload) as ReportZEvent;
    const posDevices = cashier.m.devices.filter((d) => d.type === 'pos').map((d) => d.id).sort();
    expect(event).toMatchObject({ kind: 'report_z', reportNo: 1, reportBookingDate: '2026-11-20', bookingDate: '2026-11-20', bookingPeriodId: stored.id, posDevices, fdmDevices: [entry!.fdm_id] });
    expect(event.turnover).toMatchObject({ saleCount: 4, refundCount: 1, sales: 3013, refunds: -560, total: 2453 });

    // A second close of the same day.
    expect(await call(manager, 'POST', '/pos/business-day/close')).toMatchObject({
      status: 409,
      body: { message: 'This business day is already closed: the next one starts at local midnight.', reason: 'already_closed', business_date: '2026-11-20' },
    });
    // Until local midnight, nothing more is booked on the closed date: sales, refunds, tills.
    const id = crypto.randomUUID();
    expect((await call(cashier, 'PUT', `/pos/orders/${id}`, { lines: [line(cashier, 'Espresso')] })).status).toBe(200);
    expect(await call(cashier, 'POST', `/pos/orders/${id}/settle`, { amount_tendered: 280 })).toMatchObject({ status: 409, body: { message: CLOSED, reason: 'business_day_closed', business_date: '2026-11-20' } });
    expect((await call(cashier, 'GET', `/pos/orders/${id}`)).body).toMatchObject({ state: 'OPEN', fiscal: {} });
    // No fiscal event either: a fire (its order event) and an X print (two report events) would sign into
    // the period the Z closed. Before: both 200, signed after the Z with the closed day's booking period.
    const journalBefore = await cashier.tdb.selectFrom('fiscal_journal').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    expect(await call(cashier, 'POST', `/pos/orders/${id}/fire`)).toMatchObject({ status: 409, body: { message: CLOSED, reason: 'business_day_closed', business_date: '2026-11-20' } });
    expect((await call(cashier, 'GET', `/pos/orders/${id}`)).body).toMatchObject({ state: 'OPEN', fired: false });
    expect(await call(cashier, 'GET', '/pos/business-day/x-report')).toMatchObject({ status: 409, body: { reason: 'business_day_closed', business_date: '2026-11-20' } });
    // A void of the fired order signs a correction: refused too, and the manager's approval it took is
    // given back (the same token is refused for the closed day again, not 403 as a spent one would be).
    const approval = await escalate(cashier, 'void_order');
    for (let i = 0; i < 2; i++) expect(await call(cashier, 'POST', `/pos/orders/${firedBefore}/void`, { reason: 'after the Z', approval_token: approval })).toMatchObject({ status: 409, body: { reason: 'business_day_closed' } });
    expect(await cashier.tdb.selectFrom('fiscal_journal').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).toEqual(journalBefore);
    expect(await call(manager, 'POST', '/pos/refunds', { transaction_id: firstSale.transaction_id, mode: 'full' })).toMatchObject({ status: 409, body: { reason: 'business_day_closed' } });
    expect(await call(manager, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0 })).toMatchObject({ status: 409, body: { reason: 'business_day_closed' } });
    expect((await peek()).body).toMatchObject({ business_date: '2026-11-20', status: 'closed', z_report_no: 1, sales_count: 4, open_tills: 0 });
  });

  test('the next business day starts at local midnight; its Z is number 2', async () => {
    clock.set(new Date('2026-11-20T23:30:00.000Z')); // 00:30 on the 21st in Brussels
    // Staff sessions last 12 hours: sign in again.
    cashier = await signIn(api, cashier.m, 'cashier', 0);
    manager = await signIn(api, cashier.m, 'manager', 0);
    expect((await peek()).body).toEqual({ business_date: '2026-11-21', status: 'open', location_id: locationId, opened_at: null, closed_at: null, sales_count: 0, open_tills: 0, z_report_no: null });
    await sell(cashier, [line(cashier, 'Espresso')], { tenders: [{ method: 'card', funding: 'credit', issuer: 'Visa' }] });
    const z = await call(manager, 'POST', '/pos/business-day/close');
    expect(z.status).toBe(200);
    expect(z.body).toMatchObject({ business_date: '2026-11-21', status: 'closed', sales_count: 1, z_report_no: 2, z_report: { report_number: 2, turnover_z: { sales_count: 1, gross: 2.8, net: 2.8 } } });
    const tx = await cashier.tdb.selectFrom('pos_transactions').select('business_date').orderBy('created_at', 'desc').limit(1).executeTakeFirstOrThrow();
    expect(tx.business_date).toBe('2026-11-21');
  });

  test('a forgotten Z is closed first: the oldest open day, then today', async () => {
    clock.set(new Date('2026-11-22T10:00:00.000Z'));
    manager = await signIn(api, cashier.m, 'manager', 0);
    await sell(manager, [line(manager, 'Croissant')], { tenders: [{ method: 'card', funding: 'debit' }] });
    clock.set(new Date('2026-11-23T10:00:00.000Z'));
    manager = await signIn(api, cashier.m, 'manager', 0);
    await sell(manager, [line(manager, 'Belgian beer')], { tenders: [{ method: 'card', funding: 'debit' }] });
    expect((await peek(manager)).body).toMatchObject({ business_date: '2026-11-22', status: 'open', sales_count: 1 });
    expect((await call(manager, 'GET', '/pos/business-day/x-report')).body.turnover_x).toMatchObject({ sales_count: 1, gross: 2.2 });
    expect((await call(manager, 'POST', '/pos/business-day/close')).body).toMatchObject({ business_date: '2026-11-22', z_report_no: 3, z_report: { turnover_z: { sales_count: 1, gross: 2.2 } } });
    expect((await peek(manager)).body).toMatchObject({ business_date: '2026-11-23', status: 'open', sales_count: 1 });
    expect((await call(manager, 'POST', '/pos/business-day/close')).body).toMatchObject({ business_date: '2026-11-23', z_report_no: 4, z_report: { turnover_z: { sales_count: 1, gross: 4.5 } } });
    const days = await cashier.tdb.selectFrom('pos_business_days').select(['business_date', 'status', 'z_report_no']).orderBy('business_date').execute();
    expect(days).toEqual([
      { business_date: '2026-11-20', status: 'closed', z_report_no: 1 },
      { business_date: '2026-11-21', status: 'closed', z_report_no: 2 },
      { business_date: '2026-11-22', status: 'closed', z_report_no: 3 },
      { business_date: '2026-11-23', status: 'closed', z_report_no: 4 },
    ]);
  });

  test('every signed event is in the journal, in chain order, and the journal verifies', async () => {
    const all = await cashier.tdb.selectFrom('fiscal_journal').selectAll().orderBy('seq').execute();
    expect(all.map((r) => Number(r.seq))).toEqual(all.map((_, i) => i + 1));
    expect(new Set(all.map((r) => r.fdm_id)).size).toBe(1);
    const booked = all.filter((r) => r.event_kind !== 'work_in' && r.event_kind !== 'work_out');
    expect(booked.map((r) => r.event_kind)).toEqual([
      ...['sale', 'sale', 'sale', 'sale', 'refund', 'report_x_turnover', 'report_x_user', 'order', 'report_z'],
      ...['sale', 'report_z'],
      ...['sale', 'sale', 'report_x_turnover', 'report_x_user', 'report_z', 'report_z'],
    ]);
    expect(all.every((r) => r.status === 'signed')).toBe(true);
    const zs = booked.filter((r) => r.event_kind === 'report_z').map((r) => JSON.parse(r.payload) as ReportZEvent);
    expect(zs.map((z) => [z.reportNo, z.reportBookingDate])).toEqual([
      [1, '2026-11-20'],
      [2, '2026-11-21'],
      [3, '2026-11-22'],
      [4, '2026-11-23'],
    ]);

    // Every signed record points at its entry.
    const ids = new Set(all.map((r) => r.id));
    const sales = await cashier.tdb.selectFrom('pos_transactions').select('fiscal').execute();
    const refunds = await cashier.tdb.selectFrom('pos_refunds').select('fiscal').execute();
    const days = await cashier.tdb.selectFrom('pos_business_days').select('journal_id').execute();
    for (const f of [...sales, ...refunds]) expect(ids.has((f.fiscal as { journal_id: string }).journal_id)).toBe(true);
    for (const d of days) expect(ids.has(d.journal_id!)).toBe(true);

    const fdmId = all[0]!.fdm_id;
    expect(verifyJournal(all.map(toJournalEntry), { publicKey: api.deps.fiscal.publicKeyFor(fdmId) })).toEqual({ ok: true, count: all.length, pending: 0 });
    const [exported] = await exportJournal(cashier.tdb, { locationId }, api.deps.fiscal);
    expect(exported!.verification).toEqual({ ok: true, count: all.length, pending: 0, failed: 0, last_seq: all.length });
  });
});

describe('the Z close through a remote fiscal data module that does not answer', () => {
  const SECRET = 'remote-business-day-secret';
  const unreachable = (kept: string) => ({ message: `The fiscal data module is unreachable; ${kept} is kept and will be signed when it answers.`, reason: 'fiscal_unreachable' });
  let remote: RemoteFdm;
  let rCashier: Register;
  let rLocation: string;

  beforeAll(async () => {
    const m = await api.seed('business-day-remote');
    remote = await remoteFdm(api.deps.db, m, SECRET);
    rCashier = await signIn(remote.api, m, 'cashier', 0);
    rLocation = m.locations[0]!.id;
  });
  afterAll(async () => {
    await remote?.close();
  });

  async function duringOutage<T>(fn: () => Promise<T>): Promise<T> {
    remote.sim.simulateOutage(1000);
    try {
      return await fn();
    } finally {
      remote.sim.simulateOutage(0);
    }
  }
  const recover = () => recoverPendingEntries(rCashier.tdb, remote.api.deps.fiscal, { olderThanMs: 0, hooks: registerRecoveryHooks(systemClock) });
  const zPrints = (printerId: string) => rCashier.tdb.selectFrom('print_jobs').select(['kind', 'source_key']).where('printer_id', '=', printerId).execute();

  test('an X report print the module did not answer is 503 in the report\'s words, kept for recovery', async () => {
    const x = await duringOutage(() => call(rCashier, 'GET', '/pos/business-day/x-report'));
    expect([x.status, x.body]).toEqual([503, unreachable('the report')]);
    expect(await recover()).toMatchObject({ signed: 1, failed: 0, pending: 0 });
  });

  test('the register retries its Z close: 503 again while the module is down, then 200 with the Z report, printed once and signed once', async () => {
    const printerId = crypto.randomUUID();
    await rCashier.tdb.insertInto('printers').values({ id: printerId, location_id: rLocation, mac: '00:11:62:2E:00:02', state: 'paired', name: 'Counter', last_reported_at: new Date(), created_at: new Date(), updated_at: new Date() }).execute();
    const date = (await call(rCashier, 'GET', '/pos/business-day')).body.business_date as string;
    // The cashier escalates once; the register's retries carry the same (spent) token.
    const body = { approval_token: await escalate(rCashier, 'close_business_day') };

    const first = await duringOutage(() => call(rCashier, 'POST', '/pos/business-day/close', body));
    expect([first.status, first.body]).toEqual([503, unreachable('the Z report')]);
    const kept = await rCashier.tdb.selectFrom('pos_business_days').selectAll().where('location_id', '=', rLocation).executeTakeFirstOrThrow();
    expect(kept).toMatchObject({ business_date: date, status: 'closed', z_report_no: 1, journal_id: null });
    expect((await journalOf(rCashier, 'pos_business_day', kept.id)).map((j) => j.status)).toEqual(['pending']);

    // Before: 409 already_closed, and the register never got its Z report nor printed it.
    const again = await duringOutage(() => call(rCashier, 'POST', '/pos/business-day/close', body));
    expect([again.status, again.body]).toEqual([503, unreachable('the Z report')]);
    expect(await zPrints(printerId)).toEqual([]);

    const signedBefore = remote.sim.signedCount;
    const z = await call(rCashier, 'POST', '/pos/business-day/close', body);
    expect(z.status).toBe(200);
    const entries = await journalOf(rCashier, 'pos_business_day', kept.id);
    expect(entries.map((j) => [j.event_kind, j.status])).toEqual([['report_z', 'signed']]);
    expect(remote.sim.signedCount).toBe(signedBefore + 1);
    expect(z.body).toEqual({
      business_date: date,
      status: 'closed',
      location_id: rLocation,
      opened_at: new Date(kept.opened_at).toISOString(),
      closed_at: new Date(kept.closed_at!).toISOString(),
      sales_count: 0,
      open_tills: 0,
      z_report_no: 1,
      z_report: {
        ...(kept.z_report as object),
        fiscal: { digital_signature: expect.any(String), fdm_id: remote.fdmId, journal_id: entries[0]!.id, journal_seq: Number(entries[0]!.seq), fdm_ref: expect.objectContaining({ eventLabel: 'R' }) },
      },
    });
    expect(await rCashier.tdb.selectFrom('pos_business_days').select(['status', 'journal_id']).where('id', '=', kept.id).executeTakeFirstOrThrow()).toEqual({ status: 'closed', journal_id: entries[0]!.id });
    expect(await zPrints(printerId)).toEqual([{ kind: 'report', source_key: `z:${rLocation}:${date}` }]);

    // Signed now: a close is 409 already_closed as before; nothing printed or signed again.
    expect(await call(rCashier, 'POST', '/pos/business-day/close', body)).toMatchObject({ status: 409, body: { reason: 'already_closed' } });
    expect(await zPrints(printerId)).toHaveLength(1);
    expect(remote.sim.signedCount).toBe(signedBefore + 1);
  });
});
