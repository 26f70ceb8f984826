import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { startRegisterBSimulator, type RegisterBSimulator } from '@pos/providers/register-b/register-b-simulator';

/**
 * Spec 1 section 5.8: "Permissions are role based, checked per route by slug, and scoped to the locations
 * granted to the user." A member holding MANAGE_INTEGRATION_SETTINGS only at location [1] may write the
 * register-c settings of location [1] and none of location [0] (path or body), and may not replace the
 * merchant-wide register-b mapping list (which rewrites every location's).
 */
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let limited: string;
let rb: RegisterBSimulator;
const BASE = '/api/back-office/register-c';
const DENIED = [403, 'Unauthorized: Insufficient permissions'];

beforeAll(async () => {
  rb = startRegisterBSimulator({ apiToken: 'rc-grant-rb-token' });
  api = await createTestApi({
    env: {
      INTEGRATION_TOKEN_KEY: 'c'.repeat(64),
      REGISTER_B_API_URL: rb.url,
      REGISTER_B_API_TOKEN: 'rc-grant-rb-token',
      // register-c's connect flow is configured (its start answers the authorize URL).
      OAUTH_STATE_SECRET: 'rc-grant-state-secret-0123456789abcdef',
      REGISTER_C_OAUTH_URL: 'http://127.0.0.1:9/register-c-oauth',
      REGISTER_C_CLIENT_ID: 'rc-grant-client',
      REGISTER_C_CLIENT_SECRET: 'rc-grant-client-secret',
      REGISTER_C_OAUTH_REDIRECT_URI: 'https://backoffice.example.test/integrations/register-c',
    },
  });
  m = await api.seed('rc-grant');
  owner = await api.ownerToken(m);
  limited = await limitedUserToken(api, m, ['MANAGE_INTEGRATION_SETTINGS'], [m.locations[1]!.id]);
  const now = new Date();
  await api.deps.db
    .insertInto('integration_connections')
    .values({ id: Bun.randomUUIDv7(), provider: 'register-c', external_ref: `rc-grant-${crypto.randomUUID()}`, merchant_id: m.merchant.id, location_id: null, status: 'active', settings: JSON.stringify({}), connected_at: now, created_at: now, updated_at: now } as never)
    .execute();
}, 60_000);
afterAll(async () => {
  await api.deps.db.deleteFrom('register_c_mappings').where('merchant_id', '=', m.merchant.id).execute();
  await api.deps.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await api.close();
  await rb.stop();
});

const mappingOf = (loc: string) =>
  api.deps.db.selectFrom('register_c_mappings').select(['register_c_location_id', 'status']).where('merchant_id', '=', m.merchant.id).where('location_id', '=', loc).executeTakeFirst();

describe('register-c mappings: the location grant', () => {
  test('a member with MIS at another location only is 403 on PUT /register-c/mappings/{location}; nothing written', async () => {
    const loc0 = m.locations[0]!.id;
    const own = await api.call('PUT', `${BASE}/mappings/${m.locations[1]!.id}`, { token: limited, body: { register_c_location_id: 'bl-own' } });
    expect(own.status).toBe(200); // inside the grant: allowed
    const r = await api.call('PUT', `${BASE}/mappings/${loc0}`, { token: limited, body: { register_c_location_id: 'bl-hijack' } });
    expect([r.status, r.body?.message]).toEqual(DENIED);
    expect(await mappingOf(loc0)).toBeUndefined();
  });

  test('the same member cannot pause, resume, sync, set order settings of or delete the mapping of a location outside the grant', async () => {
    const loc0 = m.locations[0]!.id;
    expect((await api.call('PUT', `${BASE}/mappings/${loc0}`, { token: owner, body: { register_c_location_id: 'bl-owner' } })).status).toBe(200);
    const calls = [
      await api.call('POST', `${BASE}/mappings/${loc0}/pause`, { token: limited }),
      await api.call('POST', `${BASE}/mappings/${loc0}/resume`, { token: limited }),
      await api.call('POST', `${BASE}/mappings/${loc0}/sync`, { token: limited }),
      await api.call('PUT', `${BASE}/mappings/${loc0}/order-settings`, { token: limited, body: {} }),
      await api.call('POST', `${BASE}/menu-suggestion/${loc0}/use`, { token: limited }),
      await api.call('DELETE', `${BASE}/mappings/${loc0}`, { token: limited }),
    ];
    for (const c of calls) expect([c.status, c.body?.message]).toEqual(DENIED);
    expect(await mappingOf(loc0)).toEqual({ register_c_location_id: 'bl-owner', status: 'active' });
  });

  test('orders and payments at register-c for a location outside the grant are 403 (the body names it)', async () => {
    const body = { location_id: m.locations[0]!.id, reference: 'grant-1', items: [{ sku: 'x', quantity: 1 }] };
    const calls = [
      await api.call('POST', `${BASE}/orders/local`, { token: limited, body: { ...body, table_number: 1 } }),
      await api.call('POST', `${BASE}/orders/to-go`, { token: limited, body }),
      await api.call('POST', `${BASE}/pay`, { token: limited, body: { location_id: m.locations[0]!.id, check_id: 'c1', reference: 'grant-1', amount_cents: 100, payment_method: 'cash' } }),
    ];
    for (const c of calls) expect([c.status, c.body?.message]).toEqual(DENIED);
  });

  test('PUT /register-c/payment-methods (one mapping for every location) needs every location; nothing written', async () => {
    const settings = () =>
      api.deps.db.selectFrom('integration_connections').select('settings').where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-c').executeTakeFirstOrThrow();
    const before = await settings();
    const r = await api.call('PUT', `${BASE}/payment-methods`, { token: limited, body: { payment_methods: { cash: 'pm-hijack' } } });
    expect([r.status, r.body?.message]).toEqual(DENIED);
    expect(await settings()).toEqual(before);
  });

  test('PUT /register-b/location-mappings (every location at once) needs every location', async () => {
    const r = await api.call('PUT', '/api/back-office/register-b/location-mappings', { token: limited, body: { mappings: [{ location_id: m.locations[1]!.id, branch_id: 'b1' }] } });
    expect([r.status, r.body?.message]).toEqual(DENIED);
    // The owner passes the gate (no register-b connection here: the use case answers).
    const o = await api.call('PUT', '/api/back-office/register-b/location-mappings', { token: owner, body: { mappings: [] } });
    expect(o.status).not.toBe(403);
  });

  test("connecting the merchant's register-c or register-b account (which replaces it and drops every location's mappings) needs every location", async () => {
    const start = await api.call('POST', `${BASE}/oauth`, { token: limited });
    expect([start.status, start.body?.message]).toEqual(DENIED);
    expect((await api.call('POST', `${BASE}/oauth`, { token: owner })).status).toBe(200);

    const account = `rb-grant-${crypto.randomUUID()}`;
    const linkCode = rb.addAccount(account).linkCode;
    const r = await api.call('POST', '/api/back-office/register-b', { token: limited, body: { account_id: account, link_code: linkCode } });
    expect([r.status, r.body?.message]).toEqual(DENIED);
    expect(await api.deps.db.selectFrom('integration_connections').select('id').where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-b').execute()).toEqual([]);
    expect((await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account, link_code: linkCode } })).status).toBe(200);
  });

  test('turning off or rescheduling a merchant-wide integration (register-b, register-c, platform-a) needs every location; nothing changes', async () => {
    const connection = () =>
      api.deps.db.selectFrom('integration_connections').select(['status', 'settings']).where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-c').executeTakeFirstOrThrow();
    const before = await connection();
    const calls = [
      await api.call('POST', `${BASE}/disable`, { token: limited }),
      await api.call('PUT', `${BASE}/sync-time`, { token: limited, body: { sync_time: '03:00' } }),
      await api.call('POST', '/api/back-office/register-b/disable', { token: limited }),
      await api.call('POST', '/api/back-office/register-b/toggle-live-inventory', { token: limited, body: { enabled: true } }),
      await api.call('POST', '/api/back-office/platform-a/sync-time', { token: limited, body: { sync_time: '03:00' } }),
    ];
    for (const c of calls) expect([c.status, c.body?.message]).toEqual(DENIED);
    expect(await connection()).toEqual(before);
    // The owner passes the gate.
    expect((await api.call('PUT', `${BASE}/sync-time`, { token: owner, body: { sync_time: '03:00' } })).status).toBe(200);
    expect((await api.call('POST', `${BASE}/disable`, { token: owner })).status).toBe(200);
    expect((await connection()).status).not.toBe('active');
  });
});
