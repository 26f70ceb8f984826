import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { PROFILE_HAS_SUBSCRIPTIONS } from '@pos/core/settings/billing-profiles';
import { BILLING_NOT_CONFIGURED } from '@pos/core/settings/billing-subscriptions';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const P = '/api/back-office/settings/billing-profiles';
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const rows = (m: DemoSeedResult) => tdbOf(m).selectFrom('billing_profiles').select(['name', 'card_a_customer_id']).orderBy('name').execute();
/** A local subscription record as the card-a webhook writes it. */
const subscription = async (m: DemoSeedResult, customer: string, status: string, createdAt: Date) => {
  const id = Bun.randomUUIDv7();
  await tdbOf(m)
    .insertInto('billing_subscriptions')
    .values({
      id,
      provider_subscription_id: `sub_${id.slice(-12)}`,
      customer_id: customer,
      location_id: m.locations[0]!.id,
      price_id: 'price_kiosk',
      device_ids: JSON.stringify([]),
      status,
      current_period_end: new Date('2026-12-23T00:00:00.000Z'),
      cancel_reason: null,
      canceled_at: null,
      payment_method_id: null,
      mandate_id: null,
      recovered_by: null,
      event_created: 1,
      created_at: createdAt,
      updated_at: createdAt,
    })
    .execute();
  return id;
};

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('bill-a');
  b = await api.seed('bill-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
}, 60_000);
afterAll(() => api.close());

describe('billing profiles', () => {
  test('create, list, options, show, rename, delete', async () => {
    const r = await api.call('POST', P, { token: owner, body: { name: '  Head office ' } });
    expect(r.status).toBe(201);
    const id = r.body.data.id;
    expect(r.body).toEqual({ data: { id, name: 'Head office', card_a_customer_id: null, created_at: expect.any(String), updated_at: expect.any(String) } });
    const second = (await api.call('POST', P, { token: owner, body: { name: 'Franchise' } })).body.data;
    expect((await api.call('GET', P, { token: owner })).body.data.map((p: { name: string }) => p.name)).toEqual(['Franchise', 'Head office']);
    expect((await api.call('GET', `${P}/options`, { token: owner })).body).toEqual({ data: [{ value: second.id, label: 'Franchise' }, { value: id, label: 'Head office' }] });
    expect(await api.call('GET', `${P}/${id}`, { token: owner })).toMatchObject({ status: 200, body: { data: r.body.data } });
    expect(await api.call('PUT', `${P}/${id}`, { token: owner, body: { name: 'HQ' } })).toMatchObject({ status: 200, body: { data: { id, name: 'HQ' } } });
    expect(await api.call('GET', `${P}/${id}/subscriptions`, { token: owner })).toMatchObject({ status: 200, body: { data: [] } });
    expect(await api.call('DELETE', `${P}/${second.id}`, { token: owner })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await api.call('GET', `${P}/${second.id}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the billing profile you requested.' } });
    expect(await rows(a)).toEqual([{ name: 'HQ', card_a_customer_id: null }]);
  });

  test('subscriptions of the profile\'s card-a customer; no delete while one serves', async () => {
    const id = (await api.call('POST', P, { token: owner, body: { name: 'Subscribed' } })).body.data.id;
    await tdbOf(a).updateTable('billing_profiles').set({ card_a_customer_id: 'cus_bill_a' }).where('id', '=', id).execute();
    const old = await subscription(a, 'cus_bill_a', 'canceled', new Date('2026-10-01T00:00:00.000Z'));
    const live = await subscription(a, 'cus_bill_a', 'active', new Date('2026-11-01T00:00:00.000Z'));
    await subscription(a, 'cus_someone_else', 'active', new Date('2026-11-02T00:00:00.000Z'));
    const list = await api.call('GET', `${P}/${id}/subscriptions`, { token: owner });
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([live, old]);
    expect(list.body.data[0]).toEqual({
      id: live,
      provider_subscription_id: `sub_${live.slice(-12)}`,
      location_id: a.locations[0]!.id,
      price_id: 'price_kiosk',
      device_ids: [],
      status: 'active',
      current_period_end: '2026-12-23T00:00:00.000Z',
      cancel_reason: null,
      canceled_at: null,
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-01T00:00:00.000Z',
    });
    expect(await api.call('DELETE', `${P}/${id}`, { token: owner })).toMatchObject({ status: 422, body: { message: PROFILE_HAS_SUBSCRIPTIONS } });
    // This API has no card-a client: the provider-backed routes say so (503) and change nothing.
    expect(await api.call('GET', `${P}/${id}/past-bills`, { token: owner })).toMatchObject({ status: 503, body: { message: BILLING_NOT_CONFIGURED } });
    expect(await api.call('POST', `${P}/${id}/subscriptions/${live}/cancel`, { token: owner })).toMatchObject({ status: 503, body: { message: BILLING_NOT_CONFIGURED } });
    expect((await rows(a)).map((x) => x.name)).toContain('Subscribed');
    await tdbOf(a).updateTable('billing_subscriptions').set({ status: 'canceled' }).where('id', '=', live).execute();
    expect((await api.call('DELETE', `${P}/${id}`, { token: owner })).status).toBe(200);
    expect((await rows(a)).map((x) => x.name)).not.toContain('Subscribed');
  });

  test('names checked, nothing written on a refusal', async () => {
    const before = await rows(a);
    for (const body of [{ name: '' }, { name: '   ' }, { name: 'x'.repeat(121) }, {}, { name: 'ok', extra: 1 }]) {
      expect((await api.call('POST', P, { token: owner, body })).status).toBe(422);
    }
    expect(await rows(a)).toEqual(before);
  });

  test('permissions, and another merchant\'s profile is a 404', async () => {
    const theirs = (await api.call('POST', P, { token: ownerB, body: { name: 'B billing' } })).body.data.id;
    for (const [m, path, body] of [
      ['GET', `/${theirs}`, undefined],
      ['GET', `/${theirs}/subscriptions`, undefined],
      ['PUT', `/${theirs}`, { name: 'Hijack' }],
      ['DELETE', `/${theirs}`, undefined],
    ] as const) {
      expect(await api.call(m, `${P}${path}`, { token: owner, body })).toMatchObject({ status: 404, body: { message: 'Unable to locate the billing profile you requested.' } });
    }
    expect(await rows(b)).toEqual([{ name: 'B billing', card_a_customer_id: null }]);

    const viewer = await limitedUserToken(api, a, ['VIEW_BILLING_PROFILES'], []);
    expect((await api.call('GET', P, { token: viewer })).status).toBe(200);
    const before = await rows(a);
    expect(await api.call('POST', P, { token: viewer, body: { name: 'No' } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const mine = (await api.call('GET', P, { token: owner })).body.data[0].id;
    expect((await api.call('PUT', `${P}/${mine}`, { token: viewer, body: { name: 'No' } })).status).toBe(403);
    expect((await api.call('DELETE', `${P}/${mine}`, { token: viewer })).status).toBe(403);
    const nobody = await limitedUserToken(api, a, [], []);
    expect((await api.call('GET', P, { token: nobody })).status).toBe(403);
    expect((await api.call('GET', `${P}/${mine}/subscriptions`, { token: nobody })).status).toBe(403);
    expect((await api.call('GET', `${P}/options`, { token: nobody })).status).toBe(200);
    expect(await rows(a)).toEqual(before);
  });
});
