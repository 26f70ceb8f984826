import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startRegisterASimulator, type RegisterASimulator, type SimSetup } from '@pos/providers/register-a/register-a-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * register-a items live at the COMPANY (`/v1/companies/{c}/items`), shared by every store of it (spec 3
 * "Hierarchy: organisation contains companies; a company contains stores"). Two locations of one
 * merchant on two stores of the same company: one location's catalog sync must not delete the rows of
 * items only the other location sells (its register would lose them until that location synced again,
 * deleting the first one's in turn); a row whose item none of them sells is still deleted.
 */
const KEY_HEX = 'cd'.repeat(32);
let api: TestApi;
let sim: RegisterASimulator;
let m: DemoSeedResult;
let owner: string;
let setup: SimSetup;
const base = '/api/back-office/register-a';

beforeAll(async () => {
  sim = startRegisterASimulator({ keys: { prod: 'prod-key-api', staging: 'staging-key-api' } });
  api = await createTestApi({ env: { REGISTER_A_BASE_URL: sim.url, INTEGRATION_TOKEN_KEY: KEY_HEX } });
  m = await api.seed('ra-two-stores');
  owner = await api.ownerToken(m);
  setup = sim.setup({ stores: 2 });
  for (const [i, loc] of [m.locations[0]!.id, m.locations[1]!.id].entries()) {
    expect((await api.call('POST', `${base}/${loc}/enable`, { token: owner, body: { token: setup.token } })).status).toBe(200);
    expect((await api.call('POST', `${base}/${loc}/stores/select`, { token: owner, body: { store_id: setup.storeIds[i] } })).status).toBe(200);
  }
}, 60_000);
afterAll(async () => {
  await api.deps.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await api.close();
  await sim.stop();
});

describe('register-a catalog sync with two stores of one company', () => {
  test('syncing location [0] keeps the items only location [1] sells, and deletes the ones nobody sells', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const [onlyAt1, nowhere] = await tdb.selectFrom('items').select(['id', 'name']).orderBy('name').limit(2).execute();
    await tdb.updateTable('items').set({ location_ids: [m.locations[1]!.id] as never }).where('id', '=', onlyAt1!.id).execute();
    const has = (id: string) => sim.items(setup.companyId).some((i) => i.reference === `pos:${id}`);

    const s1 = await api.call('POST', `${base}/${m.locations[1]!.id}/sync`, { token: owner });
    expect(s1.status).toBe(200);
    expect([has(onlyAt1!.id), has(nowhere!.id)]).toEqual([true, true]);

    // The second item is then sold at a location with no register-a store of this company.
    await tdb.updateTable('items').set({ location_ids: [m.locations[2]?.id ?? crypto.randomUUID()] as never }).where('id', '=', nowhere!.id).execute();
    const s0 = await api.call('POST', `${base}/${m.locations[0]!.id}/sync`, { token: owner });
    expect(s0.status).toBe(200);
    expect(s0.body.data.deleted).toBe(1);
    expect([has(onlyAt1!.id), has(nowhere!.id)]).toEqual([true, false]);
  });
});
