import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { FIRST_PARTY_POS_REQUIRED } from '@pos/core/pos/first-party';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken, loginToken } from './test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;

const randomIp = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
const activate = (code: string) => api.call('POST', '/api/device-auth/activate', { body: { activation_code: code }, ip: randomIp() });
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const loc0 = () => a.locations[0]!.id;
const loc1 = () => a.locations[1]!.id;

async function createDevice(body: Record<string, unknown>, token = owner) {
  return api.call('POST', '/api/back-office/devices', { token, body });
}

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('dev-a');
  b = await api.seed('dev-b');
  owner = await loginToken(api, a.backoffice.email, a.backoffice.password);
  ownerB = await loginToken(api, b.backoffice.email, b.backoffice.password);
});
afterAll(() => api.close());

describe('GET /back-office/devices', () => {
  test('401 without a token', async () => {
    expect(await api.call('GET', '/api/back-office/devices')).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
  });

  test('data table of the merchant\'s live devices with their location and unused activation code', async () => {
    const r = await api.call('GET', '/api/back-office/devices?per_page=100', { token: owner });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, per_page: 100 });
    const seeded = r.body.data.filter((d: { id: string }) => a.devices.some((s) => s.id === d.id));
    expect(seeded).toHaveLength(4);
    const pos = r.body.data.find((d: { id: string }) => d.id === a.devices[0]!.id);
    expect(pos).toMatchObject({
      type: 'pos',
      location_id: loc0(),
      location: { id: loc0(), name: a.locations[0]!.name },
      device_profile_id: null,
      device_profile: null,
      activated_at: null,
      network_info: {},
      created_at: expect.any(String),
    });
    // The seed's codes are unused, so they are shown.
    expect(pos.activation_code).toBe(a.devices[0]!.activation_code);
    expect(r.body.data.some((d: { id: string }) => b.devices.some((s) => s.id === d.id))).toBe(false);
  });

  test('filters: type, location_id, search, paging', async () => {
    const kiosks = await api.call('GET', '/api/back-office/devices?type=kiosk', { token: owner });
    expect(kiosks.body.data.every((d: { type: string }) => d.type === 'kiosk')).toBe(true);
    expect(kiosks.body.data.length).toBeGreaterThanOrEqual(1);
    const elsewhere = await api.call('GET', `/api/back-office/devices?location_id=${b.locations[0]!.id}`, { token: owner });
    expect(elsewhere.body).toMatchObject({ data: [], total: 0 });
    const page = await api.call('GET', '/api/back-office/devices?per_page=2&page=1', { token: owner });
    expect(page.body.data).toHaveLength(2);
    expect(page.body.total).toBeGreaterThanOrEqual(4);
    const search = await api.call('GET', '/api/back-office/devices?search=KIOSK', { token: owner });
    expect(search.body.data.map((d: { type: string }) => d.type)).toContain('kiosk');
    expect((await api.call('GET', '/api/back-office/devices?type=toaster', { token: owner })).status).toBe(422);
    expect((await api.call('GET', '/api/back-office/devices?location_id=nope', { token: owner })).status).toBe(422);
  });
});

describe('POST /back-office/devices', () => {
  test('creates the device and its registry row with a fresh activation code; logs the activity', async () => {
    const r = await createDevice({ name: 'Front kiosk', type: 'kiosk', location_id: loc0() });
    expect(r.status).toBe(201);
    // Read before toMatchObject: bun replaces matched values with the asymmetric matchers.
    const code = r.body.data.activation_code as string;
    expect(r.body.data).toMatchObject({ name: 'Front kiosk', type: 'kiosk', location_id: loc0(), activation_code: expect.stringMatching(/^[A-Z2-9]{8}$/), activated_at: null });
    const reg = await api.deps.db.selectFrom('device_registry').selectAll().where('id', '=', r.body.data.id).executeTakeFirstOrThrow();
    expect(reg).toMatchObject({ merchant_id: a.merchant.id, type: 'kiosk', activation_code: code, activation_code_used_at: null, token_version: 0 });
    const log = await tdbOf(a).selectFrom('activity_logs').selectAll().where('subject_id', '=', r.body.data.id).execute();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ action: 'created', subject: 'device', properties: { name: 'Front kiosk', type: 'kiosk' } });
    // The new code activates the device.
    const act = await activate(code);
    expect(act.status).toBe(200);
    expect(act.body.device_details).toEqual({ id: r.body.data.id, location_id: loc0(), merchant_slug: a.merchant.slug });
  });

  test('pos and kds are allowed for a first-party merchant; printers too', async () => {
    for (const type of ['pos', 'kds', 'printer']) {
      const r = await createDevice({ name: `New ${type}`, type, location_id: loc1() });
      expect(r.status).toBe(201);
      expect(r.body.data.type).toBe(type);
    }
  });

  test('location: unknown or another merchant\'s is a 404; a non-UUID is 422', async () => {
    const missing = { status: 404, body: { message: 'Unable to locate the location you requested.' } };
    expect(await createDevice({ name: 'X', type: 'kiosk', location_id: crypto.randomUUID() })).toMatchObject(missing);
    expect(await createDevice({ name: 'X', type: 'kiosk', location_id: 'not-a-uuid' })).toMatchObject({ status: 422, body: { errors: { location_id: ['The location id field must be a valid UUID.'] } } });
    expect(await createDevice({ name: 'X', type: 'kiosk', location_id: b.locations[0]!.id })).toMatchObject(missing);
  });

  test('validation failures are 422 with field errors', async () => {
    const noName = await createDevice({ type: 'kiosk', location_id: loc0() });
    expect(noName.status).toBe(422);
    expect(Object.keys(noName.body.errors)).toContain('name');
    const badType = await createDevice({ name: 'T', type: 'toaster', location_id: loc0() });
    expect(badType.status).toBe(422);
    expect(badType.body.errors.type).toEqual(['The selected type is invalid.']);
    expect((await createDevice({ name: 'T', type: 'kiosk', location_id: loc0(), extra: 1 })).status).toBe(422);
    expect((await createDevice({ name: '   ', type: 'kiosk', location_id: loc0() })).status).toBe(422);
  });

  test('a profile of another type is refused (422); an unknown one is a 404', async () => {
    const prof = await api.call('POST', '/api/back-office/device-profiles', { token: owner, body: { name: 'Kiosk defaults', type: 'kiosk' } });
    const wrong = await createDevice({ name: 'P', type: 'pos', location_id: loc0(), device_profile_id: prof.body.data.id });
    expect(wrong).toMatchObject({ status: 422, body: { errors: { device_profile_id: ['The selected device profile is for another type of device.'] } } });
    expect(await createDevice({ name: 'P', type: 'pos', location_id: loc0(), device_profile_id: crypto.randomUUID() })).toMatchObject({
      status: 404,
      body: { message: 'Unable to locate the device profile you requested.' },
    });
    const ok = await createDevice({ name: 'K', type: 'kiosk', location_id: loc0(), device_profile_id: prof.body.data.id });
    expect(ok.body.data.device_profile).toEqual({ id: prof.body.data.id, name: 'Kiosk defaults', type: 'kiosk' });
  });
});

describe('first-party gating (spec 2 gating rule 5)', () => {
  test('pos and kds answer 403 for a merchant without the marker; kiosk and printer still work', async () => {
    await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', b.merchant.id).execute();
    try {
      for (const type of ['pos', 'kds']) {
        expect(await createDevice({ name: 'Till', type, location_id: b.locations[0]!.id }, ownerB)).toMatchObject({ status: 403, body: { message: FIRST_PARTY_POS_REQUIRED } });
      }
      expect((await createDevice({ name: 'Kiosk', type: 'kiosk', location_id: b.locations[0]!.id }, ownerB)).status).toBe(201);
      expect((await createDevice({ name: 'Printer', type: 'printer', location_id: b.locations[0]!.id }, ownerB)).status).toBe(201);
      const form = await api.call('GET', '/api/back-office/devices/new', { token: ownerB });
      expect(form.body.data.type_options.map((o: { value: string }) => o.value)).toEqual(['kiosk', 'printer']);
      const count = await tdbOf(b).selectFrom('devices').select((eb) => eb.fn.countAll<number>().as('n')).where('type', 'in', ['pos', 'kds']).executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(3); // only the seeded ones
    } finally {
      await api.deps.db.updateTable('merchants').set({ pos_provider: 'firstparty' }).where('id', '=', b.merchant.id).execute();
    }
  });
});

describe('GET /back-office/devices/new and /options', () => {
  test('form data: granted locations, creatable types, profile options', async () => {
    const r = await api.call('GET', '/api/back-office/devices/new', { token: owner });
    expect(r.status).toBe(200);
    expect(r.body.data.location_options.map((o: { value: string }) => o.value).sort()).toEqual(a.locations.map((l) => l.id).sort());
    expect(r.body.data.type_options).toEqual([
      { value: 'pos', label: 'Register (POS)' },
      { value: 'kiosk', label: 'Kiosk' },
      { value: 'kds', label: 'Kitchen display' },
      { value: 'printer', label: 'Printer' },
    ]);
    expect(Array.isArray(r.body.data.device_profile_options)).toBe(true);
  });

  test('options: {value, label, type, location_id} of live devices, filterable', async () => {
    const r = await api.call('GET', '/api/back-office/devices/options', { token: owner });
    expect(r.status).toBe(200);
    const first = r.body.data.find((o: { value: string }) => o.value === a.devices[2]!.id);
    expect(first).toEqual({ value: a.devices[2]!.id, label: 'KIOSK 3', type: 'kiosk', location_id: loc0() });
    const pos = await api.call('GET', '/api/back-office/devices/options?type=pos', { token: owner });
    expect(pos.body.data.every((o: { type: string }) => o.type === 'pos')).toBe(true);
  });
});

describe('GET / PUT / DELETE /back-office/devices/{id}', () => {
  test('show; a non-UUID id and another merchant\'s device are a 404', async () => {
    const r = await api.call('GET', `/api/back-office/devices/${a.devices[1]!.id}`, { token: owner });
    expect(r).toMatchObject({ status: 200, body: { data: { id: a.devices[1]!.id, type: 'pos' } } });
    const missing = { status: 404, body: { message: 'Unable to locate the device you requested.' } };
    expect(await api.call('GET', '/api/back-office/devices/123', { token: owner })).toMatchObject(missing);
    expect(await api.call('GET', `/api/back-office/devices/${b.devices[0]!.id}`, { token: owner })).toMatchObject(missing);
    expect(await api.call('PUT', `/api/back-office/devices/${b.devices[0]!.id}`, { token: owner, body: { name: 'Mine' } })).toMatchObject(missing);
    expect(await api.call('DELETE', `/api/back-office/devices/${b.devices[0]!.id}`, { token: owner })).toMatchObject(missing);
    expect(await api.call('POST', `/api/back-office/devices/${b.devices[0]!.id}/new-activation-code`, { token: owner })).toMatchObject(missing);
    expect(await api.call('POST', `/api/back-office/devices/${b.devices[0]!.id}/send-activation-code`, { token: owner, body: { email: 'x@example.com' } })).toMatchObject(missing);
    expect(await api.call('POST', `/api/back-office/devices/${b.devices[0]!.id}/profile`, { token: owner, body: { device_profile_id: null } })).toMatchObject(missing);
    // The other merchant's device is untouched.
    const still = await tdbOf(b).selectFrom('devices').select(['name', 'deleted_at']).where('id', '=', b.devices[0]!.id).executeTakeFirstOrThrow();
    expect(still).toEqual({ name: 'POS 1', deleted_at: null });
  });

  test('update: rename and move; the type cannot be changed', async () => {
    const d = (await createDevice({ name: 'Movable', type: 'kiosk', location_id: loc0() })).body.data;
    const r = await api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { name: 'Moved kiosk', location_id: loc1() } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: 'Moved kiosk', location_id: loc1(), location: { id: loc1() } });
    expect((await api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { type: 'pos' } })).status).toBe(422);
    expect(await api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { location_id: b.locations[0]!.id } })).toMatchObject({ status: 404 });
    const logs = await tdbOf(a).selectFrom('activity_logs').select('action').where('subject_id', '=', d.id).orderBy('created_at').execute();
    expect(logs.map((l) => l.action)).toEqual(['created', 'updated']);
  });

  test('delete: soft delete, the token stops working and the code is cleared', async () => {
    const d = (await createDevice({ name: 'Doomed', type: 'pos', location_id: loc0() })).body.data;
    const token = (await activate(d.activation_code)).body.token as string;
    expect((await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).status).toBe(200);
    expect(await api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await api.call('GET', '/api/device-auth/user', { token, deviceKey: true })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    expect((await api.call('GET', `/api/back-office/devices/${d.id}`, { token: owner })).status).toBe(404);
    expect((await api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner })).status).toBe(404);
    const row = await tdbOf(a).selectFrom('devices').select('deleted_at').where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeInstanceOf(Date);
    const reg = await api.deps.db.selectFrom('device_registry').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(reg).toMatchObject({ activation_code: null, token_version: 2 });
    const list = await api.call('GET', '/api/back-office/devices?per_page=100', { token: owner });
    expect(list.body.data.some((x: { id: string }) => x.id === d.id)).toBe(false);
    const log = await tdbOf(a).selectFrom('activity_logs').select('action').where('subject_id', '=', d.id).where('action', '=', 'deleted').execute();
    expect(log).toHaveLength(1);
  });

  test('delete of a never-activated device: its code can no longer activate', async () => {
    const d = (await createDevice({ name: 'Unused', type: 'kiosk', location_id: loc0() })).body.data;
    await api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner });
    expect(await activate(d.activation_code)).toMatchObject({ status: 422, body: { errors: { activation_code: ['The selected activation code is invalid.'] } } });
  });
});

describe('activation codes', () => {
  test('new-activation-code replaces the code; the old one answers 422 invalid', async () => {
    const d = (await createDevice({ name: 'Recode', type: 'kiosk', location_id: loc0() })).body.data;
    const r = await api.call('POST', `/api/back-office/devices/${d.id}/new-activation-code`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body.data.activation_code).toMatch(/^[A-Z2-9]{8}$/);
    expect(r.body.data.activation_code).not.toBe(d.activation_code);
    expect(await activate(d.activation_code)).toMatchObject({ status: 422, body: { message: 'The selected activation code is invalid.', errors: { activation_code: ['The selected activation code is invalid.'] } } });
    expect((await activate(r.body.data.activation_code)).status).toBe(200);
    // Once used, the view shows no code and a regenerated code re-enables activation.
    expect((await api.call('GET', `/api/back-office/devices/${d.id}`, { token: owner })).body.data).toMatchObject({ activation_code: null, activated_at: expect.any(String) });
    const again = await api.call('POST', `/api/back-office/devices/${d.id}/new-activation-code`, { token: owner });
    expect((await activate(again.body.data.activation_code)).status).toBe(200);
    expect(await api.call('POST', '/api/back-office/devices/nope/new-activation-code', { token: owner })).toMatchObject({ status: 404 });
  });

  test('send-activation-code writes exactly one outbox row with the notification payload', async () => {
    const d = (await createDevice({ name: 'Mailed kiosk', type: 'kiosk', location_id: loc0() })).body.data;
    const email = `ops-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const r = await api.call('POST', `/api/back-office/devices/${d.id}/send-activation-code`, { token: owner, body: { email } });
    expect(r).toMatchObject({ status: 200, body: { status: 'success' } });
    const rows = await api.deps.db.selectFrom('outbox').selectAll().where(sql<string>`payload->>'to'`, '=', email).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      queue: 'notifications',
      job: 'notification.send',
      payload: { channel: 'email', to: email, template: 'device-activation-code', data: { code: d.activation_code, device_name: 'Mailed kiosk' } },
    });
    const log = await tdbOf(a).selectFrom('activity_logs').selectAll().where('subject_id', '=', d.id).where('action', '=', 'sent_activation_code').execute();
    expect(log).toHaveLength(1);

    const phone = `+32 470 ${Math.floor(100000 + Math.random() * 899999)}`;
    expect((await api.call('POST', `/api/back-office/devices/${d.id}/send-activation-code`, { token: owner, body: { phone } })).status).toBe(200);
    const e164 = phone.replace(/ /g, '');
    const sms = await api.deps.db.selectFrom('outbox').select('payload').where(sql<string>`payload->>'to'`, '=', e164).execute();
    expect(sms.map((s) => s.payload)).toEqual([{ channel: 'sms', to: e164, template: 'device-activation-code', data: { code: d.activation_code, device_name: 'Mailed kiosk' } }]);
  });

  test('send-activation-code refusals: neither or both channels, bad email, used code', async () => {
    const d = (await createDevice({ name: 'Refused', type: 'kiosk', location_id: loc0() })).body.data;
    const path = `/api/back-office/devices/${d.id}/send-activation-code`;
    expect(await api.call('POST', path, { token: owner, body: {} })).toMatchObject({ status: 422, body: { errors: { email: ['The email field is required when phone is not present.'] } } });
    expect((await api.call('POST', path, { token: owner, body: { email: 'a@example.com', phone: '+32470000000' } })).status).toBe(422);
    expect(await api.call('POST', path, { token: owner, body: { email: 'nope' } })).toMatchObject({ status: 422, body: { errors: { email: ['The email field must be a valid email address.'] } } });
    await activate(d.activation_code);
    const used = await api.call('POST', path, { token: owner, body: { email: 'late@example.com' } });
    expect(used).toMatchObject({ status: 422, body: { errors: { activation_code: ['The activation code has already been used.'] } } });
    const rows = await api.deps.db.selectFrom('outbox').select('id').where(sql<string>`payload->>'to'`, '=', 'late@example.com').execute();
    expect(rows).toHaveLength(0);
    // A used code is refused before the throttles count: sends refused that way do not use up the
    // recipient's allowance (5 per 15 minutes), so the code of a new device still reaches it.
    const inbox = `used-${crypto.randomUUID().slice(0, 8)}@example.com`;
    for (let i = 0; i < 7; i++) expect((await api.call('POST', path, { token: owner, body: { email: inbox } })).status).toBe(422);
    const fresh = (await createDevice({ name: 'Fresh', type: 'kiosk', location_id: loc0() })).body.data;
    expect((await api.call('POST', `/api/back-office/devices/${fresh.id}/send-activation-code`, { token: owner, body: { email: inbox } })).status).toBe(200);
  });
});

describe('activation codes and members without device permissions', () => {
  const forbidden = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };

  test('a member holding no device permission gets no code and the live register keeps working', async () => {
    const pos = a.devices.find((d) => d.type === 'pos')!;
    const liveToken = await api.deviceToken(a, 'pos');
    const nobody = await limitedUserToken(api, a, [], [loc0()]);
    const before = await api.deps.db.selectFrom('device_registry').select(['activation_code', 'activation_code_used_at']).where('id', '=', pos.id).executeTakeFirstOrThrow();
    expect(await api.call('POST', `/api/back-office/devices/${pos.id}/new-activation-code`, { token: nobody })).toMatchObject(forbidden);
    const email = `nobody-${crypto.randomUUID().slice(0, 8)}@example.com`;
    expect(await api.call('POST', `/api/back-office/devices/${pos.id}/send-activation-code`, { token: nobody, body: { email } })).toMatchObject(forbidden);
    // Nothing changed: the code is the same, nothing was queued, the register's token still works.
    expect(await api.deps.db.selectFrom('device_registry').select(['activation_code', 'activation_code_used_at']).where('id', '=', pos.id).executeTakeFirstOrThrow()).toEqual(before);
    expect(await api.deps.db.selectFrom('outbox').select('id').where(sql<string>`payload->>'to'`, '=', email).execute()).toHaveLength(0);
    expect((await api.call('GET', '/api/device-auth/user', { token: liveToken, deviceKey: true })).status).toBe(200);
  });

  test('VIEW_DEVICES or CREATE_DEVICES at the device\'s location is enough; elsewhere in the grant it is not', async () => {
    const d = (await createDevice({ name: 'Coded kiosk', type: 'kiosk', location_id: loc0() })).body.data;
    for (const perm of ['VIEW_DEVICES', 'CREATE_DEVICES']) {
      const t = await limitedUserToken(api, a, [perm], [loc0()]);
      const r = await api.call('POST', `/api/back-office/devices/${d.id}/new-activation-code`, { token: t });
      expect(r.status).toBe(200);
      expect(r.body.data.activation_code).toMatch(/^[A-Z2-9]{8}$/);
      expect(await api.call('POST', `/api/back-office/devices/${d.id}/send-activation-code`, { token: t, body: { email: 'perm@example.com' } })).toMatchObject({ status: 200, body: { status: 'success' } });
    }
    // Other device permissions do not reveal the code.
    const editor = await limitedUserToken(api, a, ['EDIT_DEVICES', 'DELETE_DEVICES'], [loc0()]);
    expect(await api.call('POST', `/api/back-office/devices/${d.id}/new-activation-code`, { token: editor })).toMatchObject(forbidden);
    // VIEW_DEVICES granted at location 1 only does not reach a location 0 device.
    const elsewhere = await limitedUserToken(api, a, ['VIEW_DEVICES'], [loc1()]);
    expect(await api.call('POST', `/api/back-office/devices/${d.id}/new-activation-code`, { token: elsewhere })).toMatchObject(forbidden);
    expect(await api.call('POST', `/api/back-office/devices/${d.id}/send-activation-code`, { token: elsewhere, body: { email: 'x@example.com' } })).toMatchObject(forbidden);
  });
});

describe('POST /back-office/devices/{id}/profile', () => {
  test('binds a profile of the device type, refuses another type, null unbinds', async () => {
    const kds = await api.call('POST', '/api/back-office/device-profiles', { token: owner, body: { name: 'Kitchen', type: 'kds', settings: { late_after_minutes: 20 } } });
    const kdsDevice = a.devices[3]!.id;
    const r = await api.call('POST', `/api/back-office/devices/${kdsDevice}/profile`, { token: owner, body: { device_profile_id: kds.body.data.id } });
    expect(r).toMatchObject({ status: 200, body: { data: { device_profile_id: kds.body.data.id, device_profile: { name: 'Kitchen', type: 'kds' } } } });
    const wrong = await api.call('POST', `/api/back-office/devices/${a.devices[0]!.id}/profile`, { token: owner, body: { device_profile_id: kds.body.data.id } });
    expect(wrong.status).toBe(422);
    const other = await api.call('POST', '/api/back-office/device-profiles', { token: ownerB, body: { name: 'B kitchen', type: 'kds' } });
    expect(await api.call('POST', `/api/back-office/devices/${kdsDevice}/profile`, { token: owner, body: { device_profile_id: other.body.data.id } })).toMatchObject({
      status: 404,
      body: { message: 'Unable to locate the device profile you requested.' },
    });
    const off = await api.call('POST', `/api/back-office/devices/${kdsDevice}/profile`, { token: owner, body: { device_profile_id: null } });
    expect(off.body.data).toMatchObject({ device_profile_id: null, device_profile: null });
    expect((await api.call('POST', `/api/back-office/devices/${kdsDevice}/profile`, { token: owner, body: {} })).status).toBe(422);
  });
});

describe('permissions and location grant', () => {
  test('a role without the slug gets 403 on every gated route; ungated routes still answer', async () => {
    const token = await limitedUserToken(api, a, [], [loc0()]);
    const forbidden = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    const id = a.devices[0]!.id;
    expect(await api.call('GET', '/api/back-office/devices', { token })).toMatchObject(forbidden);
    expect(await createDevice({ name: 'X', type: 'kiosk', location_id: loc0() }, token)).toMatchObject(forbidden);
    expect(await api.call('GET', '/api/back-office/devices/new', { token })).toMatchObject(forbidden);
    expect(await api.call('GET', `/api/back-office/devices/${id}`, { token })).toMatchObject(forbidden);
    expect(await api.call('PUT', `/api/back-office/devices/${id}`, { token, body: { name: 'X' } })).toMatchObject(forbidden);
    expect(await api.call('DELETE', `/api/back-office/devices/${id}`, { token })).toMatchObject(forbidden);
    expect(await api.call('POST', `/api/back-office/devices/${id}/profile`, { token, body: { device_profile_id: null } })).toMatchObject(forbidden);
    // No permission of its own (spec): options. The activation code routes need VIEW_DEVICES or CREATE_DEVICES (a code takes the device over).
    expect((await api.call('GET', '/api/back-office/devices/options', { token })).status).toBe(200);
    expect(await api.call('POST', `/api/back-office/devices/${a.devices[2]!.id}/new-activation-code`, { token })).toMatchObject(forbidden);
    expect(await api.call('POST', `/api/back-office/devices/${a.devices[2]!.id}/send-activation-code`, { token, body: { email: 'grant@example.com' } })).toMatchObject(forbidden);
    // Nothing was changed by the refused writes.
    expect((await tdbOf(a).selectFrom('devices').select(['name', 'deleted_at']).where('id', '=', id).executeTakeFirstOrThrow())).toEqual({ name: 'POS 1', deleted_at: null });
  });

  test('list, show and options are limited to the granted locations', async () => {
    const atLoc1 = (await createDevice({ name: 'Station kiosk', type: 'kiosk', location_id: loc1() })).body.data;
    const token = await limitedUserToken(api, a, ['VIEW_DEVICES', 'EDIT_DEVICES', 'DELETE_DEVICES', 'CREATE_DEVICES'], [loc1()]);
    const list = await api.call('GET', '/api/back-office/devices?per_page=100', { token });
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThanOrEqual(1);
    expect(list.body.data.every((d: { location_id: string }) => d.location_id === loc1())).toBe(true);
    expect(list.body.data.some((d: { id: string }) => d.id === atLoc1.id)).toBe(true);
    expect((await api.call('GET', `/api/back-office/devices?location_id=${loc0()}`, { token })).body).toMatchObject({ data: [], total: 0 });
    const opts = await api.call('GET', '/api/back-office/devices/options', { token });
    expect(opts.body.data.every((o: { location_id: string }) => o.location_id === loc1())).toBe(true);
    const form = await api.call('GET', '/api/back-office/devices/new', { token });
    expect(form.body.data.location_options).toEqual([{ value: loc1(), label: a.locations[1]!.name }]);

    const forbidden = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    const outside = a.devices[0]!.id; // at location 0
    expect(await api.call('GET', `/api/back-office/devices/${outside}`, { token })).toMatchObject(forbidden);
    expect(await api.call('PUT', `/api/back-office/devices/${outside}`, { token, body: { name: 'X' } })).toMatchObject(forbidden);
    expect(await api.call('DELETE', `/api/back-office/devices/${outside}`, { token })).toMatchObject(forbidden);
    expect(await api.call('POST', `/api/back-office/devices/${outside}/new-activation-code`, { token })).toMatchObject(forbidden);
    expect(await createDevice({ name: 'X', type: 'kiosk', location_id: loc0() }, token)).toMatchObject(forbidden);
    expect(await api.call('PUT', `/api/back-office/devices/${atLoc1.id}`, { token, body: { location_id: loc0() } })).toMatchObject(forbidden);

    expect((await api.call('GET', `/api/back-office/devices/${atLoc1.id}`, { token })).status).toBe(200);
    expect((await createDevice({ name: 'Granted', type: 'kiosk', location_id: loc1() }, token)).status).toBe(201);
    expect((await api.call('PUT', `/api/back-office/devices/${atLoc1.id}`, { token, body: { name: 'Renamed' } })).body.data.name).toBe('Renamed');
  });

  test('vendor_id of another merchant is 403 for a plain owner', async () => {
    expect(await api.call('GET', `/api/back-office/devices?vendor_id=${b.merchant.id}`, { token: owner })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
  });

  test('a device token is refused on back-office routes (403 invalid user type)', async () => {
    const d = (await createDevice({ name: 'Curious', type: 'kiosk', location_id: loc0() })).body.data;
    const token = (await activate(d.activation_code)).body.token as string;
    expect(await api.call('GET', '/api/back-office/devices', { token })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
  });
});
