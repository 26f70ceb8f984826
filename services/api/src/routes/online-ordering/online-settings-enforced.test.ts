import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { backgroundCapturesSettled } from '../../testing/background-captures.ts';

// The online channel settings (`PUT /back-office/online-settings/{locationId}`) the payment route reads.
let api: TestApi;
let a: DemoSeedResult;
let owner: string;
beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('online-enforced');
  owner = await api.ownerToken(a);
  await bindTenant(api.deps.db, a.merchant.tenant_database).updateTable('locations').set({ payment_settings: JSON.stringify({ test_mode: true }) }).where('id', '=', a.locations[0]!.id).execute();
}, 60_000);
afterAll(async () => {
  await backgroundCapturesSettled(api.deps.db, a.merchant.tenant_database);
  await api.close();
});
const loc0 = () => a.locations[0]!.id;
const count = async () => Number((await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('transactions').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
const pay = (body: Record<string, unknown>) => api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/payment`, { body });

describe('the online settings the payment route enforces', () => {
  test('allow_tips false: a tip is 422 on tip_amount and nothing is stored; no tip is fine', async () => {
    expect((await api.call('PUT', `/api/back-office/online-settings/${loc0()}`, { token: owner, body: { allow_tips: false } })).body.data.allow_tips).toBe(false);
    try {
      const before = await count();
      expect(await pay({ lines: [{ item_id: a.items[0]!.id, qty: 1 }], tip_amount: 100 })).toMatchObject({ status: 422, body: { errors: { tip_amount: ['This restaurant does not accept tips.'] } } });
      expect(await count()).toBe(before);
      expect((await pay({ lines: [{ item_id: a.items[0]!.id, qty: 1 }], tip_amount: 0 })).status).toBe(200);
    } finally {
      await api.call('PUT', `/api/back-office/online-settings/${loc0()}`, { token: owner, body: { allow_tips: true } });
    }
    expect((await pay({ lines: [{ item_id: a.items[0]!.id, qty: 1 }], tip_amount: 100 })).body.data.total).toBe(a.items[0]!.unit_price + 100);
  });

  test('allow_guest_checkout false: a guest is 401 Unauthenticated and nothing is stored; a signed-in customer orders', async () => {
    expect((await api.call('PUT', `/api/back-office/online-settings/${loc0()}`, { token: owner, body: { allow_guest_checkout: false } })).body.data.allow_guest_checkout).toBe(false);
    try {
      const before = await count();
      expect(await pay({ lines: [{ item_id: a.items[0]!.id, qty: 1 }] })).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
      expect(await count()).toBe(before);
      const { makeCustomer } = await import('../customer-account/customer-test-support.ts');
      const c = await makeCustomer(api, a);
      const r = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/payment`, { body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }] }, token: c.token });
      expect(r.status).toBe(200);
    } finally {
      await api.call('PUT', `/api/back-office/online-settings/${loc0()}`, { token: owner, body: { allow_guest_checkout: true } });
    }
  });
});
