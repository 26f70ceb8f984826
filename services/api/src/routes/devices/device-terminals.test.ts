import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { TERMINAL_TAKEN } from '@pos/core/pos-admin/register-records';
import { READER_HELD_ELSEWHERE, READER_UNKNOWN, TERMINAL_BOUND_TO_KIOSK, TERMINAL_BOUND_TO_OTHER_KIOSK, TERMINAL_ID_FORMAT, TERMINAL_PAIRED_WITH_REGISTER } from '@pos/core/devices/terminal-bindings';
import { CardAClient, startCardASimulator, startCardBSimulator, startPlatformASimulator, type CardASimulator, type CardBSimulator, type PlatformASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken, loginToken } from './test-helpers.ts';

/**
 * A kiosk's payment terminals bound through `PUT /back-office/devices/{id}` (`card_b_terminal_id`,
 * `card_a_reader_id`): before, only the demo seed wrote them, so a merchant that signed up could never
 * take a kiosk card payment (create-intent and activate-payment answered 422 `terminal_not_configured`).
 * Against the card-a, card-b and platform-a simulators over HTTP.
 */
let api: TestApi;
let cardA: CardASimulator;
let cardB: CardBSimulator;
let platformA: PlatformASimulator;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const CREDS = { CARD_A_SECRET_KEY: 'sk_dev_terminals', CARD_B_CLIENT_ID: 'dev-terminals', CARD_B_CLIENT_SECRET: 'dev-terminals-secret', PLATFORM_A_ACCESS_TOKEN: 'pa-dev-terminals' };
const forbidden = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
const deviceMissing = { status: 404, body: { message: 'Unable to locate the device you requested.' } };
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const loc0 = () => a.locations[0]!.id;
const loc1 = () => a.locations[1]!.id;
const put = (id: string, body: unknown, token = owner) => api.call('PUT', `/api/back-office/devices/${id}`, { token, body });
const newKiosk = async (location = loc0()) => (await api.call('POST', '/api/back-office/devices', { token: owner, body: { name: `Kiosk ${crypto.randomUUID().slice(0, 6)}`, type: 'kiosk', location_id: location } })).body.data.id as string;
const newRegister = async (location = loc0()) => (await api.call('POST', `/api/back-office/pos/${location}/registers`, { token: owner, body: { name: `Till ${crypto.randomUUID().slice(0, 6)}` } })).body.data.id as string;
const pair = (register: string, provider: string, terminal_id: string, location = loc0()) =>
  api.call('POST', `/api/back-office/pos/${location}/registers/${register}/pair-terminal`, { token: owner, body: { provider, terminal_id } });
const terminalsOf = async (m: DemoSeedResult, id: string) =>
  tdbOf(m).selectFrom('devices').select(['card_b_terminal_id', 'card_a_reader_id', 'platform_a_device_id']).where('id', '=', id).executeTakeFirstOrThrow();
const unique = (prefix: string) => `${prefix}${crypto.randomUUID().replaceAll('-', '').slice(0, 10)}`;
/** Runs `fn` with the API's card-a client replaced (the route reads it per request), put back after. */
async function withCardA(client: CardAClient | null, fn: () => Promise<void>) {
  const payments = api.deps.payments as { cardA: CardAClient | null };
  const before = payments.cardA;
  payments.cardA = client;
  try {
    await fn();
  } finally {
    payments.cardA = before;
  }
}

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY });
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  platformA = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN });
  api = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: cardA.url, CARD_B_BASE_URL: cardB.url, PLATFORM_A_BASE_URL: platformA.url } });
  a = await api.seed('devterm-a');
  b = await api.seed('devterm-b');
  owner = await loginToken(api, a.backoffice.email, a.backoffice.password);
  ownerB = await loginToken(api, b.backoffice.email, b.backoffice.password);
  // A merchant as it signs up: its kiosk has no terminal (only the demo seed wrote one).
  await tdbOf(a).updateTable('devices').set({ card_b_terminal_id: null, card_a_reader_id: null, platform_a_device_id: null }).where('type', '=', 'kiosk').execute();
}, 60_000);
afterAll(async () => {
  await api.close();
  await cardA.stop();
  await cardB.stop();
  await platformA.stop();
});

describe('PUT /devices/{id} binds a kiosk\'s payment terminals', () => {
  test('a kiosk without a terminal: bind a card-b terminal, payments turn on, create-intent starts the sale on it; null unbinds', async () => {
    const kiosk = a.kiosk.device_id;
    const token = await api.deviceToken(a, 'kiosk');
    const order = { lines: [{ item_id: a.items[0]!.id, qty: 2 }] };
    // What a signed-up merchant met: no way to take a kiosk card payment.
    expect(await api.call('POST', `/api/back-office/devices/${kiosk}/activate-payment`, { token: owner })).toMatchObject({ status: 422, body: { reason: 'terminal_not_configured' } });
    expect(await api.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: order })).toMatchObject({ status: 422, body: { reason: 'terminal_not_configured' } });

    const terminal = unique('CB-');
    const bound = await put(kiosk, { card_b_terminal_id: `  ${terminal}  ` });
    expect(bound).toMatchObject({ status: 200, body: { data: { id: kiosk, type: 'kiosk', card_b_terminal_id: terminal, card_a_reader_id: null, platform_a_device_id: null } } });
    expect(await terminalsOf(a, kiosk)).toEqual({ card_b_terminal_id: terminal, card_a_reader_id: null, platform_a_device_id: null });
    // The device view and the location's terminal options name it.
    expect((await api.call('GET', `/api/back-office/devices/${kiosk}`, { token: owner })).body.data.card_b_terminal_id).toBe(terminal);
    const options = await api.call('GET', `/api/back-office/settings/locations/${loc0()}/terminal-options`, { token: owner });
    expect(options.body.data.terminals).toContainEqual({ provider: 'card-b', terminal_id: terminal, device_id: kiosk, device_name: expect.any(String) });
    // Logged like the other device edits.
    const log = await tdbOf(a).selectFrom('activity_logs').select('properties').where('subject_id', '=', kiosk).where('action', '=', 'updated').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(log.properties).toEqual({ changes: { card_b_terminal_id: terminal } });

    expect(await api.call('POST', `/api/back-office/devices/${kiosk}/activate-payment`, { token: owner })).toMatchObject({ status: 200, body: { data: { payment_enabled: true, card_b_terminal_id: terminal } } });
    const started = await api.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: order });
    expect(started.status).toBe(200);
    expect(started.body.data).toMatchObject({ status: 'Awaiting Payment', payment_provider: 'card-b', payment_snapshot: { provider: 'card-b', terminalId: terminal } });
    const session = cardB.session(started.body.data.idempotency_key)!;
    expect({ terminal: session.terminalId, register: session.cashRegisterId, state: session.state }).toEqual({ terminal, register: kiosk, state: 'processing' });
    await cardB.complete(started.body.data.idempotency_key);

    // null unbinds: the kiosk is back to no terminal.
    const unbound = await put(kiosk, { card_b_terminal_id: null });
    expect(unbound).toMatchObject({ status: 200, body: { data: { card_b_terminal_id: null } } });
    expect((await terminalsOf(a, kiosk)).card_b_terminal_id).toBeNull();
    const unboundLog = await tdbOf(a).selectFrom('activity_logs').select('properties').where('subject_id', '=', kiosk).where('action', '=', 'updated').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(unboundLog.properties).toEqual({ changes: { card_b_terminal_id: null } });
    expect(await api.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: order })).toMatchObject({ status: 422, body: { reason: 'terminal_not_configured' } });
    expect(await api.call('POST', `/api/back-office/devices/${kiosk}/activate-payment`, { token: owner })).toMatchObject({ status: 422, body: { reason: 'terminal_not_configured' } });
  });

  test('a card-a reader: tmr_… only, looked up at card-a (422 unknown there, 503 unreachable; the form only without card-a)', async () => {
    const kiosk = await newKiosk();
    const reader = unique('tmr_');
    expect(await put(kiosk, { card_a_reader_id: reader })).toMatchObject({ status: 200, body: { data: { card_a_reader_id: reader, card_b_terminal_id: null } } });
    expect(await api.call('POST', `/api/back-office/devices/${kiosk}/activate-payment`, { token: owner })).toMatchObject({ status: 200, body: { data: { payment_enabled: true } } });
    // The reader rename route finds it now.
    expect(await api.call('PATCH', `/api/back-office/devices/${kiosk}/reader/label`, { token: owner, body: { label: 'Front kiosk' } })).toMatchObject({ status: 200, body: { data: { reader_id: reader, label: 'Front kiosk' } } });

    // Not card-a's form: 422 on the field, nothing asked, nothing written.
    for (const bad of ['rdr_123', 'TMR_abc', 'tmr_', 'tmr_has space']) {
      expect(await put(kiosk, { card_a_reader_id: bad })).toMatchObject({ status: 422, body: { errors: { card_a_reader_id: [TERMINAL_ID_FORMAT.card_a_reader_id] } } });
    }
    // card-a has no such reader (the simulator knows only tmr_ + letters and digits).
    expect(await put(kiosk, { card_a_reader_id: 'tmr_no.such-reader' })).toMatchObject({ status: 422, body: { errors: { card_a_reader_id: [READER_UNKNOWN] } } });
    // card-a unreachable: 503, nothing written.
    await withCardA(new CardAClient({ baseUrl: 'http://127.0.0.1:9', secretKey: 'sk_unreachable' }), async () => {
      expect(await put(kiosk, { card_a_reader_id: unique('tmr_') })).toMatchObject({ status: 503, body: { reason: 'provider_error' } });
      // The reader already bound is not asked about again.
      expect((await put(kiosk, { card_a_reader_id: reader, name: 'Same reader' })).status).toBe(200);
    });
    expect((await terminalsOf(a, kiosk)).card_a_reader_id).toBe(reader);
    // card-a not configured: the id's form only.
    await withCardA(null, async () => {
      expect(await put(kiosk, { card_a_reader_id: 'tmr_no.such-reader' })).toMatchObject({ status: 200, body: { data: { card_a_reader_id: 'tmr_no.such-reader' } } });
    });
    expect(await put(kiosk, { card_a_reader_id: null, card_b_terminal_id: null })).toMatchObject({ status: 200, body: { data: { card_a_reader_id: null, card_b_terminal_id: null } } });
  });

  test('the id\'s form: trimmed, 1-64 letters, digits or _ . : -', async () => {
    const kiosk = await newKiosk();
    for (const bad of ['', '   ', 'has space', 'x'.repeat(65), 'semi;colon', 'ünï', 12345, true, {}]) {
      const r = await put(kiosk, { card_b_terminal_id: bad });
      expect(r.status).toBe(422);
      expect(r.body.errors.card_b_terminal_id).toEqual([TERMINAL_ID_FORMAT.card_b_terminal_id]);
    }
    expect(await terminalsOf(a, kiosk)).toEqual({ card_b_terminal_id: null, card_a_reader_id: null, platform_a_device_id: null });
    const longest = `A1_.:-${'z'.repeat(58)}`;
    expect(await put(kiosk, { card_b_terminal_id: longest })).toMatchObject({ status: 200, body: { data: { card_b_terminal_id: longest } } });
  });

  test('only a kiosk carries them: another type is 422 on the field, nothing written', async () => {
    const pos = a.devices.find((d) => d.type === 'pos')!.id;
    const kds = a.devices.find((d) => d.type === 'kds')!.id;
    const before = await tdbOf(a).selectFrom('devices').select('name').where('id', '=', pos).executeTakeFirstOrThrow();
    const r = await put(pos, { name: 'Renamed', card_b_terminal_id: 'CB-POS-1' });
    expect(r).toMatchObject({ status: 422, body: { errors: { card_b_terminal_id: ['Only a kiosk takes a card-b terminal: this device is not a kiosk.'] } } });
    expect(await put(kds, { card_a_reader_id: null })).toMatchObject({ status: 422, body: { errors: { card_a_reader_id: ['Only a kiosk takes a card-a reader: this device is not a kiosk.'] } } });
    expect(await put(kds, { card_a_reader_id: 'tmr_abc', card_b_terminal_id: 'CB1' })).toMatchObject({ status: 422, body: { errors: { card_a_reader_id: [expect.any(String)], card_b_terminal_id: [expect.any(String)] } } });
    const row = await tdbOf(a).selectFrom('devices').select(['name', 'card_b_terminal_id']).where('id', '=', pos).executeTakeFirstOrThrow();
    expect(row).toEqual({ name: before.name, card_b_terminal_id: null });
    // Other types answer the fields as null.
    expect((await api.call('GET', `/api/back-office/devices/${pos}`, { token: owner })).body.data).toMatchObject({ card_b_terminal_id: null, card_a_reader_id: null, platform_a_device_id: null });
  });

  test('one terminal, one till point: another live kiosk or a live register holding it is 409, from both sides', async () => {
    const [k1, k2] = [await newKiosk(), await newKiosk(loc1())];
    const terminal = unique('CB-');
    expect((await put(k1, { card_b_terminal_id: terminal })).status).toBe(200);
    // Binding it again to the same kiosk is no conflict.
    expect((await put(k1, { card_b_terminal_id: terminal })).status).toBe(200);
    expect(await put(k2, { card_b_terminal_id: terminal })).toMatchObject({ status: 409, body: { message: TERMINAL_BOUND_TO_OTHER_KIOSK } });
    // Same id, other provider: another terminal.
    expect((await put(k2, { card_a_reader_id: `tmr_${terminal.slice(3)}` })).status).toBe(200);
    // A register cannot pair a terminal a kiosk holds (the provider's id, at any location).
    const reg = await newRegister(loc1());
    expect(await pair(reg, 'card-b', terminal, loc1())).toMatchObject({ status: 409, body: { message: TERMINAL_BOUND_TO_KIOSK } });
    expect(await pair(reg, 'card-a', `tmr_${terminal.slice(3)}`, loc1())).toMatchObject({ status: 409, body: { message: TERMINAL_BOUND_TO_KIOSK } });
    // Nor a platform-a device a kiosk was paired with.
    const paDevice = unique('PA-');
    await tdbOf(a).updateTable('devices').set({ platform_a_device_id: paDevice }).where('id', '=', k2).execute();
    expect(await pair(reg, 'platform-a', paDevice, loc1())).toMatchObject({ status: 409, body: { message: TERMINAL_BOUND_TO_KIOSK } });
    expect(await pair(reg, 'card-a', terminal, loc1())).toMatchObject({ status: 200, body: { data: { terminal: { provider: 'card-a', terminal_id: terminal } } } });

    // A kiosk cannot bind a terminal a live register is paired with.
    const regTerminal = unique('CB-');
    expect((await pair(reg, 'card-b', regTerminal, loc1())).status).toBe(200);
    expect(await put(k2, { card_b_terminal_id: regTerminal })).toMatchObject({ status: 409, body: { message: TERMINAL_PAIRED_WITH_REGISTER } });
    const reader = unique('tmr_');
    expect((await pair(reg, 'card-a', reader, loc1())).status).toBe(200);
    expect(await put(k2, { card_a_reader_id: reader })).toMatchObject({ status: 409, body: { message: TERMINAL_PAIRED_WITH_REGISTER } });
    // A retired register lets it go.
    expect((await api.call('POST', `/api/back-office/pos/${loc1()}/registers/${reg}/retire`, { token: owner })).status).toBe(200);
    expect(await put(k2, { card_a_reader_id: reader })).toMatchObject({ status: 200, body: { data: { card_a_reader_id: reader } } });
    // So does a deleted kiosk; and nothing was written by a refusal.
    expect((await terminalsOf(a, k2)).card_b_terminal_id).toBeNull();
    expect((await api.call('DELETE', `/api/back-office/devices/${k1}`, { token: owner })).status).toBe(200);
    expect(await put(k2, { card_b_terminal_id: terminal })).toMatchObject({ status: 200, body: { data: { card_b_terminal_id: terminal } } });
    // Another merchant's kiosk or register is no conflict for a card-b terminal (its events name the location)...
    const theirs = b.kiosk.device_id;
    expect(await put(theirs, { card_b_terminal_id: terminal }, ownerB)).toMatchObject({ status: 200, body: { data: { card_b_terminal_id: terminal } } });
    // ...but a card-a reader's events find their merchant by the reader alone: held by two merchants they
    // would resolve to none (before: 200, and the first merchant's kiosk stopped hearing its payments).
    expect(await put(theirs, { card_a_reader_id: reader }, ownerB)).toMatchObject({ status: 409, body: { message: READER_HELD_ELSEWHERE } });
    expect((await terminalsOf(b, theirs)).card_a_reader_id).not.toBe(reader);
  });

  test('bindings of one terminal at once (kiosks and registers, two locations): exactly one wins, no 500', async () => {
    for (let round = 0; round < 3; round++) {
      const terminal = unique('CB-');
      const kiosks = [await newKiosk(), await newKiosk(loc1())];
      const registers = [await newRegister(), await newRegister(loc1())];
      const answers = await Promise.all([
        put(kiosks[0]!, { card_b_terminal_id: terminal }),
        pair(registers[0]!, 'card-b', terminal),
        put(kiosks[1]!, { card_b_terminal_id: terminal }),
        pair(registers[1]!, 'card-b', terminal, loc1()),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
      const holders = await tdbOf(a).selectFrom('devices').select('id').where('card_b_terminal_id', '=', terminal).where('deleted_at', 'is', null).execute();
      const paired = await tdbOf(a).selectFrom('pos_registers').select('id').where('retired_at', 'is', null).where(sql<string>`terminal->>'terminal_id'`, '=', terminal).execute();
      expect(holders.length + paired.length).toBe(1);
    }
  });

  test('another merchant\'s device is 404; a member without EDIT_DEVICES at the kiosk\'s location is 403; nothing written', async () => {
    expect(await put(b.kiosk.device_id, { card_b_terminal_id: 'CB-THEIRS' })).toMatchObject(deviceMissing);
    expect(await put('0190b7a4-0000-7000-8000-000000000001', { card_b_terminal_id: 'CB-NONE' })).toMatchObject(deviceMissing);
    const kiosk = await newKiosk();
    const viewer = await limitedUserToken(api, a, ['VIEW_DEVICES', 'CREATE_DEVICES'], [loc0()]);
    expect(await put(kiosk, { card_b_terminal_id: 'CB-VIEWER' }, viewer)).toMatchObject(forbidden);
    const elsewhere = await limitedUserToken(api, a, ['VIEW_DEVICES', 'EDIT_DEVICES'], [loc1()]);
    expect(await put(kiosk, { card_a_reader_id: 'tmr_Elsewhere1' }, elsewhere)).toMatchObject(forbidden);
    expect(await terminalsOf(a, kiosk)).toEqual({ card_b_terminal_id: null, card_a_reader_id: null, platform_a_device_id: null });
    const editor = await limitedUserToken(api, a, ['EDIT_DEVICES'], [loc0()]);
    const terminal = unique('CB-');
    expect(await put(kiosk, { card_b_terminal_id: terminal }, editor)).toMatchObject({ status: 200, body: { data: { card_b_terminal_id: terminal } } });
  });
});
