import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { call, line, signIn, type Register } from '../pos-tills/register-test-support.ts';

// A fiscal pass over the register's fire and settle: a line whose VAT rate has no Belgian label
// (A 21 %, B 12 %, C 6 %, D 0 %) cannot be signed; it was a 500 from deep inside the signer.

let api: TestApi;
let m: DemoSeedResult;
let manager: Register;
let owner: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed(`fiscal-adv-${crypto.randomUUID().slice(0, 8)}`);
  manager = await signIn(api, m, 'manager', 0);
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

const NO_LABEL = {
  message: 'The fiscal data module has no VAT label for 9 %: only 21 %, 12 %, 6 % and 0 % can be signed. Give the item a Belgian VAT rate or take the line off.',
  reason: 'fiscal_vat_rate',
  vat_rates: [9],
};

const journalCount = async () => Number((await manager.tdb.selectFrom('fiscal_journal').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

describe('a VAT rate the fiscal data module has no label for', () => {
  test('a custom 9 % item: fire and settle answer 422 fiscal_vat_rate, nothing sent, signed or booked; without the line the sale goes through', async () => {
    const rate = await api.call('POST', '/api/back-office/tax-rates', { token: owner, body: { name: 'Nine', rate: 9 } });
    expect(rate.status).toBe(201);
    const espresso = m.items.find((i) => i.name === 'Espresso')!;
    expect((await api.call('PUT', `/api/back-office/items/${espresso.id}`, { token: owner, body: { vat_rate: 9 } })).status).toBe(200);
    expect((await call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 1000 })).status).toBe(200);

    const id = crypto.randomUUID();
    const nine = line(manager, 'Espresso');
    const croissant = line(manager, 'Croissant');
    // The upsert refuses such a line while the location signs (vat-label-adversarial.test.ts): the order
    // is written while it does not, then the enrolment is active again for the fire and the settle.
    const enrolment = (status: 'active' | 'retired') => manager.tdb.updateTable('fdm_devices').set({ status }).where('location_id', '=', m.locations[0]!.id).execute();
    await enrolment('retired');
    const put = await call(manager, 'PUT', `/pos/orders/${id}`, { lines: [nine, croissant] });
    await enrolment('active');
    expect(put.status).toBe(200);
    expect(put.body.totals.by_vat_rate).toEqual([
      { rate: 9, net: 257, vat: 23, gross: 280 },
      { rate: 6, net: 208, vat: 12, gross: 220 },
    ]);
    const before = await journalCount();

    const fire = await call(manager, 'POST', `/pos/orders/${id}/fire`);
    expect([fire.status, fire.body]).toEqual([422, NO_LABEL]);
    const settle = await call(manager, 'POST', `/pos/orders/${id}/settle`, { amount_tendered: 500 });
    expect([settle.status, settle.body]).toEqual([422, NO_LABEL]);

    const order = await call(manager, 'GET', `/pos/orders/${id}`);
    expect([order.body.state, order.body.fired, order.body.version]).toEqual(['OPEN', false, put.body.version]);
    expect(await journalCount()).toBe(before);
    expect(await manager.tdb.selectFrom('kitchen_tickets').select('id').execute()).toEqual([]);
    expect(await manager.tdb.selectFrom('pos_transactions').select('id').execute()).toEqual([]);

    // Taking the line off: the sale of the rest is signed.
    const rest = await call(manager, 'PUT', `/pos/orders/${id}`, { expected_version: put.body.version, lines: [croissant] });
    expect(rest.status).toBe(200);
    const ok = await call(manager, 'POST', `/pos/orders/${id}/settle`, { amount_tendered: 220 });
    expect([ok.status, ok.body.state]).toEqual([200, 'SETTLED']);
    expect(await journalCount()).toBe(before + 1);
  });
});
