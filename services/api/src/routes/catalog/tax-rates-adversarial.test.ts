import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/** An attacker's and a careless user's pass over the tax-rate routes (spec 1 "Content, inventories, tax rates"). */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let tdb: TenantDb;
let owner: string;
let ownerOther: string;

const call = (token: string, method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token, body });
const rows = () => tdb.selectFrom('tax_rates').select(['id', 'name', 'rate', 'country', 'is_custom']).orderBy('id').execute();

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('tax-adv');
  other = await api.seed('tax-adv-other');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
  ownerOther = await api.ownerToken(other);
}, 60_000);
afterAll(() => api.close());

describe('tax rates, adversarial', () => {
  test('a PUT with an empty body changes nothing and answers the rate as it is (it was a 500: an UPDATE with nothing to set)', async () => {
    const created = await call(owner, 'POST', '/tax-rates', { name: 'Takeaway', rate: 9 });
    expect(created.status).toBe(201);
    const before = await rows();
    const r = await call(owner, 'PUT', `/tax-rates/${created.body.data.id}`, {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: created.body.data });
    expect(await rows()).toEqual(before);
  });

  test('a country that is no country (ZZ) is a 422 on country, on create and on update, nothing written', async () => {
    const before = await rows();
    const c = await call(owner, 'POST', '/tax-rates', { name: 'Nowhere', rate: 7, country: 'ZZ' });
    expect(c).toMatchObject({ status: 422, body: { errors: { country: ['The country must be a two-letter country code.'] } } });
    expect(await rows()).toEqual(before);
    const id = (await call(owner, 'POST', '/tax-rates', { name: 'Reduced NL', rate: 8, country: 'nl' })).body.data;
    expect(id).toMatchObject({ country: 'NL' });
    const snapshot = await rows();
    const u = await call(owner, 'PUT', `/tax-rates/${id.id}`, { name: 'Renamed', country: 'ZZ' });
    expect(u).toMatchObject({ status: 422, body: { errors: { country: ['The country must be a two-letter country code.'] } } });
    expect(await rows()).toEqual(snapshot);
  });

  test('fractions, negatives, over 100, strings and unknown keys are 422 on the field; nothing written', async () => {
    const before = await rows();
    for (const [body, field] of [
      [{ name: 'Half', rate: 5.5 }, 'rate'],
      [{ name: 'Neg', rate: -1 }, 'rate'],
      [{ name: 'Huge', rate: 101 }, 'rate'],
      [{ name: 'Str', rate: '6' }, 'rate'],
      [{ name: '   ', rate: 4 }, 'name'],
      [{ name: 'x'.repeat(256), rate: 4 }, 'name'],
      [{ name: 'Extra', rate: 4, is_custom: false }, 'is_custom'],
    ] as const) {
      const r = await call(owner, 'POST', '/tax-rates', body);
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([field]);
    }
    expect(await rows()).toEqual(before);
  });

  test('another merchant\'s rate is a 404 for every verb; a member without the permission is a 403; nothing changes', async () => {
    const mine = (await call(owner, 'POST', '/tax-rates', { name: 'Mine', rate: 3 })).body.data;
    const before = await rows();
    expect(await call(ownerOther, 'PUT', `/tax-rates/${mine.id}`, { name: 'Stolen' })).toMatchObject({ status: 404, body: { message: 'Unable to locate the tax rate you requested.' } });
    expect(await call(ownerOther, 'DELETE', `/tax-rates/${mine.id}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the tax rate you requested.' } });
    const viewer = await makeMember(api, m, ['VIEW_TAX_RATES']);
    for (const [method, path, body] of [['POST', '/tax-rates', { name: 'X', rate: 2 }], ['PUT', `/tax-rates/${mine.id}`, { name: 'X' }], ['DELETE', `/tax-rates/${mine.id}`, undefined]] as const) {
      expect(await call(viewer.token, method, path, body)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    }
    expect(await rows()).toEqual(before);
  });

  test('a rate items use cannot be removed or changed (409 tax_rate_in_use); a seeded rate is not custom (409)', async () => {
    const rate = (await call(owner, 'POST', '/tax-rates', { name: 'Eleven', rate: 11 })).body.data;
    expect((await call(owner, 'POST', '/items', { name: 'Eleven item', unit_price: 100, vat_rate: 11, category_id: null })).status).toBe(201);
    const before = await rows();
    expect(await call(owner, 'DELETE', `/tax-rates/${rate.id}`)).toMatchObject({ status: 409, body: { reason: 'tax_rate_in_use' } });
    expect(await call(owner, 'PUT', `/tax-rates/${rate.id}`, { rate: 13 })).toMatchObject({ status: 409, body: { reason: 'tax_rate_in_use' } });
    const seeded = before.find((r) => !r.is_custom)!;
    expect(await call(owner, 'PUT', `/tax-rates/${seeded.id}`, {})).toMatchObject({ status: 409, body: { reason: 'tax_rate_not_custom' } });
    expect(await call(owner, 'DELETE', `/tax-rates/${seeded.id}`)).toMatchObject({ status: 409, body: { reason: 'tax_rate_not_custom' } });
    expect(await rows()).toEqual(before);
  });
});
