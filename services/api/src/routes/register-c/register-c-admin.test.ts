import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { readOAuthState } from '@pos/core/integrations/oauth-state';
import { syncClientsFromEnv, syncConnection, syncRunners, runProviderSync } from '@pos/core/integrations/sync-runners';
import { bindTenant } from '@pos/db';
import { startOAuthSimulator, type OAuthSimulator } from '@pos/providers/oauth/oauth-simulator';
import { startRegisterCSimulator, type RegisterCSimulator } from '@pos/providers/register-c/register-c-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

// register-c administration (issue 17 item 4) against the OAuth and API simulators over real HTTP:
// connect, test, relay reads, sync, order settings, payment methods, menu suggestion, orders and pay.
const TOKEN_KEY = 'c'.repeat(64);
const STATE_SECRET = 'oauth-state-secret-register-c-0123456789';
const REDIRECT = 'https://backoffice.example.test/integrations/register-c';
const BASE = '/api/back-office/register-c';

let api: TestApi;
let oauth: OAuthSimulator;
let rc: RegisterCSimulator;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let loc: string;
let second: string;

const NO_INTEGRATION = { status: 404, body: { message: 'Unable to locate the integration you requested.' } };
const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const mappingRow = () =>
  api.deps.db.selectFrom('register_c_mappings').select(['order_settings', 'menu_source', 'suggestion_dismissed_digest', 'last_sync_counts', 'status']).where('merchant_id', '=', m.merchant.id).where('location_id', '=', loc).executeTakeFirstOrThrow();
const connectionSettings = async () => (await api.deps.db.selectFrom('integration_connections').select('settings').where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-c').executeTakeFirstOrThrow()).settings;
const rcItems = () => tdb().selectFrom('register_c_item_links as l').innerJoin('items as i', 'i.id', 'l.item_id').select(['l.sku', 'i.name', 'i.unit_price', 'i.visible', 'i.location_ids']).where('l.location_id', '=', loc).orderBy('l.sku').execute();

beforeAll(async () => {
  oauth = startOAuthSimulator({ provider: 'register-c', clientId: 'rc-client', clientSecret: 'rc-client-secret' });
  // The API accepts the tokens the OAuth simulator issues (its introspection endpoint), as in dev.
  rc = startRegisterCSimulator({ introspect: { url: oauth.url, clientId: 'rc-client', clientSecret: 'rc-client-secret' } });
  rc.addAccount('acct-1', ['bl-1', 'bl-2']);
  api = await createTestApi({
    env: {
      INTEGRATION_TOKEN_KEY: TOKEN_KEY,
      OAUTH_STATE_SECRET: STATE_SECRET,
      REGISTER_C_OAUTH_URL: oauth.url,
      REGISTER_C_CLIENT_ID: 'rc-client',
      REGISTER_C_CLIENT_SECRET: 'rc-client-secret',
      REGISTER_C_OAUTH_REDIRECT_URI: REDIRECT,
      REGISTER_C_API_URL: rc.url,
    },
  });
  m = await api.seed('register-c-admin');
  other = await api.seed('register-c-admin-other');
  owner = await api.ownerToken(m);
  loc = m.locations[0]!.id;
  second = m.locations[1]!.id;
}, 60_000);
afterAll(async () => {
  await api.close();
  await rc.stop();
  await oauth.stop();
});

describe('register-c administration', () => {
  test('without a register-c connection every route is a 404 on the integration; nothing written', async () => {
    const q = `location_id=${loc}`;
    for (const [method, path, body] of [
      ['GET', '/test'],
      ['GET', `/items?${q}`],
      ['GET', `/menus/menu-1?${q}`],
      ['GET', '/financial/businesses'],
      ['GET', `/financial/daily?${q}&date=2026-01-01`],
      ['POST', `/mappings/${loc}/sync`],
      ['PUT', `/mappings/${loc}/order-settings`, { online: null, kiosk: null }],
      ['PUT', '/payment-methods', { payment_methods: { card: 'pm-card' } }],
      ['GET', `/menu-suggestion/${loc}/diff`],
      ['POST', `/menu-suggestion/${loc}/adopt`],
      ['POST', `/menu-suggestion/${loc}/use`],
      ['POST', '/orders/local', { location_id: loc, reference: 'r-1', table_number: 1, items: [{ sku: 'COLA', quantity: 1 }] }],
      ['POST', '/pay', { location_id: loc, check_id: 'chk-1', reference: 'p-1', amount_cents: 100, payment_method: 'card' }],
    ] as const) {
      expect({ path, ...(await api.call(method, `${BASE}${path}`, { token: owner, ...(body ? { body } : {}) })) }).toMatchObject({ path, ...NO_INTEGRATION });
    }
    expect(rc.requests).toEqual([]);
  });

  test('POST /oauth answers the authorize URL with a signed state; the callback connects; /test is ok', async () => {
    const r = await api.call('POST', `${BASE}/oauth`, { token: owner });
    expect(r.status).toBe(200);
    const url = new URL(r.body.data.authorize_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${oauth.url}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ response_type: 'code', client_id: 'rc-client', redirect_uri: REDIRECT, scope: 'read write', state: r.body.data.state });
    const claims = readOAuthState({ secret: STATE_SECRET, state: r.body.data.state, provider: 'register-c', now: new Date() });
    expect(claims).toMatchObject({ ok: true, claims: { provider: 'register-c', merchantId: m.merchant.id, locationId: null } });
    expect(new Date(r.body.data.expires_at).getTime()).toBeGreaterThan(Date.now());

    // The consent screen answers a code to the redirect URI; the callback exchanges it.
    const code = oauth.issueCode({ accountId: 'acct-1', redirectUri: REDIRECT });
    expect((await api.call('GET', `/api/register-c/callback?${new URLSearchParams({ code, state: r.body.data.state })}`)).status).toBeLessThan(400);
    expect(await api.call('GET', `${BASE}/test`, { token: owner })).toMatchObject({ status: 200, body: { data: { ok: true, account_id: 'acct-1', businesses: 1, locations: 2 } } });
    expect(await api.call('GET', `${BASE}/financial/businesses`, { token: owner })).toMatchObject({
      status: 200,
      body: { data: [{ id: 'acct-1-biz', name: 'Business acct-1', currency: 'EUR', locations: [{ id: 'bl-1', name: 'Location bl-1', timezone: 'Europe/Brussels' }, { id: 'bl-2', name: 'Location bl-2', timezone: 'Europe/Brussels' }] }] },
    });
    expect((await api.call('PUT', `${BASE}/mappings/${loc}`, { token: owner, body: { register_c_location_id: 'bl-1' } })).status).toBe(200);
  });

  test('relay reads are typed and mapped to snake_case with cents', async () => {
    const get = (path: string) => api.call('GET', `${BASE}${path}${path.includes('?') ? '&' : '?'}location_id=${loc}`, { token: owner });
    expect((await get('/account-profiles')).body).toEqual({ data: [{ code: 'DINE', name: 'Dine in', type: 'local' }, { code: 'TOGO', name: 'Take away', type: 'takeaway' }] });
    expect((await get('/account-profiles/tax-preview?account_profile_code=DINE&amount_cents=1210')).body).toEqual({ data: { account_profile_code: 'DINE', gross_cents: 1210, net_cents: 1000, tax_cents: 210 } });
    expect((await get('/floorplans')).body).toEqual({ data: [{ id: 'fp-1', name: 'Main room' }] });
    expect((await get('/floorplans/fp-1/tables')).body.data[0]).toEqual({ number: 1, name: 'Table 1', seats: 4 });
    expect((await get('/menus')).body).toEqual({ data: [{ id: 'menu-1', name: 'All day' }] });
    expect((await get('/menus/menu-1')).body.data.sections[0]).toEqual({ name: 'Mains', items: [{ sku: 'BURGER', name: 'Burger', price_cents: 1250 }, { sku: 'SALAD', name: 'Salad', price_cents: 900 }] });
    expect((await get('/menu-modifiers')).body).toEqual({ data: [{ id: 'mod-cheese', name: 'Extra cheese', price_cents: 100 }] });
    expect((await get('/menu-discounts')).body).toEqual({ data: [{ id: 'disc-staff', name: 'Staff', type: 'percent', percent: 10, amount_cents: null }] });
    expect((await get('/item-availability')).body.data).toHaveLength(3);
    expect((await get('/items')).body.data[0]).toEqual({ sku: 'BURGER', name: 'Burger', price_cents: 1250, accounting_group_id: 'ag-food', tax_rate_id: 'tr-food' });
    expect((await get('/rich-items')).body.data[0]).toEqual({ sku: 'BURGER', name: 'Burger', price_cents: 1250, description: 'Burger from the house', image_url: null, allergen_codes: ['gluten'] });
    expect((await get('/allergens')).body.data).toEqual([{ code: 'gluten', name: 'Gluten' }, { code: 'milk', name: 'Milk' }]);
    expect((await get('/financial/tax-rates')).body.data).toEqual([{ id: 'tr-food', name: 'Food', rate_percent: 6 }, { id: 'tr-std', name: 'Standard', rate_percent: 21 }]);
    expect((await get('/financial/payment-methods')).body.data.map((p: { id: string }) => p.id)).toEqual(['pm-cash', 'pm-card', 'pm-online']);
    expect((await get('/financial/accounting-groups')).body.data).toEqual([{ id: 'ag-food', name: 'Food' }, { id: 'ag-drinks', name: 'Drinks' }]);
    expect((await get('/checks?status=open')).body).toEqual({ data: [] });
    expect((await get('/checks/table/2')).body).toEqual({ data: [] });
    expect((await get('/financial/daily?date=2026-01-01')).body).toEqual({ data: { date: '2026-01-01', sales_cents: 0, check_count: 0, payments: [] } });
    // Ids register-c does not know, our unmapped location, another merchant's location.
    expect(await get('/menus/nope')).toMatchObject({ status: 404, body: { message: 'Unable to locate the menu you requested.' } });
    expect(await get('/floorplans/nope/tables')).toMatchObject({ status: 404, body: { message: 'Unable to locate the floorplan you requested.' } });
    expect(await get('/checks/table/99')).toMatchObject({ status: 404, body: { message: 'Unable to locate the table you requested.' } });
    expect(await api.call('GET', `${BASE}/items?location_id=${second}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the mapping you requested.' } });
    expect(await api.call('GET', `${BASE}/items?location_id=${other.locations[0]!.id}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect((await api.call('GET', `${BASE}/items`, { token: owner })).status).toBe(422);
  });

  test('permission MANAGE_INTEGRATION_SETTINGS on writes (403, nothing written); reads need none', async () => {
    const viewer = await makeMember(api, m, ['VIEW_ITEMS']);
    const before = await mappingRow();
    for (const [method, path, body] of [
      ['POST', '/oauth'],
      ['POST', `/mappings/${loc}/sync`],
      ['PUT', `/mappings/${loc}/order-settings`, { online: null, kiosk: null }],
      ['PUT', '/payment-methods', { payment_methods: { card: 'pm-card' } }],
      ['POST', `/menu-suggestion/${loc}/adopt`],
      ['POST', `/menu-suggestion/${loc}/dismiss`],
      ['POST', `/menu-suggestion/${loc}/use`],
      ['POST', '/orders/to-go', { location_id: loc, reference: 'v-1', items: [{ sku: 'COLA', quantity: 1 }] }],
      ['POST', '/pay', { location_id: loc, check_id: 'chk-1', reference: 'p-1', amount_cents: 100, payment_method: 'card' }],
    ] as const) {
      expect({ path, ...(await api.call(method, `${BASE}${path}`, { token: viewer.token, ...(body ? { body } : {}) })) }).toMatchObject({ path, status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    }
    expect(await mappingRow()).toEqual(before);
    expect(await rcItems()).toEqual([]);
    expect(rc.location('bl-1')!.checks).toEqual([]);
    expect((await api.call('GET', `${BASE}/items?location_id=${loc}`, { token: viewer.token })).status).toBe(200);
    expect((await api.call('GET', `${BASE}/menu-suggestion/${loc}/diff`, { token: viewer.token })).status).toBe(200);
  });

  test('sync links by sku; new items stay a suggestion until register-c is the menu source; dismiss, use, adopt', async () => {
    const sync = () => api.call('POST', `${BASE}/mappings/${loc}/sync`, { token: owner });
    const first = await sync();
    expect(first).toMatchObject({ status: 200, body: { status: 'success', data: { upvendo_location_id: loc, register_c_location_id: 'bl-1', counts: { created: 0, updated: 0, hidden: 0, suggested: 3 } } } });
    expect(await rcItems()).toEqual([]);

    const diff = await api.call('GET', `${BASE}/menu-suggestion/${loc}/diff`, { token: owner });
    expect(diff.body.data).toMatchObject({
      to_add: [{ sku: 'BURGER', name: 'Burger', price_cents: 1250, vat_rate: 6 }, { sku: 'COLA', name: 'Cola', price_cents: 300, vat_rate: 6 }, { sku: 'SALAD', name: 'Salad', price_cents: 900, vat_rate: 6 }],
      to_update: [],
      missing: [],
      dismissed: false,
      menu_source: false,
    });
    expect((await api.call('POST', `${BASE}/menu-suggestion/${loc}/dismiss`, { token: owner })).body).toEqual({ status: 'success', data: { upvendo_location_id: loc, digest: diff.body.data.digest, dismissed: true } });
    expect((await api.call('GET', `${BASE}/menu-suggestion/${loc}/diff`, { token: owner })).body.data.dismissed).toBe(true);

    // register-c as the menu source: the sync creates its items at this location, linked by sku.
    expect((await api.call('POST', `${BASE}/menu-suggestion/${loc}/use`, { token: owner })).body).toEqual({ status: 'success', data: { upvendo_location_id: loc, menu_source: true } });
    expect((await sync()).body.data.counts).toEqual({ created: 3, updated: 0, hidden: 0, suggested: 0 });
    expect(await rcItems()).toEqual([
      { sku: 'BURGER', name: 'Burger', unit_price: 1250, visible: true, location_ids: [loc] },
      { sku: 'COLA', name: 'Cola', unit_price: 300, visible: true, location_ids: [loc] },
      { sku: 'SALAD', name: 'Salad', unit_price: 900, visible: true, location_ids: [loc] },
    ]);
    expect((await sync()).body.data.counts).toEqual({ created: 0, updated: 0, hidden: 0, suggested: 0 });
    // Cola and Salad on the location's published menu (what its kiosk and storefront sell from).
    const linked = await tdb().selectFrom('register_c_item_links').select(['sku', 'item_id']).where('location_id', '=', loc).where('sku', 'in', ['COLA', 'SALAD']).orderBy('sku').execute();
    const menu = (await api.call('POST', '/api/back-office/menus', { token: owner, body: { name: 'Register-c menu', location_id: loc } })).body.data.id as string;
    const group = (await api.call('POST', '/api/back-office/display-groups', { token: owner, body: { menu_id: menu, name: 'Counter' } })).body.data.id as string;
    await api.call('POST', `/api/back-office/menus/display-group-items/${menu}`, { token: owner, body: { groups: [{ id: group, item_ids: linked.map((l) => l.item_id) }] } });
    expect((await api.call('POST', `/api/back-office/menus/publish/${menu}`, { token: owner })).status).toBe(200);
    const published = async () => {
      const row = await tdb().selectFrom('published_catalogs').select('payload').where('location_id', '=', loc).executeTakeFirstOrThrow();
      const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as { display_groups: { items: { name: string; unit_price: number }[] }[] };
      return payload.display_groups.flatMap((g) => g.items.map((i) => `${i.name}:${i.unit_price}`));
    };
    expect(await published()).toEqual(['Cola:300', 'Salad:900']);

    // A price change and a dropped item at register-c: the diff shows them, adopt applies them.
    const site = rc.location('bl-1')!;
    site.items.find((i) => i.sku === 'COLA')!.price = '3.20';
    const salad = site.items.splice(site.items.findIndex((i) => i.sku === 'SALAD'), 1)[0]!;
    const d2 = (await api.call('GET', `${BASE}/menu-suggestion/${loc}/diff`, { token: owner })).body.data;
    expect(d2).toMatchObject({ to_add: [], to_update: [{ sku: 'COLA', name: 'Cola', price_cents: 320, current_name: 'Cola', current_price_cents: 300, linked: true }], missing: [{ sku: 'SALAD', name: 'Salad' }], dismissed: false });
    expect((await api.call('POST', `${BASE}/menu-suggestion/${loc}/adopt`, { token: owner })).body).toEqual({ status: 'success', data: { upvendo_location_id: loc, counts: { created: 0, updated: 1, hidden: 1, suggested: 0 } } });
    expect((await rcItems()).map((i) => [i.sku, i.unit_price, i.visible])).toEqual([['BURGER', 1250, true], ['COLA', 320, true], ['SALAD', 900, false]]);
    // The published menu follows in the same transaction: the new price, the dropped item gone.
    expect(await published()).toEqual(['Cola:320']);
    expect((await mappingRow()).suggestion_dismissed_digest).toBeNull();
    // Back at register-c: the hidden item shows again on the next sync.
    site.items.push(salad);
    expect((await sync()).body.data.counts).toEqual({ created: 0, updated: 1, hidden: 0, suggested: 0 });
    expect(await published()).toEqual(['Cola:320', 'Salad:900']);
    expect((await mappingRow()).last_sync_counts).toEqual({ created: 0, updated: 1, hidden: 0, suggested: 0 });
    expect(await api.call('POST', `${BASE}/menu-suggestion/${loc}/dismiss`, { token: owner })).toMatchObject({ status: 422, body: { message: 'There is no menu suggestion to dismiss.', reason: 'no_suggestion' } });
  });

  test('the scheduled sync runs every active mapping through the register-c runner', async () => {
    const conn = await api.deps.db.selectFrom('integration_connections').select('id').where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-c').executeTakeFirstOrThrow();
    const runners = syncRunners(syncClientsFromEnv({ REGISTER_C_API_URL: rc.url, INTEGRATION_TOKEN_KEY: TOKEN_KEY }));
    const connection = (await syncConnection(api.deps.db, conn.id))!;
    expect(await runProviderSync({ central: api.deps.db, connection, now: () => new Date() }, runners)).toEqual({ status: 'ok', counts: { locations: 1, created: 0, updated: 0, hidden: 0, suggested: 0 } });
    await api.call('POST', `${BASE}/mappings/${loc}/pause`, { token: owner });
    expect(await runProviderSync({ central: api.deps.db, connection, now: () => new Date() }, runners)).toEqual({ status: 'ok', counts: { locations: 0, created: 0, updated: 0, hidden: 0, suggested: 0 } });
    expect(await api.call('POST', `${BASE}/mappings/${loc}/sync`, { token: owner })).toMatchObject({ status: 409, body: { message: 'The register-c mapping is paused.', reason: 'mapping_paused' } });
    expect(await api.call('POST', '/api/back-office/register-c/orders/to-go', { token: owner, body: { location_id: loc, reference: 'paused-1', items: [{ sku: 'COLA', quantity: 1 }] } })).toMatchObject({ status: 409, body: { reason: 'mapping_paused' } });
    await api.call('POST', `${BASE}/mappings/${loc}/resume`, { token: owner });
    expect(await runProviderSync({ central: api.deps.db, connection, now: () => new Date() }, syncRunners(syncClientsFromEnv({})))).toMatchObject({ status: 'not_configured' });
  });

  test('order settings are checked at register-c: 422 with nothing written, then saved', async () => {
    const put = (body: unknown) => api.call('PUT', `${BASE}/mappings/${loc}/order-settings`, { token: owner, body });
    expect(await put({ online: { account_profile_code: 'NOPE', table_number: null }, kiosk: { account_profile_code: 'DINE', table_number: null } })).toMatchObject({
      status: 422,
      body: { errors: { 'online.account_profile_code': ['The account profile does not exist at the register-c location.'], 'kiosk.table_number': ['A dine-in account profile needs a table.'] } },
    });
    expect(await put({ online: { account_profile_code: 'DINE', table_number: 42 }, kiosk: null })).toMatchObject({ status: 422, body: { errors: { 'online.table_number': ['The table does not exist at the register-c location.'] } } });
    expect((await mappingRow()).order_settings).toEqual({});
    const settings = { online: { account_profile_code: 'TOGO', table_number: null }, kiosk: { account_profile_code: 'DINE', table_number: 3 } };
    expect((await put(settings)).body).toEqual({ status: 'success', data: { upvendo_location_id: loc, register_c_location_id: 'bl-1', order_settings: settings } });
    expect((await mappingRow()).order_settings).toEqual(settings);
    expect(await api.call('PUT', `${BASE}/mappings/${second}/order-settings`, { token: owner, body: settings })).toMatchObject({ status: 404, body: { message: 'Unable to locate the mapping you requested.' } });
    expect(await api.call('PUT', `${BASE}/mappings/${other.locations[0]!.id}/order-settings`, { token: owner, body: settings })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
  });

  test('payment methods are checked at register-c; orders are idempotent by reference; pay uses the mapped method', async () => {
    expect(await api.call('PUT', `${BASE}/payment-methods`, { token: owner, body: { payment_methods: { card: 'pm-card', cash: 'pm-bogus' } } })).toMatchObject({
      status: 422,
      body: { errors: { 'payment_methods.cash': ['The payment method does not exist at register-c.'] } },
    });
    expect((await connectionSettings()).payment_methods).toBeUndefined();
    expect((await api.call('PUT', `${BASE}/payment-methods`, { token: owner, body: { payment_methods: { card: 'pm-card', cash: 'pm-cash' } } })).body).toEqual({ status: 'success', data: { payment_methods: { card: 'pm-card', cash: 'pm-cash' } } });
    expect((await connectionSettings()).payment_methods).toEqual({ card: 'pm-card', cash: 'pm-cash' });

    const order = { location_id: loc, reference: 'web-1001', table_number: 2, items: [{ sku: 'BURGER', quantity: 2 }, { sku: 'COLA', quantity: 1 }] };
    const local = await api.call('POST', `${BASE}/orders/local`, { token: owner, body: order });
    expect(local).toMatchObject({ status: 200, body: { status: 'success', data: { reference: 'web-1001', account_profile_code: 'DINE', table_number: 2, status: 'open', total_cents: 2820, paid_cents: 0 } } });
    expect((await api.call('POST', `${BASE}/orders/local`, { token: owner, body: order })).body.data.id).toBe(local.body.data.id);
    expect(rc.location('bl-1')!.checks).toHaveLength(1);
    expect((await api.call('GET', `${BASE}/checks/table/2?location_id=${loc}`, { token: owner })).body.data.map((c: { id: string }) => c.id)).toEqual([local.body.data.id]);
    expect(await api.call('POST', `${BASE}/orders/to-go`, { token: owner, body: { location_id: loc, reference: 'kiosk-7', customer_name: 'Ann', items: [{ sku: 'NOPE', quantity: 1 }] } })).toMatchObject({
      status: 422,
      body: { message: 'register-c refused the request: Unknown sku NOPE', reason: 'provider_refused' },
    });
    expect((await api.call('POST', `${BASE}/orders/to-go`, { token: owner, body: { location_id: loc, reference: 'kiosk-7', items: [{ sku: 'COLA', quantity: 1 }] } })).body.data).toMatchObject({ account_profile_code: 'TOGO', table_number: null, total_cents: 320 });

    const pay = (body: Record<string, unknown>) => api.call('POST', `${BASE}/pay`, { token: owner, body: { location_id: loc, check_id: local.body.data.id, reference: 'pay-1', amount_cents: 2820, payment_method: 'card', ...body } });
    expect(await pay({ payment_method: 'online' })).toMatchObject({ status: 422, body: { errors: { payment_method: ['The payment method is not mapped to a register-c payment method.'] } } });
    expect(await pay({ check_id: 'chk-unknown' })).toMatchObject({ status: 404, body: { message: 'Unable to locate the check you requested.' } });
    expect(await pay({ amount_cents: 5000 })).toMatchObject({ status: 422, body: { reason: 'provider_refused' } });
    expect((await pay({})).body.data).toMatchObject({ status: 'closed', paid_cents: 2820 });
    expect((await pay({})).body.data).toMatchObject({ status: 'closed', paid_cents: 2820 });
    expect(rc.location('bl-1')!.checks[0]!.payments).toEqual([{ reference: 'pay-1', paymentMethodId: 'pm-card', amount: '28.20' }]);
    expect(await api.call('POST', `${BASE}/orders/local`, { token: owner, body: { ...order, location_id: other.locations[0]!.id, reference: 'x-1' } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
  });

  test('two applies of new skus at once (a sync and an adopt): one item per sku, every one linked', async () => {
    const site = rc.location('bl-1')!;
    for (const sku of ['TEA', 'SOUP', 'PIE']) site.items.push({ ...site.items[0]!, sku, name: `Race ${sku}` });
    const answers = await Promise.all([api.call('POST', `${BASE}/mappings/${loc}/sync`, { token: owner }), api.call('POST', `${BASE}/menu-suggestion/${loc}/adopt`, { token: owner })]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    // Before: both created the three (six items, three unlinked and on sale for good).
    const raced = await tdb().selectFrom('items').select('sku').where('name', 'like', 'Race %').orderBy('sku').execute();
    expect(raced.map((r) => r.sku)).toEqual(['PIE', 'SOUP', 'TEA']);
    expect((await rcItems()).filter((i) => i.name.startsWith('Race ')).map((i) => i.sku)).toEqual(['PIE', 'SOUP', 'TEA']);
  });

  test('register-c down is 503; a refused token is reported by /test and is 409 elsewhere', async () => {
    rc.failWith = 503;
    try {
      expect(await api.call('GET', `${BASE}/items?location_id=${loc}`, { token: owner })).toMatchObject({ status: 503, body: { message: 'register-c could not be reached.', reason: 'provider_unavailable' } });
      expect(await api.call('GET', `${BASE}/test`, { token: owner })).toMatchObject({ status: 503, body: { message: 'register-c could not be reached.' } });
      const before = await mappingRow();
      expect((await api.call('POST', `${BASE}/mappings/${loc}/sync`, { token: owner })).status).toBe(503);
      expect(await mappingRow()).toEqual(before);
    } finally {
      rc.failWith = null;
    }
    // Refused with a refresh token register-c refuses too (the refresh itself: register-c-token-refresh.test.ts).
    const last = oauth.issued.at(-1)!;
    oauth.revokeRefreshToken(last.refreshToken);
    rc.expireToken(last.accessToken);
    expect(await api.call('GET', `${BASE}/test`, { token: owner })).toMatchObject({
      status: 200,
      body: { data: { ok: false, account_id: 'acct-1', provider_status: 401, provider_code: 'token_expired', message: 'The access token has expired' } },
    });
    expect(await api.call('GET', `${BASE}/menus?location_id=${loc}`, { token: owner })).toMatchObject({
      status: 409,
      body: { message: 'register-c refused the stored access token: reconnect the integration.', reason: 'provider_token_rejected' },
    });
    // Disabled: the tokens are dropped and every route is a 404 on the integration again.
    expect((await api.call('POST', `${BASE}/disable`, { token: owner })).status).toBe(200);
    expect(await api.call('GET', `${BASE}/test`, { token: owner })).toMatchObject(NO_INTEGRATION);
  });
});
