import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createReward } from '@pos/core/customers/rewards';
import { movePoints } from '@pos/core/customers/loyalty';
import { finalisePayment } from '@pos/core/payments/post-capture';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';
import { makeCustomer, makeOrder } from '../customer-account/customer-test-support.ts';

// An adversarial pass on customers in the back office: a user granted some locations reading a
// customer's history, addresses of another customer, contacts in another spelling. Real PostgreSQL.
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
const base = '/api/back-office/customers';

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('boadv');
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const call = (method: string, path: string, body?: unknown, token = owner) => api.call(method, `${base}${path}`, { token, body });

describe('a customer\'s history read by a user granted some locations', () => {
  test('the timeline and the reward redemptions leave out the orders of locations outside the grant, as the orders list does', async () => {
    const c = await makeCustomer(api, m);
    const at0 = await makeOrder(api, m, { customerId: c.id, locationIndex: 0, total: 4321 });
    const at1 = await makeOrder(api, m, { customerId: c.id, locationIndex: 1, total: 1234 });
    const reward0 = await createReward(tdb(), { locationId: m.locations[0]!.id, name: 'Far away treat', points: 5, discount: 100 }, new Date());
    await movePoints(tdb(), { customerId: c.id, kind: 'adjust', points: 20, transactionId: null }, new Date());
    await tdb().updateTable('transactions').set({ offers: JSON.stringify([{ id: reward0, name: 'Far away treat', discount: 100 }]) }).where('id', '=', at0.id).execute();
    await finalisePayment(tdb(), at0.id);
    await finalisePayment(tdb(), at1.id);
    await api.call('POST', `${base}/${c.id}/notes`, { token: owner, body: { note: 'Allergic to nuts' } });

    const member = await makeMember(api, m, ['VIEW_CUSTOMERS'], { locationIds: [m.locations[1]!.id] });
    const orders = await call('GET', `/${c.id}/orders`, undefined, member.token);
    expect(orders.body.data.map((o: { id: string }) => o.id)).toEqual([at1.id]);

    const timeline = await call('GET', `/${c.id}/timelines`, undefined, member.token);
    expect(timeline.status).toBe(200);
    const orderEvents = timeline.body.data.filter((e: { kind: string }) => e.kind === 'order_paid');
    expect(orderEvents.map((e: { transaction_id: string }) => e.transaction_id)).toEqual([at1.id]);
    // Events about no order (the note) are the customer's, shown to anyone who may view customers.
    expect(timeline.body.data.map((e: { kind: string }) => e.kind)).toContain('note_added');

    const redemptions = await call('GET', `/${c.id}/reward-redemptions`, undefined, member.token);
    expect(redemptions).toMatchObject({ status: 200, body: { data: [] } });

    // The owner (every location) sees both orders and the redemption.
    const all = await call('GET', `/${c.id}/timelines`);
    expect(all.body.data.filter((e: { kind: string }) => e.kind === 'order_paid').map((e: { transaction_id: string }) => e.transaction_id).sort()).toEqual([at0.id, at1.id].sort());
    expect((await call('GET', `/${c.id}/reward-redemptions`)).body.data).toEqual([
      { id: expect.any(String), reward: { id: reward0, name: 'Far away treat' }, points: 5, transaction_id: at0.id, created_at: expect.any(String) },
    ]);
  });
});

describe('addresses and contacts of another customer', () => {
  test('setting as default an address of another customer is a 404 and changes nothing', async () => {
    const a = await makeCustomer(api, m);
    const b = await makeCustomer(api, m);
    const addr = { line1: 'Rue Haute 1', postal_code: '1000', city: 'Brussels', country: 'BE' };
    const ofB = await call('POST', `/${b.id}/addresses`, addr);
    expect(ofB.status).toBe(200);
    await call('POST', `/${a.id}/addresses`, { ...addr, line1: 'Rue Basse 2' });
    const r = await call('POST', `/${a.id}/addresses/${ofB.body.data.id}`);
    expect(r.status).toBe(404);
    const rows = await tdb().selectFrom('customer_addresses').select(['customer_id', 'is_default']).where('customer_id', 'in', [a.id, b.id]).execute();
    expect(rows.every((x) => x.is_default)).toBe(true);
  });

  test('a phone another customer holds, typed nationally, is taken (422) on create and update', async () => {
    const a = await makeCustomer(api, m, { phone: '+32470000707' });
    const created = await call('POST', '', { name: 'Copycat', phone: '0470 00 07 07' });
    expect(created).toMatchObject({ status: 422, body: { errors: { phone: ['The phone has already been taken.'] } } });
    const b = await makeCustomer(api, m);
    const updated = await call('PUT', `/${b.id}`, { phone: '0032 470 00 07 07' });
    expect(updated).toMatchObject({ status: 422, body: { errors: { phone: ['The phone has already been taken.'] } } });
    expect((await tdb().selectFrom('customers').select('id').where('phone', '=', '+32470000707').execute()).map((r) => r.id)).toEqual([a.id]);
  });
});
