import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember, tenantOf } from '../team/team.test-support.ts';
import { claimDueAutoSyncs } from '@pos/core/integrations/auto-sync';
import { runProviderSync, syncClientsFromEnv, syncConnection, syncRunners } from '@pos/core/integrations/sync-runners';
import { startRegisterBSimulator, type RegisterBSimulator } from '@pos/providers/register-b/register-b-simulator';

let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;
const account = `rb-acct-${Bun.randomUUIDv7()}`;
const TOKEN = 'rb-partner-token-test';
const LINK = 'LINK-TEST-0001';
let sim: RegisterBSimulator;

const connections = (merchantId: string) =>
  api.deps.db.selectFrom('integration_connections').select(['id', 'external_ref', 'status']).where('merchant_id', '=', merchantId).where('provider', '=', 'register-b').execute();
const schedules = (merchantId: string) => api.deps.db.selectFrom('integration_auto_syncs').selectAll().where('merchant_id', '=', merchantId).execute();

beforeAll(async () => {
  sim = startRegisterBSimulator({ apiToken: TOKEN });
  sim.addAccount(account, { linkCode: LINK });
  api = await createTestApi({ env: { REGISTER_B_API_URL: sim.url, REGISTER_B_API_TOKEN: TOKEN } });
  m = await api.seed('register-b-api');
  other = await api.seed('register-b-other');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
  await tenantOf(api, m).updateTable('locations').set({ timezone: 'America/New_York' }).execute();
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
});

describe('register-b administration', () => {
  test('status without a connection: disconnected, the default zone', async () => {
    expect((await api.call('GET', '/api/back-office/register-b/status', { token: owner })).body).toEqual({
      data: { connected: false, status: 'disconnected', account_id: null, connected_at: null, sync_time: null, sync_timezone: 'America/New_York', enable_auto_sync: false, next_sync_at: null, last_sync: null },
    });
  });

  test('initiate needs account_id; bad schedule refused; nothing written', async () => {
    expect(await api.call('POST', '/api/back-office/register-b', { token: owner, body: { sync_time: '05:00' } })).toMatchObject({
      status: 422,
      body: { errors: { account_id: ['The account id field is required.'] } },
    });
    expect(await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account, sync_time: '05:15' } })).toMatchObject({
      status: 422,
      body: { errors: { sync_time: ['The sync time must be a time in HH:MM format with minutes 00 or 30.'] } },
    });
    expect((await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account, enable_auto_sync: true } })).status).toBe(422);
    expect(await connections(m.merchant.id)).toEqual([]);
    expect(await schedules(m.merchant.id)).toEqual([]);
  });

  test('initiate then save settings: the auto-sync schedule is written', async () => {
    const r = await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account, link_code: LINK, sync_time: '6:30' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'success',
      data: { connected: true, status: 'active', account_id: account, sync_time: '6:30', sync_timezone: 'America/New_York', enable_auto_sync: true, next_sync_at: null, last_sync: null },
    });
    expect(typeof r.body.data.connected_at).toBe('string');
    const [c] = await connections(m.merchant.id);
    expect(c).toMatchObject({ external_ref: account, status: 'active' });
    await api.deps.db.updateTable('integration_auto_syncs').set({ next_run_at: new Date('2030-01-01T00:00:00Z') }).where('connection_id', '=', c!.id).execute();
    // Save without account_id: the time changes, the next run is reset.
    const r2 = await api.call('POST', '/api/back-office/register-b', { token: owner, body: { sync_time: '22:00', sync_timezone: 'Europe/Brussels' } });
    expect(r2.body.data).toMatchObject({ account_id: account, sync_time: '22:00', sync_timezone: 'Europe/Brussels', next_sync_at: null, last_sync: null });
    expect(await schedules(m.merchant.id)).toMatchObject([{ connection_id: c!.id, provider: 'register-b', sync_time: '22:00', sync_timezone: 'Europe/Brussels', enabled: true, next_run_at: null }]);
    // Naming the account the connection already holds is a save: no link code needed.
    expect((await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account, sync_time: '22:00' } })).status).toBe(200);
    // null clears the time and keeps the zone.
    const r3 = await api.call('POST', '/api/back-office/register-b', { token: owner, body: { sync_time: null } });
    expect(r3.body.data).toMatchObject({ sync_time: null, sync_timezone: 'Europe/Brussels', enable_auto_sync: false });
    expect(await connections(m.merchant.id)).toHaveLength(1);
  });

  test('connecting proves the account with its link code, checked at register-b; nothing written when refused', async () => {
    const stranger = `rb-stranger-${Bun.randomUUIDv7()}`;
    sim.addAccount(stranger, { linkCode: 'LINK-STRANGER' });
    const post = (body: Record<string, unknown>) => api.call('POST', '/api/back-office/register-b', { token: otherOwner, body });
    expect(await post({ account_id: stranger })).toMatchObject({ status: 422, body: { errors: { link_code: ['The link code field is required.'] } } });
    expect(await post({ account_id: stranger, link_code: 'LINK-GUESS' })).toMatchObject({ status: 422, body: { errors: { link_code: ['The link code is not valid for this register-b account.'] } } });
    expect(await post({ account_id: `rb-none-${Bun.randomUUIDv7()}`, link_code: 'LINK-STRANGER' })).toMatchObject({ status: 422, body: { errors: { account_id: ['register-b has no account with this id.'] } } });
    sim.failWith(503);
    try {
      expect(await post({ account_id: stranger, link_code: 'LINK-STRANGER' })).toMatchObject({ status: 503, body: { message: 'register-b could not be reached.' } });
    } finally {
      sim.failWith(null);
    }
    expect(await connections(other.merchant.id)).toEqual([]);
    expect(await schedules(other.merchant.id)).toEqual([]);
  });

  test('an account connected to another merchant is a 409; nothing written for that merchant', async () => {
    expect(await api.call('POST', '/api/back-office/register-b', { token: otherOwner, body: { account_id: account, link_code: LINK } })).toMatchObject({
      status: 409,
      body: { message: 'This register-b account is already connected.' },
    });
    expect(await connections(other.merchant.id)).toEqual([]);
  });

  test('permission MANAGE_INTEGRATION_SETTINGS on the writes; 401 without a token', async () => {
    const viewer = await makeMember(api, m, ['VIEW_ITEMS']);
    expect(await api.call('POST', '/api/back-office/register-b', { token: viewer.token, body: { sync_time: '01:00' } })).toMatchObject({
      status: 403,
      body: { message: 'Unauthorized: Insufficient permissions' },
    });
    expect((await api.call('POST', '/api/back-office/register-b/disable', { token: viewer.token })).status).toBe(403);
    expect((await api.call('GET', '/api/back-office/register-b/status', { token: viewer.token })).status).toBe(200);
    expect((await api.call('GET', '/api/back-office/register-b/status', {})).status).toBe(401);
    expect((await schedules(m.merchant.id))[0]!.sync_time).toBeNull();
  });

  test('disable: 404 without a connection; disabled and its schedule no longer claimed; a save with the account reconnects', async () => {
    expect(await api.call('POST', '/api/back-office/register-b/disable', { token: otherOwner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the integration you requested.' } });
    await api.call('POST', '/api/back-office/register-b', { token: owner, body: { sync_time: '03:00' } });
    expect((await api.call('POST', '/api/back-office/register-b/disable', { token: owner })).body).toEqual({ status: 'success' });
    expect(await connections(m.merchant.id)).toMatchObject([{ status: 'disabled' }]);
    await claimDueAutoSyncs(api.deps.db, new Date('2030-01-01T00:00:00Z'));
    expect((await schedules(m.merchant.id))[0]!.next_run_at).toBeNull();
    expect((await api.call('GET', '/api/back-office/register-b/status', { token: owner })).body.data).toMatchObject({ connected: false, status: 'disabled', account_id: account, sync_time: '03:00' });
    // Connecting again after a disable proves the account again.
    expect(await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account } })).toMatchObject({ status: 422, body: { errors: { link_code: ['The link code field is required.'] } } });
    const again = await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account, link_code: LINK } });
    expect(again.body.data).toMatchObject({ connected: true, status: 'active', sync_time: '03:00' });
  });
});

describe('register-b provider routes (against the register-b simulator)', () => {
  let shop: DemoSeedResult;
  let lone: DemoSeedResult;
  let shopOwner: string;
  let loneOwner: string;
  let viewer: string;
  const acc = `rb-shop-${Bun.randomUUIDv7()}`;
  const R = (path: string) => `/api/back-office/register-b${path}`;
  const NO_INTEGRATION = { message: 'Unable to locate the integration you requested.' };
  const mappingRows = () => api.deps.db.selectFrom('register_b_mappings').select(['location_id', 'branch_id', 'branch_name']).where('merchant_id', '=', shop.merchant.id).orderBy('branch_id').execute();
  const links = () => tenantOf(api, shop).selectFrom('register_b_items').innerJoin('items', 'items.id', 'register_b_items.item_id').select(['product_id', 'items.name', 'items.unit_price', 'items.vat_rate', 'items.sku', 'items.visible', 'items.location_ids']).orderBy('product_id').execute();

  beforeAll(async () => {
    shop = await api.seed('register-b-shop');
    lone = await api.seed('register-b-lone');
    shopOwner = await api.ownerToken(shop);
    loneOwner = await api.ownerToken(lone);
    viewer = (await makeMember(api, shop, ['VIEW_ITEMS'])).token;
    sim.addAccount(acc, { name: 'Shop account' });
    sim.addBranch(acc, 'br-1', 'Centre branch');
    sim.addBranch(acc, 'br-2', 'Station branch');
    sim.addBranch(acc, 'br-3', 'Airport branch');
    sim.addProduct(acc, 'br-1', { id: 'p-soup', name: 'Soup', price: 450, sku: 'SOUP' });
    sim.addProduct(acc, 'br-1', { id: 'p-bread', name: 'Bread', price: 199, vat_rate: 6 });
    sim.addProduct(acc, 'br-2', { id: 'p-soup', name: 'Soup', price: 450, sku: 'SOUP' });
    sim.addProduct(acc, 'br-2', { id: 'p-tea', name: 'Tea', price: 250 });
    sim.addRelation(acc, { number: 'R1', name: 'Ann Relation', email: 'ann.relation@example.com', discount_percent: 10 });
    sim.addRelation(acc, { number: 'R2', name: 'Bob Relation', phone: '+32470111222' });
    const r = await api.call('POST', R(''), { token: shopOwner, body: { account_id: acc, link_code: sim.accounts.get(acc)!.linkCode } });
    expect(r.status).toBe(200);
  }, 60_000);

  test('without a connection every route but status and healthcheck is the integration 404', async () => {
    const loc = lone.locations[0]!.id;
    const calls: [string, string, unknown?][] = [
      ['GET', '/test'],
      ['GET', '/branches'],
      ['GET', '/location-mappings'],
      ['GET', '/diagnose'],
      ['GET', '/relations'],
      ['POST', '/start-sync'],
      ['POST', '/locations/sync'],
      ['POST', '/probe-capabilities'],
      ['POST', '/toggle-live-inventory', { enabled: false }],
      ['PUT', '/location-mappings', { mappings: [{ location_id: loc, branch_id: 'br-1' }] }],
      ['POST', '/inventory/live-refresh'],
      ['POST', '/relations/sync'],
      ['POST', '/relations/link', { customer_id: crypto.randomUUID(), relation_number: 'R1' }],
      ['POST', '/relations/create', { customer_id: crypto.randomUUID() }],
      ['POST', '/relations/R1/pricing-check', { item_ids: [lone.items[0]!.id] }],
      ['POST', '/pricing/quote', { lines: [{ item_id: lone.items[0]!.id, quantity: 1 }] }],
    ];
    for (const [method, path, body] of calls) {
      const r = await api.call(method, R(path), { token: loneOwner, ...(body ? { body } : {}) });
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 404, body: NO_INTEGRATION });
    }
    expect(await api.call('GET', R('/healthcheck'), { token: loneOwner })).toMatchObject({ status: 200, body: { data: { reachable: true, status: 'ok', version: 'sim-1.0' } } });
    sim.failWith(503);
    try {
      expect((await api.call('GET', R('/healthcheck'), { token: loneOwner })).body).toEqual({ data: { reachable: false, status: null, version: null } });
    } finally {
      sim.failWith(null);
    }
  });

  test('test: ok, the refusal register-b gives, or unreachable', async () => {
    expect((await api.call('GET', R('/test'), { token: shopOwner })).body).toEqual({ data: { ok: true, account: { id: acc, name: 'Shop account', status: 'active' }, reason: null, message: null } });
    sim.accounts.get(acc)!.status = 'suspended';
    try {
      expect((await api.call('GET', R('/test'), { token: shopOwner })).body).toEqual({ data: { ok: false, account: null, reason: 'account_suspended', message: 'The account is suspended' } });
    } finally {
      sim.accounts.get(acc)!.status = 'active';
    }
    sim.failWith(500);
    try {
      expect((await api.call('GET', R('/test'), { token: shopOwner })).body).toEqual({ data: { ok: false, account: null, reason: 'unreachable', message: 'register-b could not be reached.' } });
    } finally {
      sim.failWith(null);
    }
  });

  test('branches relayed; PUT location-mappings: MIS, foreign location 404, unknown or doubled branch 422, nothing written', async () => {
    expect((await api.call('GET', R('/branches'), { token: viewer })).body).toEqual({
      data: [
        { id: 'br-1', name: 'Centre branch', location_id: null },
        { id: 'br-2', name: 'Station branch', location_id: null },
        { id: 'br-3', name: 'Airport branch', location_id: null },
      ],
    });
    const [l0, l1] = shop.locations;
    const body = { mappings: [{ location_id: l0!.id, branch_id: 'br-1' }, { location_id: l1!.id, branch_id: 'br-2' }] };
    expect(await api.call('PUT', R('/location-mappings'), { token: viewer, body })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await api.call('PUT', R('/location-mappings'), { token: shopOwner, body: { mappings: [{ location_id: l0!.id, branch_id: 'br-1' }, { location_id: lone.locations[0]!.id, branch_id: 'br-2' }] } })).toEqual(
      expect.objectContaining({ status: 404, body: { message: 'Unable to locate the location you requested.' } }),
    );
    const bad = await api.call('PUT', R('/location-mappings'), { token: shopOwner, body: { mappings: [{ location_id: l0!.id, branch_id: 'br-9' }, { location_id: l1!.id, branch_id: 'br-9' }] } });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      message: 'The branch could not be found at register-b. (and 1 more errors)',
      errors: { 'mappings.0.branch_id': ['The branch could not be found at register-b.'], 'mappings.1.branch_id': ['The branch is mapped to more than one location.'] },
    });
    const twice = await api.call('PUT', R('/location-mappings'), { token: shopOwner, body: { mappings: [{ location_id: l0!.id, branch_id: 'br-1' }, { location_id: l0!.id, branch_id: 'br-2' }] } });
    expect(twice).toMatchObject({ status: 422, body: { errors: { 'mappings.1.location_id': ['The location is listed more than once.'] } } });
    sim.failWith(503);
    try {
      expect(await api.call('PUT', R('/location-mappings'), { token: shopOwner, body })).toMatchObject({ status: 503, body: { message: 'register-b could not be reached.' } });
    } finally {
      sim.failWith(null);
    }
    expect(await mappingRows()).toEqual([]);

    const saved = await api.call('PUT', R('/location-mappings'), { token: shopOwner, body });
    expect(saved.status).toBe(200);
    const expected = [
      { location_id: l0!.id, location_name: l0!.name, branch_id: 'br-1', branch_name: 'Centre branch' },
      { location_id: l1!.id, location_name: l1!.name, branch_id: 'br-2', branch_name: 'Station branch' },
    ];
    expect(saved.body.status).toBe('success');
    expect(saved.body.data.map(({ updated_at, ...rest }: { updated_at: string | null }) => rest)).toEqual(expected);
    expect((await api.call('GET', R('/location-mappings'), { token: viewer })).body.data.map(({ updated_at, ...rest }: { updated_at: string | null }) => rest)).toEqual(expected);
    expect((await api.call('GET', R('/branches'), { token: viewer })).body.data).toEqual([
      { id: 'br-1', name: 'Centre branch', location_id: l0!.id },
      { id: 'br-2', name: 'Station branch', location_id: l1!.id },
      { id: 'br-3', name: 'Airport branch', location_id: null },
    ]);
  });

  test('start-sync pulls the products into the catalog by external reference; again: unchanged; down: 503 logged', async () => {
    const [l0, l1] = shop.locations;
    expect((await api.call('POST', R('/start-sync'), { token: viewer })).status).toBe(403);
    const first = await api.call('POST', R('/start-sync'), { token: shopOwner });
    expect(first.body).toEqual({ status: 'success', data: { branches: 2, products: 3, created: 3, updated: 0, unchanged: 0, hidden: 0, skipped: 0 } });
    expect(await links()).toEqual([
      { product_id: 'p-bread', name: 'Bread', unit_price: 199, vat_rate: 6, sku: null, visible: true, location_ids: [l0!.id] },
      { product_id: 'p-soup', name: 'Soup', unit_price: 450, vat_rate: 21, sku: 'SOUP', visible: true, location_ids: [l0!.id, l1!.id].sort() },
      { product_id: 'p-tea', name: 'Tea', unit_price: 250, vat_rate: 21, sku: null, visible: true, location_ids: [l1!.id] },
    ]);
    expect((await api.call('POST', R('/start-sync'), { token: shopOwner })).body.data).toEqual({ branches: 2, products: 3, created: 0, updated: 0, unchanged: 3, hidden: 0, skipped: 0 });
    // The tea goes on l1's published menu (what its kiosk and storefront read).
    const teaId = (await tenantOf(api, shop).selectFrom('register_b_items').select('item_id').where('product_id', '=', 'p-tea').executeTakeFirstOrThrow()).item_id;
    const menu = (await api.call('POST', '/api/back-office/menus', { token: shopOwner, body: { name: 'Tea menu', location_id: l1!.id } })).body.data.id as string;
    const group = (await api.call('POST', '/api/back-office/display-groups', { token: shopOwner, body: { menu_id: menu, name: 'Drinks' } })).body.data.id as string;
    await api.call('POST', `/api/back-office/menus/display-group-items/${menu}`, { token: shopOwner, body: { groups: [{ id: group, item_ids: [teaId] }] } });
    expect((await api.call('POST', `/api/back-office/menus/publish/${menu}`, { token: shopOwner })).status).toBe(200);
    const publishedTea = async () => {
      const row = await tenantOf(api, shop).selectFrom('published_catalogs').select('payload').where('location_id', '=', l1!.id).executeTakeFirstOrThrow();
      return JSON.stringify(row.payload).includes(`"unit_price":275`);
    };
    expect(await publishedTea()).toBe(false);
    sim.accounts.get(acc)!.branches.get('br-2')!.products.get('p-tea')!.price = 275;
    expect((await api.call('POST', R('/start-sync'), { token: shopOwner })).body.data).toEqual({ branches: 2, products: 3, created: 0, updated: 1, unchanged: 2, hidden: 0, skipped: 0 });
    expect((await links()).find((l) => l.product_id === 'p-tea')!.unit_price).toBe(275);
    // Before: the register's new price reached the items, not the published menu the channels sell from.
    expect(await publishedTea()).toBe(true);

    sim.failWith(502);
    try {
      expect(await api.call('POST', R('/start-sync'), { token: shopOwner })).toMatchObject({ status: 503, body: { message: 'register-b could not be reached.' } });
    } finally {
      sim.failWith(null);
    }
    const diag = await api.call('GET', R('/diagnose'), { token: viewer });
    expect(diag.body.data.healthy).toBe(false);
    expect(diag.body.data.checks.find((c: { key: string }) => c.key === 'last_sync')).toMatchObject({ status: 'error' });
    expect((await api.call('POST', R('/start-sync'), { token: shopOwner })).status).toBe(200);
    const healthy = await api.call('GET', R('/diagnose'), { token: viewer });
    expect(healthy.body.data.checks.map((c: { key: string; status: string }) => [c.key, c.status])).toEqual([
      ['configured', 'ok'],
      ['connected', 'ok'],
      ['account_reachable', 'ok'],
      ['locations_mapped', 'ok'],
      ['last_sync', 'ok'],
    ]);
    expect(healthy.body.data.healthy).toBe(true);
    expect(healthy.body.data.checks[3].detail).toBe('2 of 2 locations mapped to a branch.');
  });

  test('the register-b sync runner (worker) against the simulator: counts; not configured without the client', async () => {
    const conn = await api.deps.db.selectFrom('integration_connections').select('id').where('merchant_id', '=', shop.merchant.id).where('provider', '=', 'register-b').executeTakeFirstOrThrow();
    const connection = (await syncConnection(api.deps.db, conn.id))!;
    const runners = syncRunners(syncClientsFromEnv({ REGISTER_B_API_URL: sim.url, REGISTER_B_API_TOKEN: TOKEN }));
    sim.addProduct(acc, 'br-1', { id: 'p-cake', name: 'Cake', price: 390 });
    expect(await runProviderSync({ central: api.deps.db, connection, now: () => new Date() }, runners)).toEqual({
      status: 'ok',
      counts: { branches: 2, products: 4, created: 1, updated: 0, unchanged: 3, hidden: 0, skipped: 0 },
    });
    sim.failWith(503);
    try {
      expect(await runProviderSync({ central: api.deps.db, connection, now: () => new Date() }, runners)).toEqual({ status: 'error', detail: 'register-b: register-b is unavailable', retry: true });
    } finally {
      sim.failWith(null);
    }
    const wrongToken = syncRunners(syncClientsFromEnv({ REGISTER_B_API_URL: sim.url, REGISTER_B_API_TOKEN: 'wrong-token-123' }));
    expect(await runProviderSync({ central: api.deps.db, connection, now: () => new Date() }, wrongToken)).toEqual({ status: 'error', detail: 'register-b: Invalid partner token', retry: false });
    expect(await runProviderSync({ central: api.deps.db, connection, now: () => new Date() }, syncRunners(syncClientsFromEnv({})))).toEqual({
      status: 'not_configured',
      detail: 'register-b is not configured (REGISTER_B_API_URL, REGISTER_B_API_TOKEN).',
    });
    // A product no mapped branch lists any more is hidden, not deleted.
    sim.accounts.get(acc)!.branches.get('br-1')!.products.delete('p-cake');
    expect(await runProviderSync({ central: api.deps.db, connection, now: () => new Date() }, runners)).toMatchObject({ status: 'ok', counts: { products: 3, hidden: 1 } });
    expect((await links()).find((l) => l.product_id === 'p-cake')).toMatchObject({ visible: false });
  });

  test('capabilities, live inventory switch (422 when unavailable) and live refresh into our stock', async () => {
    const [l0] = shop.locations;
    expect(await api.call('POST', R('/inventory/live-refresh'), { token: viewer })).toMatchObject({ status: 422, body: { message: 'Live inventory is off for register-b.', reason: 'live_inventory_off' } });
    expect(await api.call('POST', R('/toggle-live-inventory'), { token: shopOwner, body: { enabled: true } })).toMatchObject({
      status: 422,
      body: { errors: { enabled: ['Probe the register-b capabilities before turning live inventory on.'] } },
    });
    expect((await api.call('POST', R('/probe-capabilities'), { token: viewer })).status).toBe(403);
    const probed = await api.call('POST', R('/probe-capabilities'), { token: shopOwner });
    expect(probed.body).toEqual({ status: 'success', data: { capabilities: { live_inventory: true, relations: true, pricing: true }, capabilities_probed_at: expect.any(String), live_inventory: false } });
    expect((await api.call('POST', R('/toggle-live-inventory'), { token: viewer, body: { enabled: true } })).status).toBe(403);
    expect((await api.call('POST', R('/toggle-live-inventory'), { token: shopOwner, body: { enabled: true } })).body.data.live_inventory).toBe(true);

    const branch1 = sim.accounts.get(acc)!.branches.get('br-1')!;
    branch1.stock.set('p-soup', 12);
    branch1.stock.set('p-bread', 4);
    branch1.stock.set('p-unknown', 9);
    const refreshed = await api.call('POST', R('/inventory/live-refresh'), { token: viewer });
    expect(refreshed.body).toEqual({ status: 'success', data: { branches: 2, levels: 3, updated: 2, unchanged: 0, unknown: 1 } });
    const soupItem = (await tenantOf(api, shop).selectFrom('register_b_items').select('item_id').where('product_id', '=', 'p-soup').executeTakeFirstOrThrow()).item_id;
    expect(await tenantOf(api, shop).selectFrom('inventory_levels').select('quantity').where('item_id', '=', soupItem).where('location_id', '=', l0!.id).executeTakeFirstOrThrow()).toEqual({ quantity: 12 });
    expect(await tenantOf(api, shop).selectFrom('inventory_history').select(['type', 'quantity_change', 'quantity_after', 'note']).where('item_id', '=', soupItem).execute()).toEqual([
      { type: 'count', quantity_change: 12, quantity_after: 12, note: 'register-b live inventory' },
    ]);
    expect((await api.call('POST', R('/inventory/live-refresh'), { token: viewer })).body.data).toEqual({ branches: 2, levels: 3, updated: 0, unchanged: 2, unknown: 1 });

    // The account loses live inventory: a new probe turns the switch off, and it cannot be turned on.
    sim.accounts.get(acc)!.capabilities.live_inventory = false;
    expect((await api.call('POST', R('/probe-capabilities'), { token: shopOwner })).body.data).toMatchObject({ capabilities: { live_inventory: false }, live_inventory: false });
    expect(await api.call('POST', R('/toggle-live-inventory'), { token: shopOwner, body: { enabled: true } })).toEqual(
      expect.objectContaining({ status: 422, body: { message: 'Live inventory is not available for this register-b account.', errors: { enabled: ['Live inventory is not available for this register-b account.'] } } }),
    );
    const settings = await api.deps.db.selectFrom('integration_connections').select('settings').where('merchant_id', '=', shop.merchant.id).where('provider', '=', 'register-b').executeTakeFirstOrThrow();
    expect(settings.settings).toMatchObject({ live_inventory: false, capabilities: { live_inventory: false } });
  });

  test('relations: paged with limit clamped; sync links customers idempotently; link and create; foreign customer 404', async () => {
    const page = await api.call('GET', R('/relations?limit=500'), { token: viewer });
    expect(page.body).toEqual({
      data: [
        { number: 'R1', name: 'Ann Relation', email: 'ann.relation@example.com', phone: null, customer_id: null },
        { number: 'R2', name: 'Bob Relation', email: null, phone: '+32470111222', customer_id: null },
      ],
      meta: { page: 1, limit: 200, has_more: false },
    });
    expect((await api.call('GET', R('/relations?limit=0'), { token: viewer })).body).toMatchObject({ data: [{ number: 'R1' }], meta: { page: 1, limit: 1, has_more: true } });
    expect((await api.call('GET', R('/relations?limit=10000000000'), { token: viewer })).body).toMatchObject({ meta: { page: 1, limit: 200, has_more: false } });
    expect((await api.call('GET', R('/relations?limit=1&page=2'), { token: viewer })).body).toMatchObject({ data: [{ number: 'R2' }], meta: { page: 2, limit: 1, has_more: false } });

    const synced = await api.call('POST', R('/relations/sync'), { token: viewer });
    expect(synced.body).toEqual({ status: 'success', data: { relations: 2, created: 2, linked: 0, unchanged: 0, skipped: 0 } });
    expect((await api.call('POST', R('/relations/sync'), { token: viewer })).body.data).toEqual({ relations: 2, created: 0, linked: 0, unchanged: 2, skipped: 0 });
    const linked = await tenantOf(api, shop).selectFrom('register_b_relations').innerJoin('customers', 'customers.id', 'register_b_relations.customer_id').select(['relation_number', 'customers.name', 'customers.email', 'customers.phone']).orderBy('relation_number').execute();
    expect(linked).toEqual([
      { relation_number: 'R1', name: 'Ann Relation', email: 'ann.relation@example.com', phone: null },
      { relation_number: 'R2', name: 'Bob Relation', email: null, phone: '+32470111222' },
    ]);

    // link
    const now = new Date();
    const carol = Bun.randomUUIDv7();
    await tenantOf(api, shop).insertInto('customers').values({ id: carol, name: 'Carol', email: 'carol@example.com', phone: null, created_at: now, updated_at: now }).execute();
    const foreign = Bun.randomUUIDv7();
    await tenantOf(api, lone).insertInto('customers').values({ id: foreign, name: 'Stranger', email: 'stranger@example.com', phone: null, created_at: now, updated_at: now }).execute();
    expect(await api.call('POST', R('/relations/link'), { token: viewer, body: { customer_id: foreign, relation_number: 'R1' } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the customer you requested.' } });
    expect(await api.call('POST', R('/relations/link'), { token: viewer, body: { customer_id: carol, relation_number: 'R404' } })).toMatchObject({
      status: 422,
      body: { errors: { relation_number: ['The relation could not be found at register-b.'] } },
    });
    expect(await api.call('POST', R('/relations/link'), { token: viewer, body: { customer_id: carol, relation_number: 'R1' } })).toMatchObject({
      status: 409,
      body: { message: 'The relation is already linked to another customer.', reason: 'relation_linked' },
    });

    // create at register-b from Carol, then link it; a second create is refused
    const created = await api.call('POST', R('/relations/create'), { token: viewer, body: { customer_id: carol } });
    expect(created.body).toEqual({ status: 'success', data: { relation_number: 'R1000', customer_id: carol, relation: { number: 'R1000', name: 'Carol', email: 'carol@example.com', phone: null } } });
    expect(sim.accounts.get(acc)!.relations.get('R1000')).toMatchObject({ name: 'Carol', email: 'carol@example.com' });
    expect(await api.call('POST', R('/relations/create'), { token: viewer, body: { customer_id: carol } })).toMatchObject({ status: 409, body: { reason: 'already_linked' } });
    expect(await api.call('POST', R('/relations/create'), { token: viewer, body: { customer_id: foreign } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the customer you requested.' } });
    expect(sim.accounts.get(acc)!.relations.size).toBe(3);
    // Relinking Carol to a free relation moves her link.
    sim.addRelation(acc, { number: 'R3', name: 'Free relation' });
    expect((await api.call('POST', R('/relations/link'), { token: viewer, body: { customer_id: carol, relation_number: 'R3' } })).body.data).toEqual({ relation_number: 'R3', customer_id: carol, relation: { number: 'R3', name: 'Free relation', email: null, phone: null } });
    expect(await tenantOf(api, shop).selectFrom('register_b_relations').select('relation_number').where('customer_id', '=', carol).execute()).toEqual([{ relation_number: 'R3' }]);
  });

  test('pricing-check and quote: register-b prices in cents; unknown relation; items that are not register-b products', async () => {
    const item = async (product: string) => (await tenantOf(api, shop).selectFrom('register_b_items').select('item_id').where('product_id', '=', product).executeTakeFirstOrThrow()).item_id;
    const soup = await item('p-soup');
    const bread = await item('p-bread');
    expect((await api.call('POST', R('/relations/R1/pricing-check'), { token: viewer, body: { item_ids: [soup, bread] } })).body).toEqual({
      data: {
        relation_number: 'R1',
        prices: [
          { item_id: soup, product_id: 'p-soup', price: 405, list_price: 450 },
          { item_id: bread, product_id: 'p-bread', price: 179, list_price: 199 },
        ],
      },
    });
    expect(await api.call('POST', R('/relations/R404/pricing-check'), { token: viewer, body: { item_ids: [soup] } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the relation you requested.' } });
    const demoItem = shop.items[0]!.id;
    expect(await api.call('POST', R('/relations/R1/pricing-check'), { token: viewer, body: { item_ids: [soup, demoItem, lone.items[0]!.id] } })).toMatchObject({
      status: 422,
      body: { errors: { 'item_ids.1': ['The item is not a register-b product: run a register-b sync first.'], 'item_ids.2': ['The selected item is invalid.'] } },
    });

    expect((await api.call('POST', R('/pricing/quote'), { token: viewer, body: { relation_number: 'R1', lines: [{ item_id: soup, quantity: 2 }, { item_id: bread, quantity: 1 }] } })).body).toEqual({
      data: {
        relation_number: 'R1',
        lines: [
          { item_id: soup, product_id: 'p-soup', quantity: 2, unit_price: 405, line_total: 810 },
          { item_id: bread, product_id: 'p-bread', quantity: 1, unit_price: 179, line_total: 179 },
        ],
        subtotal: 1099,
        discount: 110,
        total: 989,
      },
    });
    expect((await api.call('POST', R('/pricing/quote'), { token: viewer, body: { lines: [{ item_id: bread, quantity: 3 }] } })).body.data).toMatchObject({ relation_number: null, subtotal: 597, discount: 0, total: 597 });
    expect(await api.call('POST', R('/pricing/quote'), { token: viewer, body: { relation_number: 'R404', lines: [{ item_id: bread, quantity: 1 }] } })).toMatchObject({
      status: 422,
      body: { errors: { relation_number: ['The relation could not be found at register-b.'] } },
    });
    sim.failWith(503);
    try {
      expect(await api.call('POST', R('/pricing/quote'), { token: viewer, body: { lines: [{ item_id: bread, quantity: 1 }] } })).toMatchObject({ status: 503, body: { message: 'register-b could not be reached.' } });
    } finally {
      sim.failWith(null);
    }
  });

  test('locations/sync drops mappings to branches that vanished; diagnose then warns on the unmapped location', async () => {
    const [l0, l1] = shop.locations;
    expect((await api.call('POST', R('/locations/sync'), { token: viewer })).status).toBe(403);
    sim.accounts.get(acc)!.branches.delete('br-2');
    sim.accounts.get(acc)!.branches.get('br-1')!.name = 'Centre branch (renamed)';
    const r = await api.call('POST', R('/locations/sync'), { token: shopOwner });
    expect(r.body).toEqual({
      status: 'success',
      data: {
        branches: [
          { id: 'br-1', name: 'Centre branch (renamed)', location_id: l0!.id },
          { id: 'br-3', name: 'Airport branch', location_id: null },
        ],
        removed_mappings: 1,
      },
    });
    expect(await mappingRows()).toEqual([{ location_id: l0!.id, branch_id: 'br-1', branch_name: 'Centre branch (renamed)' }]);
    expect((await api.call('GET', R('/location-mappings'), { token: viewer })).body.data.find((m: { location_id: string }) => m.location_id === l1!.id)).toMatchObject({ branch_id: null, branch_name: null });
    const diag = await api.call('GET', R('/diagnose'), { token: viewer });
    expect(diag.body.data.checks.find((c: { key: string }) => c.key === 'locations_mapped')).toEqual({ key: 'locations_mapped', status: 'warning', detail: '1 of 2 locations mapped to a branch.' });
    // An empty mapping set unmaps everything.
    expect((await api.call('PUT', R('/location-mappings'), { token: shopOwner, body: { mappings: [] } })).status).toBe(200);
    expect(await mappingRows()).toEqual([]);
    // Nothing mapped: the sync refuses rather than hiding every synced item; the refusal is logged for diagnose.
    expect(await api.call('POST', R('/start-sync'), { token: shopOwner })).toMatchObject({ status: 422, body: { message: 'Map a location to a register-b branch before syncing.', reason: 'no_mappings' } });
    expect((await links()).filter((l) => l.visible).length).toBe(3);
    const after = await api.call('GET', R('/diagnose'), { token: viewer });
    expect(after.body.data.checks.filter((c: { status: string }) => c.status === 'error').map((c: { key: string }) => c.key)).toEqual(['locations_mapped', 'last_sync']);
  });
});

describe('register-b without REGISTER_B_API_URL', () => {
  test('a connected merchant gets 503 "register-b is not configured." from provider routes; diagnose reports it', async () => {
    const bare = await createTestApi();
    try {
      const mm = await bare.seed('register-b-bare');
      const tok = await bare.ownerToken(mm);
      const accountId = `rb-bare-${Bun.randomUUIDv7()}`;
      // Connecting checks the link code at register-b, which is not configured here.
      expect(await bare.call('POST', '/api/back-office/register-b', { token: tok, body: { account_id: accountId, link_code: 'LINK-X' } })).toMatchObject({ status: 503, body: { message: 'register-b is not configured.' } });
      // A connection made while it was (configuration removed since).
      const now = new Date();
      await bare.deps.db
        .insertInto('integration_connections')
        .values({ id: Bun.randomUUIDv7(), provider: 'register-b', external_ref: accountId, merchant_id: mm.merchant.id, status: 'active', settings: '{}', connected_at: now, created_at: now, updated_at: now })
        .execute();
      for (const path of ['/branches', '/test', '/healthcheck', '/relations'])
        expect(await bare.call('GET', `/api/back-office/register-b${path}`, { token: tok })).toMatchObject({ status: 503, body: { message: 'register-b is not configured.' } });
      expect(await bare.call('POST', '/api/back-office/register-b/start-sync', { token: tok })).toMatchObject({ status: 503, body: { message: 'register-b is not configured.' } });
      const diag = await bare.call('GET', '/api/back-office/register-b/diagnose', { token: tok });
      expect(diag.status).toBe(200);
      expect(diag.body.data.checks.slice(0, 3)).toEqual([
        { key: 'configured', status: 'error', detail: 'register-b is not configured.' },
        { key: 'connected', status: 'ok', detail: expect.stringMatching(/^Connected to account rb-bare-/) },
        { key: 'account_reachable', status: 'error', detail: 'Not checked: register-b is not configured.' },
      ]);
      // Mappings are ours: readable without the provider.
      expect((await bare.call('GET', '/api/back-office/register-b/location-mappings', { token: tok })).status).toBe(200);
    } finally {
      await bare.close();
    }
  }, 60_000);
});
