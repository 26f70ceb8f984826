import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant, dbQueryCount } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../testing/harness.ts';

/** The register's authentication state cached in the process (TTL on here, off in the other API tests). */
let api: TestApi;
let m: DemoSeedResult;
beforeAll(async () => {
  api = await createTestApi({ env: { AUTH_CACHE_TTL_MS: '60000' } });
  m = await api.seed('authcache');
});
afterAll(() => api.close());

describe('auth cache', () => {
  test('a repeated register request makes no authentication round trip', async () => {
    const token = await api.deviceToken(m, 'pos');
    const staff = await api.staffLogin(m, 'manager', token);
    const list = () => api.call('GET', '/api/pos/orders?state=open', { token, deviceKey: true, staffToken: staff });
    expect((await list()).status).toBe(200);
    const q0 = dbQueryCount();
    expect((await list()).status).toBe(200);
    const cached = dbQueryCount() - q0;
    api.deps.authCache.invalidate(m.merchant.id);
    const q1 = dbQueryCount();
    expect((await list()).status).toBe(200);
    const cold = dbQueryCount() - q1;
    // Cold: registry, merchant, device and staff session reads on top of the route's own.
    expect(cold - cached).toBe(4);
  });

  test('cached entries are really served: a change behind the API is not seen until invalidated', async () => {
    const token = await api.deviceToken(m, 'pos', 1);
    expect((await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).status).toBe(200);
    await api.deps.db.updateTable('device_registry').set({ token_version: sql`token_version + 1` }).where('id', '=', m.devices[1]!.id).execute();
    expect((await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).status).toBe(200);
    api.deps.authCache.invalidate(m.merchant.id);
    expect((await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).status).toBe(401);
  });

  test('logout through the API takes effect on the next request', async () => {
    const token = await api.deviceToken(m, 'pos');
    expect((await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).status).toBe(200);
    expect((await api.call('POST', '/api/device-auth/logout', { token, deviceKey: true })).status).toBe(200);
    expect(await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
  });

  test('pin-logout ends the cached staff session at once; deleting the device ends its cached device', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const posId = m.devices.filter((d) => d.type === 'pos')[0]!.id;
    // The earlier logout moved the token version; mint a current token.
    const token = await api.deviceToken(m, 'pos');
    const staff = await api.staffLogin(m, 'manager', token);
    const list = () => api.call('GET', '/api/pos/orders?state=open', { token, deviceKey: true, staffToken: staff });
    expect((await list()).status).toBe(200);
    expect((await api.call('POST', '/api/pos/staff/pin-logout', { token, deviceKey: true, staffToken: staff })).status).toBe(200);
    expect(await list()).toMatchObject({ status: 401, body: { message: 'Invalid POS staff token' } });

    const owner = await api.ownerToken(m);
    expect((await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).status).toBe(200);
    expect((await api.call('DELETE', `/api/back-office/devices/${posId}`, { token: owner })).status).toBeLessThan(300);
    expect((await tdb.selectFrom('devices').select('deleted_at').where('id', '=', posId).executeTakeFirstOrThrow()).deleted_at).not.toBeNull();
    expect((await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).status).toBe(401);
  });

  test('an internal admin acting on this merchant with vendor_id (token of another merchant): the device deleted is 401 at once', async () => {
    const admin = await api.seed('authcache-admin');
    const ownerOf = await api.deps.db.selectFrom('memberships').select('user_id').where('merchant_id', '=', admin.merchant.id).where('is_owner', '=', true).executeTakeFirstOrThrow();
    await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('id', '=', ownerOf.user_id).execute();
    try {
      const adminToken = await api.ownerToken(admin);
      const kdsId = m.devices.filter((d) => d.type === 'kds')[0]!.id;
      const token = await api.deviceToken(m, 'kds');
      expect((await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).status).toBe(200);
      expect((await api.call('DELETE', `/api/back-office/devices/${kdsId}?vendor_id=${m.merchant.id}`, { token: adminToken })).status).toBeLessThan(300);
      // Before: the admin's own merchant's cache was dropped; this device answered from the cache until the TTL.
      expect((await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).status).toBe(401);
    } finally {
      await api.deps.db.updateTable('users').set({ is_global_admin: false }).where('id', '=', ownerOf.user_id).execute();
    }
  });
});
