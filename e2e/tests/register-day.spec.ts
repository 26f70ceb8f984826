import { expect, test, type APIRequestContext, clientAddressFor } from '../support/test.ts';
import { RegisterClient, type OrderLine } from '../support/register-client.ts';
import { loadSeed } from '../support/seed.ts';
import { E2E } from '../support/stack-env.ts';

const line = (item: { id: string; unit_price: number }, qty = 1): OrderLine => ({ uuid: crypto.randomUUID(), item_id: item.id, qty, unit_price: item.unit_price, price_source: 'catalog', modifiers: [] });

/**
 * A whole register day (issue 5 point 6), run after the other suites (its Z close ends the day):
 * open a till, sell with every tender, paid in and paid out, a refund with escalation, end, blind count
 * with a variance and its approval, close, X report, Z close; then the back office exports the fiscal
 * journal and it verifies.
 */
test.describe.serial('a register day', () => {
  const seed = loadSeed();
  const location = seed.locations[0]!;
  const pin = (role: 'manager' | 'cashier') => seed.staff.find((s) => s.role === role)!.pin;
  let http: APIRequestContext;
  let owner: Record<string, string>;
  let pos: RegisterClient;
  let tillId: string;
  const sales: { id: string; transaction_id: string; total: number }[] = [];

  test('the back office creates a register device; it activates and the cashier signs in', async ({ playwright }) => {
    http = await playwright.request.newContext({ baseURL: `http://127.0.0.1:${E2E.apiPort}`, extraHTTPHeaders: { 'x-forwarded-for': clientAddressFor(test.info().testId) } });
    const login = await http.post('/api/login', { data: seed.backoffice });
    owner = { authorization: `Bearer ${(await login.json()).token}` };
    const created = await http.post('/api/back-office/devices', { headers: owner, data: { name: 'Day register', type: 'pos', location_id: location.id } });
    expect(created.status()).toBe(201);
    pos = new RegisterClient(http, E2E.env.DEVICE_API_KEY);
    await pos.activate((await created.json()).data.activation_code);
    await pos.pinLogin(pin('cashier'));
  });

  test('open a till on the drawer', async () => {
    const none = await pos.send('GET', '/pos/tills/current');
    expect(none.status()).toBe(204);
    expect(await none.text()).toBe('');
    const opened = await pos.send('POST', '/pos/tills', { mode: 'register_drawer', opening_float: 10000, drawer_id: seed.drawers[0]!.id });
    expect(opened.status()).toBe(200);
    const till = await opened.json();
    expect(till).toMatchObject({ mode: 'register_drawer', state: 'open', opening_float: 10000, drawer: { id: seed.drawers[0]!.id, name: seed.drawers[0]!.name, kind: 'physical' } });
    tillId = till.id;
    expect((await (await pos.send('GET', '/pos/tills/current')).json()).id).toBe(tillId);
  });

  test('sell with every tender', async () => {
    const items = Object.fromEntries(seed.items.map((i) => [i.name, i]));
    const bodies: [OrderLine[], unknown][] = [
      [[line(items['Espresso']!, 1)], { amount_tendered: 500 }],
      [[line(items['Belgian beer']!, 2)], { tenders: [{ method: 'card', funding: 'debit' }] }],
      [[line(items['Spaghetti bolognese']!, 1)], { tenders: [{ method: 'card', funding: 'credit', issuer: 'Mastercard' }] }],
      [[line(items['Croissant']!, 3)], { tenders: [{ method: 'meal_voucher', amount: 500 }, { method: 'cash', amount_tendered: 500 }] }],
      [[line(items['Fries with mayonnaise']!, 2)], { tenders: [{ method: 'gift_voucher', amount: 790 }] }],
    ];
    for (const [lines, settle] of bodies) {
      const id = crypto.randomUUID();
      const order = await (await pos.saveOrder(id, lines)).json();
      const r = await pos.settle(id, settle);
      expect(r.status(), JSON.stringify(settle)).toBe(200);
      const sale = await r.json();
      expect(sale.state).toBe('SETTLED');
      sales.push({ id, transaction_id: sale.transaction_id, total: order.totals.total });
    }
  });

  test('paid in, and a paid out that needs a manager', async () => {
    const paidIn = await pos.send('POST', `/pos/tills/${tillId}/movements`, { type: 'paid_in', amount: 2000, reason: 'Change from the bank' });
    expect(paidIn.status()).toBe(200);
    expect((await paidIn.json()).amount).toBe(2000);
    const refused = await pos.send('POST', `/pos/tills/${tillId}/movements`, { type: 'paid_out', amount: 700, reason: 'Window cleaner' });
    expect(refused.status()).toBe(403);
    const approval = await pos.escalate(pin('manager'), 'till_paid_out');
    const paidOut = await pos.send('POST', `/pos/tills/${tillId}/movements`, { type: 'paid_out', amount: 700, reason: 'Window cleaner', approval_token: approval });
    expect(paidOut.status()).toBe(200);
    expect((await paidOut.json()).amount).toBe(-700);
  });

  test('a refund with escalation hands back cash', async () => {
    const cashSale = sales[0]!;
    const refused = await pos.send('POST', '/pos/refunds', { transaction_id: cashSale.transaction_id, mode: 'full' });
    expect(refused.status()).toBe(403);
    const approval = await pos.escalate(pin('manager'), 'refund');
    const refund = await pos.send('POST', '/pos/refunds', { transaction_id: cashSale.transaction_id, mode: 'full', approval_token: approval });
    expect(refund.status()).toBe(200);
    const body = (await refund.json()).refund;
    expect(body).toMatchObject({ transaction_id: cashSale.transaction_id, mode: 'full', amount: cashSale.total, till_id: tillId });
    expect(body.fiscal.digital_signature).toEqual(expect.any(String));
  });

  test('end, blind count with a variance, close with approval', async () => {
    expect((await pos.send('POST', `/pos/tills/${tillId}/end`)).status()).toBe(200);
    // Cash in: float 10000 + espresso (rounded) + croissant cash share + paid in 2000 - paid out 700 - refund.
    const espresso = sales[0]!.total;
    const croissantCash = sales[3]!.total - 500;
    const round5 = (c: number) => (c < 5 || c % 5 === 0 ? c : Math.round(c / 5) * 5);
    const expected = 10000 + round5(espresso) + round5(croissantCash) + 2000 - 700 - espresso;
    const count = await pos.send('POST', `/pos/tills/${tillId}/count`, { counted: expected - 600 });
    expect(count.status()).toBe(200);
    expect(await count.json()).toMatchObject({ expected, counted: expected - 600, variance: -600, variance_level: 'major', requires_approval: true, approval_permission: 'close_till' });
    const refused = await pos.send('POST', `/pos/tills/${tillId}/close`, {});
    expect(refused.status()).toBe(403);
    const approval = await pos.escalate(pin('manager'), 'close_till');
    const closed = await pos.send('POST', `/pos/tills/${tillId}/close`, { approval_token: approval });
    expect(closed.status()).toBe(200);
    expect(await closed.json()).toMatchObject({ till: { id: tillId, state: 'closed' }, variance: -600, variance_level: 'major' });
  });

  test('X report in major units, then the Z close', async () => {
    const x = await pos.send('GET', '/pos/business-day/x-report');
    expect(x.status()).toBe(200);
    const { turnover_x, user_x } = await x.json();
    expect(turnover_x.refunds_count).toBe(1);
    expect(typeof turnover_x.net).toBe('number');
    const rows = Object.fromEntries(turnover_x.by_tender.map((r: { label: string; amount: number }) => [r.label, r.amount]));
    expect(rows['Gift voucher']).toBe(7.9);
    expect(rows['Meal voucher']).toBeGreaterThanOrEqual(5);
    expect(user_x.length).toBeGreaterThanOrEqual(1);

    const refused = await pos.send('POST', '/pos/business-day/close', {});
    expect(refused.status()).toBe(403);
    const approval = await pos.escalate(pin('manager'), 'close_business_day');
    const z = await pos.send('POST', '/pos/business-day/close', { approval_token: approval });
    expect(z.status()).toBe(200);
    const day = await z.json();
    expect(day.status).toBe('closed');
    expect(day.z_report.report_number).toBe(day.z_report_no);
    expect(day.z_report.fiscal.digital_signature).toEqual(expect.any(String));
    const again = await pos.send('POST', '/pos/business-day/close', { approval_token: await pos.escalate(pin('manager'), 'close_business_day') });
    expect(again.status()).toBe(409);
  });

  test('the back office exports the fiscal journal and it verifies', async () => {
    const days = await http.get(`/api/back-office/pos/${location.id}/business-days`, { headers: owner });
    expect(days.status()).toBe(200);
    const closed = (await days.json()).data.find((d: { status: string }) => d.status === 'closed');
    expect(closed).toBeTruthy();
    const detail = await http.get(`/api/back-office/pos/${location.id}/business-days/${closed.id}`, { headers: owner });
    expect(detail.status()).toBe(200);
    const journal = await http.get(`/api/back-office/pos/${location.id}/fiscal-events`, { headers: owner });
    expect(journal.status()).toBe(200);
    const devices = (await journal.json()).data as { verification: { ok: boolean; count: number }; entries: { event_kind: string }[] }[];
    expect(devices.length).toBe(1);
    expect(devices[0]!.verification.ok).toBe(true);
    const kinds = new Set(devices[0]!.entries.map((e) => e.event_kind));
    for (const k of ['work_in', 'sale', 'money_in_out', 'refund', 'report_x_turnover', 'report_x_user', 'report_z']) expect(kinds).toContain(k);
  });
});
