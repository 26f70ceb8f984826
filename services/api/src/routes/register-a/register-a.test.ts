import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { decryptSecret, parseTokenKey } from '@pos/core/integrations/token-crypto';
import { startRegisterASimulator, type RegisterASimulator, type SimSetup } from '@pos/providers/register-a/register-a-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

/** `/back-office/register-a` against the register-a simulator over HTTP. */
const KEY_HEX = 'cd'.repeat(32);
let api: TestApi;
let sim: RegisterASimulator;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
let setup: SimSetup;
const base = '/api/back-office/register-a';
const loc = () => a.locations[0]!.id;
const rowOf = (merchantId: string, locationId: string) =>
  api.deps.db.selectFrom('integration_connections').selectAll().where('provider', '=', 'register-a').where('merchant_id', '=', merchantId).where('location_id', '=', locationId).executeTakeFirst();

beforeAll(async () => {
  sim = startRegisterASimulator({ keys: { prod: 'prod-key-api', staging: 'staging-key-api' } });
  api = await createTestApi({ env: { REGISTER_A_BASE_URL: sim.url, INTEGRATION_TOKEN_KEY: KEY_HEX } });
  a = await api.seed('ra-a');
  b = await api.seed('ra-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
  setup = sim.setup({ stores: 2 });
});
afterAll(async () => {
  await api.deps.db.deleteFrom('integration_connections').where('merchant_id', 'in', [a.merchant.id, b.merchant.id]).execute();
  await api.close();
  await sim.stop();
});

describe('register-a administration', () => {
  test('enable, list stores, select, test, rotate, delete: exact bodies, token encrypted at rest', async () => {
    expect(await api.call('GET', `${base}/${loc()}`, { token: owner })).toMatchObject({ status: 200, body: { data: { location_id: loc(), connected: false, status: 'not_connected', store_id: null } } });

    const bad = await api.call('POST', `${base}/${loc()}/enable`, { token: owner, body: { token: 'aaaa.bbbbbbbbbbbbbbbbbbbbbb.cccc' } });
    expect(bad.status).toBe(422);
    expect(bad.body.reason).toBe('invalid_token');
    expect(await rowOf(a.merchant.id, loc())).toBeUndefined();

    const en = await api.call('POST', `${base}/${loc()}/enable`, { token: owner, body: { token: setup.token } });
    expect(en.status).toBe(200);
    expect(en.body.data).toMatchObject({ location_id: loc(), connected: false, status: 'pending_store', store_id: null, namespace: 'prod' });
    const row = (await rowOf(a.merchant.id, loc()))!;
    expect(row.access_token_encrypted).not.toContain(setup.token.slice(0, 20));
    expect(decryptSecret(parseTokenKey(KEY_HEX)!, row.access_token_encrypted!)).toBe(setup.token);
    expect(decryptSecret(parseTokenKey(KEY_HEX)!, row.webhook_key_encrypted!)).toBe(setup.applicationId);
    expect(en.text).not.toContain(setup.applicationId);

    const stores = await api.call('GET', `${base}/${loc()}/stores`, { token: owner });
    expect(stores.status).toBe(200);
    expect(stores.body.data.map((s: { id: string }) => s.id).sort()).toEqual([...setup.storeIds].sort());

    const unknown = await api.call('POST', `${base}/${loc()}/stores/select`, { token: owner, body: { store_id: crypto.randomUUID() } });
    expect(unknown.status).toBe(422);
    const sel = await api.call('POST', `${base}/${loc()}/stores/select`, { token: owner, body: { store_id: setup.storeIds[0] } });
    expect(sel.body.data).toMatchObject({ connected: true, status: 'active', store_id: setup.storeIds[0], store_name: 'Store 1', company_id: setup.companyId });
    expect((await rowOf(a.merchant.id, loc()))!.external_ref).toBe(setup.storeIds[0]!);

    // The same store for another location is refused.
    await api.call('POST', `${base}/${a.locations[1]!.id}/enable`, { token: owner, body: { token: setup.token } });
    const taken = await api.call('POST', `${base}/${a.locations[1]!.id}/stores/select`, { token: owner, body: { store_id: setup.storeIds[0] } });
    expect([taken.status, taken.body.reason]).toEqual([409, 'integration_taken']);
    expect((await api.call('DELETE', `${base}/${a.locations[1]!.id}`, { token: owner })).body).toEqual({ status: 'success' });

    const t = await api.call('POST', `${base}/${loc()}/test`, { token: owner });
    expect(t.body).toEqual({ data: { ok: true, namespace: 'prod', store: { id: setup.storeIds[0], name: 'Store 1' }, message: null } });

    // Rotation: a token that does not cover the store is refused, nothing changed; a covering one replaces it.
    const other = sim.setup();
    const before = (await rowOf(a.merchant.id, loc()))!.access_token_encrypted;
    const refused = await api.call('PUT', `${base}/${loc()}/token`, { token: owner, body: { token: other.token } });
    expect(refused.status).toBe(422);
    expect((await rowOf(a.merchant.id, loc()))!.access_token_encrypted).toBe(before);
    const fresh = sim.issueToken({ id: crypto.randomUUID(), applicationId: setup.applicationId, namespace: 'prod', userId: 'u', isSubToken: true, resources: [`company.${setup.companyId}`], permissions: { 'store.*.info': true, 'store.*.orders.write': true, 'store.*.orders.read': true, 'company.*.items.read': true, 'company.*.items.write': true, 'company.*.prices.write': true }, hasSubscription: true });
    const rot = await api.call('PUT', `${base}/${loc()}/token`, { token: owner, body: { token: fresh } });
    expect(rot.status).toBe(200);
    expect(decryptSecret(parseTokenKey(KEY_HEX)!, (await rowOf(a.merchant.id, loc()))!.access_token_encrypted!)).toBe(fresh);

    const status = await api.call('GET', `${base}/status`, { token: owner });
    expect(status.body.data.configured).toBe(true);
    expect(status.body.data.locations.map((l: { location_id: string; status: string }) => [l.location_id, l.status])).toEqual([[loc(), 'active']]);
    const refresh = await api.call('POST', `${base}/locations/sync`, { token: owner });
    expect(refresh.body.data.locations[0]).toMatchObject({ location_id: loc(), status: 'active', store_name: 'Store 1' });
    expect((await api.call('POST', `${base}/test`, { token: owner })).body).toEqual({ data: { results: [{ location_id: loc(), ok: true, message: null }] } });
  });

  test('catalog sync maintains rows (create, price, update, delete) and reports what it cannot write', async () => {
    const r = await api.call('POST', `${base}/${loc()}/sync`, { token: owner });
    expect(r.status).toBe(200);
    const tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
    const items = await tdb.selectFrom('items').select(['id', 'name', 'unit_price', 'location_ids', 'category']).execute();
    const mine = items.filter((i) => i.location_ids === null || i.location_ids.includes(loc()));
    expect(r.body.data).toMatchObject({ location_id: loc(), created: mine.length, updated: 0, deleted: 0 });
    const theirs = sim.items(setup.companyId);
    expect(theirs.length).toBe(mine.length);
    const one = mine[0]!;
    const row = theirs.find((x) => x.reference === `pos:${one.id}`)!;
    expect([row.name, row.price, row.type]).toEqual([one.name, one.unit_price / 100, 'SIMPLE']);
    if (one.category) expect(r.body.data.unsupported).toContainEqual({ item_id: one.id, name: one.name, difference: 'family: set it on the register device' });

    // A rename, a new price and a deletion on our side; a row that is not ours stays.
    await tdb.updateTable('items').set({ name: 'Renamed item', unit_price: one.unit_price + 10 }).where('id', '=', one.id).execute();
    const gone = mine[1]!;
    await tdb.updateTable('items').set({ location_ids: [a.locations[1]!.id] }).where('id', '=', gone.id).execute();
    await fetch(`${sim.url}/v1/companies/${setup.companyId}/items`, { method: 'POST', headers: { authorization: `Bearer ${setup.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Made on the device', price: 1 }) });
    const again = await api.call('POST', `${base}/${loc()}/sync`, { token: owner });
    expect(again.body.data).toMatchObject({ created: 0, updated: 1, priced: 1, deleted: 1 });
    const after = sim.items(setup.companyId);
    expect(after.find((x) => x.reference === `pos:${one.id}`)).toMatchObject({ name: 'Renamed item', price: (one.unit_price + 10) / 100 });
    expect(after.some((x) => x.reference === `pos:${gone.id}`)).toBe(false);
    expect(after.some((x) => x.name === 'Made on the device')).toBe(true);
    await tdb.updateTable('items').set({ name: one.name, unit_price: one.unit_price }).where('id', '=', one.id).execute();
    await tdb.updateTable('items').set({ location_ids: gone.location_ids }).where('id', '=', gone.id).execute();

    const all = await api.call('POST', `${base}/sync`, { token: owner });
    expect(all.status).toBe(200);
    expect(all.body.data.failed).toEqual([]);
    expect(all.body.data.results.map((x: { location_id: string }) => x.location_id)).toEqual([loc()]);
  });

  test('orders/verify: nothing dispatched yet is an empty check', async () => {
    expect((await api.call('POST', `${base}/${loc()}/orders/verify`, { token: owner })).body).toEqual({ data: { checked: 0, found: [], missing: [] } });
  });

  test('permissions: MANAGE_INTEGRATION_SETTINGS on enable, select, token and delete; reads need none', async () => {
    const limited = await limitedUserToken(api, a, ['VIEW_DEVICES'], [loc(), a.locations[1]!.id]);
    for (const [method, path, body] of [
      ['POST', `${base}/${loc()}/enable`, { token: setup.token }],
      ['POST', `${base}/${loc()}/stores/select`, { store_id: setup.storeIds[0] }],
      ['PUT', `${base}/${loc()}/token`, { token: setup.token }],
      ['DELETE', `${base}/${loc()}`, undefined],
    ] as const) {
      const r = await api.call(method, path, { token: limited, body });
      expect(`${method} ${path} ${r.status}`).toBe(`${method} ${path} 403`);
    }
    expect((await rowOf(a.merchant.id, loc()))!.status).toBe('active');
    expect((await api.call('GET', `${base}/${loc()}`, { token: limited })).status).toBe(200);
    expect((await api.call('POST', `${base}/${loc()}/test`, { token: limited })).status).toBe(200);
    const mis = await limitedUserToken(api, a, ['MANAGE_INTEGRATION_SETTINGS'], [loc()]);
    expect((await api.call('PUT', `${base}/${loc()}/token`, { token: mis, body: { token: setup.token } })).status).toBe(200);
  });

  test('isolation: another merchant\'s location is a 404 and its record is untouched', async () => {
    for (const [method, path, body] of [
      ['GET', `${base}/${loc()}`, undefined],
      ['GET', `${base}/${loc()}/stores`, undefined],
      ['POST', `${base}/${loc()}/enable`, { token: setup.token }],
      ['POST', `${base}/${loc()}/stores/select`, { store_id: setup.storeIds[1] }],
      ['PUT', `${base}/${loc()}/token`, { token: setup.token }],
      ['POST', `${base}/${loc()}/sync`, undefined],
      ['POST', `${base}/${loc()}/test`, undefined],
      ['POST', `${base}/${loc()}/orders/verify`, undefined],
      ['DELETE', `${base}/${loc()}`, undefined],
    ] as const) {
      const r = await api.call(method, path, { token: ownerB, body });
      expect(`${method} ${path} ${r.status}`).toBe(`${method} ${path} 404`);
    }
    expect((await rowOf(a.merchant.id, loc()))!.status).toBe('active');
    expect((await api.call('GET', `${base}/status`, { token: ownerB })).body).toEqual({ data: { configured: true, locations: [] } });
  });

  test('a location with no record: stores, test and delete are 404; unconfigured platform is 409', async () => {
    const l1 = a.locations[1]!.id;
    expect((await api.call('GET', `${base}/${l1}/stores`, { token: owner })).status).toBe(404);
    expect((await api.call('DELETE', `${base}/${l1}`, { token: owner })).status).toBe(404);
    const bare = await createTestApi();
    try {
      const r = await bare.call('POST', `${base}/${l1}/enable`, { token: await bare.ownerToken(a), body: { token: setup.token } });
      expect([r.status, r.body.reason]).toEqual([409, 'register_a_not_configured']);
    } finally {
      await bare.close();
    }
  });
});
