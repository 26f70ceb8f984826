import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { loginToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let owner: string;

const octet = () => Math.floor(Math.random() * 250) + 1;
const randomIp = () => `172.${octet()}.${octet()}.${octet()}`;
const activate = (code: string, ip = randomIp()) => api.call('POST', '/api/device-auth/activate', { body: { activation_code: code }, ip });
const tdb = () => bindTenant(api.deps.db, a.merchant.tenant_database);

/** A new device of `type` at location 0, created through the back office; its id and activation code. */
async function newDevice(type: 'pos' | 'kiosk' | 'kds' | 'printer', name = `Test ${type}`): Promise<{ id: string; code: string }> {
  const r = await api.call('POST', '/api/back-office/devices', { token: owner, body: { name, type, location_id: a.locations[0]!.id } });
  if (r.status !== 201) throw new Error(r.text);
  if (type === 'kiosk' || type === 'kds') {
    await tdb().updateTable('devices').set({ subscription_active_until: new Date(Date.now() + 86_400_000) }).where('id', '=', r.body.data.id).execute();
  }
  return { id: r.body.data.id, code: r.body.data.activation_code };
}

async function tokenFor(type: 'pos' | 'kiosk' | 'kds'): Promise<{ id: string; token: string }> {
  const d = await newDevice(type);
  const r = await activate(d.code);
  if (r.status !== 200) throw new Error(r.text);
  return { id: d.id, token: r.body.token };
}

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('devauth');
  owner = await loginToken(api, a.backoffice.email, a.backoffice.password);
});
afterAll(() => api.close());

describe('POST /device-auth/activate', () => {
  test('answers exactly {token, device_details}; the token carries the device claims', async () => {
    const seeded = a.devices[0]!;
    const r = await activate(seeded.activation_code);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['device_details', 'token']);
    expect(r.body.device_details).toEqual({ id: seeded.id, location_id: seeded.location_id, merchant_slug: a.merchant.slug });
    const claims = await api.deps.tokens.verify(r.body.token);
    expect(claims).toMatchObject({ type: 'pos', sub: seeded.id, merchant_id: a.merchant.id, tenant_database: a.merchant.tenant_database, ver: 1 });
    const row = await tdb().selectFrom('devices').select('activated_at').where('id', '=', seeded.id).executeTakeFirstOrThrow();
    expect(row.activated_at).toBeInstanceOf(Date);
    const reg = await api.deps.db.selectFrom('device_registry').select(['token_version', 'activation_code_used_at']).where('id', '=', seeded.id).executeTakeFirstOrThrow();
    expect(reg.token_version).toBe(1);
    expect(reg.activation_code_used_at).toBeInstanceOf(Date);
  });

  test('a used code is 422 already used; an unknown one 422 invalid; missing is 422 required', async () => {
    const d = await newDevice('kiosk');
    expect((await activate(d.code)).status).toBe(200);
    expect(await activate(d.code)).toMatchObject({ status: 422, body: { message: 'The activation code has already been used.', errors: { activation_code: ['The activation code has already been used.'] } } });
    expect(await activate('ZZZZZZZZ')).toMatchObject({ status: 422, body: { errors: { activation_code: ['The selected activation code is invalid.'] } } });
    const missing = await api.call('POST', '/api/device-auth/activate', { body: {}, ip: randomIp() });
    expect(missing).toMatchObject({ status: 422, body: { errors: { activation_code: ['The activation code field is required.'] } } });
  });

  test('codes match case-insensitively and with surrounding spaces', async () => {
    const d = await newDevice('kds');
    expect((await activate(`  ${d.code.toLowerCase()} `)).status).toBe(200);
  });

  test('a printer code cannot activate here (422 invalid)', async () => {
    const p = await newDevice('printer');
    expect(await activate(p.code)).toMatchObject({ status: 422, body: { errors: { activation_code: ['The selected activation code is invalid.'] } } });
    const reg = await api.deps.db.selectFrom('device_registry').select(['activation_code_used_at', 'token_version']).where('id', '=', p.id).executeTakeFirstOrThrow();
    expect(reg).toEqual({ activation_code_used_at: null, token_version: 0 });
  });

  test('two concurrent activations of one code: exactly one token', async () => {
    const d = await newDevice('pos');
    const results = await Promise.all(Array.from({ length: 5 }, () => activate(d.code)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r).toMatchObject({ status: 422, body: { errors: { activation_code: ['The activation code has already been used.'] } } });
    }
    expect((await api.call('GET', '/api/device-auth/user', { token: ok[0]!.body.token, deviceKey: true })).status).toBe(200);
    const reg = await api.deps.db.selectFrom('device_registry').select('token_version').where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(reg.token_version).toBe(1);
  });

  test('re-activation with a new code kills the older token', async () => {
    const d = await newDevice('pos');
    const first = (await activate(d.code)).body.token as string;
    const fresh = await api.call('POST', `/api/back-office/devices/${d.id}/new-activation-code`, { token: owner });
    // Issuing a new code alone does not log the device out.
    expect((await api.call('GET', '/api/device-auth/user', { token: first, deviceKey: true })).status).toBe(200);
    const second = (await activate(fresh.body.data.activation_code)).body.token as string;
    expect(await api.call('GET', '/api/device-auth/user', { token: first, deviceKey: true })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    expect((await api.call('GET', '/api/device-auth/user', { token: second, deviceKey: true })).status).toBe(200);
  });

  test('throttled per client address (429 after the limit)', async () => {
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await activate('NOPENOPE', ip)).status);
    expect(statuses.slice(0, 10).every((s) => s === 422)).toBe(true);
    expect(statuses[10]).toBe(429);
    // Another address is not affected.
    expect((await activate('NOPENOPE')).status).toBe(422);
  });
});

describe('GET /device-auth/user', () => {
  test('device info for kiosk, kds and pos tokens', async () => {
    for (const type of ['kiosk', 'kds', 'pos'] as const) {
      const { id, token } = await tokenFor(type);
      const r = await api.call('GET', '/api/device-auth/user', { token, deviceKey: true });
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual({
        id,
        name: `Test ${type}`,
        type,
        location: { id: a.locations[0]!.id, name: a.locations[0]!.name, timezone: 'Europe/Brussels' },
        merchant: { id: a.merchant.id, slug: a.merchant.slug, name: expect.any(String) },
        profile: null,
      });
    }
  });

  test('includes the bound profile with its settings', async () => {
    const { id, token } = await tokenFor('kiosk');
    const p = await api.call('POST', '/api/back-office/device-profiles', { token: owner, body: { name: 'Kiosk look', type: 'kiosk', settings: { theme: 'light' } } });
    await api.call('POST', `/api/back-office/devices/${id}/profile`, { token: owner, body: { device_profile_id: p.body.data.id } });
    const r = await api.call('GET', '/api/device-auth/user', { token, deviceKey: true });
    expect(r.body.data.profile).toEqual({ id: p.body.data.id, name: 'Kiosk look', type: 'kiosk', settings: { theme: 'light' } });
  });

  test('needs the device key, a device token, and a bearer', async () => {
    const { token } = await tokenFor('pos');
    expect(await api.call('GET', '/api/device-auth/user', { token })).toMatchObject({ status: 401, body: { message: 'Invalid API key' } });
    expect(await api.call('GET', '/api/device-auth/user', { token, headers: { 'x-client-api-key': 'wrong-key-0123456789' } })).toMatchObject({ status: 401 });
    expect(await api.call('GET', '/api/device-auth/user', { deviceKey: true })).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
    expect(await api.call('GET', '/api/device-auth/user', { token: owner, deviceKey: true })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
  });

  test('a kiosk or kds without an active subscription gets 402; pos is never gated', async () => {
    const kiosk = await tokenFor('kiosk');
    const kds = await tokenFor('kds');
    const pos = await tokenFor('pos');
    const past = new Date(Date.now() - 60_000);
    await tdb().updateTable('devices').set({ subscription_active_until: past }).where('id', 'in', [kiosk.id, kds.id, pos.id]).execute();
    for (const t of [kiosk, kds]) {
      expect((await api.call('GET', '/api/device-auth/user', { token: t.token, deviceKey: true })).status).toBe(402);
      expect((await api.call('POST', '/api/device-auth/heartbeat', { token: t.token, deviceKey: true })).status).toBe(402);
    }
    expect((await api.call('GET', '/api/device-auth/user', { token: pos.token, deviceKey: true })).status).toBe(200);
    await tdb().updateTable('devices').set({ subscription_active_until: null }).where('id', '=', kiosk.id).execute();
    expect((await api.call('GET', '/api/device-auth/user', { token: kiosk.token, deviceKey: true })).status).toBe(402);
    // Logout is `auth` only: an unsubscribed kiosk can still sign out.
    expect(await api.call('POST', '/api/device-auth/logout', { token: kiosk.token, deviceKey: true })).toMatchObject({ status: 200, body: { status: 'success' } });
  });
});

describe('POST /device-auth/heartbeat and /network-info', () => {
  test('heartbeat updates last_seen_at on every call and answers the server time', async () => {
    const { id, token } = await tokenFor('kds');
    const before = new Date();
    const r = await api.call('POST', '/api/device-auth/heartbeat', { token, deviceKey: true });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'success', server_time: expect.any(String) });
    const first = (await tdb().selectFrom('devices').select('last_seen_at').where('id', '=', id).executeTakeFirstOrThrow()).last_seen_at!;
    expect(first.getTime()).toBeGreaterThanOrEqual(before.getTime() - 5);
    await Bun.sleep(15);
    await api.call('POST', '/api/device-auth/heartbeat', { token, deviceKey: true });
    const second = (await tdb().selectFrom('devices').select('last_seen_at').where('id', '=', id).executeTakeFirstOrThrow()).last_seen_at!;
    expect(second.getTime()).toBeGreaterThan(first.getTime());
  });

  test('network-info is stored in devices.network_info and shown to the back office', async () => {
    const { id, token } = await tokenFor('kiosk');
    const body = { ip_address: '192.168.1.20', ssid: 'Shop-WiFi', mac_address: 'AA:BB:CC:DD:EE:FF', connection_type: 'wifi', app_version: '3.2.1' };
    const r = await api.call('POST', '/api/device-auth/network-info', { token, deviceKey: true, body });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'success', network_info: { ...body, reported_at: expect.any(String) } });
    const row = await tdb().selectFrom('devices').select('network_info').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.network_info).toMatchObject(body);
    const bo = await api.call('GET', `/api/back-office/devices/${id}`, { token: owner });
    expect(bo.body.data.network_info).toMatchObject({ ssid: 'Shop-WiFi' });
    expect((await api.call('POST', '/api/device-auth/network-info', { token, deviceKey: true, body: { unknown: 1 } })).status).toBe(422);
    expect((await api.call('POST', '/api/device-auth/network-info', { token, deviceKey: true, body: { ssid: 'x'.repeat(65) } })).status).toBe(422);
  });
});

describe('POST /device-auth/logout', () => {
  test('the token stops working (401 Invalid token)', async () => {
    const { token } = await tokenFor('pos');
    expect(await api.call('POST', '/api/device-auth/logout', { token, deviceKey: true })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    expect(await api.call('POST', '/api/device-auth/logout', { token, deviceKey: true })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
  });

  test('needs a device token', async () => {
    expect(await api.call('POST', '/api/device-auth/logout', { deviceKey: true })).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
    expect(await api.call('POST', '/api/device-auth/logout', { token: owner, deviceKey: true })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
  });
});

describe('admin switch without ADMIN_SWITCH_IPS', () => {
  test('nobody is allowed (403)', async () => {
    const { token } = await tokenFor('pos');
    const forbidden = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    expect(await api.call('GET', '/api/device-auth/admin-options', { token, deviceKey: true, ip: '10.1.2.3' })).toMatchObject(forbidden);
    expect(await api.call('POST', '/api/device-auth/admin-switch', { token, deviceKey: true, body: { device_id: a.devices[1]!.id } })).toMatchObject(forbidden);
  });
});
