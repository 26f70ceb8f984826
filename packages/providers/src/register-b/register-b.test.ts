import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { centsOf, majorOf, RegisterBClient } from './register-b-client.ts';
import { startRegisterBSimulator, type RegisterBSimulator } from './register-b-simulator.ts';
import { providerError } from '../shared/provider-test-support.ts';

let sim: RegisterBSimulator;
let client: RegisterBClient;

beforeAll(() => {
  sim = startRegisterBSimulator({ apiToken: 'rb-partner-token' });
  sim.addAccount('acc-1', { name: 'Bistro', capabilities: { pricing: true } });
  sim.addBranch('acc-1', 'br-1', 'Centre');
  sim.addBranch('acc-1', 'br-2', 'Station');
  sim.addProduct('acc-1', 'br-1', { id: 'p-1', name: 'Soup', price: 450, sku: 'S1' });
  sim.addProduct('acc-1', 'br-1', { id: 'p-2', name: 'Bread', price: 199, vat_rate: 6 });
  sim.accounts.get('acc-1')!.branches.get('br-1')!.stock.set('p-1', 7);
  sim.addRelation('acc-1', { number: 'R1', name: 'Ann', email: 'ann@example.com', discount_percent: 10 });
  sim.addAccount('acc-2', { capabilities: { live_inventory: false } });
  sim.addBranch('acc-2', 'br-x');
  client = new RegisterBClient({ baseUrl: sim.url, apiToken: 'rb-partner-token' });
});
afterAll(() => sim.stop());


describe('register-b money conversion', () => {
  test('major-unit strings to cents and back, exactly', () => {
    expect(centsOf('4.50')).toBe(450);
    expect(centsOf('4.5')).toBe(450);
    expect(centsOf('0.07')).toBe(7);
    expect(centsOf('12')).toBe(1200);
    expect(centsOf('-1.99')).toBe(-199);
    expect(majorOf(450)).toBe('4.50');
    expect(majorOf(7)).toBe('0.07');
    expect(majorOf(-199)).toBe('-1.99');
  });

  test('more decimals than cents: trailing zeros are the same amount, a sub-cent digit or a non-amount is refused', () => {
    // Before: "4.5000" read 5400 and "4.505" 905 (the fraction taken whole), published as item prices.
    expect(centsOf('4.5000')).toBe(450);
    expect(centsOf('12.300')).toBe(1230);
    for (const bad of ['4.505', '12.345', '1e3', '', '4,50', ' 4.50', 'abc', '-', '4.']) {
      expect(() => centsOf(bad)).toThrow(/register-b: not (an amount|a whole number of cents)/);
    }
  });
});

describe('register-b client against the simulator over HTTP', () => {
  test('health, account, capabilities, branches, products (cents), stock', async () => {
    expect(await client.health()).toEqual({ status: 'ok', version: 'sim-1.0' });
    expect(await client.account('acc-1')).toEqual({ id: 'acc-1', name: 'Bistro', status: 'active' });
    expect(await client.capabilities('acc-1')).toEqual({ live_inventory: true, relations: true, pricing: true });
    expect(await client.capabilities('acc-2')).toEqual({ live_inventory: false, relations: true, pricing: true });
    expect(await client.branches('acc-1')).toEqual([
      { id: 'br-1', name: 'Centre' },
      { id: 'br-2', name: 'Station' },
    ]);
    expect(await client.products('acc-1', 'br-1')).toEqual([
      { id: 'p-1', name: 'Soup', price: 450, vat_rate: 21, sku: 'S1', active: true },
      { id: 'p-2', name: 'Bread', price: 199, vat_rate: 6, sku: null, active: true },
    ]);
    expect(await client.stock('acc-1', 'br-1')).toEqual([{ product_id: 'p-1', quantity: 7 }]);
    expect(await providerError(client.stock('acc-2', 'br-x'))).toMatchObject({ kind: 'http', status: 409, code: 'capability_unavailable' });
  });

  test('relations: page, read, create, prices, quote', async () => {
    expect(await client.relations('acc-1', { page: 1, limit: 10 })).toEqual({ relations: [{ number: 'R1', name: 'Ann', email: 'ann@example.com', phone: null }], page: 1, has_more: false });
    expect(await client.relation('acc-1', 'R1')).toEqual({ number: 'R1', name: 'Ann', email: 'ann@example.com', phone: null });
    const created = await client.createRelation('acc-1', { name: 'Bob', email: null, phone: '+32470123456' });
    expect(created).toEqual({ number: 'R1000', name: 'Bob', email: null, phone: '+32470123456' });
    expect(await client.relations('acc-1', { page: 1, limit: 1 })).toMatchObject({ relations: [{ number: 'R1' }], has_more: true });
    expect(await client.relations('acc-1', { page: 2, limit: 1 })).toMatchObject({ relations: [{ number: 'R1000' }], has_more: false });
    expect(await client.relationPrices('acc-1', 'R1', ['p-1', 'p-2'])).toEqual([
      { product_id: 'p-1', price: 405, list_price: 450 },
      { product_id: 'p-2', price: 179, list_price: 199 },
    ]);
    expect(await client.quote('acc-1', { relation_number: 'R1', lines: [{ product_id: 'p-1', quantity: 2 }] })).toEqual({
      lines: [{ product_id: 'p-1', quantity: 2, unit_price: 405, line_total: 810 }],
      subtotal: 900,
      discount: 90,
      total: 810,
    });
    expect(await client.quote('acc-1', { relation_number: null, lines: [{ product_id: 'p-2', quantity: 3 }] })).toMatchObject({ subtotal: 597, discount: 0, total: 597 });
    expect(await providerError(client.quote('acc-1', { relation_number: null, lines: [{ product_id: 'nope', quantity: 1 }] }))).toMatchObject({ kind: 'http', status: 422, code: 'unknown_product' });
    expect(await providerError(client.createRelation('acc-1', { name: '', email: null, phone: null }))).toMatchObject({ kind: 'http', status: 422, code: 'invalid_request' });
  });

  test('unknown ids are 404s, a wrong token a 401, a 5xx and an unreachable API are ProviderErrors', async () => {
    expect(await providerError(client.account('nope'))).toMatchObject({ kind: 'http', status: 404, code: 'account_not_found' });
    expect(await providerError(client.products('acc-1', 'nope'))).toMatchObject({ kind: 'http', status: 404, code: 'branch_not_found' });
    expect(await providerError(client.relation('acc-1', 'nope'))).toMatchObject({ kind: 'http', status: 404, code: 'relation_not_found' });
    expect(await providerError(client.relationPrices('acc-1', 'nope', ['p-1']))).toMatchObject({ kind: 'http', status: 404, code: 'relation_not_found' });
    expect(await providerError(new RegisterBClient({ baseUrl: sim.url, apiToken: 'wrong' }).health())).toMatchObject({ kind: 'http', status: 401, code: 'unauthorized', message: 'register-b: Invalid partner token' });
    sim.failWith(503);
    try {
      expect(await providerError(client.branches('acc-1'))).toMatchObject({ kind: 'http', status: 503, code: 'unavailable' });
    } finally {
      sim.failWith(null);
    }
    expect(await client.branches('acc-1')).toHaveLength(2);
    expect((await providerError(new RegisterBClient({ baseUrl: 'http://127.0.0.1:9', apiToken: 'rb-partner-token', timeoutMs: 2000 }).health())).kind).toBe('network');
  });
});

describe('register-b orders (PUT, idempotent by our order id)', () => {
  const order = {
    channel: 'kiosk' as const,
    customerName: 'Ann',
    lines: [
      { name: 'Soup', quantity: 2, unitPrice: 450 },
      { name: 'Bread', quantity: 1, unitPrice: 199 },
    ],
    subtotal: 1099,
    discount: 100,
    tip: 50,
    serviceCharge: 25,
    total: 1074,
  };

  test('first PUT creates (201), the same id again answers the same order (200); major units on the wire, cents in the client', async () => {
    const first = await client.placeOrder('acc-1', 'br-1', 'tx-1', order);
    expect(first).toEqual({
      created: true,
      order: {
        id: expect.stringMatching(/^RBO-\d+$/),
        orderId: 'tx-1',
        branchId: 'br-1',
        channel: 'kiosk',
        customerName: 'Ann',
        lines: [
          { name: 'Soup', quantity: 2, unitPrice: 450, lineTotal: 900 },
          { name: 'Bread', quantity: 1, unitPrice: 199, lineTotal: 199 },
        ],
        subtotal: 1099,
        discount: 100,
        tip: 50,
        serviceCharge: 25,
        total: 1074,
        createdAt: expect.any(String),
      },
    });
    const stored = sim.accounts.get('acc-1')!.branches.get('br-1')!.orders;
    expect([...stored.keys()]).toEqual(['tx-1']);
    expect(stored.get('tx-1')).toMatchObject({ id: first.order.id, subtotal: '10.99', discount: '1.00', tip: '0.50', service_charge: '0.25', total: '10.74', lines: [{ unit_price: '4.50', line_total: '9.00' }, { unit_price: '1.99', line_total: '1.99' }] });

    // Again, even with another body: the order placed first, unchanged.
    const again = await client.placeOrder('acc-1', 'br-1', 'tx-1', { ...order, customerName: 'Someone else' });
    expect(again).toEqual({ created: false, order: first.order });
    expect(stored.size).toBe(1);
    // The same id at another branch is another order there.
    expect((await client.placeOrder('acc-1', 'br-2', 'tx-1', order)).created).toBe(true);
    expect(sim.accounts.get('acc-1')!.branches.get('br-2')!.orders.size).toBe(1);
  });

  test('an unknown branch or account is a 404, bad input a 422 with nothing stored, a wrong token a 401', async () => {
    expect(await providerError(client.placeOrder('acc-1', 'nope', 'tx-2', order))).toMatchObject({ kind: 'http', status: 404, code: 'branch_not_found' });
    expect(await providerError(client.placeOrder('nope', 'br-1', 'tx-2', order))).toMatchObject({ kind: 'http', status: 404, code: 'account_not_found' });
    expect(await providerError(client.placeOrder('acc-1', 'br-1', 'tx-2', { ...order, lines: [] }))).toMatchObject({ kind: 'http', status: 422, code: 'invalid_request', message: 'register-b: lines must hold 1-200 lines' });
    expect(await providerError(client.placeOrder('acc-1', 'br-1', 'tx-2', { ...order, subtotal: 1000 }))).toMatchObject({ kind: 'http', status: 422, message: 'register-b: subtotal 10.00 is not the sum of the lines (10.99)' });
    expect(await providerError(client.placeOrder('acc-1', 'br-1', 'tx-2', { ...order, tip: -5 }))).toMatchObject({ kind: 'http', status: 422, message: 'register-b: tip must be an amount in major units' });
    expect(await providerError(client.placeOrder('acc-1', 'br-1', 'tx-2', { ...order, lines: [{ name: 'Soup', quantity: 0, unitPrice: 450 }], subtotal: 0 }))).toMatchObject({ kind: 'http', status: 422 });
    expect(await providerError(client.placeOrder('acc-1', 'br-1', 'x'.repeat(101), order))).toMatchObject({ kind: 'http', status: 422, message: 'register-b: the order id must be 1-100 characters' });
    expect(sim.accounts.get('acc-1')!.branches.get('br-1')!.orders.has('tx-2')).toBe(false);
    expect(await providerError(new RegisterBClient({ baseUrl: sim.url, apiToken: 'wrong' }).placeOrder('acc-1', 'br-1', 'tx-2', order))).toMatchObject({ kind: 'http', status: 401, code: 'unauthorized' });
  });
});

describe('register-b simulator process (dev and e2e entry)', () => {
  test('starts from its environment with the listed accounts seeded', async () => {
    const p = Bun.spawn([process.execPath, `${import.meta.dir}/main.ts`], {
      env: { ...process.env, REGISTER_B_SIM_PORT: '0', REGISTER_B_API_TOKEN: 'rb-proc-token', REGISTER_B_SIM_ACCOUNTS: 'acc-dev' },
      stdout: 'pipe',
      stderr: 'inherit',
    });
    try {
      const reader = p.stdout.getReader();
      let text = '';
      while (!/listening on (http:\/\/\S+)/.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`main.ts exited: ${text}`);
        text += new TextDecoder().decode(value);
      }
      const url = /listening on (http:\/\/\S+)/.exec(text)![1]!;
      expect((await fetch(`${url}/_sim/ping`)).status).toBe(200);
      const c = new RegisterBClient({ baseUrl: url, apiToken: 'rb-proc-token' });
      expect(await c.branches('acc-dev')).toEqual([{ id: 'acc-dev-main', name: 'Main branch' }]);
      expect(await c.stock('acc-dev', 'acc-dev-main')).toEqual([
        { product_id: 'acc-dev-p1', quantity: 40 },
        { product_id: 'acc-dev-p2', quantity: 12 },
      ]);
    } finally {
      p.kill('SIGTERM');
      await p.exited;
    }
  });
});
