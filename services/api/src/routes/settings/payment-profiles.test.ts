import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { DEFAULT_PAYMENT_PROFILE_NOT_DELETABLE } from '@pos/core/settings/payment-profiles';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { atOnce, sortedStatuses } from '../../testing/at-once.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const P = '/api/back-office/settings/payment-profiles';
const rows = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database).selectFrom('payment_profiles').select(['name', 'is_default']).orderBy('name').execute();

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('pay-a');
  b = await api.seed('pay-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
}, 60_000);
afterAll(() => api.close());

describe('payment profiles', () => {
  test('create (first is the default), show, rename, default, delete', async () => {
    const r = await api.call('POST', P, { token: owner, body: { name: ' Main ' } });
    expect(r.status).toBe(201);
    const main = r.body.data.id;
    expect(r.body).toEqual({ data: { id: main, name: 'Main', is_default: true, card_a_account_id: null, card_b_account_id: null, card_a_charges_enabled: false, card_b_connected_at: null, card_b_verified: null, in_person_provider: null, created_at: expect.any(String), updated_at: expect.any(String) } });
    const second = (await api.call('POST', P, { token: owner, body: { name: 'Events' } })).body.data;
    expect(second.is_default).toBe(false);
    expect(await api.call('GET', `${P}/${main}`, { token: owner })).toMatchObject({ status: 200, body: { data: r.body.data } });
    expect((await api.call('PUT', `${P}/${second.id}`, { token: owner, body: { name: 'Festival' } })).body.data).toMatchObject({ id: second.id, name: 'Festival' });
    expect(await api.call('POST', `${P}/${second.id}/default`, { token: owner })).toMatchObject({ status: 200, body: { data: { id: second.id, is_default: true } } });
    expect(await rows(a)).toEqual([{ name: 'Festival', is_default: true }, { name: 'Main', is_default: false }]);
    expect((await api.call('GET', `${P}/options`, { token: owner })).body).toEqual({
      data: [
        { value: second.id, label: 'Festival', is_default: true },
        { value: main, label: 'Main', is_default: false },
      ],
    });
    expect(await api.call('DELETE', `${P}/${second.id}`, { token: owner })).toMatchObject({ status: 422, body: { message: DEFAULT_PAYMENT_PROFILE_NOT_DELETABLE } });
    expect(await api.call('DELETE', `${P}/${main}`, { token: owner })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await api.call('GET', `${P}/${main}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the payment profile you requested.' } });
    expect((await api.call('GET', P, { token: owner })).body.data.map((p: { name: string }) => p.name)).toEqual(['Festival']);
    expect((await api.call('GET', `${P}/options`, { token: owner })).body).toEqual({ data: [{ value: second.id, label: 'Festival', is_default: true }] });
  });

  test('names checked, nothing written on a refusal', async () => {
    const before = await rows(a);
    for (const body of [{ name: '' }, { name: ' ' }, { name: 'x'.repeat(121) }, {}, { name: 'ok', extra: true }]) {
      expect((await api.call('POST', P, { token: owner, body })).status).toBe(422);
    }
    expect(await rows(a)).toEqual(before);
  });

  test('permissions, and another merchant\'s profile is a 404', async () => {
    const theirs = (await api.call('POST', P, { token: ownerB, body: { name: 'B pay' } })).body.data.id;
    for (const [m, path, body] of [
      ['GET', `/${theirs}`, undefined],
      ['PUT', `/${theirs}`, { name: 'Hijack' }],
      ['POST', `/${theirs}/default`, undefined],
      ['DELETE', `/${theirs}`, undefined],
    ] as const) {
      expect(await api.call(m, `${P}${path}`, { token: owner, body })).toMatchObject({ status: 404, body: { message: 'Unable to locate the payment profile you requested.' } });
    }
    expect(await rows(b)).toEqual([{ name: 'B pay', is_default: true }]);
    const mine = (await api.call('GET', P, { token: owner })).body.data[0].id;
    const before = await rows(a);
    const viewer = await limitedUserToken(api, a, ['VIEW_PAYMENT_PROFILES'], []);
    expect((await api.call('GET', P, { token: viewer })).status).toBe(200);
    expect(await api.call('POST', P, { token: viewer, body: { name: 'No' } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect((await api.call('PUT', `${P}/${mine}`, { token: viewer, body: { name: 'No' } })).status).toBe(403);
    expect((await api.call('POST', `${P}/${mine}/default`, { token: viewer })).status).toBe(403);
    expect((await api.call('DELETE', `${P}/${mine}`, { token: viewer })).status).toBe(403);
    const nobody = await limitedUserToken(api, a, [], []);
    expect((await api.call('GET', P, { token: nobody })).status).toBe(403);
    expect((await api.call('GET', `${P}/options`, { token: nobody })).status).toBe(200);
    expect(await rows(a)).toEqual(before);
  });

  test('POST /{id}/default for several profiles at once: no 500, every answer 200, one default in the end', async () => {
    const ids: string[] = [];
    for (const i of [1, 2, 3]) ids.push((await api.call('POST', P, { token: owner, body: { name: `Race ${i}` } })).body.data.id);
    const rs = await atOnce(3, (i) => api.call('POST', `${P}/${ids[i]}/default`, { token: owner }));
    expect(sortedStatuses(rs)).toEqual([200, 200, 200]);
    const defaults = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('payment_profiles').select('id').where('is_default', '=', true).execute();
    expect(defaults).toHaveLength(1);
    expect(ids).toContain(defaults[0]!.id);
  });
});
