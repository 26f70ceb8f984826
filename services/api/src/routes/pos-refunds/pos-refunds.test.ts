import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test';
import { businessDate } from '@pos/domain/business-day/business-day';
import { verifySignature, type RefundEvent, type SignResult } from '@pos/fiscal';
import type { FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { remoteFdm, type RemoteFdm } from '../../testing/remote-fdm.ts';
import { call, escalate, journalOf, line, sell, signIn, type Register } from '../pos-tills/register-test-support.ts';

const CARD_PAID = 'Card-paid sales cannot be refunded on the POS yet — refund via the payment provider.';
const TENDER_MISMATCH = 'This sale cannot be refunded on the POS: its payment records do not match. Nothing was refunded — contact support.';
const FORBIDDEN = { message: 'Unauthorized: Insufficient permissions' };
const NOT_FOUND = { message: 'Unable to locate the transaction you requested.' };

let api: TestApi;
let cashier: Register;
let manager: Register;
let till: { id: string };

beforeAll(async () => {
  api = await createTestApi();
  const m = await api.seed('refunds');
  cashier = await signIn(api, m, 'cashier', 0);
  manager = await signIn(api, m, 'manager', 0);
  // The register's drawer till: the cash of the refunds below leaves it.
  till = (await call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 5000 })).body;
});
afterAll(() => api.close());

const refund = (r: Register, body: unknown) => call(r, 'POST', '/pos/refunds', body);
const refundsOf = (transactionId: string) => cashier.tdb.selectFrom('pos_refunds').selectAll().where('transaction_id', '=', transactionId).execute();
/** Espresso x2 (560, 21 %) + croissant (220, 6 %) = 780. */
const order780 = () => [line(cashier, 'Espresso', 2), line(cashier, 'Croissant')];

describe('POST /pos/refunds', () => {
  test('an approval spent on a refused refund (already refunded) is given back: the same token then refunds another sale', async () => {
    const done = await sell(cashier, order780(), { amount_tendered: 1000 });
    expect((await refund(manager, { transaction_id: done.transaction_id, mode: 'full' })).status).toBe(200);
    const token = await escalate(cashier, 'refund');
    expect(await refund(cashier, { transaction_id: done.transaction_id, mode: 'full', approval_token: token })).toMatchObject({ status: 409, body: { reason: 'already_refunded' } });
    const other = await sell(cashier, order780(), { amount_tendered: 1000 });
    // Before: 403, the token spent on the refusal (the manager had to enter a PIN again).
    expect((await refund(cashier, { transaction_id: other.transaction_id, mode: 'full', approval_token: token })).status).toBe(200);
    // Used by an action that took place: gone.
    const third = await sell(cashier, order780(), { amount_tendered: 1000 });
    expect(await refund(cashier, { transaction_id: third.transaction_id, mode: 'full', approval_token: token })).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  test('a full refund hands back cash from the open till and is signed with one negative CASH line; a cashier escalates', async () => {
    const sale = await sell(cashier, order780(), { amount_tendered: 1000 });
    expect(await refund(cashier, { transaction_id: sale.transaction_id, mode: 'full' })).toMatchObject({ status: 403, body: FORBIDDEN });
    const r = await refund(cashier, { transaction_id: sale.transaction_id, mode: 'full', approval_token: await escalate(cashier, 'refund') });
    expect(r.status).toBe(200);
    const [espresso, croissant] = sale.body.lines as { uuid: string; item_id: string }[];
    expect(r.body).toEqual({
      refund: {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
        transaction_id: sale.transaction_id,
        order_id: sale.id,
        mode: 'full',
        amount: 780,
        rounding: 0,
        lines: [
          { uuid: espresso!.uuid, item_id: espresso!.item_id, name: 'Espresso', qty: 2, amount: 560 },
          { uuid: croissant!.uuid, item_id: croissant!.item_id, name: 'Croissant', qty: 1, amount: 220 },
        ],
        by_vat_rate: [
          { rate: 21, net: 463, vat: 97, gross: 560 },
          { rate: 6, net: 208, vat: 12, gross: 220 },
        ],
        till_id: till.id,
        business_date: businessDate(new Date(), 'Europe/Brussels'),
        fiscal: { short_signature: expect.stringMatching(/^[A-Z2-7]{8}$/), digital_signature: expect.any(String), verification_url: expect.stringContaining('http') },
        created_at: expect.any(String),
      },
    });

    const rows = await journalOf(cashier, 'pos_refund', r.body.refund.id);
    expect(rows.map((x) => [x.event_kind, x.status])).toEqual([['refund', 'signed']]);
    const event = JSON.parse(rows[0]!.payload) as RefundEvent;
    const result = JSON.parse(rows[0]!.sign_result!) as SignResult;
    expect(event.transaction.lines.map((l) => [l.productName, l.quantity, l.negQuantityReason, l.lineTotal])).toEqual([
      ['Espresso', -2, 'REFUND', -560],
      ['Croissant', -1, 'REFUND', -220],
    ]);
    expect(event.financials).toEqual([
      { id: '1', name: 'Cash', type: 'CASH', amountType: 'PAYMENT', amount: -780, inputMethod: 'MANUAL', drawer: { drawerId: cashier.m.drawers[0]!.id, drawerName: 'Main drawer' } },
    ]);
    expect(result.digitalSignature).toBe(r.body.refund.fiscal.digital_signature);
    expect(verifySignature(api.deps.fiscal.publicKeyFor(rows[0]!.fdm_id), event, result)).toBe(true);

    const [stored] = await refundsOf(sale.transaction_id);
    const boss = await cashier.tdb.selectFrom('staff_credentials').select('id').where('role', '=', 'manager').executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ amount: 780, mode: 'full', till_id: till.id, approved_by: boss.id });

    // Nothing is left to refund.
    expect(await refund(manager, { transaction_id: sale.transaction_id, mode: 'full' })).toMatchObject({
      status: 409,
      body: { message: 'Every line of this sale was already refunded.', reason: 'already_refunded', line_uuids: [espresso!.uuid, croissant!.uuid] },
    });
    expect(await refund(manager, { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [croissant!.uuid] })).toMatchObject({
      status: 409,
      body: { message: 'Some of these lines were already refunded: a line is refunded once.', reason: 'already_refunded', line_uuids: [croissant!.uuid] },
    });
    expect(await refundsOf(sale.transaction_id)).toHaveLength(1);
  });

  test('partial refunds by line; a line is refunded once; a later full refund takes the lines left', async () => {
    const sale = await sell(cashier, [line(cashier, 'Espresso'), line(cashier, 'Croissant'), line(cashier, 'Spaghetti bolognese')], {
      tenders: [{ method: 'card', funding: 'debit', amount: 1000 }, { method: 'cash', amount_tendered: 1000 }],
    });
    const [a, b, c] = (sale.body.lines as { uuid: string }[]).map((l) => l.uuid) as [string, string, string];
    const first = await refund(manager, { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [b] });
    expect(first.status).toBe(200);
    expect(first.body.refund).toMatchObject({ mode: 'partial', amount: 220, lines: [{ uuid: b, name: 'Croissant', amount: 220 }], by_vat_rate: [{ rate: 6, gross: 220 }] });
    expect(await refund(manager, { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [a, b] })).toMatchObject({
      status: 409,
      body: { reason: 'already_refunded', line_uuids: [b] },
    });
    const rest = await refund(manager, { transaction_id: sale.transaction_id, mode: 'full' });
    expect(rest.status).toBe(200);
    expect(rest.body.refund).toMatchObject({ mode: 'full', amount: 280 + 1450, lines: [{ uuid: a }, { uuid: c }] });
    expect(rest.body.refund.by_vat_rate).toEqual([
      { rate: 21, net: 231, vat: 49, gross: 280 },
      { rate: 12, net: 1295, vat: 155, gross: 1450 },
    ]);
    const lines = await cashier.tdb.selectFrom('pos_refund_lines').select(['line_uuid', 'amount']).where('transaction_id', '=', sale.transaction_id).orderBy('amount').execute();
    expect(lines).toEqual([
      { line_uuid: b, amount: 220 },
      { line_uuid: a, amount: 280 },
      { line_uuid: c, amount: 1450 },
    ]);
    // The unique (transaction, line) constraint backs the rule.
    await expect(cashier.tdb.insertInto('pos_refund_lines').values({ refund_id: first.body.refund.id, transaction_id: sale.transaction_id, line_uuid: b, amount: 220 }).execute()).rejects.toThrow(/pos_refund_lines_once/);
  });

  test('two concurrent refunds of one sale: one is refunded, the other is 409', async () => {
    const sale = await sell(cashier, order780(), { amount_tendered: 780 });
    const results = await Promise.all([refund(manager, { transaction_id: sale.transaction_id, mode: 'full' }), refund(manager, { transaction_id: sale.transaction_id, mode: 'full' })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)!.body.reason).toBe('already_refunded');
    expect(await refundsOf(sale.transaction_id)).toHaveLength(1);
  });

  test('body rules: partial names lines of the sale, full names none; unknown transactions are 404', async () => {
    const sale = await sell(cashier, order780(), { amount_tendered: 780 });
    const first = sale.body.lines[0].uuid as string;
    expect((await refund(manager, { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [crypto.randomUUID()] })).body).toEqual({
      message: 'This line is not a line of the sale.',
      errors: { 'line_uuids.0': ['This line is not a line of the sale.'] },
    });
    expect((await refund(manager, { transaction_id: sale.transaction_id, mode: 'partial' })).body.errors).toEqual({
      line_uuids: ['The line_uuids field is required for a partial refund: name the lines to refund.'],
    });
    expect((await refund(manager, { transaction_id: sale.transaction_id, mode: 'full', line_uuids: [first] })).body.errors).toEqual({
      line_uuids: ['A full refund takes every line of the sale: leave line_uuids out, or use mode partial.'],
    });
    expect((await refund(manager, { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [first, first] })).body.errors).toEqual({ 'line_uuids.1': ['This line is named twice.'] });
    expect(await refund(manager, { transaction_id: sale.transaction_id, mode: 'some' })).toMatchObject({ status: 422, body: { errors: { mode: ['The mode field must be full or partial.'] } } });
    expect(await refund(manager, { transaction_id: crypto.randomUUID(), mode: 'full' })).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await refund(manager, { transaction_id: 'abc', mode: 'full' })).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await refundsOf(sale.transaction_id)).toHaveLength(0);

    // Another merchant's sale is unknown here.
    const other = await api.seed('refunds-other');
    const stranger = await signIn(api, other, 'manager', 0);
    const theirs = await sell(stranger, [line(stranger, 'Espresso')], { tenders: [{ method: 'card', funding: 'debit' }] });
    expect(await refund(manager, { transaction_id: theirs.transaction_id, mode: 'full' })).toMatchObject({ status: 404, body: NOT_FOUND });
  });

  test('a payment captured by the platform is 422 card_paid', async () => {
    const sale = await sell(cashier, order780(), { tenders: [{ method: 'card', funding: 'credit', issuer: 'Visa' }] });
    await cashier.tdb.updateTable('pos_transactions').set({ captured_by_platform: true }).where('id', '=', sale.transaction_id).execute();
    const r = await refund(manager, { transaction_id: sale.transaction_id, mode: 'full' });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ message: CARD_PAID, reason: 'card_paid' });
    expect(await refundsOf(sale.transaction_id)).toHaveLength(0);
  });

  test('a kiosk or online order the platform captured, named to the register\'s refund, is 422 card_paid (not an unknown 404)', async () => {
    const id = Bun.randomUUIDv7();
    const now = Date.now();
    await cashier.tdb
      .insertInto('transactions')
      .values({
        id, location_id: cashier.m.locations[0]!.id, device_id: null, channel: 'kiosk', order_no: 90_001, status: 'Complete', order_status: 'Queued',
        payment_provider: 'card-b', payment_snapshot: JSON.stringify({}), idempotency_key: `idemp_${id}_${now}`, all_idempotency_keys: [`idemp_${id}_${now}`],
        receipt_no: 90_001, subtotal: 500, discount: 0, vat: 87, total: 500, by_vat_rate: JSON.stringify([]), offers: JSON.stringify([]), menu_version: 1,
        customer_id: null, loyalty_token: null, cart_session_id: null, completed_at: new Date(now), created_at: new Date(now), updated_at: new Date(now),
      })
      .execute();
    // Before: 404 "Unable to locate the transaction you requested." for an order the register lists in its stream.
    expect(await refund(manager, { transaction_id: id, mode: 'full' })).toMatchObject({ status: 422, body: { message: CARD_PAID, reason: 'card_paid' } });
    expect(await refundsOf(id)).toHaveLength(0);
    // Another location's is still the uniform 404.
    await cashier.tdb.updateTable('transactions').set({ location_id: cashier.m.locations[1]!.id }).where('id', '=', id).execute();
    expect(await refund(manager, { transaction_id: id, mode: 'full' })).toMatchObject({ status: 404, body: NOT_FOUND });
  });

  test('records that disagree are 422 tender_mismatch: nothing refunded, nothing signed, an error logged; order, key order and whole-cent decimals do not matter', async () => {
    const sale = await sell(cashier, order780(), { tenders: [{ method: 'card', funding: 'debit', amount: 500 }, { method: 'cash', amount_tendered: 300 }] });
    const snapshot = (await cashier.tdb.selectFrom('pos_transactions').select('payment_snapshot').where('id', '=', sale.transaction_id).executeTakeFirstOrThrow()).payment_snapshot;
    expect(snapshot).toEqual([
      { method: 'card', funding: 'debit', amount: 500, issuer: 'Bancontact' },
      { method: 'cash', amount: 280 },
    ]);
    const journalBefore = await cashier.tdb.selectFrom('fiscal_journal').select('id').execute();
    await cashier.tdb
      .updateTable('pos_transactions')
      .set({ payment_snapshot: JSON.stringify([{ method: 'card', funding: 'debit', amount: 450, issuer: 'Bancontact' }, { method: 'cash', amount: 330 }]) })
      .where('id', '=', sale.transaction_id)
      .execute();
    const error = spyOn(api.deps.log, 'error');
    try {
      const r = await refund(manager, { transaction_id: sale.transaction_id, mode: 'full' });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ message: TENDER_MISMATCH, reason: 'tender_mismatch' });
      expect(error).toHaveBeenCalledTimes(1);
      expect(error.mock.calls[0]![1]).toMatchObject({ transaction_id: sale.transaction_id });
    } finally {
      error.mockRestore();
    }
    expect(await refundsOf(sale.transaction_id)).toHaveLength(0);
    expect(await cashier.tdb.selectFrom('pos_refund_lines').select('line_uuid').where('transaction_id', '=', sale.transaction_id).execute()).toHaveLength(0);
    expect(await cashier.tdb.selectFrom('fiscal_journal').select('id').execute()).toHaveLength(journalBefore.length);

    // The same payments in another order, keys shuffled, whole-cent decimals: they agree, and the keyed-card sale is refunded in cash.
    await cashier.tdb
      .updateTable('pos_transactions')
      .set({ payment_snapshot: JSON.stringify([{ amount: '280.0', method: 'cash' }, { issuer: 'Bancontact', amount: 500.0, method: 'card', funding: 'debit' }]) })
      .where('id', '=', sale.transaction_id)
      .execute();
    const ok = await refund(manager, { transaction_id: sale.transaction_id, mode: 'full' });
    expect(ok).toMatchObject({ status: 200, body: { refund: { amount: 780, till_id: till.id } } });
  });

  test('without an open till the refund is 409 no_open_till', async () => {
    const sale = await sell(cashier, order780(), { amount_tendered: 780 });
    // The second register has no till and the manager no wallet.
    const elsewhere = await signIn(api, cashier.m, 'manager', 1);
    expect(await refund(elsewhere, { transaction_id: sale.transaction_id, mode: 'full' })).toMatchObject({
      status: 409,
      body: { message: 'A refund hands back cash from an open till: open a till first.', reason: 'no_open_till' },
    });
    // Nor does an ended till hand back cash.
    const wallet = (await call(elsewhere, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0 })).body;
    expect((await call(elsewhere, 'POST', `/pos/tills/${wallet.id}/end`)).status).toBe(200);
    expect((await refund(elsewhere, { transaction_id: sale.transaction_id, mode: 'full' })).body.reason).toBe('no_open_till');
    expect(await refundsOf(sale.transaction_id)).toHaveLength(0);
  });
});

describe('POST /pos/refunds through a remote fiscal data module that does not answer', () => {
  const SECRET = 'remote-refunds-secret';
  const UNREACHABLE = { message: 'The fiscal data module is unreachable; the refund is kept and will be signed when it answers.', reason: 'fiscal_unreachable' };
  let remote: RemoteFdm;
  let sim: FdmSimulator;
  let rCashier: Register;
  let rManager: Register;
  let rTill: { id: string };

  beforeAll(async () => {
    const m = await api.seed('refunds-remote');
    remote = await remoteFdm(api.deps.db, m, SECRET);
    sim = remote.sim;
    rCashier = await signIn(remote.api, m, 'cashier', 0);
    rManager = await signIn(remote.api, m, 'manager', 0);
    rTill = (await call(rManager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 5000 })).body;
  });
  afterAll(async () => {
    await remote?.close();
  });

  const keptOf = (transactionId: string) => rCashier.tdb.selectFrom('pos_refunds').selectAll().where('transaction_id', '=', transactionId).execute();

  /** `fn` while every call to the module fails. */
  async function duringOutage<T>(fn: () => Promise<T>): Promise<T> {
    sim.simulateOutage(1000);
    try {
      return await fn();
    } finally {
      sim.simulateOutage(0);
    }
  }

  test('the register retries an approved partial refund: 503 again while the module is down, nothing new written; then 200 with the same refund, signed once', async () => {
    const sale = await sell(rCashier, [line(rCashier, 'Espresso', 2), line(rCashier, 'Croissant')], { amount_tendered: 1000 });
    const [espresso, croissant] = (sale.body.lines as { uuid: string }[]).map((l) => l.uuid) as [string, string];
    // The cashier escalates once; the retries carry the same (spent) token, as a register retrying a 5xx does.
    const body = { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [espresso], approval_token: await escalate(rCashier, 'refund') };

    const first = await duringOutage(() => refund(rCashier, body));
    expect([first.status, first.body]).toEqual([503, UNREACHABLE]);
    const [kept, ...others] = await keptOf(sale.transaction_id);
    expect(others).toHaveLength(0);
    expect(kept).toMatchObject({ mode: 'partial', amount: 560, fiscal: null });
    expect((await journalOf(rCashier, 'pos_refund', kept!.id)).map((j) => j.status)).toEqual(['pending']);

    // Before: 409 already_refunded (403 with the spent token), no refund for the register, the entry left to the sweep.
    const again = await duringOutage(() => refund(rCashier, body));
    expect([again.status, again.body]).toEqual([503, UNREACHABLE]);
    // Other lines, or the same lines from another register, are not this retry: today's answers.
    expect(await duringOutage(() => refund(rManager, { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [espresso, croissant] }))).toMatchObject({
      status: 409,
      body: { reason: 'already_refunded', line_uuids: [espresso] },
    });
    const elsewhere = await signIn(remote.api, rManager.m, 'manager', 1);
    expect(await duringOutage(() => refund(elsewhere, { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [espresso] }))).toMatchObject({ status: 409, body: { reason: 'already_refunded' } });
    expect((await keptOf(sale.transaction_id)).map((r) => r.id)).toEqual([kept!.id]);
    expect(await rCashier.tdb.selectFrom('pos_refund_lines').select('line_uuid').where('transaction_id', '=', sale.transaction_id).execute()).toEqual([{ line_uuid: espresso }]);
    expect((await journalOf(rCashier, 'pos_refund', kept!.id)).map((j) => j.status)).toEqual(['pending']);

    const signedBefore = sim.signedCount;
    const done = await refund(rCashier, body);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      refund: {
        id: kept!.id,
        transaction_id: sale.transaction_id,
        order_id: sale.id,
        mode: 'partial',
        amount: 560,
        rounding: 0,
        lines: [{ uuid: espresso, item_id: sale.body.lines[0].item_id, name: 'Espresso', qty: 2, amount: 560 }],
        by_vat_rate: [{ rate: 21, net: 463, vat: 97, gross: 560 }],
        till_id: rTill.id,
        business_date: kept!.business_date,
        fiscal: { short_signature: expect.any(String), digital_signature: expect.any(String), verification_url: expect.any(String) },
        created_at: new Date(kept!.created_at).toISOString(),
      },
    });
    expect(sim.signedCount).toBe(signedBefore + 1);
    const entries = await journalOf(rCashier, 'pos_refund', kept!.id);
    expect(entries.map((j) => j.status)).toEqual(['signed']);
    expect(JSON.parse(entries[0]!.sign_result!).digitalSignature).toBe(done.body.refund.fiscal.digital_signature);
    expect((await keptOf(sale.transaction_id)).map((r) => r.id)).toEqual([kept!.id]);

    // Signed now: the same request is a line refunded twice again.
    expect(await refund(rManager, { ...body, approval_token: undefined })).toMatchObject({ status: 409, body: { reason: 'already_refunded', line_uuids: [espresso] } });
    expect(sim.signedCount).toBe(signedBefore + 1);
  });

  test('a full refund retried after the outage answers the kept refund; a full refund with nothing left is 409 as before', async () => {
    const sale = await sell(rManager, [line(rManager, 'Espresso', 2), line(rManager, 'Croissant')], { amount_tendered: 1000 });
    const body = { transaction_id: sale.transaction_id, mode: 'full' };
    expect(await duringOutage(() => refund(rManager, body))).toMatchObject({ status: 503, body: UNREACHABLE });
    const [kept] = await keptOf(sale.transaction_id);
    const done = await refund(rManager, body);
    expect(done).toMatchObject({ status: 200, body: { refund: { id: kept!.id, mode: 'full', amount: 780, lines: [{ name: 'Espresso' }, { name: 'Croissant' }], fiscal: { digital_signature: expect.any(String) } } } });
    expect((await journalOf(rManager, 'pos_refund', kept!.id)).map((j) => j.status)).toEqual(['signed']);
    expect(await refund(rManager, body)).toMatchObject({ status: 409, body: { reason: 'already_refunded' } });
    expect(await keptOf(sale.transaction_id)).toHaveLength(1);
  });
});
