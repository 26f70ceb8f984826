import { expect, test, clientAddressFor } from '../support/test.ts';
import { RegisterClient, type OrderLine } from '../support/register-client.ts';
import { loadSeed } from '../support/seed.ts';
import { E2E } from '../support/stack-env.ts';

const line = (item: { id: string; unit_price: number }, qty = 1, extra: Partial<OrderLine> = {}): OrderLine => ({
  uuid: crypto.randomUUID(),
  item_id: item.id,
  qty,
  unit_price: item.unit_price,
  price_source: 'catalog',
  modifiers: [],
  ...extra,
});

test.describe.serial('a register shift', () => {
  const seed = loadSeed();
  const pin = (role: 'manager' | 'cashier') => seed.staff.find((s) => s.role === role)!.pin;
  const pos = seed.devices.filter((d) => d.type === 'pos');
  let till: RegisterClient;
  let other: RegisterClient;

  test('activate two registers and sign staff in', async ({ playwright }) => {
    const ctx = await playwright.request.newContext({ baseURL: `http://127.0.0.1:${E2E.apiPort}`, extraHTTPHeaders: { 'x-forwarded-for': clientAddressFor(test.info().testId) } });
    till = new RegisterClient(ctx, E2E.env.DEVICE_API_KEY);
    other = new RegisterClient(ctx, E2E.env.DEVICE_API_KEY);
    expect(await till.activate(pos[0]!.activation_code)).toEqual({ id: pos[0]!.id, location_id: seed.locations[0]!.id, merchant_slug: 'demo' });
    await other.activate(pos[1]!.activation_code);
    expect((await till.pinLogin(pin('cashier'))).role).toBe('cashier');
    expect((await other.pinLogin(pin('manager'))).role).toBe('manager');
    const boot = await till.send('GET', '/pos/bootstrap', undefined, false);
    expect(boot.status()).toBe(200);
    const body = await boot.json();
    expect(body.location.pos_tenders.enabled).toEqual(['card', 'meal_voucher', 'gift_voucher']);
    expect(body.location.fiscal_device.signing).toBe(true);
    expect(body.display_groups.flatMap((g: { items: unknown[] }) => g.items).length).toBe(seed.items.length);
  });

  test('build, edit (with a concurrent edit from another register), fire and settle in cash', async () => {
    const order = crypto.randomUUID();
    const espresso = seed.items.find((i) => i.name === 'Espresso')!;
    const croissant = seed.items.find((i) => i.name === 'Croissant')!;
    const lines = [line(espresso, 2), line(croissant, 1)];
    const created = await till.saveOrder(order, lines);
    expect(created.status()).toBe(200);
    const first = await created.json();
    expect(first).toMatchObject({ client_uuid: order, version: 1, state: 'OPEN', fired: false });
    expect(first.totals.total).toBe(2 * espresso.unit_price + croissant.unit_price);

    // The other register edits the same order: the till's next save is stale, refetches and retries once.
    other.versions.set(order, 1);
    expect((await other.saveOrder(order, [...lines, line(espresso, 1)])).status()).toBe(200);
    lines[0] = { ...lines[0]!, qty: 3 };
    const retried = await till.saveOrder(order, lines);
    expect(retried.status()).toBe(200);
    const edited = await retried.json();
    expect(edited.version).toBe(3);
    expect(edited.lines.map((l: { qty: number }) => l.qty)).toEqual([3, 1]);
    expect(edited.totals.total).toBe(3 * espresso.unit_price + croissant.unit_price);

    const fired = await till.fire(order);
    expect(fired.status()).toBe(200);
    expect((await fired.json()).fired).toBe(true);

    const total = edited.totals.total as number;
    const tendered = Math.ceil((total + 1) / 500) * 500;
    const settled = await till.settle(order, { amount_tendered: tendered });
    expect(settled.status()).toBe(200);
    const sale = await settled.json();
    expect(sale.state).toBe('SETTLED');
    const roundedDue = total % 5 === 0 || total < 5 ? total : Math.round(total / 5) * 5;
    expect(sale.tender).toEqual({ amount_tendered: tendered, change: tendered - roundedDue });
    expect(sale.fiscal).toEqual({ short_signature: expect.any(String), digital_signature: expect.any(String), verification_url: expect.any(String) });
    expect(sale.transaction_id).toEqual(expect.any(String));
    const again = await till.settle(order, { amount_tendered: tendered });
    expect(again.status()).toBe(409);
  });

  test('a split sale (debit card then cash) and a voucher sale', async () => {
    const beer = seed.items.find((i) => i.name === 'Belgian beer')!;
    const split = crypto.randomUUID();
    const s1 = await (await till.saveOrder(split, [line(beer, 3)])).json();
    const total = s1.totals.total as number;
    const card = await till.settle(split, { tenders: [{ method: 'card', funding: 'debit', amount: 1000 }, { method: 'cash', amount_tendered: total - 1000 }] });
    expect(card.status()).toBe(200);
    expect((await card.json()).state).toBe('SETTLED');

    const voucherOrder = crypto.randomUUID();
    const pasta = seed.items.find((i) => i.name === 'Spaghetti bolognese')!;
    const v = await (await till.saveOrder(voucherOrder, [line(pasta, 1)])).json();
    const overpay = await till.settle(voucherOrder, { tenders: [{ method: 'meal_voucher', amount: v.totals.total + 100 }] });
    expect(overpay.status()).toBe(422);
    expect((await overpay.json()).message).toBe('A voucher cannot pay more than the amount still due — it gives no change and is never rounded.');
    const paid = await till.settle(voucherOrder, { tenders: [{ method: 'meal_voucher', amount: 1000 }, { method: 'card', funding: 'credit', issuer: 'Visa' }] });
    expect(paid.status()).toBe(200);
  });

  test('a discount needs a manager: 403, escalate, retry with the approval token', async () => {
    const order = crypto.randomUUID();
    const fries = seed.items.find((i) => i.name === 'Fries with mayonnaise')!;
    const lines = [line(fries, 2, { discount: { type: 'pct', value: 10 } })];
    const refused = await till.saveOrder(order, lines);
    expect(refused.status()).toBe(403);
    expect(await refused.json()).toEqual({ message: 'Unauthorized: Insufficient permissions' });
    const approval = await till.escalate(pin('manager'), 'apply_discount');
    const ok = await till.saveOrder(order, lines, { approval_token: approval });
    expect(ok.status()).toBe(200);
    const body = await ok.json();
    expect(body.totals.discount).toBe(2 * Math.round((fries.unit_price * 10) / 100));
    // The approval works once.
    const reuse = await till.saveOrder(crypto.randomUUID(), lines, { approval_token: approval });
    expect(reuse.status()).toBe(403);
  });

  test('401 with a staff token ends the staff session; 401 without one drops the device', async () => {
    const stale = till.staffToken!;
    await till.send('POST', '/pos/staff/pin-logout');
    till.staffToken = stale;
    const afterLogout = await till.send('GET', '/pos/orders?state=open');
    expect(afterLogout.status()).toBe(401);
    expect(await afterLogout.json()).toEqual({ message: 'Invalid POS staff token' });
    expect(till.lost).toBe('staff');
    expect(till.deviceToken).not.toBeNull();

    await till.pinLogin(pin('cashier'));
    expect((await till.send('GET', '/pos/orders?state=settled')).status()).toBe(200);
    await till.send('POST', '/device-auth/logout', undefined, false);
    const dead = await till.send('GET', '/pos/bootstrap', undefined, false);
    expect(dead.status()).toBe(401);
    expect(till.lost).toBe('device');
    expect(till.deviceToken).toBeNull();
    expect(till.transientRetries).toBe(0);
  });
});
