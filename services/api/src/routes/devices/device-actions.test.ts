import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, startCardBSimulator, startPlatformASimulator, type CardASimulator, type CardBSimulator, type PlatformASimulator } from '@pos/providers/payments';
import { DEVICE_BILLING_NOT_UPDATED } from '@pos/core/devices/device-subscription-units';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken, loginToken } from './test-helpers.ts';
import { whileWriting } from '../../testing/while-writing.ts';

/**
 * The device action routes of spec 1 "Devices and device profiles" (docs/decisions.md "Device routes"):
 * remote-control, platform-a-device-code, activate-payment / deactivate-payment, reader/label, against
 * the card-a, card-b and platform-a simulators.
 */
let api: TestApi;
let cardA: CardASimulator;
let cardB: CardBSimulator;
let platformA: PlatformASimulator;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const CREDS = { CARD_A_SECRET_KEY: 'sk_dev_actions', CARD_B_CLIENT_ID: 'dev-actions', CARD_B_CLIENT_SECRET: 'dev-actions-secret', PLATFORM_A_ACCESS_TOKEN: 'pa-dev-actions' };
const forbidden = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
const deviceMissing = { status: 404, body: { message: 'Unable to locate the device you requested.' } };
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const loc0 = () => a.locations[0]!.id;
const loc1 = () => a.locations[1]!.id;
const dev = (m: DemoSeedResult, type: 'pos' | 'kiosk' | 'kds') => m.devices.find((d) => d.type === type && d.location_id === m.locations[0]!.id)!;
const newDevice = async (type: string, location = loc0()) => (await api.call('POST', '/api/back-office/devices', { token: owner, body: { name: `Dev ${type} ${crypto.randomUUID().slice(0, 6)}`, type, location_id: location } })).body.data;

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY });
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  platformA = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN });
  api = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: cardA.url, CARD_B_BASE_URL: cardB.url, PLATFORM_A_BASE_URL: platformA.url, CARD_A_DEVICE_PRICE_ID: 'price_device' } });
  a = await api.seed('devact-a');
  b = await api.seed('devact-b');
  owner = await loginToken(api, a.backoffice.email, a.backoffice.password);
  ownerB = await loginToken(api, b.backoffice.email, b.backoffice.password);
}, 60_000);
afterAll(async () => {
  await api.close();
  await cardA.stop();
  await cardB.stop();
  await platformA.stop();
});

describe('the spec routes exist and answer for the record', () => {
  const unknown = '0190b7a4-0000-7000-8000-000000000001';
  for (const [method, path, body] of [
    ['POST', 'remote-control', { command: 'reload' }],
    ['POST', 'platform-a-device-code', undefined],
    ['POST', 'activate-payment', undefined],
    ['POST', 'deactivate-payment', undefined],
    ['PATCH', 'reader/label', { label: 'x' }],
  ] as const) {
    test(`${method} /devices/{id}/${path}: an unknown or another merchant's device is the model 404`, async () => {
      expect(await api.call(method, `/api/back-office/devices/${unknown}/${path}`, { token: owner, body })).toMatchObject(deviceMissing);
      // Whatever the body says: a required field left out is not checked before the device.
      expect(await api.call(method, `/api/back-office/devices/${unknown}/${path}`, { token: owner, body: {} })).toMatchObject(deviceMissing);
      expect(await api.call(method, `/api/back-office/devices/${dev(a, 'kiosk').id}/${path}`, { token: ownerB, body })).toMatchObject(deviceMissing);
      expect(await api.call(method, `/api/back-office/devices/not-a-uuid/${path}`, { token: owner, body })).toMatchObject(deviceMissing);
    });
  }

  test('a device outside the caller\'s grant is 403, as on the other device routes', async () => {
    const t = await limitedUserToken(api, a, ['VIEW_DEVICES', 'EDIT_DEVICES', 'CREATE_DEVICES'], [loc1()]);
    const kiosk = dev(a, 'kiosk').id;
    expect(await api.call('POST', `/api/back-office/devices/${kiosk}/remote-control`, { token: t, body: { command: 'reload' } })).toMatchObject(forbidden);
    expect(await api.call('POST', `/api/back-office/devices/${kiosk}/platform-a-device-code`, { token: t })).toMatchObject(forbidden);
    expect(await api.call('POST', `/api/back-office/devices/${kiosk}/activate-payment`, { token: t })).toMatchObject(forbidden);
    expect(await api.call('POST', `/api/back-office/devices/${kiosk}/deactivate-payment`, { token: t })).toMatchObject(forbidden);
    expect(await api.call('PATCH', `/api/back-office/devices/${kiosk}/reader/label`, { token: t, body: { label: 'Front' } })).toMatchObject(forbidden);
    const row = await tdbOf(a).selectFrom('devices').select('payment_enabled').where('id', '=', kiosk).executeTakeFirstOrThrow();
    expect(row.payment_enabled).toBe(true);
  });
});

describe('DELETE /devices/{id} sent five times at once', () => {
  test('one 200, one "deleted" entry and one token bump; the others the 404 a later delete gets', async () => {
    const d = await newDevice('pos');
    const version = async () => (await api.deps.db.selectFrom('device_registry').select('token_version').where('id', '=', d.id).executeTakeFirstOrThrow()).token_version;
    const before = await version();
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 404, 404, 404, 404]);
    expect(answers.find((r) => r.status === 404)).toMatchObject(deviceMissing);
    expect(await version()).toBe(before + 1);
    const logs = await tdbOf(a).selectFrom('activity_logs').select('id').where('subject_id', '=', d.id).where('action', '=', 'deleted').execute();
    expect(logs.length).toBe(1);
  });
});

describe('POST /devices/{id}/activate-payment and /deactivate-payment', () => {
  test('deactivate turns the kiosk\'s terminal payments off (create-intent 422 payment_disabled); activate turns them back on', async () => {
    const kiosk = dev(a, 'kiosk');
    const token = await api.deviceToken(a, 'kiosk');
    const order = { lines: [{ item_id: a.items[0]!.id, qty: 1 }] };
    const off = await api.call('POST', `/api/back-office/devices/${kiosk.id}/deactivate-payment`, { token: owner });
    expect(off).toMatchObject({ status: 200, body: { data: { id: kiosk.id, type: 'kiosk', payment_enabled: false } } });
    const refused = await api.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: order });
    expect(refused).toMatchObject({ status: 422, body: { message: 'Terminal payments are turned off for this device.', reason: 'payment_disabled' } });
    // Repeating the switch changes nothing and logs nothing more.
    expect((await api.call('POST', `/api/back-office/devices/${kiosk.id}/deactivate-payment`, { token: owner })).body.data.payment_enabled).toBe(false);
    const logs = await tdbOf(a).selectFrom('activity_logs').select('action').where('subject_id', '=', kiosk.id).where('action', '=', 'deactivated_payment').execute();
    expect(logs).toHaveLength(1);
    const on = await api.call('POST', `/api/back-office/devices/${kiosk.id}/activate-payment`, { token: owner });
    expect(on).toMatchObject({ status: 200, body: { data: { payment_enabled: true } } });
    const started = await api.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: order });
    expect(started.status).toBe(200);
    expect(started.body.data.status).toBe('Awaiting Payment');
    // The device list shows the switch for kiosks only.
    const pos = await api.call('GET', `/api/back-office/devices/${dev(a, 'pos').id}`, { token: owner });
    expect(pos.body.data.payment_enabled).toBeNull();
  });

  test('a new order refused payment_disabled leaves no Pending transaction behind (as terminal_not_configured)', async () => {
    const kiosk = dev(a, 'kiosk');
    const token = await api.deviceToken(a, 'kiosk');
    expect((await api.call('POST', `/api/back-office/devices/${kiosk.id}/deactivate-payment`, { token: owner })).status).toBe(200);
    try {
      const before = await tdbOf(a).selectFrom('transactions').select('id').where('device_id', '=', kiosk.id).execute();
      const refused = await api.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }] } });
      expect(refused).toMatchObject({ status: 422, body: { message: 'Terminal payments are turned off for this device.', reason: 'payment_disabled' } });
      // Nothing to retry: no transaction is named, none is left.
      expect(refused.body.transaction_id).toBeUndefined();
      const after = await tdbOf(a).selectFrom('transactions').select('id').where('device_id', '=', kiosk.id).execute();
      expect(after).toHaveLength(before.length);
    } finally {
      await api.call('POST', `/api/back-office/devices/${kiosk.id}/activate-payment`, { token: owner });
    }
  });

  test('kiosks only; activating a kiosk without a terminal is 422 and nothing changes', async () => {
    expect(await api.call('POST', `/api/back-office/devices/${dev(a, 'pos').id}/deactivate-payment`, { token: owner })).toMatchObject({
      status: 422,
      body: { message: 'Terminal payments can be turned on or off only for a kiosk.', reason: 'not_a_kiosk' },
    });
    const bare = await newDevice('kiosk');
    expect((await api.call('POST', `/api/back-office/devices/${bare.id}/deactivate-payment`, { token: owner })).status).toBe(200);
    expect(await api.call('POST', `/api/back-office/devices/${bare.id}/activate-payment`, { token: owner })).toMatchObject({
      status: 422,
      body: { message: 'The kiosk has no payment terminal: pair a card-a reader, card-b terminal or platform-a device first.', reason: 'terminal_not_configured' },
    });
    expect((await tdbOf(a).selectFrom('devices').select('payment_enabled').where('id', '=', bare.id).executeTakeFirstOrThrow()).payment_enabled).toBe(false);
  });

  test('no permission of its own (spec "-"): a member whose grant covers the kiosk may switch it', async () => {
    const t = await limitedUserToken(api, a, [], [loc0()]);
    const kiosk = await newDevice('kiosk');
    expect((await api.call('POST', `/api/back-office/devices/${kiosk.id}/deactivate-payment`, { token: t })).status).toBe(200);
  });
});

describe('PATCH /devices/{id}/reader/label', () => {
  test('renames the card-a reader at card-a; EDIT_DEVICES', async () => {
    const kiosk = dev(a, 'kiosk');
    const reader = (await tdbOf(a).selectFrom('devices').select('card_a_reader_id').where('id', '=', kiosk.id).executeTakeFirstOrThrow()).card_a_reader_id!;
    const r = await api.call('PATCH', `/api/back-office/devices/${kiosk.id}/reader/label`, { token: owner, body: { label: '  Front counter  ' } });
    expect(r).toMatchObject({ status: 200, body: { data: { device_id: kiosk.id, reader_id: reader, label: 'Front counter' } } });
    expect(cardA.reader(reader)?.label).toBe('Front counter');
    const viewer = await limitedUserToken(api, a, ['VIEW_DEVICES'], [loc0()]);
    expect(await api.call('PATCH', `/api/back-office/devices/${kiosk.id}/reader/label`, { token: viewer, body: { label: 'Nope' } })).toMatchObject(forbidden);
    expect(cardA.reader(reader)?.label).toBe('Front counter');
  });

  test('bad labels are 422 before card-a is asked; a device without a reader is 422', async () => {
    const kiosk = dev(a, 'kiosk');
    for (const body of [{}, { label: '' }, { label: '   ' }, { label: 'x'.repeat(101) }, { label: 12 }]) {
      const r = await api.call('PATCH', `/api/back-office/devices/${kiosk.id}/reader/label`, { token: owner, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
    }
    const bare = await newDevice('kiosk');
    expect(await api.call('PATCH', `/api/back-office/devices/${bare.id}/reader/label`, { token: owner, body: { label: 'Side' } })).toMatchObject({
      status: 422,
      body: { message: 'The device has no card-a terminal reader.', reason: 'terminal_not_configured' },
    });
  });

  test('card-a refusing the reader is a 422 with its message; card-a away is a 503 without the key', async () => {
    const bare = await newDevice('kiosk');
    await tdbOf(a).updateTable('devices').set({ card_a_reader_id: 'tmr_bad-reader' }).where('id', '=', bare.id).execute();
    expect(await api.call('PATCH', `/api/back-office/devices/${bare.id}/reader/label`, { token: owner, body: { label: 'Side' } })).toMatchObject({
      status: 422,
      body: { message: "No such terminal.reader: 'tmr_bad-reader'", reason: 'provider_refused' },
    });
    const away = await createTestApi({ env: { CARD_A_SECRET_KEY: 'sk_dev_actions', CARD_A_BASE_URL: 'http://127.0.0.1:9' } });
    try {
      const token = await loginToken(away, a.backoffice.email, a.backoffice.password);
      const r = await away.call('PATCH', `/api/back-office/devices/${dev(a, 'kiosk').id}/reader/label`, { token, body: { label: 'Side' } });
      expect(r).toMatchObject({ status: 503, body: { message: 'The card-a service is unavailable, try again later.', reason: 'provider_error' } });
      expect(r.text).not.toContain('sk_dev_actions');
      const wrongKey = await createTestApi({ env: { CARD_A_SECRET_KEY: 'sk_wrong', CARD_A_BASE_URL: cardA.url } });
      try {
        const t2 = await loginToken(wrongKey, a.backoffice.email, a.backoffice.password);
        const r2 = await wrongKey.call('PATCH', `/api/back-office/devices/${dev(a, 'kiosk').id}/reader/label`, { token: t2, body: { label: 'Side' } });
        expect(r2).toMatchObject({ status: 503, body: { message: 'The card-a service is unavailable, try again later.' } });
        expect(r2.text).not.toContain('sk_wrong');
      } finally {
        await wrongKey.close();
      }
    } finally {
      await away.close();
    }
  });
});

describe('POST /devices/{id}/platform-a-device-code', () => {
  const setPlatformALocation = (value: string | null) =>
    tdbOf(a)
      .updateTable('locations')
      .set({ payment_settings: JSON.stringify({ platform_a: value ? { active: true, location_id: value } : {} }) } as never)
      .where('id', '=', loc0())
      .execute();

  test('makes a pairing code, answers the same one until paired, then binds the terminal to the kiosk', async () => {
    await setPlatformALocation('PA-LOC-1');
    const kiosk = await newDevice('kiosk');
    const first = await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner });
    expect(first).toMatchObject({ status: 200, body: { data: { device_id: kiosk.id, status: 'UNPAIRED', code: expect.stringMatching(/^[A-Z]{6}$/), platform_a_device_id: null } } });
    expect(platformA.deviceCode(first.body.data.code_id)).toMatchObject({ location_id: 'PA-LOC-1', product_type: 'TERMINAL_API', name: kiosk.name });
    const again = await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner });
    expect(again.body.data).toEqual(first.body.data);
    const terminal = platformA.pairDeviceCode(first.body.data.code_id);
    const paired = await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner });
    expect(paired).toMatchObject({ status: 200, body: { data: { code_id: first.body.data.code_id, status: 'PAIRED', code: null, platform_a_device_id: terminal } } });
    expect(await tdbOf(a).selectFrom('devices').select(['platform_a_device_id', 'platform_a_device_code_id']).where('id', '=', kiosk.id).executeTakeFirstOrThrow()).toEqual({
      platform_a_device_id: terminal,
      platform_a_device_code_id: null,
    });
    // Paired: activate-payment now finds a terminal.
    expect((await api.call('POST', `/api/back-office/devices/${kiosk.id}/activate-payment`, { token: owner })).status).toBe(200);
    // Asking again starts a new pairing (a replacement terminal); the paired one stays until that pairs.
    const next = await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner });
    expect(next.body.data).toMatchObject({ status: 'UNPAIRED', platform_a_device_id: terminal });
    expect(next.body.data.code_id).not.toBe(first.body.data.code_id);
  });

  test('a terminal a live register is paired with is not paired to a kiosk by code: 409, the kiosk keeps what it had', async () => {
    await setPlatformALocation('PA-LOC-1');
    const kiosk = await newDevice('kiosk');
    const register = (await api.call('POST', `/api/back-office/pos/${loc0()}/registers`, { token: owner, body: { name: `Till ${crypto.randomUUID().slice(0, 6)}` } })).body.data.id as string;
    const terminal = `PA-TERM-${crypto.randomUUID().slice(0, 8)}`;
    expect((await api.call('POST', `/api/back-office/pos/${loc0()}/registers/${register}/pair-terminal`, { token: owner, body: { provider: 'platform-a', terminal_id: terminal } })).status).toBe(200);
    const code = (await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner })).body.data;
    platformA.pairDeviceCode(code.code_id, terminal);
    // Before: 200 PAIRED, and the register and the kiosk both took their payments on one terminal.
    expect(await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner })).toMatchObject({ status: 409, body: { message: 'This terminal is already paired with a register.' } });
    expect((await tdbOf(a).selectFrom('devices').select('platform_a_device_id').where('id', '=', kiosk.id).executeTakeFirstOrThrow()).platform_a_device_id).toBeNull();
  });

  test('a terminal paired again to another kiosk leaves the kiosk it served (one terminal, one kiosk)', async () => {
    await setPlatformALocation('PA-LOC-1');
    const [first, second] = [await newDevice('kiosk'), await newDevice('kiosk')];
    const code1 = (await api.call('POST', `/api/back-office/devices/${first.id}/platform-a-device-code`, { token: owner })).body.data;
    const terminal = platformA.pairDeviceCode(code1.code_id);
    expect((await api.call('POST', `/api/back-office/devices/${first.id}/platform-a-device-code`, { token: owner })).body.data.platform_a_device_id).toBe(terminal);
    // The same physical terminal is signed out and paired with the second kiosk's code.
    const code2 = (await api.call('POST', `/api/back-office/devices/${second.id}/platform-a-device-code`, { token: owner })).body.data;
    platformA.pairDeviceCode(code2.code_id, terminal);
    const paired = await api.call('POST', `/api/back-office/devices/${second.id}/platform-a-device-code`, { token: owner });
    expect(paired.body.data).toMatchObject({ status: 'PAIRED', platform_a_device_id: terminal });
    const holders = await tdbOf(a).selectFrom('devices').select('id').where('platform_a_device_id', '=', terminal).execute();
    expect(holders).toEqual([{ id: second.id }]);
    for (const k of [first, second]) await api.call('DELETE', `/api/back-office/devices/${k.id}`, { token: owner });
  });

  test('an expired code is replaced by a new one', async () => {
    await setPlatformALocation('PA-LOC-1');
    const kiosk = await newDevice('kiosk');
    const first = (await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner })).body.data;
    platformA.expireDeviceCode(first.code_id);
    const second = await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner });
    expect(second.body.data).toMatchObject({ status: 'UNPAIRED' });
    expect(second.body.data.code_id).not.toBe(first.code_id);
  });

  test('a code made at another platform-a location is not answered again: the kiosk moved, or its location changed platform-a location', async () => {
    await setPlatformALocation('PA-LOC-1');
    const kiosk = await newDevice('kiosk');
    const first = (await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner })).body.data;
    expect(platformA.deviceCode(first.code_id)).toMatchObject({ location_id: 'PA-LOC-1' });
    await setPlatformALocation('PA-LOC-3');
    const switched = await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner });
    expect(switched).toMatchObject({ status: 200, body: { data: { status: 'UNPAIRED' } } });
    expect(switched.body.data.code_id).not.toBe(first.code_id);
    expect(platformA.deviceCode(switched.body.data.code_id)).toMatchObject({ location_id: 'PA-LOC-3' });

    const target = await tdbOf(a).selectFrom('locations').select('payment_settings').where('id', '=', loc1()).executeTakeFirstOrThrow();
    await tdbOf(a).updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-LOC-2' } }) } as never).where('id', '=', loc1()).execute();
    try {
      expect((await api.call('PUT', `/api/back-office/devices/${kiosk.id}`, { token: owner, body: { location_id: loc1() } })).status).toBe(200);
      const moved = await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner });
      expect(moved).toMatchObject({ status: 200, body: { data: { status: 'UNPAIRED' } } });
      expect(platformA.deviceCode(moved.body.data.code_id)).toMatchObject({ location_id: 'PA-LOC-2' });
      // Asked again at the same place: the same code.
      expect((await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner })).body.data).toEqual(moved.body.data);
    } finally {
      // Gone again: the subscribe tests count loc1's kiosks.
      await api.call('DELETE', `/api/back-office/devices/${kiosk.id}`, { token: owner });
      await tdbOf(a).updateTable('locations').set({ payment_settings: JSON.stringify(target.payment_settings) } as never).where('id', '=', loc1()).execute();
    }
  });

  test('refusals: not a kiosk, no platform-a location, platform-a refusing (nothing stored)', async () => {
    await setPlatformALocation('PA-LOC-1');
    expect(await api.call('POST', `/api/back-office/devices/${dev(a, 'pos').id}/platform-a-device-code`, { token: owner })).toMatchObject({
      status: 422,
      body: { message: 'A platform-a terminal pairs with a kiosk only.', reason: 'not_a_kiosk' },
    });
    const kiosk = await newDevice('kiosk');
    await setPlatformALocation(null);
    expect(await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner })).toMatchObject({
      status: 422,
      body: { message: 'platform-a is not connected for this location.', reason: 'platform_a_not_connected' },
    });
    await setPlatformALocation('UNKNOWN_LOCATION');
    expect(await api.call('POST', `/api/back-office/devices/${kiosk.id}/platform-a-device-code`, { token: owner })).toMatchObject({
      status: 422,
      body: { message: 'Location UNKNOWN_LOCATION not found', reason: 'provider_refused' },
    });
    expect((await tdbOf(a).selectFrom('devices').select('platform_a_device_code_id').where('id', '=', kiosk.id).executeTakeFirstOrThrow()).platform_a_device_code_id).toBeNull();
    await setPlatformALocation('PA-LOC-1');
  });
});

describe('POST /devices/{id}/remote-control', () => {
  test('the command reaches the device\'s own socket only; the answer says what was sent', async () => {
    api.app.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const url = `ws://127.0.0.1:${api.app.server!.port}/api/realtime`;
      const open = async (type: 'kiosk' | 'kds') => {
        const ws = new WebSocket(url, { headers: { authorization: `Bearer ${await api.deviceToken(a, type)}`, 'x-client-api-key': api.env.DEVICE_API_KEY } } as unknown as string[]);
        const inbox: any[] = [];
        ws.onmessage = (e) => inbox.push(JSON.parse(String(e.data)));
        for (let i = 0; i < 100 && !inbox.some((m) => m.type === 'ready'); i++) await Bun.sleep(20);
        return { ws, inbox };
      };
      const kiosk = await open('kiosk');
      const kds = await open('kds');
      const r = await api.call('POST', `/api/back-office/devices/${dev(a, 'kiosk').id}/remote-control`, { token: owner, body: { command: 'restart' } });
      expect(r).toMatchObject({ status: 200, body: { data: { device_id: dev(a, 'kiosk').id, command: 'restart', id: expect.any(String), issued_at: expect.any(String) } } });
      for (let i = 0; i < 100 && !kiosk.inbox.some((m) => m.type === 'device.command'); i++) await Bun.sleep(20);
      expect(kiosk.inbox.filter((m) => m.type === 'device.command')).toEqual([
        { type: 'device.command', id: r.body.data.id, command: 'restart', device_id: dev(a, 'kiosk').id, location_id: loc0(), issued_at: r.body.data.issued_at },
      ]);
      expect(kds.inbox.some((m) => m.type === 'device.command')).toBe(false);
      kiosk.ws.close();
      kds.ws.close();
    } finally {
      await api.app.stop(true);
    }
  });

  test('a closed set of commands (422 otherwise); printers take none', async () => {
    const id = dev(a, 'pos').id;
    expect(await api.call('POST', `/api/back-office/devices/${id}/remote-control`, { token: owner, body: {} })).toMatchObject({ status: 422, body: { errors: { command: ['The command field is required.'] } } });
    expect(await api.call('POST', `/api/back-office/devices/${id}/remote-control`, { token: owner, body: { command: 'logout' } })).toMatchObject({
      status: 422,
      body: { errors: { command: ['The command must be one of reload, restart, sync, identify.'] } },
    });
    for (const body of [{ command: 'reload', extra: 1 }, { command: 7 }, { command: 'x'.repeat(33) }]) {
      expect((await api.call('POST', `/api/back-office/devices/${id}/remote-control`, { token: owner, body })).status).toBe(422);
    }
    const printer = await newDevice('printer');
    expect(await api.call('POST', `/api/back-office/devices/${printer.id}/remote-control`, { token: owner, body: { command: 'reload' } })).toMatchObject({
      status: 422,
      body: { message: 'Remote commands reach register, kiosk and kitchen display apps only.', reason: 'not_an_app' },
    });
    const logs = await tdbOf(a).selectFrom('activity_logs').select('id').where('subject_id', '=', id).where('action', '=', 'sent_remote_command').execute();
    expect(logs).toHaveLength(0);
  });
});

describe('POST /devices/subscribe/{locationId}', () => {
  const profile = async (customer: string | null) => {
    const id = Bun.randomUUIDv7();
    await tdbOf(a).insertInto('billing_profiles').values({ id, name: `Billing ${id.slice(-6)}`, card_a_customer_id: customer }).execute();
    return id;
  };
  const subscribe = (body: unknown, location = loc1(), token = owner) => api.call('POST', `/api/back-office/devices/subscribe/${location}`, { token, body });

  test('one card-a subscription for the location\'s uncovered kiosks and kds, one unit each; the devices are served at once', async () => {
    const k = await newDevice('kiosk', loc1());
    const d = await newDevice('kds', loc1());
    await newDevice('pos', loc1());
    const billing = await profile('cus_devices_1');
    const r = await subscribe({ billing_profile_id: billing });
    expect(r.status).toBe(200);
    const ids = [k.id, d.id].sort();
    // Read before toMatchObject, which (in this Bun) leaves its asymmetric matchers in the object it was given.
    const subId = r.body.data.provider_subscription_id as string;
    expect(r.body.data).toMatchObject({ status: 'active', device_ids: ids, provider_subscription_id: expect.stringMatching(/^sub_/), current_period_end: expect.any(String) });
    expect(r.body.data.devices.map((x: { id: string }) => x.id).sort()).toEqual(ids);
    const sub = cardA.billing.subscription(subId)!;
    expect(sub).toMatchObject({ customer: 'cus_devices_1', items: { data: [{ price: { id: 'price_device' }, quantity: 2 }] }, metadata: { location_id: loc1(), device_ids: ids.join(',') } });
    const rec = await tdbOf(a).selectFrom('billing_subscriptions').selectAll().where('provider_subscription_id', '=', sub.id).executeTakeFirstOrThrow();
    expect(rec).toMatchObject({ location_id: loc1(), customer_id: 'cus_devices_1', status: 'active', device_ids: ids });
    const until = await tdbOf(a).selectFrom('devices').select(['id', 'subscription_active_until']).where('id', 'in', ids).execute();
    expect(until.every((u) => u.subscription_active_until && u.subscription_active_until.getTime() === rec.current_period_end!.getTime())).toBe(true);
    // Everything is covered now: asking again is refused, and naming a covered device too (nothing billed twice).
    expect(await subscribe({ billing_profile_id: billing })).toMatchObject({ status: 422, body: { errors: { device_ids: ['The location has no kiosk or kitchen display without a subscription.'] } } });
    expect(await subscribe({ billing_profile_id: billing, device_ids: [k.id] })).toMatchObject({ status: 422, body: { errors: { 'device_ids.0': ['The selected device already has an active subscription.'] } } });
    expect(cardA.billing.subscriptionsOf('cus_devices_1')).toHaveLength(1);
  });

  test('two requests at once make one subscription', async () => {
    const k = await newDevice('kiosk', loc1());
    const billing = await profile('cus_devices_2');
    const answers = await Promise.all([subscribe({ billing_profile_id: billing, device_ids: [k.id] }), subscribe({ billing_profile_id: billing, device_ids: [k.id] })]);
    // The first to claim the kiosk bills it; the other finds it claimed or covered (422).
    expect(answers.map((r) => r.status).sort()).toEqual([200, 422]);
    for (const r of answers.filter((x) => x.status !== 200)) expect(r).toMatchObject({ status: 422, body: { errors: { 'device_ids.0': ['The selected device already has an active subscription.'] } } });
    expect(cardA.billing.subscriptionsOf('cus_devices_2')).toHaveLength(1);
  });

  /** Serving card-a subscriptions at card-a (the simulator) whose metadata names the device. */
  const billedFor = (customers: string[], deviceId: string) =>
    customers.flatMap((c) => cardA.billing.subscriptionsOf(c)).filter((s) => s.status !== 'canceled' && String(s.metadata.device_ids ?? '').split(',').includes(deviceId));
  const covered = (field = 'device_ids.0') => ({ status: 422, body: { errors: { [field]: ['The selected device already has an active subscription.'] } } });

  test('two requests at once with different billing profiles bill the kiosk once; the other is refused', async () => {
    for (let i = 0; i < 4; i++) {
      const k = await newDevice('kiosk', loc1());
      const [c1, c2] = [`cus_devices_race_a${i}`, `cus_devices_race_b${i}`];
      const answers = await Promise.all([subscribe({ billing_profile_id: await profile(c1), device_ids: [k.id] }), subscribe({ billing_profile_id: await profile(c2), device_ids: [k.id] })]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 422]);
      expect(answers.find((r) => r.status === 422)).toMatchObject(covered());
      expect(billedFor([c1, c2], k.id)).toHaveLength(1);
    }
  });

  test('overlapping requests at once (one names k1, one takes every uncovered device) bill k1 once', async () => {
    const k1 = await newDevice('kiosk', loc1());
    const k2 = await newDevice('kds', loc1());
    const c = 'cus_devices_overlap';
    const billing = await profile(c);
    const answers = await Promise.all([subscribe({ billing_profile_id: billing, device_ids: [k1.id] }), subscribe({ billing_profile_id: billing })]);
    expect(answers.some((r) => r.status === 200)).toBe(true);
    expect(billedFor([c], k1.id)).toHaveLength(1);
    expect(billedFor([c], k2.id)).toHaveLength(1);
  });

  test('a subscribed kiosk moved to another location is refused by a subscribe there (its subscription still covers it)', async () => {
    const k = await newDevice('kiosk', loc1());
    const billing = await profile('cus_devices_moved');
    expect((await subscribe({ billing_profile_id: billing, device_ids: [k.id] })).status).toBe(200);
    expect((await api.call('PUT', `/api/back-office/devices/${k.id}`, { token: owner, body: { location_id: loc0() } })).status).toBe(200);
    expect(await subscribe({ billing_profile_id: billing, device_ids: [k.id] }, loc0())).toMatchObject(covered());
    const all = await subscribe({ billing_profile_id: billing }, loc0());
    if (all.status === 200) expect(all.body.data.device_ids).not.toContain(k.id);
    expect(billedFor(['cus_devices_moved'], k.id)).toHaveLength(1);
  });

  test('subscribing again after the subscription ended makes a new subscription, not the cancelled one again', async () => {
    const k = await newDevice('kiosk', loc1());
    const billing = await profile('cus_devices_again');
    const first = await subscribe({ billing_profile_id: billing, device_ids: [k.id] });
    expect(first.status).toBe(200);
    const subId = first.body.data.provider_subscription_id as string;
    const del = await fetch(`${cardA.url}/v1/subscriptions/${subId}`, { method: 'DELETE', headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}` } });
    expect(del.status).toBe(200);
    // What the customer.subscription.deleted webhook writes.
    await tdbOf(a).updateTable('billing_subscriptions').set({ status: 'canceled' }).where('provider_subscription_id', '=', subId).execute();
    const second = await subscribe({ billing_profile_id: billing, device_ids: [k.id] });
    expect(second).toMatchObject({ status: 200, body: { data: { status: 'active', device_ids: [k.id] } } });
    expect(second.body.data.provider_subscription_id).not.toBe(subId);
    expect(billedFor(['cus_devices_again'], k.id)).toHaveLength(1);
  });

  test('subscribe racing the delete of the kiosk: a deleted kiosk is never billed', async () => {
    for (let i = 0; i < 6; i++) {
      const k = await newDevice('kiosk', loc1());
      const c = `cus_devices_del${i}`;
      const [s, d] = await Promise.all([subscribe({ billing_profile_id: await profile(c), device_ids: [k.id] }), api.call('DELETE', `/api/back-office/devices/${k.id}`, { token: owner })]);
      if (d.status === 200 && s.status === 200) {
        // The subscription was applied (the kiosk served) before the delete began; the delete then took
        // its only unit off: the subscription names no device and ends at the period end.
        expect(s.body.data.devices.map((x: { id: string }) => x.id)).toEqual([k.id]);
        expect(billedFor([c], k.id)).toHaveLength(0);
        expect(cardA.billing.subscriptionsOf(c).map((x) => x.cancel_at_period_end)).toEqual([true]);
      } else if (d.status === 200) {
        // Deleted first: the subscribe found no such kiosk.
        expect(s).toMatchObject({ status: 422, body: { errors: { 'device_ids.0': ['The selected device is not a kiosk or kitchen display at this location.'] } } });
        expect(billedFor([c], k.id)).toHaveLength(0);
      } else {
        // The delete came while card-a billed the kiosk: refused, the kiosk stays and is served.
        expect(d).toMatchObject({ status: 409, body: { message: 'The device is being subscribed; try again in a moment.', reason: 'device_subscribing' } });
        expect(s.status).toBe(200);
        expect(billedFor([c], k.id)).toHaveLength(1);
      }
    }
  });

  test('a device a subscribe request has claimed is neither deleted nor moved (409) nor subscribed again; a lapsed claim holds nothing', async () => {
    const k = await newDevice('kiosk', loc1());
    const claim = (until: Date) => tdbOf(a).updateTable('devices').set({ subscription_claim: Bun.randomUUIDv7(), subscription_claim_until: until }).where('id', '=', k.id).execute();
    await claim(new Date(Date.now() + 60_000));
    const refused = { status: 409, body: { message: 'The device is being subscribed; try again in a moment.', reason: 'device_subscribing' } };
    expect(await api.call('DELETE', `/api/back-office/devices/${k.id}`, { token: owner })).toMatchObject(refused);
    expect(await api.call('PUT', `/api/back-office/devices/${k.id}`, { token: owner, body: { location_id: loc0() } })).toMatchObject(refused);
    // A rename is no move: allowed.
    expect((await api.call('PUT', `/api/back-office/devices/${k.id}`, { token: owner, body: { name: 'Renamed kiosk' } })).status).toBe(200);
    expect(await subscribe({ billing_profile_id: await profile('cus_devices_claimed'), device_ids: [k.id] })).toMatchObject(covered());
    expect(cardA.billing.subscriptionsOf('cus_devices_claimed')).toHaveLength(0);
    await claim(new Date(Date.now() - 1000));
    expect((await api.call('DELETE', `/api/back-office/devices/${k.id}`, { token: owner })).status).toBe(200);
  });

  test('refusals: profile without payment method, unknown profile, devices that are not kiosk/kds of the location; nothing billed', async () => {
    const pos = await newDevice('pos', loc1());
    const elsewhere = await newDevice('kiosk', loc0());
    const k = await newDevice('kiosk', loc1());
    expect(await subscribe({ billing_profile_id: await profile(null), device_ids: [k.id] })).toMatchObject({
      status: 422,
      body: { errors: { billing_profile_id: ['The billing profile has no payment method: add one first.'] } },
    });
    expect(await subscribe({ billing_profile_id: crypto.randomUUID(), device_ids: [k.id] })).toMatchObject({ status: 404, body: { message: 'Unable to locate the billing profile you requested.' } });
    const billing = await profile('cus_devices_3');
    const bad = await subscribe({ billing_profile_id: billing, device_ids: [pos.id, elsewhere.id, crypto.randomUUID()] });
    expect(bad).toMatchObject({
      status: 422,
      body: {
        errors: {
          'device_ids.0': ['The selected device is not a kiosk or kitchen display at this location.'],
          'device_ids.1': ['The selected device is not a kiosk or kitchen display at this location.'],
          'device_ids.2': ['The selected device is not a kiosk or kitchen display at this location.'],
        },
      },
    });
    for (const body of [{}, { billing_profile_id: 'nope' }, { billing_profile_id: billing, device_ids: [] }, { billing_profile_id: billing, extra: 1 }]) {
      expect((await subscribe(body)).status).toBe(422);
    }
    expect(cardA.billing.subscriptionsOf('cus_devices_3')).toHaveLength(0);
  });

  /** The subscription at card-a and its local record, as the delete tests compare them. */
  const billing = async (subId: string) => {
    const s = cardA.billing.subscription(subId)!;
    const local = await tdbOf(a).selectFrom('billing_subscriptions').select(['status', 'device_ids', 'cancel_at_period_end']).where('provider_subscription_id', '=', subId).executeTakeFirstOrThrow();
    return { card_a: { status: s.status, quantity: s.items.data[0]!.quantity, device_ids: s.metadata.device_ids ?? null, cancel_at_period_end: s.cancel_at_period_end }, local };
  };
  const subscribedPair = async (customer: string) => {
    const [k, d] = [await newDevice('kiosk', loc1()), await newDevice('kds', loc1())];
    const billingProfile = await profile(customer);
    const r = await subscribe({ billing_profile_id: billingProfile, device_ids: [k.id, d.id] });
    expect(r.status).toBe(200);
    return { k, d, billingProfile, subId: r.body.data.provider_subscription_id as string };
  };
  const del = (id: string) => api.call('DELETE', `/api/back-office/devices/${id}`, { token: owner });
  const deleted = { status: 200, body: { status: 'success' } };

  test('deleting a subscribed device takes its unit off the card-a subscription; the last one cancels it at the period end', async () => {
    const c = 'cus_devices_unit_off';
    const { k, d, billingProfile, subId } = await subscribedPair(c);
    expect(await del(k.id)).toMatchObject(deleted);
    // Before: card-a still billed 2 units, naming the deleted kiosk, and the record named it too.
    expect(await billing(subId)).toEqual({
      card_a: { status: 'active', quantity: 1, device_ids: d.id, cancel_at_period_end: false },
      local: { status: 'active', device_ids: [d.id], cancel_at_period_end: false },
    });
    // A replacement kiosk is a second subscription: 2 units for the 2 live devices.
    const k2 = await newDevice('kiosk', loc1());
    expect((await subscribe({ billing_profile_id: billingProfile, device_ids: [k2.id] })).status).toBe(200);
    const units = () => cardA.billing.subscriptionsOf(c).filter((s) => s.status !== 'canceled' && !s.cancel_at_period_end).reduce((n, s) => n + s.items.data[0]!.quantity, 0);
    expect(units()).toBe(2);
    // The last unit: cancelled at the end of the paid period, as the cancel route does; it names no device.
    expect(await del(d.id)).toMatchObject(deleted);
    expect(await billing(subId)).toEqual({
      card_a: { status: 'active', quantity: 1, device_ids: null, cancel_at_period_end: true },
      local: { status: 'active', device_ids: [], cancel_at_period_end: true },
    });
    expect(units()).toBe(1);
  });

  test('two subscribed devices of one subscription deleted at once: both units come off, the subscription ends at the period end', async () => {
    const { k, d, subId } = await subscribedPair('cus_devices_unit_off_together');
    expect(await Promise.all([del(k.id), del(d.id)])).toMatchObject([deleted, deleted]);
    expect(await billing(subId)).toEqual({
      card_a: { status: 'active', quantity: 1, device_ids: null, cancel_at_period_end: true },
      local: { status: 'active', device_ids: [], cancel_at_period_end: true },
    });
  });

  test('card-a failing to take the unit off refuses the delete (503): the device, card-a and the record are unchanged', async () => {
    const { k, d, subId } = await subscribedPair('cus_devices_unit_off_fails');
    const before = await billing(subId);
    cardA.billing.failUpdates(subId);
    expect(await del(k.id)).toMatchObject({ status: 503, body: { message: DEVICE_BILLING_NOT_UPDATED, reason: 'provider_error' } });
    expect(await billing(subId)).toEqual(before);
    expect(before.card_a).toEqual({ status: 'active', quantity: 2, device_ids: [k.id, d.id].sort().join(','), cancel_at_period_end: false });
    expect((await api.call('GET', `/api/back-office/devices/${k.id}`, { token: owner })).status).toBe(200);
    // card-a back: the delete goes through.
    expect(await del(k.id)).toMatchObject(deleted);
    expect((await billing(subId)).card_a).toEqual({ status: 'active', quantity: 1, device_ids: d.id, cancel_at_period_end: false });
  });

  test('an unpaid (or incomplete, paused) subscription still bills: deleting its device takes the unit off too', async () => {
    const { k, d, subId } = await subscribedPair('cus_devices_unit_off_unpaid');
    await tdbOf(a).updateTable('billing_subscriptions').set({ status: 'unpaid' }).where('provider_subscription_id', '=', subId).execute();
    expect(await del(k.id)).toMatchObject(deleted);
    expect((await billing(subId)).card_a).toEqual({ status: 'active', quantity: 1, device_ids: d.id, cancel_at_period_end: false });
  });

  test('a delete that finds no subscription while a subscribe of the device is committing is refused (409), never a billed deleted device', async () => {
    const k = await newDevice('kiosk', loc1());
    // The subscribe's last commit in flight: its record names the kiosk, its claim on the device cleared.
    const r = await whileWriting(
      tdbOf(a),
      async (t) => {
        await t.updateTable('devices').set({ subscription_claim: null, subscription_claim_until: null }).where('id', '=', k.id).execute();
        await t
          .insertInto('billing_subscriptions')
          .values({ id: Bun.randomUUIDv7(), location_id: loc1(), provider_subscription_id: `sub_race_${crypto.randomUUID().slice(0, 8)}`, customer_id: 'cus_devices_race', status: 'active', device_ids: JSON.stringify([k.id]) } as never)
          .execute();
      },
      () => del(k.id),
    );
    expect(r).toMatchObject({ status: 409, body: { message: 'The device is being subscribed; try again in a moment.', reason: 'device_subscribing' } });
    expect((await api.call('GET', `/api/back-office/devices/${k.id}`, { token: owner })).status).toBe(200);
  });

  test('CREATE_DEVICES at that location; another merchant\'s location is 404', async () => {
    const billing = await profile('cus_devices_4');
    const viewer = await limitedUserToken(api, a, ['VIEW_DEVICES', 'EDIT_DEVICES'], [loc1()]);
    expect(await subscribe({ billing_profile_id: billing }, loc1(), viewer)).toMatchObject(forbidden);
    const creatorElsewhere = await limitedUserToken(api, a, ['CREATE_DEVICES'], [loc0()]);
    expect(await subscribe({ billing_profile_id: billing }, loc1(), creatorElsewhere)).toMatchObject(forbidden);
    expect(await subscribe({ billing_profile_id: billing }, b.locations[0]!.id)).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect(cardA.billing.subscriptionsOf('cus_devices_4')).toHaveLength(0);
  });
});

describe('PUT /devices/{id} with the current location spelled in upper case', () => {
  test('is no move: a KDS keeps its station and a register keeps its staff sessions', async () => {
    const kds = a.devices.find((d) => d.type === 'kds')!;
    const before = await tdbOf(a).selectFrom('devices').select(['location_id', 'station_id']).where('id', '=', kds.id).executeTakeFirstOrThrow();
    expect(before.station_id).toBe(a.kds.station_id);
    const r = await api.call('PUT', `/api/back-office/devices/${kds.id}`, { token: owner, body: { location_id: before.location_id.toUpperCase() } });
    expect(r.status).toBe(200);
    // Before: taken as a move, the station was unbound (and a register's staff sessions ended).
    expect(await tdbOf(a).selectFrom('devices').select(['location_id', 'station_id']).where('id', '=', kds.id).executeTakeFirstOrThrow()).toEqual(before);
  });
});
