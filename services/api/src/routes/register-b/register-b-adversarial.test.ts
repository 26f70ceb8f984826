import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startRegisterBSimulator, type RegisterBSimulator } from '@pos/providers/register-b/register-b-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { tenantOf } from '../team/team.test-support.ts';

/**
 * register-b administration probed as a hostile register and a careful merchant would: products and
 * relations our tables cannot hold as sent, contacts in the merchant's own country, and what the
 * routes leave behind when they refuse.
 */
let api: TestApi;
let sim: RegisterBSimulator;
let m: DemoSeedResult;
let owner: string;
const TOKEN = 'rb-adversarial-token';
const acc = `rb-adv-${Bun.randomUUIDv7()}`;
const R = (path: string) => `/api/back-office/register-b${path}`;

beforeAll(async () => {
  sim = startRegisterBSimulator({ apiToken: TOKEN });
  api = await createTestApi({ env: { REGISTER_B_API_URL: sim.url, REGISTER_B_API_TOKEN: TOKEN } });
  m = await api.seed('register-b-adversarial');
  owner = await api.ownerToken(m);
  sim.addAccount(acc);
  sim.addBranch(acc, 'br-a', 'Branch A');
  expect((await api.call('POST', R(''), { token: owner, body: { account_id: acc, link_code: sim.accounts.get(acc)!.linkCode } })).status).toBe(200);
  expect((await api.call('PUT', R('/location-mappings'), { token: owner, body: { mappings: [{ location_id: m.locations[0]!.id, branch_id: 'br-a' }] } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
});

const linkedItems = () =>
  tenantOf(api, m)
    .selectFrom('register_b_items')
    .innerJoin('items', 'items.id', 'register_b_items.item_id')
    .select(['product_id', 'items.name', 'items.unit_price', 'items.vat_rate', 'items.sku', 'items.visible'])
    .orderBy('product_id')
    .execute();

describe('register-b catalog sync: products our catalog cannot hold', () => {
  test('hostile names are stored without control characters; unholdable products are skipped, the rest synced', async () => {
    const products = sim.accounts.get(acc)!.branches.get('br-a')!.products;
    products.clear();
    sim.addProduct(acc, 'br-a', { id: 'p-ok', name: 'Plain soup', price: 450 });
    sim.addProduct(acc, 'br-a', { id: 'p-nul', name: 'Nul\u0000 soup\u0007', price: 300, sku: 'SKU\u0000X' });
    sim.addProduct(acc, 'br-a', { id: 'p-vat', name: 'Five and a half', price: 100, vat_rate: 5.5 });
    sim.addProduct(acc, 'br-a', { id: 'p-huge', name: 'Gold bar', price: 99_999_999_999 });
    sim.addProduct(acc, 'br-a', { id: `p-${'x'.repeat(300)}`, name: 'Long id', price: 100 });
    const r = await api.call('POST', R('/start-sync'), { token: owner });
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { branches: 1, products: 2, created: 2, updated: 0, unchanged: 0, hidden: 0, skipped: 3 } } });
    expect(await linkedItems()).toEqual([
      { product_id: 'p-nul', name: 'Nul soup', unit_price: 300, vat_rate: 21, sku: 'SKUX', visible: true },
      { product_id: 'p-ok', name: 'Plain soup', unit_price: 450, vat_rate: 21, sku: null, visible: true },
    ]);
    // Again: the same names compare equal, nothing is rewritten.
    expect((await api.call('POST', R('/start-sync'), { token: owner })).body.data).toEqual({ branches: 1, products: 2, created: 0, updated: 0, unchanged: 2, hidden: 0, skipped: 3 });
    // A synced product whose price register-b raises beyond what we hold is skipped, and hidden like a product that left.
    products.get('p-ok')!.price = 3_000_000_000;
    expect((await api.call('POST', R('/start-sync'), { token: owner })).body.data).toEqual({ branches: 1, products: 1, created: 0, updated: 0, unchanged: 1, hidden: 1, skipped: 4 });
    expect((await linkedItems()).find((i) => i.product_id === 'p-ok')).toMatchObject({ unit_price: 450, visible: false });
  });
});

describe('register-b relations sync: contacts read as the merchant would', () => {
  test("a national phone number is read in the merchant's country, not as Belgian; hostile names and numbers do not fail the sync", async () => {
    await tenantOf(api, m).updateTable('locations').set({ country: 'NL' }).execute();
    sim.addRelation(acc, { number: 'NL1', name: 'Dutch Relation', phone: '06 12345678' });
    sim.addRelation(acc, { number: 'NUL1', name: 'Nul\u0000 Name', email: 'nul.name@example.com' });
    sim.addRelation(acc, { number: 'BAD\u0000NO', name: 'Bad number', email: 'bad.number@example.com' });
    const r = await api.call('POST', R('/relations/sync'), { token: owner });
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { relations: 3, created: 2, linked: 0, unchanged: 0, skipped: 1 } } });
    const rows = await tenantOf(api, m)
      .selectFrom('register_b_relations')
      .innerJoin('customers', 'customers.id', 'register_b_relations.customer_id')
      .select(['relation_number', 'customers.name', 'customers.email', 'customers.phone'])
      .orderBy('relation_number')
      .execute();
    expect(rows).toEqual([
      { relation_number: 'NL1', name: 'Dutch Relation', email: null, phone: '+31612345678' },
      { relation_number: 'NUL1', name: 'Nul Name', email: 'nul.name@example.com', phone: null },
    ]);
  });
});

describe('register-b branches: names as we can store them', () => {
  test('a branch name with control characters is mapped (stored without them), not a 500; locations/sync keeps it so', async () => {
    const [l0, l1] = m.locations;
    sim.addBranch(acc, 'br-nul', 'Nul\u0000 branch\u001b');
    const body = { mappings: [{ location_id: l0!.id, branch_id: 'br-a' }, { location_id: l1!.id, branch_id: 'br-nul' }] };
    const r = await api.call('PUT', R('/location-mappings'), { token: owner, body });
    expect(r.status).toBe(200);
    expect(r.body.data.find((x: { location_id: string }) => x.location_id === l1!.id)).toMatchObject({ branch_id: 'br-nul', branch_name: 'Nul branch' });
    expect((await api.call('POST', R('/locations/sync'), { token: owner })).body.data.removed_mappings).toBe(0);
    expect(await api.deps.db.selectFrom('register_b_mappings').select(['branch_id', 'branch_name']).where('merchant_id', '=', m.merchant.id).orderBy('branch_id').execute()).toEqual([
      { branch_id: 'br-a', branch_name: 'Branch A' },
      { branch_id: 'br-nul', branch_name: 'Nul branch' },
    ]);
  });
});

describe('register-b connect: races', () => {
  test('two first connects of one merchant at once, with different accounts: they take turns, one connection holds the later account', async () => {
    const race = await api.seed('register-b-adversarial-race');
    const tok = await api.ownerToken(race);
    for (let round = 0; round < 3; round++) {
      await api.deps.db.deleteFrom('integration_connections').where('merchant_id', '=', race.merchant.id).where('provider', '=', 'register-b').execute();
      const accounts = ['a', 'b'].map((x) => `rb-race-${x}-${round}-${Bun.randomUUIDv7()}`);
      const codes = accounts.map((id) => sim.addAccount(id).linkCode);
      const [a, b] = await Promise.all(accounts.map((account_id, i) => api.call('POST', R(''), { token: tok, body: { account_id, link_code: codes[i] } })));
      expect([a!.status, b!.status]).toEqual([200, 200]);
      const rows = await api.deps.db.selectFrom('integration_connections').select(['external_ref', 'status']).where('merchant_id', '=', race.merchant.id).where('provider', '=', 'register-b').execute();
      expect(rows).toHaveLength(1);
      expect(accounts).toContain(rows[0]!.external_ref);
      expect((await api.call('GET', R('/status'), { token: tok })).body.data).toMatchObject({ connected: true, account_id: rows[0]!.external_ref });
    }
  });
});

describe('register-b settings: concurrent writes', () => {
  test('probe-capabilities beside toggle-live-inventory keeps both writes (a read-merge-write lost one)', async () => {
    const settings = async () => (await api.deps.db.selectFrom('integration_connections').select('settings').where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-b').executeTakeFirstOrThrow()).settings as Record<string, unknown>;
    expect((await api.call('POST', R('/probe-capabilities'), { token: owner })).status).toBe(200);
    for (let round = 0; round < 8; round++) {
      expect((await api.call('POST', R('/toggle-live-inventory'), { token: owner, body: { enabled: true } })).status).toBe(200);
      const before = (await settings()).capabilities_probed_at;
      await Bun.sleep(2); // the probe stamps its time: a new one tells this round's write apart
      const [probe, off] = await Promise.all([api.call('POST', R('/probe-capabilities'), { token: owner }), api.call('POST', R('/toggle-live-inventory'), { token: owner, body: { enabled: false } })]);
      expect([probe.status, off.status]).toEqual([200, 200]);
      const after = await settings();
      expect({ live_inventory: after.live_inventory, probed_again: after.capabilities_probed_at !== before }).toEqual({ live_inventory: false, probed_again: true });
    }
  });
});

describe('register-b: another account replaces the connection', () => {
  test("the old account's branch mappings, relation links and product links go with it: the new account's records with the same ids are nobody's", async () => {
    const sw = await api.seed('register-b-adversarial-switch');
    const tok = await api.ownerToken(sw);
    const [a, b] = ['a', 'b'].map((x) => `rb-switch-${x}-${Bun.randomUUIDv7()}`);
    // Two accounts whose ids coincide, as register-b's own numbering makes them: branch, relation number, product.
    for (const acct of [a!, b!]) {
      sim.addAccount(acct);
      sim.addBranch(acct, 'br-1', 'Main');
      sim.addProduct(acct, 'br-1', { id: 'p-1', name: acct === a ? 'Soup' : 'Stranger soup', price: acct === a ? 450 : 990 });
      sim.addRelation(acct, { number: 'R1', name: acct === a ? 'Ann Old' : 'Stranger New', email: acct === a ? 'ann.old@example.com' : 'stranger@example.com' });
    }
    expect((await api.call('POST', R(''), { token: tok, body: { account_id: a, link_code: sim.accounts.get(a!)!.linkCode } })).status).toBe(200);
    expect((await api.call('PUT', R('/location-mappings'), { token: tok, body: { mappings: [{ location_id: sw.locations[0]!.id, branch_id: 'br-1' }] } })).status).toBe(200);
    expect((await api.call('POST', R('/start-sync'), { token: tok })).status).toBe(200);
    expect((await api.call('POST', R('/relations/sync'), { token: tok })).status).toBe(200);
    expect((await api.call('POST', R('/probe-capabilities'), { token: tok })).status).toBe(200);
    expect((await api.call('POST', R('/toggle-live-inventory'), { token: tok, body: { enabled: true } })).status).toBe(200);
    const tdb = tenantOf(api, sw);
    const ann = await tdb.selectFrom('register_b_relations').select('customer_id').where('relation_number', '=', 'R1').executeTakeFirstOrThrow();
    const soup = await tdb.selectFrom('register_b_items').select('item_id').where('product_id', '=', 'p-1').executeTakeFirstOrThrow();

    expect((await api.call('POST', R(''), { token: tok, body: { account_id: b, link_code: sim.accounts.get(b!)!.linkCode } })).status).toBe(200);
    expect(await api.deps.db.selectFrom('register_b_mappings').selectAll().where('merchant_id', '=', sw.merchant.id).execute()).toEqual([]);
    expect(await tdb.selectFrom('register_b_relations').selectAll().execute()).toEqual([]);
    expect(await tdb.selectFrom('register_b_items').selectAll().execute()).toEqual([]);
    // The old account's probed capabilities and live-inventory switch are not the new account's.
    const conn = await api.deps.db.selectFrom('integration_connections').select('settings').where('merchant_id', '=', sw.merchant.id).where('provider', '=', 'register-b').executeTakeFirstOrThrow();
    expect(conn.settings).toEqual({});
    // The new account's R1 is not our Ann; our customer and item stay, unlinked and unchanged.
    const relations = await api.call('GET', R('/relations'), { token: tok });
    expect(relations.body.data).toEqual([expect.objectContaining({ number: 'R1', name: 'Stranger New', customer_id: null })]);
    expect(await tdb.selectFrom('customers').select('email').where('id', '=', ann.customer_id).executeTakeFirstOrThrow()).toEqual({ email: 'ann.old@example.com' });
    expect(await tdb.selectFrom('items').select(['name', 'unit_price']).where('id', '=', soup.item_id).executeTakeFirstOrThrow()).toEqual({ name: 'Soup', unit_price: 450 });
    // Saving the same account again (settings only) keeps what the new account linked.
    expect((await api.call('PUT', R('/location-mappings'), { token: tok, body: { mappings: [{ location_id: sw.locations[0]!.id, branch_id: 'br-1' }] } })).status).toBe(200);
    expect((await api.call('POST', R(''), { token: tok, body: { account_id: b } })).status).toBe(200);
    expect(await api.deps.db.selectFrom('register_b_mappings').select('branch_id').where('merchant_id', '=', sw.merchant.id).execute()).toEqual([{ branch_id: 'br-1' }]);
  });
});

describe('register-b catalog syncs at once', () => {
  test('two syncs of new products at once take turns: one item per product, every item linked', async () => {
    const products = sim.accounts.get(acc)!.branches.get('br-a')!.products;
    products.clear();
    for (let i = 0; i < 20; i++) sim.addProduct(acc, 'br-a', { id: `p-race-${i}`, name: `Race ${i}`, price: 100 + i });
    const answers = await Promise.all([api.call('POST', R('/start-sync'), { token: owner }), api.call('POST', R('/start-sync'), { token: owner })]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    // One created them, the other found them linked. Before: both created all 20 (40 items, 20 unlinked).
    expect(answers.map((r) => r.body.data.created).sort()).toEqual([0, 20]);
    const raced = await tenantOf(api, m).selectFrom('items').select('id').where('name', 'like', 'Race %').execute();
    expect(raced).toHaveLength(20);
    expect((await linkedItems()).filter((l) => l.product_id.startsWith('p-race-'))).toHaveLength(20);
    products.clear();
  });
});
