/**
 * A prober's pass on register-a administration: a catalog larger than one sync handles.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startRegisterASimulator, type RegisterASimulator, type SimSetup } from '@pos/providers/register-a/register-a-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let sim: RegisterASimulator;
let m: DemoSeedResult;
let owner: string;
let setup: SimSetup;
const base = () => `/api/back-office/register-a/${m.locations[0]!.id}`;

beforeAll(async () => {
  sim = startRegisterASimulator({ keys: { prod: 'prod-key-api', staging: 'staging-key-api' } });
  api = await createTestApi({ env: { REGISTER_A_BASE_URL: sim.url, INTEGRATION_TOKEN_KEY: 'cd'.repeat(32) } });
  m = await api.seed('ra-adv');
  owner = await api.ownerToken(m);
  setup = sim.setup({ stores: 1 });
  expect((await api.call('POST', `${base()}/enable`, { token: owner, body: { token: setup.token } })).status).toBe(200);
  expect((await api.call('POST', `${base()}/stores/select`, { token: owner, body: { store_id: setup.storeIds[0] } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await api.deps.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await api.close();
  await sim.stop();
});

describe('register-a catalog sync, adversarial', () => {
  test('a catalog beyond what one sync maintains is a 422, not a sync cut short reported as done', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const template = await tdb.selectFrom('items').selectAll().where('id', '=', m.items[0]!.id).executeTakeFirstOrThrow();
    const rows = Array.from({ length: 2001 }, (_, n) => ({ ...template, id: Bun.randomUUIDv7(), name: `Bulk ${String(n).padStart(5, '0')}`, location_ids: null }));
    for (let i = 0; i < rows.length; i += 500) await tdb.insertInto('items').values(rows.slice(i, i + 500) as never).execute();

    const r = await api.call('POST', `${base()}/sync`, { token: owner });
    expect(r).toMatchObject({ status: 422, body: { errors: { catalog: ['The location sells more than 2000 items; a register-a sync maintains at most 2000.'] } } });
    expect(sim.items(setup.companyId)).toEqual([]);
  }, 120_000);
});
