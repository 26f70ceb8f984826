import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { sql } from 'kysely';
import { bindTenant, type TenantDb } from '@pos/db';
import { businessDate } from '@pos/domain/business-day/business-day';
import { verifySignature, type SaleEvent, type SignResult } from '@pos/fiscal';
import { TENDER_MESSAGES } from '@pos/tenders';
import type { FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { createTestApi, type CallResult, type TestApi } from '../../testing/harness.ts';
import { openRegisterSession } from '../../testing/register-session.ts';
import { remoteFdm, type RemoteFdm } from '../../testing/remote-fdm.ts';

let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let device: string;
let cashier: string;
let manager: string;

beforeAll(async () => {
  ({ api, m, tdb, device, cashier, manager } = await openRegisterSession('settle'));
});
afterAll(() => api.close());

const uuid = () => crypto.randomUUID();

interface Ctx {
  m: DemoSeedResult;
  device: string;
  staff: string;
}
const here = (): Ctx => ({ m, device, staff: cashier });

function line(ctx: Ctx, name: string, qty = 1, extra: Record<string, unknown> = {}) {
  const it = ctx.m.items.find((i) => i.name === name)!;
  return { uuid: uuid(), item_id: it.id, qty, unit_price: it.unit_price, price_source: 'catalog', modifiers: [], ...extra };
}
async function order(lines: unknown[], ctx: Ctx = here()): Promise<{ id: string; body: any }> {
  const id = uuid();
  const r = await api.call('PUT', `/api/pos/orders/${id}`, { token: ctx.device, deviceKey: true, staffToken: ctx.staff, body: { lines } });
  expect(r.status).toBe(200);
  return { id, body: r.body };
}
/** An order of exactly `cents` (one open-price croissant, 6 %), taken by the manager: an open price needs apply_discount. */
const orderOf = (cents: number, ctx: Ctx = here()) => order([line(ctx, 'Croissant', 1, { unit_price: cents, price_source: 'open_price' })], { ...ctx, staff: manager });
/** Espresso x2 (560) + croissant (220): 780. */
const order780 = (ctx: Ctx = here()) => order([line(ctx, 'Espresso', 2), line(ctx, 'Croissant')], ctx);

function settle(id: string, body: unknown, ctx: Ctx = here()): Promise<CallResult> {
  return api.call('POST', `/api/pos/orders/${id}/settle`, { token: ctx.device, deviceKey: true, staffToken: ctx.staff, body });
}
async function journalOf(id: string, db: TenantDb = tdb) {
  return db.selectFrom('fiscal_journal').selectAll().where('subject_type', '=', 'pos_order').where('subject_id', '=', id).execute();
}
async function saleOf(id: string, db: TenantDb = tdb): Promise<{ event: SaleEvent; result: SignResult; fdm_id: string }> {
  const rows = await journalOf(id, db);
  expect(rows).toHaveLength(1);
  const row = rows[0]!;
  return { event: JSON.parse(row.payload) as SaleEvent, result: JSON.parse(row.sign_result!) as SignResult, fdm_id: row.fdm_id };
}
const transactionOf = (id: string, db: TenantDb = tdb) => db.selectFrom('pos_transactions').selectAll().where('order_id', '=', id).execute();

describe('POST /pos/orders/{clientUuid}/settle', () => {
  test('cash with rounding: 10.03 due, 20.00 tendered, 9.95 change; signed once with ROUNDING right after CASH', async () => {
    const { id, body: opened } = await orderOf(1003);
    const r = await settle(id, { amount_tendered: 2000 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ client_uuid: id, state: 'SETTLED', version: opened.version + 1, tender: { amount_tendered: 2000, change: 995 }, totals: { total: 1003 } });
    expect(r.body.fiscal).toEqual({ short_signature: expect.stringMatching(/^[A-Z2-7]{8}$/), digital_signature: expect.any(String), verification_url: expect.stringContaining('http') });
    expect(r.body.transaction_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect((await api.call('GET', `/api/pos/orders/${id}`, { token: device, deviceKey: true, staffToken: cashier })).body).toEqual(r.body);

    const { event, result, fdm_id } = await saleOf(id);
    expect(event.financials.map((f) => [f.type, f.amountType, f.amount])).toEqual([
      ['CASH', 'PAYMENT', 1005],
      ['CASH', 'ROUNDING', -2],
    ]);
    expect(event.transaction).toEqual({
      lines: [{ productId: m.items.find((i) => i.name === 'Croissant')!.id, productName: 'Croissant', departmentId: 'food', departmentName: 'Food', quantity: 1, unitPrice: 1003, vats: [{ label: 'C', price: 1003 }], lineTotal: 1003 }],
      total: 1003,
    });
    const today = businessDate(new Date(), 'Europe/Brussels');
    expect(event).toMatchObject({ kind: 'sale', posId: m.devices[0]!.id, bookingDate: today, vatNo: 'BE0123456789' });
    expect(result.digitalSignature).toBe(r.body.fiscal.digital_signature);
    expect(verifySignature(api.deps.fiscal.publicKeyFor(fdm_id), event, result)).toBe(true);

    const [tx, ...more] = await transactionOf(id);
    expect(more).toHaveLength(0);
    expect(tx).toMatchObject({ id: r.body.transaction_id, total: 1003, captured_by_platform: false, location_id: m.locations[0]!.id, device_id: m.devices[0]!.id });
    const day = await tdb.selectFrom('pos_transactions').select(sql<string>`business_date::text`.as('d')).where('id', '=', tx!.id).executeTakeFirstOrThrow();
    expect(day.d).toBe(today);
    expect(tx!.payment_snapshot).toEqual([{ method: 'cash', amount: 1005 }]);
    expect(tx!.tender).toMatchObject({ total: 1003, rounding: -2, amount_tendered: 2000, change: 995 });
  });

  test('split card + cash: legs in the order taken, the lone debit issuer signed, change on cash only', async () => {
    const { id } = await order780();
    const r = await settle(id, { tenders: [{ method: 'card', funding: 'debit', amount: 500 }, { method: 'cash', amount_tendered: 300 }] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'SETTLED', tender: { amount_tendered: 300, change: 20 } });
    const { event } = await saleOf(id);
    expect(event.financials.map(({ type, amountType, amount, inputMethod, provider }) => ({ type, amountType, amount, inputMethod, provider }))).toEqual([
      { type: 'CARD_DEBIT', amountType: 'PAYMENT', amount: 500, inputMethod: 'MANUAL', provider: 'Bancontact' },
      { type: 'CASH', amountType: 'PAYMENT', amount: 280, inputMethod: 'MANUAL', provider: undefined },
    ]);
    expect(event.transaction.lines.map((l) => [l.productName, l.quantity, l.unitPrice, l.vats[0]!.label, l.lineTotal])).toEqual([
      ['Espresso', 2, 280, 'A', 560],
      ['Croissant', 1, 220, 'C', 220],
    ]);
    expect((await transactionOf(id))[0]!.payment_snapshot).toEqual([
      { method: 'card', funding: 'debit', amount: 500, issuer: 'Bancontact' },
      { method: 'cash', amount: 280 },
    ]);
  });

  test('vouchers and a picked credit-card issuer: no cash, no change; an issuer is omitted when none is configured', async () => {
    const { id } = await order780();
    const r = await settle(id, { tenders: [{ method: 'meal_voucher', amount: 500 }, { method: 'gift_voucher' }] });
    expect(r.status).toBe(200);
    expect(r.body.tender).toEqual({});
    const { event } = await saleOf(id);
    expect(event.financials.map((f) => [f.type, f.amount, f.provider])).toEqual([
      ['CHEQUE_MEAL', 500, 'Pluxee'],
      ['VOUCHER_STORE', 280, undefined],
    ]);
    expect((await transactionOf(id))[0]!.payment_snapshot).toEqual([
      { method: 'meal_voucher', amount: 500, issuer: 'Pluxee' },
      { method: 'gift_voucher', amount: 280 },
    ]);

    const card = await order780();
    expect((await settle(card.id, { tenders: [{ method: 'card', funding: 'credit', issuer: 'Visa' }] })).status).toBe(200);
    expect((await saleOf(card.id)).event.financials.map((f) => [f.type, f.amount, f.provider])).toEqual([['CARD_CREDIT', 780, 'Visa']]);
  });

  test('a leg naming its issuer as provider (spec 2 rule 6) signs that issuer; an unknown leg key is a 422 on that field', async () => {
    const card = await order780();
    expect((await settle(card.id, { tenders: [{ method: 'card', funding: 'credit', provider: 'Visa' }] })).status).toBe(200);
    expect((await saleOf(card.id)).event.financials.map((f) => [f.type, f.amount, f.provider])).toEqual([['CARD_CREDIT', 780, 'Visa']]);

    const { id } = await order780();
    const unknown = await settle(id, { tenders: [{ method: 'card', funding: 'credit', brand: 'Visa' }] });
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: 422,
      body: { message: 'brand is not a payment field.', errors: { 'tenders.0.brand': ['brand is not a payment field.'] } },
    });
    const notSetUp = await settle(id, { tenders: [{ method: 'card', funding: 'credit', provider: 'Amex' }] });
    expect({ status: notSetUp.status, body: notSetUp.body }).toEqual({
      status: 422,
      body: { message: TENDER_MESSAGES.issuer_not_configured, reason: 'issuer_not_configured', errors: { 'tenders.0.provider': [TENDER_MESSAGES.issuer_not_configured] } },
    });
    const extra = await settle(id, { amount_tendered: 2000, tip: 100 });
    expect(extra.status).toBe(422);
    expect(Object.keys(extra.body.errors)).toEqual(['tip']);
    expect((await api.call('GET', `/api/pos/orders/${id}`, { token: device, deviceKey: true, staffToken: cashier })).body.state).toBe('OPEN');
  });

  test('each tender refusal is 422 with the verbatim message and its reason; the order stays OPEN and nothing is signed', async () => {
    const { id, body: opened } = await order780();
    const cases: [unknown, keyof typeof TENDER_MESSAGES, string][] = [
      [{ tenders: [{ method: 'bitcoin', amount: 780 }] }, 'method_not_enabled', 'tenders.0.method'],
      [{ tenders: [{ method: 'card', funding: 'debit', amount: 100 }] }, 'not_covered', 'tenders'],
      [{ tenders: [{ method: 'meal_voucher', amount: 900 }] }, 'voucher_overpays', 'tenders.0.amount'],
      [{ tenders: [{ method: 'card', funding: 'debit', amount: 780 }, { method: 'cash' }] }, 'cash_not_needed', 'tenders.1'],
      [{ amount_tendered: 500 }, 'cash_short', 'amount_tendered'],
      [{ tenders: [{ method: 'card', amount: 780 }] }, 'card_funding_missing', 'tenders.0.funding'],
      [{ tenders: [{ method: 'cash', amount: 300 }, { method: 'cash' }] }, 'multiple_cash_legs', 'tenders.1.method'],
      [{ tenders: [{ method: 'card', funding: 'credit', issuer: 'Amex' }] }, 'issuer_not_configured', 'tenders.0.issuer'],
    ];
    for (const [body, reason, field] of cases) {
      const r = await settle(id, body);
      expect({ status: r.status, body: r.body }).toEqual({ status: 422, body: { message: TENDER_MESSAGES[reason], reason, errors: { [field]: [TENDER_MESSAGES[reason]] } } });
    }
    // The spec's sentences, verbatim.
    expect(TENDER_MESSAGES.method_not_enabled).toBe('This register does not take this payment method.');
    expect(TENDER_MESSAGES.cash_short).toBe('Cash tendered is less than the cash still due.');
    expect(TENDER_MESSAGES.multiple_cash_legs).toBe('Take all the cash as one payment.');

    const shape = await settle(id, { tenders: [{ method: 'cash', amount: -1 }] });
    expect(shape).toMatchObject({ status: 422, body: { errors: { 'tenders.0.amount': ['amount must be a whole number of cents, 0 or more.'] } } });
    expect((await settle(id, {})).body.errors).toEqual({ tenders: ['Send amount_tendered, or tenders with at least one payment.'] });
    // More than a drawer holds: the change (and the till's expected cash) would be absurd.
    const absurd = await settle(id, { amount_tendered: 10 ** 12 });
    expect({ status: absurd.status, body: absurd.body }).toEqual({
      status: 422,
      body: { message: 'amount_tendered may not be greater than 100000000.', errors: { amount_tendered: ['amount_tendered may not be greater than 100000000.'] } },
    });
    expect((await settle(id, { tenders: [{ method: 'cash', amount_tendered: 100_000_001 }] })).body.errors).toEqual({ 'tenders.0.amount_tendered': ['amount_tendered may not be greater than 100000000.'] });

    const after = await api.call('GET', `/api/pos/orders/${id}`, { token: device, deviceKey: true, staffToken: cashier });
    expect(after.body).toMatchObject({ state: 'OPEN', version: opened.version, tender: {}, fiscal: {} });
    expect(await journalOf(id)).toHaveLength(0);
    expect(await transactionOf(id)).toHaveLength(0);
    // And it can still be settled.
    expect((await settle(id, { amount_tendered: 780 })).body).toMatchObject({ state: 'SETTLED', tender: { amount_tendered: 780, change: 0 } });
  });

  test('a second settle is 409 not_open; a settled order is final', async () => {
    const { id } = await order780();
    const first = await settle(id, { amount_tendered: 1000 });
    expect(first.status).toBe(200);
    const again = await settle(id, { amount_tendered: 1000 });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'This order is already settled.', reason: 'not_open' });
    const put = await api.call('PUT', `/api/pos/orders/${id}`, { token: device, deviceKey: true, staffToken: cashier, body: { expected_version: first.body.version, lines: [line(here(), 'Espresso')] } });
    expect(put).toMatchObject({ status: 409, body: { reason: 'not_open', message: 'This order is settled and can no longer be changed.' } });
    expect(await api.call('POST', `/api/pos/orders/${id}/void`, { token: device, deviceKey: true, staffToken: manager })).toMatchObject({ status: 409, body: { reason: 'not_open' } });
    expect(await journalOf(id)).toHaveLength(1);

    const listed = await api.call('GET', '/api/pos/orders?state=settled&per_page=100', { token: device, deviceKey: true, staffToken: cashier });
    expect(listed.body.data.map((o: { client_uuid: string }) => o.client_uuid)).toContain(id);
    expect(listed.body.data.every((o: { state: string; transaction_id?: string }) => o.state === 'SETTLED' && typeof o.transaction_id === 'string')).toBe(true);
  });

  test('two concurrent settles of one order: one 200, one 409, signed exactly once', async () => {
    for (let round = 0; round < 3; round++) {
      const { id } = await order780();
      const results = await Promise.all([settle(id, { amount_tendered: 1000 }), settle(id, { tenders: [{ method: 'card', funding: 'debit' }] }, { m, device, staff: manager })]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(results.find((r) => r.status === 409)!.body).toEqual({ message: 'This order is already settled.', reason: 'not_open' });
      expect(await journalOf(id)).toHaveLength(1);
      expect(await transactionOf(id)).toHaveLength(1);
    }
  });

  test('an empty order cannot be settled; settle needs the settle permission and an order of this location', async () => {
    const { id } = await order([]);
    expect(await settle(id, { amount_tendered: 0 })).toMatchObject({ status: 409, body: { reason: 'empty_order', message: 'An order without lines cannot be settled.' } });
    expect(await settle(uuid(), { amount_tendered: 100 })).toMatchObject({ status: 404, body: { message: 'Unable to locate the order you requested.' } });
    // A member without `settle` gets 403; a manager's approval token for it passes.
    const seller = await order780();
    await tdb.updateTable('staff_credentials').set({ permissions: ['take_orders'] }).where('role', '=', 'cashier').execute();
    try {
      expect(await settle(seller.id, { amount_tendered: 780 })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
      const pin = m.staff.find((s) => s.role === 'manager')!.pin;
      const esc = await api.call('POST', '/api/pos/staff/escalate', { token: device, deviceKey: true, staffToken: cashier, body: { manager_pin: pin, permission: 'settle' } });
      expect((await settle(seller.id, { amount_tendered: 780, approval_token: esc.body.approval_token })).status).toBe(200);
    } finally {
      await tdb.updateTable('staff_credentials').set({ permissions: ['take_orders', 'settle', 'open_till', 'count_till'] }).where('role', '=', 'cashier').execute();
    }
  });

  test('a location without an active fiscal enrolment cannot settle: 422 fiscal_not_enrolled, the order stays OPEN', async () => {
    const other = await api.seed('settle-unenrolled');
    const odb = bindTenant(api.deps.db, other.merchant.tenant_database);
    await odb.updateTable('fdm_devices').set({ status: 'retired', retired_at: new Date() }).execute();
    const token = await api.deviceToken(other, 'pos', 0);
    const ctx = { m: other, device: token, staff: await api.staffLogin(other, 'cashier', token) };
    const { id } = await order780(ctx);
    const r = await settle(id, { amount_tendered: 1000 }, ctx);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ message: 'This location has no active fiscal data module.', reason: 'fiscal_not_enrolled' });
    expect((await api.call('GET', `/api/pos/orders/${id}`, { token, deviceKey: true, staffToken: ctx.staff })).body).toMatchObject({ state: 'OPEN', tender: {}, fiscal: {} });
    expect(await transactionOf(id, odb)).toHaveLength(0);
    // A tender refusal still comes first.
    expect((await settle(id, { amount_tendered: 10 }, ctx)).body.reason).toBe('cash_short');
  });
});

/** The stock level of `name` at location [0] and its history entries, newest first. */
async function stockOf(db: TenantDb, seeded: DemoSeedResult, name: string) {
  const item = seeded.items.find((i) => i.name === name)!.id;
  const loc = seeded.locations[0]!.id;
  const level = await db.selectFrom('inventory_levels').select('quantity').where('item_id', '=', item).where('location_id', '=', loc).executeTakeFirst();
  const history = await db.selectFrom('inventory_history').select(['type', 'quantity_change', 'quantity_after', 'note']).where('item_id', '=', item).where('location_id', '=', loc).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return { level: level?.quantity ?? null, history };
}
async function track(db: TenantDb, seeded: DemoSeedResult, name: string, quantity: number) {
  const item = seeded.items.find((i) => i.name === name)!.id;
  await db.insertInto('inventory_levels').values({ item_id: item, location_id: seeded.locations[0]!.id, quantity }).onConflict((oc) => oc.columns(['item_id', 'location_id']).doUpdateSet({ quantity })).execute();
  await db.deleteFrom('inventory_history').where('item_id', '=', item).execute();
}

describe('a register sale moves stock (as a kiosk or online capture does)', () => {
  test('each tracked item goes down by what was sold, with a sale entry; an untracked item and a refused settle move nothing', async () => {
    await track(tdb, m, 'Espresso', 10);
    const croissant = m.items.find((i) => i.name === 'Croissant')!.id;
    await tdb.deleteFrom('inventory_levels').where('item_id', '=', croissant).execute();
    const { id } = await order([line(here(), 'Espresso', 2), line(here(), 'Croissant'), line(here(), 'Espresso', 1)]);
    expect((await settle(id, { amount_tendered: 10 })).status).toBe(422);
    expect((await stockOf(tdb, m, 'Espresso')).level).toBe(10);
    expect((await settle(id, { amount_tendered: 2000 })).status).toBe(200);
    expect(await stockOf(tdb, m, 'Espresso')).toEqual({ level: 7, history: [{ type: 'sale', quantity_change: -3, quantity_after: 7, note: `Register order ${id.slice(-4).toUpperCase()}` }] });
    expect(await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', croissant).executeTakeFirst()).toBeUndefined();
    // A settle sent again (409) moves nothing more.
    expect((await settle(id, { amount_tendered: 2000 })).status).toBe(409);
    expect((await stockOf(tdb, m, 'Espresso')).level).toBe(7);
  });

  test('sold below zero is recorded (the sale happened); settles of one item at once each count', async () => {
    await track(tdb, m, 'Espresso', 1);
    const ids = await Promise.all([1, 2, 3, 4].map(async () => (await order([line(here(), 'Espresso', 1)])).id));
    const rs = await Promise.all(ids.map((id) => settle(id, { amount_tendered: 500 })));
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const { level, history } = await stockOf(tdb, m, 'Espresso');
    expect(level).toBe(-3);
    expect(history.map((h) => h.quantity_after).sort((a, b) => a - b)).toEqual([-3, -2, -1, 0]);
  });
});

describe('settle through a remote fiscal data module', () => {
  const SECRET = 'remote-settle-secret';
  let remote: RemoteFdm;
  let remoteApi: TestApi;
  let sim: FdmSimulator;
  let ctx: Ctx;
  let rdb: TenantDb;

  beforeAll(async () => {
    const seeded = await api.seed('settle-remote');
    rdb = bindTenant(api.deps.db, seeded.merchant.tenant_database);
    remote = await remoteFdm(api.deps.db, seeded, SECRET);
    ({ api: remoteApi, sim } = remote);
    const token = await remoteApi.deviceToken(seeded, 'pos', 0);
    ctx = { m: seeded, device: token, staff: await remoteApi.staffLogin(seeded, 'cashier', token) };
  });
  afterAll(() => remote.close());

  const rcall = (method: string, path: string, body?: unknown) => remoteApi.call(method, path, { token: ctx.device, deviceKey: true, staffToken: ctx.staff, body });
  async function remoteOrder(): Promise<string> {
    const id = uuid();
    expect((await rcall('PUT', `/api/pos/orders/${id}`, { lines: [line(ctx, 'Espresso', 2), line(ctx, 'Croissant')] })).status).toBe(200);
    return id;
  }

  test('signs through the module and settles', async () => {
    const id = await remoteOrder();
    const r = await rcall('POST', `/api/pos/orders/${id}/settle`, { amount_tendered: 1000 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'SETTLED', tender: { amount_tendered: 1000, change: 220 }, fiscal: { short_signature: expect.any(String), digital_signature: expect.any(String) } });
    const rows = await journalOf(id, rdb);
    expect(rows.map((row) => row.status)).toEqual(['signed']);
    expect(await transactionOf(id, rdb)).toHaveLength(1);
  });

  test('the sale moves stock on this path too (once, also after an outage and a retry)', async () => {
    await track(rdb, ctx.m, 'Espresso', 5);
    const id = await remoteOrder();
    sim.simulateOutage(10);
    expect((await rcall('POST', `/api/pos/orders/${id}/settle`, { amount_tendered: 1000 })).status).toBe(503);
    expect((await stockOf(rdb, ctx.m, 'Espresso')).level).toBe(5);
    sim.simulateOutage(0);
    expect((await rcall('POST', `/api/pos/orders/${id}/settle`, { amount_tendered: 1000 })).status).toBe(200);
    expect(await stockOf(rdb, ctx.m, 'Espresso')).toEqual({ level: 3, history: [{ type: 'sale', quantity_change: -2, quantity_after: 3, note: `Register order ${id.slice(-4).toUpperCase()}` }] });
  });

  test('an unreachable module leaves the order SETTLING (listed by state=settling); a retried settle completes it', async () => {
    const id = await remoteOrder();
    sim.simulateOutage(10);
    const r = await rcall('POST', `/api/pos/orders/${id}/settle`, { amount_tendered: 1000 });
    expect(r).toMatchObject({ status: 503, body: { reason: 'fiscal_unreachable' } });
    const settling = await rcall('GET', '/api/pos/orders?state=settling');
    expect(settling.body).toEqual({ data: [expect.objectContaining({ client_uuid: id, state: 'SETTLING', tender: { amount_tendered: 1000, change: 220 } })], total: 1 });
    expect(await rcall('PUT', `/api/pos/orders/${id}`, { expected_version: 1, lines: [] })).toMatchObject({ status: 409, body: { reason: 'not_open' } });
    expect((await journalOf(id, rdb)).map((row) => row.status)).toEqual(['pending']);

    sim.simulateOutage(0);
    // The retry keeps the frozen tender, whatever the body says.
    const retried = await rcall('POST', `/api/pos/orders/${id}/settle`, { amount_tendered: 5000 });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ state: 'SETTLED', version: 2, tender: { amount_tendered: 1000, change: 220 } });
    expect((await journalOf(id, rdb)).map((row) => row.status)).toEqual(['signed']);
    expect(await transactionOf(id, rdb)).toHaveLength(1);
    expect((await rcall('GET', '/api/pos/orders?state=settling')).body).toEqual({ data: [], total: 0 });
  });

  test('duplicate settles at once: the sale is signed once, every 200 is the SETTLED order, the others 409', async () => {
    for (let round = 0; round < 6; round++) {
      const id = await remoteOrder();
      const rs = await Promise.all(Array.from({ length: 6 }, () => rcall('POST', `/api/pos/orders/${id}/settle`, { amount_tendered: 1000 })));
      expect(rs.filter((r) => r.status !== 200 && r.status !== 409)).toEqual([]);
      expect(rs.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
      for (const r of rs.filter((x) => x.status === 200)) expect(r.body).toMatchObject({ state: 'SETTLED', version: 2, tender: { amount_tendered: 1000, change: 220 } });
      for (const r of rs.filter((x) => x.status === 409)) expect(r.body).toMatchObject({ reason: 'not_open' });
      expect((await journalOf(id, rdb)).map((row) => row.status)).toEqual(['signed']);
      expect(await transactionOf(id, rdb)).toHaveLength(1);
      expect(await rdb.selectFrom('pos_orders').select('state').where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ state: 'SETTLED' });
    }
  });

  test('an order left SETTLING without a journal entry (written before the entry shared its transaction) is put back: 409 settle_interrupted, then settles', async () => {
    const id = await remoteOrder();
    await rdb.updateTable('pos_orders').set({ state: 'SETTLING', tender: JSON.stringify({ total: 780 }) }).where('id', '=', id).execute();
    const r = await rcall('POST', `/api/pos/orders/${id}/settle`, { amount_tendered: 1000 });
    expect(r).toMatchObject({ status: 409, body: { message: 'The settlement of this order was interrupted; settle it again.', reason: 'settle_interrupted' } });
    expect(await rdb.selectFrom('pos_orders').select(['state', 'tender']).where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ state: 'OPEN', tender: null });
    const again = await rcall('POST', `/api/pos/orders/${id}/settle`, { amount_tendered: 1000 });
    expect(again.body).toMatchObject({ state: 'SETTLED', tender: { amount_tendered: 1000, change: 220 } });
    expect((await journalOf(id, rdb)).map((row) => row.status)).toEqual(['signed']);
  });
});
