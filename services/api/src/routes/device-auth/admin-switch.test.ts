import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { loginToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
/** Device tokens from activating the seeded devices of merchant a (pos 1, pos 2, kiosk). */
let pos1: string;
let kiosk: string;
let posB: string;

const INSIDE = '10.1.2.3';
const INSIDE_CIDR = '192.168.44.5';
const OUTSIDE = '8.8.8.8';
const forbidden = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };

const activate = async (code: string) =>
  (await api.call('POST', '/api/device-auth/activate', { body: { activation_code: code }, ip: `172.20.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` })).body
    .token as string;
const options = (token: string | undefined, ip?: string) =>
  api.call('GET', '/api/device-auth/admin-options', { ...(token ? { token } : {}), deviceKey: true, ...(ip ? { ip } : {}) });
const doSwitch = (token: string, deviceId: string, ip = INSIDE) =>
  api.call('POST', '/api/device-auth/admin-switch', { token, deviceKey: true, body: { device_id: deviceId }, ip });

beforeAll(async () => {
  api = await createTestApi({ env: { ADMIN_SWITCH_IPS: '10.1.2.3,192.168.0.0/16' } });
  a = await api.seed('switch-a');
  b = await api.seed('switch-b');
  owner = await loginToken(api, a.backoffice.email, a.backoffice.password);
  pos1 = await activate(a.devices[0]!.activation_code);
  kiosk = await activate(a.devices[2]!.activation_code);
  posB = await activate(b.devices[0]!.activation_code);
});
afterAll(() => api.close());

describe('verify.admin-switch-ip', () => {
  test('outside the allow-list (or no address) is 403, even with a valid token', async () => {
    expect(await options(pos1, OUTSIDE)).toMatchObject(forbidden);
    expect(await options(pos1)).toMatchObject(forbidden);
    expect(await options(pos1, '192.169.0.1')).toMatchObject(forbidden);
    // X-Forwarded-For from a socket that is no trusted proxy is not believed (TRUSTED_PROXIES is empty).
    const forged = await api.call('GET', '/api/device-auth/admin-options', { token: pos1, deviceKey: true, ip: OUTSIDE, headers: { 'x-forwarded-for': INSIDE } });
    expect(forged).toMatchObject(forbidden);
    expect(await doSwitch(pos1, a.devices[1]!.id, OUTSIDE)).toMatchObject(forbidden);
  });

  test('inside (single address or CIDR) still needs a valid device token and the device key', async () => {
    expect(await options(undefined, INSIDE)).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
    expect(await options('garbage', INSIDE)).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    expect(await options(owner, INSIDE)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
    const noKey = await api.call('GET', '/api/device-auth/admin-options', { token: pos1, ip: INSIDE });
    expect(noKey).toMatchObject({ status: 401, body: { message: 'Invalid API key' } });
    expect((await options(pos1, INSIDE)).status).toBe(200);
    expect((await options(pos1, INSIDE_CIDR)).status).toBe(200);
  });
});

describe('GET /device-auth/admin-options', () => {
  test('the merchant\'s other live devices of the same type, with their locations', async () => {
    const r = await options(pos1, INSIDE);
    const loc = a.locations[0]!;
    expect(r.body).toEqual({ data: [{ id: a.devices[1]!.id, name: 'POS 2', type: 'pos', location: { id: loc.id, name: loc.name, timezone: loc.timezone } }] });
    const k = await options(kiosk, INSIDE);
    expect(k.body.data).toEqual([]); // the only kiosk is the caller
    // A deleted device is no target.
    const extra = await api.call('POST', '/api/back-office/devices', { token: owner, body: { name: 'POS extra', type: 'pos', location_id: a.locations[1]!.id } });
    expect((await options(pos1, INSIDE)).body.data.map((d: { id: string }) => d.id)).toContain(extra.body.data.id);
    await api.call('DELETE', `/api/back-office/devices/${extra.body.data.id}`, { token: owner });
    expect((await options(pos1, INSIDE)).body.data.map((d: { id: string }) => d.id)).toEqual([a.devices[1]!.id]);
  });
});

describe('POST /device-auth/admin-switch', () => {
  test('issues a token for the target (same merchant and type) and kills the target\'s older tokens', async () => {
    const target = a.devices[1]!;
    const older = await activate(target.activation_code);
    expect((await api.call('GET', '/api/device-auth/user', { token: older, deviceKey: true })).status).toBe(200);
    const r = await doSwitch(pos1, target.id);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['device_details', 'token']);
    expect(r.body.device_details).toEqual({ id: target.id, location_id: target.location_id, merchant_slug: a.merchant.slug });
    const claims = await api.deps.tokens.verify(r.body.token);
    expect(claims).toMatchObject({ type: 'pos', sub: target.id, merchant_id: a.merchant.id, tenant_database: a.merchant.tenant_database, ver: 2 });
    const me = await api.call('GET', '/api/device-auth/user', { token: r.body.token, deviceKey: true });
    expect(me.body.data.id).toBe(target.id);
    expect(await api.call('GET', '/api/device-auth/user', { token: older, deviceKey: true })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    // The caller's own token is left alone.
    expect((await api.call('GET', '/api/device-auth/user', { token: pos1, deviceKey: true })).status).toBe(200);
    const log = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('activity_logs').select('properties').where('subject_id', '=', target.id).where('action', '=', 'admin_switched').execute();
    expect(log.map((l) => l.properties)).toEqual([{ from_device_id: a.devices[0]!.id }]);
  });

  test('another type or itself is 422; another merchant\'s or unknown device is 404', async () => {
    expect(await doSwitch(pos1, a.devices[2]!.id)).toMatchObject({ status: 422, body: { errors: { device_id: ['The selected device id is invalid.'] } } });
    expect(await doSwitch(pos1, a.devices[0]!.id)).toMatchObject({ status: 422, body: { errors: { device_id: ['The selected device id is invalid.'] } } });
    const missing = { status: 404, body: { message: 'Unable to locate the device you requested.' } };
    expect(await doSwitch(pos1, b.devices[1]!.id)).toMatchObject(missing);
    expect(await doSwitch(posB, a.devices[1]!.id)).toMatchObject(missing);
    expect(await doSwitch(pos1, 'not-a-uuid')).toMatchObject({ status: 422, body: { errors: { device_id: ['The device id field must be a valid UUID.'] } } });
    expect((await api.call('POST', '/api/device-auth/admin-switch', { token: pos1, deviceKey: true, body: {}, ip: INSIDE })).status).toBe(422);
  });
});
