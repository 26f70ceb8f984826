import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { AppError } from '@pos/kernel';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../testing/harness.ts';
import { authenticate, authenticateOptional, bearerToken } from './authenticate.ts';
import { revokeToken } from '@pos/core/auth/revocation';
import { checkDeviceKey, recordUserActivity, requireGlobalAdmin, requireOwnLocation, requireType } from '@pos/core/auth/caller-gates';
import { applyVendorOverride, bindTokenTenant } from '@pos/core/auth/tenant-context';
import { loadDevice, requireSubscription, touchDevice } from '@pos/core/auth/device-gates';
import { requirePermission } from '@pos/core/auth/access';
import { THROTTLES, throttle } from './throttle.ts';
import { permissionGateOf } from '../plugins/guards.ts';
import { registerDVendors } from '@pos/core/integrations/register-d-admin';
import { makeMember } from '../routes/team/team.test-support.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let ownerId: string;

async function expectError(p: Promise<unknown> | (() => unknown), status: number, message: string) {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect({ status: (e as AppError).status, message: (e as AppError).message }).toEqual({ status, message });
    return;
  }
  throw new Error('expected an error');
}

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('mw-a');
  b = await api.seed('mw-b');
  ownerId = (await api.deps.db.selectFrom('users').select('id').where('email', '=', a.backoffice.email).executeTakeFirstOrThrow()).id;
});
afterAll(() => api.close());

const sign = (over: Record<string, unknown> = {}, ttl?: number) =>
  api.deps.tokens.sign({ type: 'backoffice', sub: ownerId, merchant_id: a.merchant.id, tenant_database: a.merchant.tenant_database, ...over } as never, ttl);

describe('auth', () => {
  test('bearer parsing', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
  test('no token: Unauthenticated; bad, expired, revoked: Invalid token', async () => {
    await expectError(authenticate(api.deps, undefined), 401, 'Unauthenticated');
    await expectError(authenticate(api.deps, 'Bearer x.y.z'), 401, 'Invalid token');
    await expectError(authenticate(api.deps, `Bearer ${await sign({}, -5)}`), 401, 'Invalid token');
    const t = await sign();
    const p = await authenticate(api.deps, `Bearer ${t}`);
    expect(p).toMatchObject({ type: 'backoffice', userId: ownerId, merchantId: a.merchant.id });
    await revokeToken(api.deps.redis, p.jti, p.exp);
    await expectError(authenticate(api.deps, `Bearer ${t}`), 401, 'Invalid token');
  });
  test('a token signed with another secret is invalid', async () => {
    const { createTokenService } = await import('../plugins/tokens.ts');
    const other = createTokenService('another-secret-another-secret-another-secret');
    const t = await other.sign({ type: 'backoffice', sub: ownerId, merchant_id: a.merchant.id, tenant_database: a.merchant.tenant_database });
    await expectError(authenticate(api.deps, `Bearer ${t}`), 401, 'Invalid token');
  });
  test('a back-office token for a merchant the user does not belong to is invalid', async () => {
    await expectError(authenticate(api.deps, `Bearer ${await sign({ merchant_id: b.merchant.id, tenant_database: b.merchant.tenant_database })}`), 401, 'Invalid token');
  });
  test('device tokens die when the registry version moves', async () => {
    const dev = a.devices[0]!;
    const t = await api.deps.tokens.sign({ type: 'pos', sub: dev.id, merchant_id: a.merchant.id, tenant_database: a.merchant.tenant_database, ver: 0 });
    expect(await authenticate(api.deps, `Bearer ${t}`)).toMatchObject({ type: 'pos', deviceId: dev.id });
    await api.deps.db.updateTable('device_registry').set({ token_version: 1 }).where('id', '=', dev.id).execute();
    await expectError(authenticate(api.deps, `Bearer ${t}`), 401, 'Invalid token');
    await api.deps.db.updateTable('device_registry').set({ token_version: 0 }).where('id', '=', dev.id).execute();
  });
  test('auth.optional: absent is null, invalid is still 401', async () => {
    expect(await authenticateOptional(api.deps, undefined)).toBeNull();
    await expectError(authenticateOptional(api.deps, 'Bearer nope'), 401, 'Invalid token');
  });
});

describe('type, device key, tenant', () => {
  test('type:<t>', async () => {
    const p = await authenticate(api.deps, `Bearer ${await sign()}`);
    expect(() => requireType(p, ['backoffice'])).not.toThrow();
    await expectError(() => requireType(p, ['pos', 'kiosk']), 403, 'Unauthorized: Invalid user type');
  });
  test('device-key compares the configured key', async () => {
    expect(() => checkDeviceKey(api.env.DEVICE_API_KEY, api.env.DEVICE_API_KEY)).not.toThrow();
    await expectError(() => checkDeviceKey('wrong', api.env.DEVICE_API_KEY), 401, 'Invalid API key');
    await expectError(() => checkDeviceKey(undefined, api.env.DEVICE_API_KEY), 401, 'Invalid API key');
  });
  test('tenant binds the token merchant; a mismatched schema claim is invalid', async () => {
    const t = await bindTokenTenant(api.deps.db, a.merchant.id, a.merchant.tenant_database);
    expect(t.merchant.slug).toBe(a.merchant.slug);
    expect((await t.db.selectFrom('locations').select('id').execute()).length).toBe(a.locations.length);
    await expectError(bindTokenTenant(api.deps.db, a.merchant.id, b.merchant.tenant_database), 401, 'Invalid token');
  });
});

describe('admin-vendor-override and location-owner', () => {
  test('absent vendor_id has no effect; an ordinary user cannot rebind', async () => {
    const t = await bindTokenTenant(api.deps.db, a.merchant.id, a.merchant.tenant_database);
    expect(await applyVendorOverride(api.deps.db, ownerId, t, undefined)).toEqual({ tenant: t, elevated: false });
    await expectError(applyVendorOverride(api.deps.db, ownerId, t, b.merchant.id), 403, 'Unauthorized: Insufficient permissions');
  });
  test('an internal admin and the merchant reseller may rebind; another reseller may not', async () => {
    const t = await bindTokenTenant(api.deps.db, a.merchant.id, a.merchant.tenant_database);
    await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('id', '=', ownerId).execute();
    const r = await applyVendorOverride(api.deps.db, ownerId, t, b.merchant.id);
    expect(r.elevated).toBe(true);
    expect(r.tenant.merchant.id).toBe(b.merchant.id);
    await api.deps.db.updateTable('users').set({ is_global_admin: false }).where('id', '=', ownerId).execute();
    const reseller = crypto.randomUUID();
    await api.deps.db.updateTable('merchants').set({ reseller_id: reseller }).where('id', '=', b.merchant.id).execute();
    await api.deps.db.updateTable('users').set({ reseller_id: reseller }).where('id', '=', ownerId).execute();
    expect((await applyVendorOverride(api.deps.db, ownerId, t, b.merchant.id)).tenant.merchant.id).toBe(b.merchant.id);
    await api.deps.db.updateTable('users').set({ reseller_id: crypto.randomUUID() }).where('id', '=', ownerId).execute();
    await expectError(applyVendorOverride(api.deps.db, ownerId, t, b.merchant.id), 403, 'Unauthorized: Insufficient permissions');
    await api.deps.db.updateTable('users').set({ reseller_id: null }).where('id', '=', ownerId).execute();
  });
  test('location-owner: own location passes, another merchant location is a 404', async () => {
    const t = await bindTokenTenant(api.deps.db, a.merchant.id, a.merchant.tenant_database);
    await requireOwnLocation(t, a.locations[0]!.id);
    await expectError(requireOwnLocation(t, b.locations[0]!.id), 404, 'Unable to locate the location you requested.');
    await expectError(requireOwnLocation(t, 'not-a-uuid'), 404, 'Unable to locate the location you requested.');
  });
  test('a {locationId} spelled in upper case is the same location, and every answer carries its stored id', async () => {
    const owner = await api.ownerToken(a);
    const loc = a.locations[0]!.id;
    const upper = loc.toUpperCase();
    const routes = (api.app as unknown as { routes: { method: string; path: string }[] }).routes.filter(
      (r) => r.method === 'GET' && r.path.startsWith('/api/back-office/') && /\/:locationId(\/|$)/.test(r.path) && r.path.split(':').length === 2,
    );
    expect(routes.length).toBeGreaterThan(20);
    const differences: string[] = [];
    for (const r of routes) {
      const lower = await api.call('GET', r.path.replace(':locationId', loc), { token: owner });
      const given = await api.call('GET', r.path.replace(':locationId', upper), { token: owner });
      // Same status, and no answer echoes the path's spelling (timestamps aside, the same body).
      if (given.status !== lower.status || given.text.includes(upper)) differences.push(`${r.path}: ${lower.status} / ${given.status} ${given.text.slice(0, 120)}`);
    }
    expect(differences).toEqual([]);
  });
  test('global-admin', async () => {
    await expectError(requireGlobalAdmin(api.deps.db, ownerId), 403, 'Unauthorized: Insufficient permissions');
  });
});

describe('permissions, activity, device gates, throttles', () => {
  test('permission slug scoped to granted locations', async () => {
    const access = { permissions: new Set(['VIEW_DEVICES']), locationIds: new Set([a.locations[0]!.id]), allLocations: false };
    expect(() => requirePermission(access, 'VIEW_DEVICES')).not.toThrow();
    expect(() => requirePermission(access, 'VIEW_DEVICES', a.locations[0]!.id)).not.toThrow();
    await expectError(() => requirePermission(access, 'VIEW_DEVICES', a.locations[1]!.id), 403, 'Unauthorized: Insufficient permissions');
    await expectError(() => requirePermission(access, 'EDIT_DEVICES'), 403, 'Unauthorized: Insufficient permissions');
  });
  test('check-user-activity writes last_active_at at most once a minute', async () => {
    await api.deps.redis.del(`user-activity:${ownerId}`);
    const t1 = new Date('2026-11-21T10:00:00Z');
    await recordUserActivity(api.deps.db, api.deps.redis, ownerId, t1);
    await recordUserActivity(api.deps.db, api.deps.redis, ownerId, new Date('2026-11-21T10:00:30Z'));
    const u = await api.deps.db.selectFrom('users').select('last_active_at').where('id', '=', ownerId).executeTakeFirstOrThrow();
    expect(u.last_active_at!.toISOString()).toBe(t1.toISOString());
  });
  test('subscription gate: kiosk and kds need one, pos never', async () => {
    const t = await bindTokenTenant(api.deps.db, a.merchant.id, a.merchant.tenant_database);
    const now = new Date();
    const kiosk = await loadDevice(t, a.devices.find((d) => d.type === 'kiosk')!.id);
    expect(() => requireSubscription(kiosk, now)).not.toThrow();
    await expectError(() => requireSubscription({ ...kiosk, subscription_active_until: new Date(now.getTime() - 1000) }, now), 402, 'An active subscription is required for this device.');
    const pos = await loadDevice(t, a.devices[0]!.id);
    expect(() => requireSubscription(pos, now)).not.toThrow();
  });
  test('liveness records last_seen_at', async () => {
    const t = await bindTokenTenant(api.deps.db, a.merchant.id, a.merchant.tenant_database);
    const d = await loadDevice(t, a.devices[1]!.id);
    await api.deps.redis.del(`device-seen:${d.id}`);
    const now = new Date('2026-11-21T11:00:00Z');
    await touchDevice(t, api.deps.redis, d, now);
    const row = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('devices').select('last_seen_at').where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.last_seen_at!.toISOString()).toBe(now.toISOString());
  });
  test('throttles count in Redis and are off in local', async () => {
    const subject = crypto.randomUUID();
    const rule = THROTTLES.loginIdp;
    for (let i = 0; i < rule.limit; i++) await throttle(api.deps.redis, 'test', [[rule, subject]]);
    await expectError(throttle(api.deps.redis, 'test', [[rule, subject]]), 429, 'Too Many Attempts.');
    await throttle(api.deps.redis, 'local', [[rule, subject]]);
  });
});

// Spec 1 section 7: 403 `Unauthorized: Insufficient permissions` when the "role lacks the permission".
// The route permission gates run as `transform` hooks, after `secured(...)` and before the schema
// validation of params, query and body: a caller lacking the permission is refused whatever it sent,
// never told with a 422 which fields the route takes.
describe('permission gates run before validation', () => {
  const FORBIDDEN = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
  type Hook = { fn: unknown; subType?: string };
  const routesOf = () => (api.app as unknown as { routes: { method: string; path: string; hooks: { transform?: Hook[]; beforeHandle?: Hook[] } }[] }).routes;
  const gateIndex = (hooks: Hook[] | undefined) => (hooks ?? []).findIndex((h) => permissionGateOf(h.fn) !== undefined);

  test('every gated route checks its permission at the transform stage, after the caller is resolved', () => {
    const gated = routesOf().filter((r) => gateIndex(r.hooks.transform) >= 0 || gateIndex(r.hooks.beforeHandle) >= 0);
    expect(gated.length).toBeGreaterThan(150);
    const misplaced = gated.filter((r) => gateIndex(r.hooks.beforeHandle) >= 0).map((r) => `${r.method} ${r.path}`);
    expect(misplaced).toEqual([]);
    const beforeCaller = gated
      .filter((r) => {
        const derive = r.hooks.transform!.findIndex((h) => h.subType === 'derive');
        return derive < 0 || derive > gateIndex(r.hooks.transform);
      })
      .map((r) => `${r.method} ${r.path}`);
    expect(beforeCaller).toEqual([]);
  });

  test('a member holding no permission gets 403 on every gated route, whatever the body and query', async () => {
    const nobody = await makeMember(api, a, [], { allLocations: true });
    const failures: string[] = [];
    let calls = 0;
    for (const r of routesOf()) {
      if (gateIndex(r.hooks.transform) < 0 && gateIndex(r.hooks.beforeHandle) < 0) continue;
      // `{locationId}` is one of the caller's locations (location-owner passes), `{provider}` a configured
      // register-d vendor (an unknown one is a 404 first, like another merchant's location); any other id a fresh UUID.
      const vendor = registerDVendors(api.deps.config.REGISTER_D_VENDORS)[0]!;
      const path = r.path.replace(/:(\w+)\??/g, (_, name: string) => (name === 'locationId' ? a.locations[0]!.id : name === 'provider' ? vendor : crypto.randomUUID()));
      const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) ? {} : undefined;
      const res = await api.call(r.method, path, { token: nobody.token, body });
      calls++;
      if (res.status !== 403 || res.body?.message !== FORBIDDEN.body.message) failures.push(`${r.method} ${r.path}: ${res.status} ${res.text.slice(0, 120)}`);
    }
    expect(calls).toBeGreaterThan(150);
    expect(failures).toEqual([]);
  }, 120_000);

  test('the refusal does not depend on the body: the same 403 for a valid body and for none', async () => {
    const owner = await api.ownerToken(a);
    const nobody = (await makeMember(api, a, [], { allLocations: true })).token;
    const customer = (await api.call('POST', '/api/back-office/customers', { token: owner, body: { name: 'Gate' } })).body.data.id as string;
    const cases: [string, string, unknown][] = [
      ['POST', '/offers', { name: 'X', rule: { kind: 'percentage', percent: 10 }, item_ids: [] }],
      ['POST', `/customers/${customer}/notes`, { note: 'hi' }],
      ['POST', `/loyalty/${a.locations[0]!.id}`, { active: true, points_per_euro: 1 }],
      ['POST', '/settings/team/roles', { name: 'R', permissions: [] }],
    ];
    for (const [method, path, valid] of cases) {
      for (const body of [valid, {}, { unknown_field: 'x' }]) {
        const r = await api.call(method, `/api/back-office${path}`, { token: nobody, body });
        expect([method, path, r.status, r.body]).toEqual([method, path, 403, FORBIDDEN.body]);
      }
    }
    // A required query left out: still the 403.
    const t = await api.call('GET', '/api/back-office/settings/translations', { token: nobody });
    expect([t.status, t.body]).toEqual([403, FORBIDDEN.body]);
    // Unchanged: no token is 401 before anything; the owner with a bad body gets the 422; another
    // merchant's location is 404 (location-owner before the permission).
    expect(await api.call('POST', '/api/back-office/offers', { body: {} })).toMatchObject({ status: 401 });
    expect(await api.call('POST', '/api/back-office/offers', { token: owner, body: {} })).toMatchObject({ status: 422 });
    expect(await api.call('POST', `/api/back-office/loyalty/${b.locations[0]!.id}`, { token: nobody, body: {} })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
  });
});
