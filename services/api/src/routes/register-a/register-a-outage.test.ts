import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startRegisterASimulator, type RegisterASimulator, type SimSetup } from '@pos/providers/register-a/register-a-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

/**
 * register-a away while the back office refreshes its locations, and the merchant-wide catalog sync of a
 * member granted some locations. register-a is reached through a gate (a real HTTP server in front of
 * the simulator) that can answer every request with a status of the test's choosing.
 */
let api: TestApi;
let sim: RegisterASimulator;
let gate: ReturnType<typeof Bun.serve>;
let m: DemoSeedResult;
let owner: string;
let setup: SimSetup;
let answer: number | null = null;
const base = '/api/back-office/register-a';
const loc = () => m.locations[0]!.id;
const status = async () =>
  (await api.deps.db.selectFrom('integration_connections').select('status').where('provider', '=', 'register-a').where('merchant_id', '=', m.merchant.id).where('location_id', '=', loc()).executeTakeFirstOrThrow()).status;

beforeAll(async () => {
  sim = startRegisterASimulator({ keys: { prod: 'prod-key-outage', staging: 'staging-key-outage' } });
  gate = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      if (answer !== null) return Response.json({ message: `HTTP ${answer}` }, { status: answer });
      const url = new URL(req.url);
      return fetch(`${sim.url}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body: req.method === 'GET' ? undefined : await req.arrayBuffer() });
    },
  });
  api = await createTestApi({ env: { REGISTER_A_BASE_URL: `http://127.0.0.1:${gate.port}`, INTEGRATION_TOKEN_KEY: 'ef'.repeat(32) } });
  m = await api.seed('ra-outage');
  owner = await api.ownerToken(m);
  setup = sim.setup({ stores: 1 });
  expect((await api.call('POST', `${base}/${loc()}/enable`, { token: owner, body: { token: setup.token } })).status).toBe(200);
  expect((await api.call('POST', `${base}/${loc()}/stores/select`, { token: owner, body: { store_id: setup.storeIds[0] } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await api.deps.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await api.close();
  gate.stop(true);
  await sim.stop();
});

describe('POST /register-a/locations/sync while register-a is away', () => {
  test('a 503, 429 or 500 leaves the record active (it keeps receiving orders); a refusal (401) makes it error', async () => {
    expect(await status()).toBe('active');
    for (const code of [503, 429, 500]) {
      answer = code;
      try {
        expect((await api.call('POST', `${base}/locations/sync`, { token: owner })).status).toBe(200);
      } finally {
        answer = null;
      }
      // Before: `error`, and every order captured from then on was recorded "no register configured".
      expect(await status()).toBe('active');
    }
    answer = 401;
    try {
      expect((await api.call('POST', `${base}/locations/sync`, { token: owner })).status).toBe(200);
    } finally {
      answer = null;
    }
    expect(await status()).toBe('error');
    expect((await api.call('POST', `${base}/locations/sync`, { token: owner })).body.data.locations[0]).toMatchObject({ location_id: loc(), status: 'active' });
  });
});

describe('POST /register-a/sync (every location)', () => {
  test('syncs only the locations in the caller\'s grant: a member of another location deletes nothing at this one\'s register', async () => {
    const before = sim.items(setup.companyId).length;
    const elsewhere = await limitedUserToken(api, m, ['VIEW_ITEMS'], [m.locations[1]!.id]);
    const r = await api.call('POST', `${base}/sync`, { token: elsewhere });
    expect(r.status).toBe(200);
    // Before: location 0's catalog sync ran for them (creating, repricing and deleting at its register).
    expect(r.body.data).toEqual({ results: [], failed: [] });
    expect(sim.items(setup.companyId).length).toBe(before);
    const all = await api.call('POST', `${base}/sync`, { token: owner });
    expect(all.body.data.results.map((x: { location_id: string }) => x.location_id)).toEqual([loc()]);
  });
});

describe('two catalog syncs of one register-a company at once', () => {
  test('both run; each ends keeping one row per item at register-a, so none is left twice', async () => {
    const tdb = api.deps.db.withSchema(m.merchant.tenant_database);
    const now = new Date();
    const fresh = Array.from({ length: 5 }, (_, i) => ({ id: Bun.randomUUIDv7(), name: `Race item ${i}`, unit_price: 300 + i, vat_rate: 6, category: null, created_at: now, updated_at: now }));
    await tdb.insertInto('items' as never).values(fresh as never).execute();
    const answers = await Promise.all([api.call('POST', `${base}/${loc()}/sync`, { token: owner }), api.call('POST', `${base}/${loc()}/sync`, { token: owner })]);
    // A sync whose just-created row the other dropped meanwhile may fail its price write: the next sync
    // mends it. What must never stay is a second row of one reference.
    expect(answers.some((r) => r.status === 200)).toBe(true);
    // Before: ten rows for five references, never cleaned up.
    const refs = sim.items(setup.companyId).map((x) => x.reference).filter((r) => fresh.some((f) => r === `pos:${f.id}`));
    expect(refs.sort()).toEqual(fresh.map((f) => `pos:${f.id}`).sort());
    // A leftover duplicate (as two syncs at once could leave before this fix) is dropped by the next sync.
    const one = sim.items(setup.companyId).find((x) => x.reference === `pos:${fresh[0]!.id}`)!;
    await fetch(`${sim.url}/v1/companies/${setup.companyId}/items`, { method: 'POST', headers: { authorization: `Bearer ${setup.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: one.name, price: one.price, reference: one.reference }) });
    expect(sim.items(setup.companyId).filter((x) => x.reference === one.reference)).toHaveLength(2);
    expect((await api.call('POST', `${base}/${loc()}/sync`, { token: owner })).status).toBe(200);
    expect(sim.items(setup.companyId).filter((x) => x.reference === one.reference)).toHaveLength(1);
  });
});

describe('one register-a store selected from two locations at once', () => {
  test('one 200, one 409 integration_taken, never a 500', async () => {
    const two = sim.setup({ stores: 4 });
    const l1 = m.locations[1]!.id;
    const l2 = (await api.call('POST', '/api/back-office/settings/locations', { token: owner, body: { name: 'Register race', timezone: 'Europe/Brussels', country: 'BE' } })).body.data.id as string;
    for (const l of [l1, l2]) expect((await api.call('POST', `${base}/${l}/enable`, { token: owner, body: { token: two.token } })).status).toBe(200);
    for (const store of two.storeIds) {
      const answers = await Promise.all([l1, l2].map((l) => api.call('POST', `${base}/${l}/stores/select`, { token: owner, body: { store_id: store } })));
      // Before: one 500 when both passed the check before either wrote (the unique key).
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(answers.find((r) => r.status === 409)!.body).toEqual({ message: 'This register-a store is already connected to another location.', reason: 'integration_taken' });
    }
  });
});
