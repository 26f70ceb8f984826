import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { systemClock } from '@pos/kernel';
import { recoverPendingEntries } from '@pos/core/fiscal/recover-pending';
import { registerRecoveryHooks } from '@pos/core/pos/fiscal-recovery/recovery-hooks';
import type { DrawerOpenEvent, MoneyInOutEvent, SaleEvent } from '@pos/fiscal';
import { startFdmSimulator, type FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { as, call, escalate, journalOf, line, sell, signIn, type Register } from './register-test-support.ts';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

const FORBIDDEN = { message: 'Unauthorized: Insufficient permissions' };
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const UUID7 = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const NOT_ACCEPTED = (key: string) => `The ${key} field is not accepted. Send only mode, opening_float, drawer_id, approval_token.`;

const staffOf = (r: Register, role: 'manager' | 'cashier') => r.tdb.selectFrom('staff_credentials').select(['id', 'name']).where('role', '=', role).executeTakeFirstOrThrow();

describe('opening tills', () => {
  let cashier: Register;
  let main: { id: string; name: string; kind: string };

  beforeAll(async () => {
    const m = await api.seed('tills-open');
    cashier = await signIn(api, m, 'cashier', 0);
    main = m.drawers[0]!;
  });

  test('GET /pos/tills/current without a till is 204 with no body', async () => {
    const r = await call(cashier, 'GET', '/pos/tills/current');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(r.body).toBe('');
    expect(r.headers.get('content-type')).toBeNull();
  });

  test('drawer_descriptor (or any other key) is 422 naming the accepted keys; values are validated', async () => {
    const r = await call(cashier, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 0, drawer_descriptor: { name: 'Main drawer' } });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ message: NOT_ACCEPTED('drawer_descriptor'), errors: { drawer_descriptor: [NOT_ACCEPTED('drawer_descriptor')] } });

    const bad = await call(cashier, 'POST', '/pos/tills', { mode: 'cash_box', opening_float: -1, drawer_id: 'main' });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      message: 'The mode field must be register_drawer or staff_wallet. (and 2 more errors)',
      errors: {
        mode: ['The mode field must be register_drawer or staff_wallet.'],
        opening_float: ['The opening_float field must be an integer of cents, 0 or more.'],
        drawer_id: ['The drawer_id field must be a drawer id (UUID).'],
      },
    });
    expect((await call(cashier, 'POST', '/pos/tills', { mode: 'register_drawer' })).body.errors).toEqual({ opening_float: ['The opening_float field is required.'] });
    expect((await call(cashier, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 0, drawer_id: crypto.randomUUID() })).body).toEqual({
      message: 'The selected drawer_id is not a drawer of this location.',
      errors: { drawer_id: ['The selected drawer_id is not a drawer of this location.'] },
    });
    expect(await cashier.tdb.selectFrom('pos_tills').select('id').execute()).toHaveLength(0);
  });

  test('register_drawer without drawer_id takes the only free drawer; the bare till is current; conflicts are 409 with free candidates', async () => {
    const me = await staffOf(cashier, 'cashier');
    const r = await call(cashier, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 10000 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: UUID7,
      mode: 'register_drawer',
      state: 'open',
      drawer: { id: main.id, name: 'Main drawer', kind: 'physical' },
      opening_float: 10000,
      opened_at: ISO,
      staff: { id: me.id, name: 'Carl Cashier' },
    });
    expect(await call(cashier, 'GET', '/pos/tills/current')).toMatchObject({ status: 200, body: r.body });

    // The second register finds no free drawer.
    const other = await signIn(api, cashier.m, 'manager', 1);
    expect(await call(other, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 0 })).toMatchObject({
      status: 409,
      body: { message: 'Every drawer of this location holds a till that is not closed yet.', reason: 'till_conflict', candidates: [] },
    });
    expect((await call(other, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 0, drawer_id: main.id })).body).toEqual({
      message: 'This drawer holds a till that is not closed yet. Pick a free drawer, or close that till first.',
      reason: 'till_conflict',
      candidates: [],
    });

    // Two more drawers: several free, so the register must name one (the client retries with drawer_id).
    const bar = { id: crypto.randomUUID(), name: 'Bar drawer', kind: 'physical' as const };
    const terrace = { id: crypto.randomUUID(), name: 'Terrace pouch', kind: 'virtual' as const };
    for (const [i, d] of [bar, terrace].entries()) {
      await cashier.tdb
        .insertInto('drawers')
        .values({ ...d, location_id: cashier.m.locations[0]!.id, fiscal_identity: JSON.stringify({ drawerId: d.id, drawerName: d.name }), created_at: new Date(Date.now() + 1000 * (i + 1)) })
        .execute();
    }
    const pick = await call(other, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 0 });
    expect(pick.status).toBe(409);
    expect(pick.body).toEqual({ message: 'Several drawers are free: send the drawer_id of the one to open the till on.', reason: 'till_conflict', candidates: [bar, terrace] });
    const onBar = await call(other, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 2500, drawer_id: bar.id });
    expect(onBar).toMatchObject({ status: 200, body: { mode: 'register_drawer', state: 'open', drawer: bar, opening_float: 2500 } });
    // One unclosed register_drawer till per register.
    expect((await call(other, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 0, drawer_id: terrace.id })).body).toEqual({
      message: 'This register holds a till that is not closed yet. Close it before opening another.',
      reason: 'till_conflict',
      candidates: [terrace],
    });

    // A staff wallet: the member's own receptacle, with a virtual drawer; one unclosed per member.
    expect((await call(cashier, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0, drawer_id: terrace.id })).body.errors).toEqual({
      drawer_id: ['A staff_wallet till keeps the cash in your own wallet: leave drawer_id out.'],
    });
    const wallet = await call(cashier, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 3000, drawer_id: null });
    expect(wallet.status).toBe(200);
    expect(wallet.body).toEqual({
      id: UUID7,
      mode: 'staff_wallet',
      state: 'open',
      drawer: { id: `wallet:${me.id}`, name: 'Wallet Carl Cashier', kind: 'virtual' },
      opening_float: 3000,
      opened_at: ISO,
      staff: { id: me.id, name: 'Carl Cashier' },
    });
    expect((await call(cashier, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0 })).body).toEqual({
      message: 'You hold a till that is not closed yet. Close it before opening another.',
      reason: 'till_conflict',
      candidates: [terrace],
    });

    // Current: the member's own wallet first, else the register's drawer till.
    expect((await call(cashier, 'GET', '/pos/tills/current')).body.id).toBe(wallet.body.id);
    const cashierOnOther = await signIn(api, cashier.m, 'cashier', 1);
    expect((await call(cashierOnOther, 'GET', '/pos/tills/current')).body.id).toBe(wallet.body.id);
    expect((await call(other, 'GET', '/pos/tills/current')).body).toEqual(onBar.body);

    // Concurrent openings of one drawer: one wins, the other is a till_conflict.
    await cashier.tdb.updateTable('pos_tills').set({ state: 'closed' }).where('id', 'in', [onBar.body.id, r.body.id]).execute();
    const race = await Promise.all([
      call(other, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 0, drawer_id: terrace.id }),
      call(cashier, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 0, drawer_id: terrace.id }),
    ]);
    expect(race.map((x) => x.status).sort()).toEqual([200, 409]);
    expect(race.find((x) => x.status === 409)!.body.reason).toBe('till_conflict');
  });

  test('opening needs open_till: 403, then an approval token passes once', async () => {
    const m = await api.seed('tills-perm');
    const r = await signIn(api, m, 'cashier', 0);
    await r.tdb.updateTable('staff_credentials').set({ permissions: ['take_orders'] }).where('role', '=', 'cashier').execute();
    expect(await call(r, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0 })).toMatchObject({ status: 403, body: FORBIDDEN });
    const token = await escalate(r, 'open_till');
    expect((await call(r, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0, approval_token: token })).status).toBe(200);
  });
});

describe('movements, sales, refunds, end, blind count and close', () => {
  let cashier: Register;
  let manager: Register;
  let till: any;

  beforeAll(async () => {
    const m = await api.seed('tills-cash');
    cashier = await signIn(api, m, 'cashier', 0);
    manager = await signIn(api, m, 'manager', 0);
    till = (await call(cashier, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 10000 })).body;
    expect(till.state).toBe('open');
  });

  const move = (r: Register, body: unknown) => call(r, 'POST', `/pos/tills/${till.id}/movements`, body);

  test('each movement type is signed by direction and by the fiscal module; permissions per type', async () => {
    const me = await staffOf(cashier, 'cashier');
    const boss = await staffOf(cashier, 'manager');
    const paidIn = await move(cashier, { type: 'paid_in', amount: 500, reason: 'Change from the bank' });
    expect(paidIn.status).toBe(200);
    expect(paidIn.body).toEqual({
      id: UUID7,
      till_id: till.id,
      type: 'paid_in',
      amount: 500,
      reason: 'Change from the bank',
      staff_id: me.id,
      approved_by: null,
      fiscal: { digital_signature: expect.any(String) },
      created_at: ISO,
    });
    expect((await move(cashier, { type: 'float_issue', amount: 2000 })).body).toMatchObject({ type: 'float_issue', amount: 2000, reason: null });
    // A float return takes cash out like a paid-out: it needs till_paid_out too.
    expect(await move(cashier, { type: 'float_return', amount: 300 })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect((await move(manager, { type: 'float_return', amount: 300 })).body).toMatchObject({ type: 'float_return', amount: -300, approved_by: null });

    // paid_out needs till_paid_out: the cashier escalates; the token works once.
    expect(await move(cashier, { type: 'paid_out', amount: 700 })).toMatchObject({ status: 403, body: FORBIDDEN });
    const token = await escalate(cashier, 'till_paid_out');
    const paidOut = await move(cashier, { type: 'paid_out', amount: 700, reason: 'Window cleaner', approval_token: token });
    expect(paidOut).toMatchObject({ status: 200, body: { type: 'paid_out', amount: -700, approved_by: boss.id } });
    expect(await move(cashier, { type: 'paid_out', amount: 700, approval_token: token })).toMatchObject({ status: 403, body: FORBIDDEN });

    // A no-sale needs no_sale and moves nothing.
    expect(await move(cashier, { type: 'drawer_open_no_sale' })).toMatchObject({ status: 403, body: FORBIDDEN });
    const noSale = await move(cashier, { type: 'drawer_open_no_sale', approval_token: await escalate(cashier, 'no_sale') });
    expect(noSale).toMatchObject({ status: 200, body: { type: 'drawer_open_no_sale', amount: 0 } });

    // Field rules.
    expect((await move(cashier, { type: 'paid_in', amount: 0 })).body).toEqual({ message: 'The amount field must be at least 1.', errors: { amount: ['The amount field must be at least 1.'] } });
    expect((await move(cashier, { type: 'paid_in', amount: -5 })).body.errors).toEqual({ amount: ['The amount field must be at least 1.'] });
    expect((await move(cashier, { type: 'paid_in', amount: 2.5 })).body.errors).toEqual({ amount: ['The amount field must be an integer.'] });
    expect((await move(manager, { type: 'drawer_open_no_sale', amount: 5 })).body.errors).toEqual({ amount: ['The amount field must be 0 or absent when the drawer is opened without a sale.'] });
    expect((await move(cashier, { type: 'tip', amount: 5 })).status).toBe(422);
    expect(await call(cashier, 'POST', `/pos/tills/${crypto.randomUUID()}/movements`, { type: 'paid_in', amount: 5 })).toMatchObject({ status: 404, body: { message: 'Unable to locate the till you requested.' } });

    // Each movement is journaled as its fiscal event, with the till's drawer identity.
    const drawer = { drawerId: cashier.m.drawers[0]!.id, drawerName: 'Main drawer' };
    const [inRow] = await journalOf(cashier, 'pos_till_movement', paidIn.body.id);
    expect(inRow).toMatchObject({ status: 'signed', event_kind: 'money_in_out' });
    expect(JSON.parse(inRow!.payload) as MoneyInOutEvent).toMatchObject({ kind: 'money_in_out', movement: 'paid_in', amount: 500, drawer, employeeId: me.id });
    const outEvent = JSON.parse((await journalOf(cashier, 'pos_till_movement', paidOut.body.id))[0]!.payload) as MoneyInOutEvent;
    expect(outEvent).toMatchObject({ kind: 'money_in_out', movement: 'paid_out', amount: -700, drawer });
    const noSaleRows = await journalOf(cashier, 'pos_till_movement', noSale.body.id);
    expect(noSaleRows.map((x) => x.event_kind)).toEqual(['drawer_open']);
    expect(JSON.parse(noSaleRows[0]!.payload) as DrawerOpenEvent).toMatchObject({ kind: 'drawer_open', drawer });
    const rows = await cashier.tdb.selectFrom('pos_till_movements').select(['type', 'amount', 'journal_id']).where('till_id', '=', till.id).orderBy('created_at').execute();
    expect(rows.map((x) => [x.type, x.amount])).toEqual([
      ['paid_in', 500],
      ['float_issue', 2000],
      ['float_return', -300],
      ['paid_out', -700],
      ['drawer_open_no_sale', 0],
    ]);
    expect(rows.every((x) => typeof x.journal_id === 'string')).toBe(true);
  });

  test('expected cash counts the cash kept on sales (change netted), refunds and movements; the count is blind; close needs approval for a major variance', async () => {
    const cash = await sell(cashier, [line(cashier, 'Espresso', 2), line(cashier, 'Croissant')], { amount_tendered: 1000 }); // keeps 780, 220 change
    const split = await sell(cashier, [line(cashier, 'Espresso', 2), line(cashier, 'Croissant')], { tenders: [{ method: 'card', funding: 'debit', amount: 500 }, { method: 'cash', amount_tendered: 300 }] }); // cash 280
    const card = await sell(cashier, [line(cashier, 'Belgian beer')], { tenders: [{ method: 'card', funding: 'credit', issuer: 'Visa' }] });
    // An open price differs from the catalog: the cashier needs apply_discount (escalated) for it.
    const rounded = await sell(cashier, [line(cashier, 'Croissant', 1, { unit_price: 1003, price_source: 'open_price' })], { amount_tendered: 2000 }, { approval_token: await escalate(cashier, 'apply_discount') }); // cash leg 1005
    expect(rounded.body.tender).toEqual({ amount_tendered: 2000, change: 995 });

    const tx = await cashier.tdb.selectFrom('pos_transactions').select(['order_id', 'till_id']).execute();
    const tillOf = (id: string) => tx.find((x) => x.order_id === id)!.till_id;
    expect([tillOf(cash.id), tillOf(split.id), tillOf(card.id), tillOf(rounded.id)]).toEqual([till.id, till.id, null, till.id]);
    // The sale's cash lines carry the till's drawer identity.
    const sale = JSON.parse((await journalOf(cashier, 'pos_order', split.id))[0]!.payload) as SaleEvent;
    expect(sale.financials.map((f) => [f.type, f.amount, f.drawer])).toEqual([
      ['CARD_DEBIT', 500, undefined],
      ['CASH', 280, { drawerId: cashier.m.drawers[0]!.id, drawerName: 'Main drawer' }],
    ]);

    // A cash refund (the croissant of the first sale) leaves this till.
    const croissant = cash.body.lines[1].uuid as string;
    const refund = await call(manager, 'POST', '/pos/refunds', { transaction_id: cash.transaction_id, mode: 'partial', line_uuids: [croissant] });
    expect(refund).toMatchObject({ status: 200, body: { refund: { amount: 220, till_id: till.id } } });

    // 10000 float + (780 + 280 + 1005) cash kept - 220 refunded + (500 + 2000 - 300 - 700 + 0) moved.
    const expected = 10000 + 2065 - 220 + 1500;
    expect(expected).toBe(13345);

    // Counting and closing need an ended till.
    expect(await call(cashier, 'POST', `/pos/tills/${till.id}/count`, { counted: 1 })).toMatchObject({ status: 409, body: { reason: 'till_not_ended', message: 'End the till before counting it.' } });
    expect(await call(cashier, 'POST', `/pos/tills/${till.id}/close`)).toMatchObject({ status: 409, body: { reason: 'till_not_ended' } });

    const ended = await call(cashier, 'POST', `/pos/tills/${till.id}/end`);
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ ...till, state: 'ended' });
    expect(await call(cashier, 'POST', `/pos/tills/${till.id}/end`)).toMatchObject({ status: 409, body: { reason: 'till_not_open', message: 'This till has already ended.' } });
    expect(await move(cashier, { type: 'paid_in', amount: 100 })).toMatchObject({ status: 409, body: { reason: 'till_not_open', message: 'This till has ended and no longer takes cash.' } });
    expect(await call(cashier, 'POST', `/pos/tills/${till.id}/close`)).toMatchObject({ status: 409, body: { reason: 'till_not_counted', message: 'Count the till before closing it.' } });
    // An ended till takes no cash: a new cash sale is booked to no till.
    const late = await sell(cashier, [line(cashier, 'Espresso')], { amount_tendered: 280 });
    expect((await cashier.tdb.selectFrom('pos_transactions').select('till_id').where('order_id', '=', late.id).executeTakeFirstOrThrow()).till_id).toBeNull();
    // Still current (ended, not closed).
    expect((await call(cashier, 'GET', '/pos/tills/current')).body).toEqual({ ...till, state: 'ended' });

    const count = (body: unknown) => call(cashier, 'POST', `/pos/tills/${till.id}/count`, body);
    const exact = await count({ counted: expected });
    expect(exact.status).toBe(200);
    expect(exact.body).toEqual({ till: { ...till, state: 'ended' }, expected, counted: expected, variance: 0, variance_level: 'none', requires_approval: false, approval_permission: null });
    expect((await count({ counted: expected + 150 })).body).toMatchObject({ variance: 150, variance_level: 'minor', requires_approval: false, approval_permission: null });
    expect((await count({ counted: expected - 200 })).body).toMatchObject({ variance: -200, variance_level: 'minor' });
    expect((await count({ counted: expected + 1001 })).body).toMatchObject({ variance: 1001, variance_level: 'critical', requires_approval: true, approval_permission: 'close_till' });
    expect((await count({})).body).toEqual({ message: 'The counted field is required.', errors: { counted: ['The counted field is required.'] } });
    expect((await count({ counted: -1 })).body.errors).toEqual({ counted: ['The counted field must be at least 0.'] });
    expect((await count({ counted: '12' })).body.errors).toEqual({ counted: ['The counted field must be an integer.'] });

    // The deprecated name: read only when `counted` is absent, with a deprecation warning.
    const warn = spyOn(api.deps.log, 'warn');
    try {
      // The critical count above showed the expected cash: a recount hitting it still needs close_till.
      expect((await count({ counted: expected, counted_close: 5 })).body).toMatchObject({ counted: expected, variance: 0, variance_level: 'none', requires_approval: true, approval_permission: 'close_till' });
      expect(warn).not.toHaveBeenCalled();
      const old = await count({ counted_close: expected - 500 });
      expect(old.body).toEqual({ till: { ...till, state: 'ended' }, expected, counted: expected - 500, variance: -500, variance_level: 'major', requires_approval: true, approval_permission: 'close_till' });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toContain('counted_close');
      expect(warn.mock.calls[0]![1]).toMatchObject({ till_id: till.id });
    } finally {
      warn.mockRestore();
    }

    // A major variance: the cashier (no close_till) is refused, then a manager's approval closes it.
    expect(await call(cashier, 'POST', `/pos/tills/${till.id}/close`, {})).toMatchObject({ status: 403, body: FORBIDDEN });
    const closed = await call(cashier, 'POST', `/pos/tills/${till.id}/close`, { approval_token: await escalate(cashier, 'close_till') });
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({ till: { ...till, state: 'closed' }, expected, counted: expected - 500, variance: -500, variance_level: 'major', requires_approval: true, approval_permission: 'close_till' });
    const boss = await staffOf(cashier, 'manager');
    const me = await staffOf(cashier, 'cashier');
    expect(await cashier.tdb.selectFrom('pos_tills').select(['counted', 'expected_at_count', 'variance', 'variance_level', 'closed_by', 'close_approved_by', 'counted_by']).where('id', '=', till.id).executeTakeFirstOrThrow()).toEqual({
      counted: expected - 500,
      expected_at_count: expected,
      variance: -500,
      variance_level: 'major',
      closed_by: me.id,
      close_approved_by: boss.id,
      counted_by: me.id,
    });
    expect(await call(cashier, 'POST', `/pos/tills/${till.id}/close`)).toMatchObject({ status: 409, body: { reason: 'till_closed', message: 'This till is closed.' } });
    expect(await call(cashier, 'POST', `/pos/tills/${till.id}/count`, { counted: 1 })).toMatchObject({ status: 409, body: { reason: 'till_closed' } });
    expect((await call(cashier, 'GET', '/pos/tills/current')).status).toBe(204);

    // The drawer is free again; a minor variance closes without approval.
    const next = await call(cashier, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 0 });
    expect(next.status).toBe(200);
    expect((await call(cashier, 'POST', `/pos/tills/${next.body.id}/end`)).status).toBe(200);
    expect((await call(cashier, 'POST', `/pos/tills/${next.body.id}/count`, { counted: 100 })).body).toMatchObject({ expected: 0, variance: 100, variance_level: 'minor', requires_approval: false });
    expect(await call(cashier, 'POST', `/pos/tills/${next.body.id}/close`)).toMatchObject({ status: 200, body: { till: { id: next.body.id, state: 'closed' }, variance_level: 'minor', requires_approval: false } });
    expect(as(cashier, 'cashier').name).toBe('Carl Cashier');
  });

  test('the count is blind: a recount entering the expected cash a count needing approval showed still needs close_till, and the first variance is kept', async () => {
    const m = await api.seed('tills-blind');
    const c = await signIn(api, m, 'cashier', 0);
    const open = await call(c, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 10000 });
    await sell(c, [line(c, 'Espresso', 2)], { amount_tendered: 1000 });
    expect((await call(c, 'POST', `/pos/tills/${open.body.id}/end`)).status).toBe(200);
    const first = await call(c, 'POST', `/pos/tills/${open.body.id}/count`, { counted: 8560 });
    expect(first.body).toMatchObject({ expected: 10560, variance: -2000, variance_level: 'critical', requires_approval: true, approval_permission: 'close_till' });
    const recount = await call(c, 'POST', `/pos/tills/${open.body.id}/count`, { counted: 10560 });
    expect(recount.body).toEqual({ till: { ...open.body, state: 'ended' }, expected: 10560, counted: 10560, variance: 0, variance_level: 'none', requires_approval: true, approval_permission: 'close_till' });
    expect(await call(c, 'POST', `/pos/tills/${open.body.id}/close`, {})).toMatchObject({ status: 403, body: FORBIDDEN });
    const closed = await call(c, 'POST', `/pos/tills/${open.body.id}/close`, { approval_token: await escalate(c, 'close_till') });
    expect(closed).toMatchObject({ status: 200, body: { till: { state: 'closed' }, variance: 0, requires_approval: true, approval_permission: 'close_till' } });
    const boss = await staffOf(c, 'manager');
    expect(await c.tdb.selectFrom('pos_tills').select(['counted', 'variance', 'flagged_variance', 'close_approved_by']).where('id', '=', open.body.id).executeTakeFirstOrThrow()).toEqual({
      counted: 10560,
      variance: 0,
      flagged_variance: -2000,
      close_approved_by: boss.id,
    });
  });

  test('a till of another location is 404; end and count need count_till', async () => {
    const other = await api.seed('tills-other');
    const stranger = await signIn(api, other, 'manager', 0);
    const foreign = (await call(stranger, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0 })).body;
    expect(await call(cashier, 'POST', `/pos/tills/${foreign.id}/end`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the till you requested.' } });
    expect((await call(cashier, 'POST', '/pos/tills/not-a-uuid/end')).status).toBe(404);

    await cashier.tdb.updateTable('staff_credentials').set({ permissions: ['take_orders', 'settle', 'open_till'] }).where('role', '=', 'cashier').execute();
    try {
      const wallet = (await call(cashier, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0 })).body;
      expect(await call(cashier, 'POST', `/pos/tills/${wallet.id}/end`)).toMatchObject({ status: 403, body: FORBIDDEN });
      expect((await call(manager, 'POST', `/pos/tills/${wallet.id}/end`)).body).toMatchObject({ id: wallet.id, state: 'ended' });
    } finally {
      await cashier.tdb.updateTable('staff_credentials').set({ permissions: ['take_orders', 'settle', 'open_till', 'count_till'] }).where('role', '=', 'cashier').execute();
    }
  });
});

describe('through a remote fiscal data module', () => {
  const SECRET = 'remote-tills-secret';
  let remoteApi: TestApi;
  let sim: FdmSimulator;
  let manager: Register;

  beforeAll(async () => {
    const seeded = await api.seed('tills-remote');
    const rdb = bindTenant(api.deps.db, seeded.merchant.tenant_database);
    const fdm = await rdb.selectFrom('fdm_devices').select('fdm_id').executeTakeFirstOrThrow();
    await rdb.updateTable('fdm_devices').set({ mode: 'remote' }).execute();
    sim = startFdmSimulator({ port: 0, sharedSecret: SECRET, deviceId: fdm.fdm_id });
    remoteApi = await createTestApi({ env: { FDM_REMOTE_URL: sim.url, FDM_REMOTE_SECRETS: JSON.stringify({ [fdm.fdm_id]: SECRET }) } });
    manager = await signIn(remoteApi, seeded, 'manager', 0);
  });
  afterAll(async () => {
    await remoteApi.close();
    await sim.stop();
  });

  test('a movement while the module is unreachable answers 200 unsigned (no retry, no second movement); recovery signs it once and the till counts it once', async () => {
    const till = (await call(manager, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 1000 })).body;
    sim.simulateOutage(1000);
    let kept;
    try {
      kept = await call(manager, 'POST', `/pos/tills/${till.id}/movements`, { type: 'paid_in', amount: 250, reason: 'change for the float' });
    } finally {
      sim.simulateOutage(0);
    }
    // Before: 503 fiscal_unreachable ("the sale is kept"), and the register's retry recorded the cash twice.
    expect(kept.status).toBe(200);
    expect(kept.body).toEqual({ id: UUID7, till_id: till.id, type: 'paid_in', amount: 250, reason: 'change for the float', staff_id: expect.any(String), approved_by: null, fiscal: {}, created_at: ISO });
    const rows = await manager.tdb.selectFrom('pos_till_movements').selectAll().where('till_id', '=', till.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: kept.body.id, amount: 250, journal_id: null });
    expect(new Date(rows[0]!.created_at).toISOString()).toBe(kept.body.created_at);
    expect((await journalOf(manager, 'pos_till_movement', kept.body.id)).map((j) => j.status)).toEqual(['pending']);

    const signedBefore = sim.signedCount;
    expect(await recoverPendingEntries(manager.tdb, remoteApi.deps.fiscal, { olderThanMs: 0, hooks: registerRecoveryHooks(systemClock) })).toMatchObject({ signed: 1, failed: 0, pending: 0 });
    expect(sim.signedCount).toBe(signedBefore + 1);
    const [entry, ...more] = await journalOf(manager, 'pos_till_movement', kept.body.id);
    expect(more).toHaveLength(0);
    expect(entry!.status).toBe('signed');
    expect(await manager.tdb.selectFrom('pos_till_movements').select(['id', 'journal_id']).where('till_id', '=', till.id).execute()).toEqual([{ id: kept.body.id, journal_id: entry!.id }]);

    expect((await call(manager, 'POST', `/pos/tills/${till.id}/end`)).status).toBe(200);
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/count`, { counted: 1250 })).body).toMatchObject({ expected: 1250, counted: 1250, variance: 0 });
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/close`)).body.till.state).toBe('closed');
  });

  test('movements, a cash sale, a refund, the X report and the Z close are signed by the module; an unreachable module keeps the movement pending', async () => {
    const till = (await call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 5000 })).body;
    const paidIn = await call(manager, 'POST', `/pos/tills/${till.id}/movements`, { type: 'paid_in', amount: 500 });
    expect(paidIn).toMatchObject({ status: 200, body: { amount: 500, fiscal: { digital_signature: expect.any(String) } } });
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/movements`, { type: 'drawer_open_no_sale' })).status).toBe(200);
    const sale = await sell(manager, [line(manager, 'Espresso', 2), line(manager, 'Croissant')], { amount_tendered: 1000 });
    expect((await manager.tdb.selectFrom('pos_transactions').select('till_id').where('id', '=', sale.transaction_id).executeTakeFirstOrThrow()).till_id).toBe(till.id);
    const refund = await call(manager, 'POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [sale.body.lines[0].uuid] });
    expect(refund).toMatchObject({ status: 200, body: { refund: { amount: 560, till_id: till.id, fiscal: { short_signature: expect.any(String) } } } });

    sim.simulateOutage(10);
    const lost = await call(manager, 'POST', `/pos/tills/${till.id}/movements`, { type: 'paid_in', amount: 100 });
    expect(lost).toMatchObject({ status: 200, body: { amount: 100, fiscal: {} } });
    expect(lost.body.fiscal.digital_signature).toBeUndefined();
    sim.simulateOutage(0);
    const kept = await manager.tdb.selectFrom('pos_till_movements').select(['id', 'amount', 'journal_id']).where('amount', '=', 100).executeTakeFirstOrThrow();
    expect(kept.journal_id).toBeNull();
    const [pending] = await journalOf(manager, 'pos_till_movement', kept.id);
    expect(pending!.status).toBe('pending');
    expect((await remoteApi.deps.fiscal.completePending(manager.tdb, pending!.id)).status).toBe('signed');

    expect((await call(manager, 'GET', '/pos/business-day/x-report')).body.turnover_x).toMatchObject({ sales_count: 1, refunds_count: 1, net: 2.2 });
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/end`)).status).toBe(200);
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/count`, { counted: 5820 })).body).toMatchObject({ expected: 5000 + 500 + 780 - 560 + 100, variance: 0 });
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/close`)).status).toBe(200);
    const z = await call(manager, 'POST', '/pos/business-day/close');
    expect(z).toMatchObject({ status: 200, body: { status: 'closed', z_report_no: 1, z_report: { fiscal: { digital_signature: expect.any(String) } } } });

    const journal = await manager.tdb.selectFrom('fiscal_journal').select(['event_kind', 'status']).orderBy('seq').execute();
    expect(journal.every((j) => j.status === 'signed')).toBe(true);
    // The first money_in_out is the previous test's movement, signed by recovery.
    expect(journal.map((j) => j.event_kind).filter((k) => k !== 'work_in')).toEqual(['money_in_out', 'money_in_out', 'drawer_open', 'sale', 'refund', 'money_in_out', 'report_x_turnover', 'report_x_user', 'report_z']);
  });
});
