import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, centralIn } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { whileWriting } from '../../testing/while-writing.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const clock = { at: new Date('2026-01-15T10:07:00Z'), now() { return this.at; } };
const loc0 = () => a.locations[0]!.id;
const loc1 = () => a.locations[1]!.id;
const rows = async (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database).selectFrom('channel_settings').selectAll().orderBy('location_id').orderBy('kind').execute();
const BO = '/api/back-office';

beforeAll(async () => {
  api = await createTestApi({ clock });
  a = await api.seed('chs-a');
  b = await api.seed('chs-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
}, 60_000);
afterAll(() => api.close());

const everyDay = (open: string, close: string) => [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open, close }));

describe('online ordering settings', () => {
  test('defaults read without a row; PUT merges and answers the whole document', async () => {
    const r = await api.call('GET', `${BO}/online-ordering/${loc1()}`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: {
        location_id: loc1(),
        enabled: false,
        pickup: true,
        delivery: false,
        opening_hours: everyDay('11:00', '22:00'),
        preparation_minutes: 20,
        slot_capacity: 0,
        max_days_ahead: 7,
        minimum_order: 0,
        local_debit_intent: true,
        latitude: null,
        longitude: null,
        categories: [],
        snoozed_until: null,
        open_now: false,
      },
    });
    const put = await api.call('PUT', `${BO}/online-ordering/${loc1()}`, { token: owner, body: { enabled: true, slot_capacity: 4, opening_hours: [{ day: 4, open: '11:00', close: '14:00' }] } });
    expect(put.status).toBe(200);
    // 10:07 UTC on Thursday 15 January is 11:07 in Brussels: inside the window.
    expect(put.body.data).toEqual({ ...r.body.data, enabled: true, slot_capacity: 4, opening_hours: [{ day: 4, open: '11:00', close: '14:00' }], open_now: true });
    const again = await api.call('PUT', `${BO}/online-ordering/${loc1()}`, { token: owner, body: { preparation_minutes: 30 } });
    expect(again.body.data).toMatchObject({ enabled: true, slot_capacity: 4, preparation_minutes: 30 });
    const stored = (await rows(a)).filter((x) => x.location_id === loc1());
    expect(stored.map((x) => x.kind)).toEqual(['online_ordering']);
    expect(stored[0]!.settings).toMatchObject({ enabled: true, slot_capacity: 4, preparation_minutes: 30 });
  });

  test('snooze: closed until it ends, 0 lifts it', async () => {
    const s = await api.call('POST', `${BO}/online-ordering/${loc1()}/snooze`, { token: owner, body: { minutes: 45 } });
    expect(s.status).toBe(200);
    expect(s.body.data).toMatchObject({ snoozed_until: '2026-01-15T10:52:00.000Z', open_now: false, enabled: true });
    const lifted = await api.call('POST', `${BO}/online-ordering/${loc1()}/snooze`, { token: owner, body: { minutes: 0 } });
    expect(lifted.body.data).toMatchObject({ snoozed_until: null, open_now: true });
  });

  test('bad input is 422 on the field and writes nothing', async () => {
    const before = await rows(a);
    const r = await api.call('PUT', `${BO}/online-ordering/${loc0()}`, { token: owner, body: { opening_hours: [{ day: 8, open: '25:00', close: '10:00' }], slot_capacity: -1 } });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(['opening_hours.0.day', 'opening_hours.0.open', 'slot_capacity']);
    expect(r.body.errors['opening_hours.0.open']).toEqual(['The open field must be a time (HH:MM).']);
    expect((await api.call('PUT', `${BO}/online-ordering/${loc0()}`, { token: owner, body: { enabled: true, extra: 1 } })).status).toBe(422);
    expect((await api.call('POST', `${BO}/online-ordering/${loc0()}/snooze`, { token: owner, body: { minutes: 10_081 } })).status).toBe(422);
    expect(await rows(a)).toEqual(before);
  });

  test('permissions: VIEW_ONLINE_ORDERING reads, EDIT_ONLINE_ORDERING writes and snoozes, on granted locations only', async () => {
    const viewer = await limitedUserToken(api, a, ['VIEW_ONLINE_ORDERING'], [loc0()]);
    expect((await api.call('GET', `${BO}/online-ordering/${loc0()}`, { token: viewer })).status).toBe(200);
    expect(await api.call('GET', `${BO}/online-ordering/${loc1()}`, { token: viewer })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await api.call('PUT', `${BO}/online-ordering/${loc0()}`, { token: viewer, body: { enabled: false } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect((await api.call('POST', `${BO}/online-ordering/${loc0()}/snooze`, { token: viewer, body: { minutes: 5 } })).status).toBe(403);
    const editor = await limitedUserToken(api, a, ['EDIT_ONLINE_ORDERING'], [loc0()]);
    expect((await api.call('GET', `${BO}/online-ordering/${loc0()}`, { token: editor })).status).toBe(403);
    expect((await api.call('POST', `${BO}/online-ordering/${loc0()}/snooze`, { token: editor, body: { minutes: 0 } })).status).toBe(200);
    expect(await api.call('GET', `${BO}/online-ordering/${loc0()}`)).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
  });

  test("another merchant's location is a 404 and nothing is written", async () => {
    const before = await rows(a);
    for (const [m, p, body] of [
      ['GET', `${BO}/online-ordering/${loc0()}`, undefined],
      ['PUT', `${BO}/online-ordering/${loc0()}`, { enabled: false }],
      ['POST', `${BO}/online-ordering/${loc0()}/snooze`, { minutes: 5 }],
      ['GET', `${BO}/online-settings/${loc0()}`, undefined],
      ['PUT', `${BO}/online-settings/${loc0()}`, { allow_tips: true }],
      ['GET', `${BO}/in-house-settings/${loc0()}`, undefined],
      ['PUT', `${BO}/in-house-settings/${loc0()}`, { dine_in: false }],
      ['GET', `${BO}/qr-ordering/${loc0()}`, undefined],
      ['PUT', `${BO}/qr-ordering/${loc0()}`, { enabled: true }],
      ['GET', `${BO}/in-house-channels/${loc0()}`, undefined],
      ['GET', `${BO}/online-channels/${loc0()}`, undefined],
    ] as const) {
      expect(await api.call(m, p, { token: ownerB, body })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    }
    expect(await rows(a)).toEqual(before);
    // b holds only what its seed wrote (online ordering and table QR ordering at its first location).
    expect(await rows(b)).toEqual((await rows(b)).filter((r) => r.kind === 'online_ordering' || r.kind === 'qr_ordering'));
  });
});

describe('online, in-house and QR ordering settings, channel lists', () => {
  test('online settings round trip (no permission of their own)', async () => {
    expect((await api.call('GET', `${BO}/online-settings/${loc0()}`, { token: owner })).body).toEqual({
      data: { location_id: loc0(), welcome_message: '', allow_guest_checkout: true, allow_tips: true, allow_notes: true },
    });
    const r = await api.call('PUT', `${BO}/online-settings/${loc0()}`, { token: owner, body: { welcome_message: 'Welcome!', allow_tips: false } });
    expect(r.body).toEqual({ data: { location_id: loc0(), welcome_message: 'Welcome!', allow_guest_checkout: true, allow_tips: false, allow_notes: true } });
    expect((await api.call('PUT', `${BO}/online-settings/${loc0()}`, { token: owner, body: { welcome_message: 'x'.repeat(501) } })).body.errors).toEqual({
      welcome_message: ['The welcome message field may not be greater than 500 characters.'],
    });
  });

  test('two PUTs of different fields at once, on a location without stored settings yet, both take effect', async () => {
    const tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
    const lost: unknown[] = [];
    for (let round = 0; round < 10; round++) {
      await tdb.deleteFrom('channel_settings').where('location_id', '=', loc1()).execute();
      const [r1, r2] = await Promise.all([
        api.call('PUT', `${BO}/online-settings/${loc1()}`, { token: owner, body: { welcome_message: `hello ${round}` } }),
        api.call('PUT', `${BO}/online-settings/${loc1()}`, { token: owner, body: { allow_notes: false } }),
      ]);
      expect([r1.status, r2.status]).toEqual([200, 200]);
      const now = (await api.call('GET', `${BO}/online-settings/${loc1()}`, { token: owner })).body.data;
      if (now.welcome_message !== `hello ${round}` || now.allow_notes !== false) lost.push({ round, welcome_message: now.welcome_message, allow_notes: now.allow_notes });
    }
    expect(lost).toEqual([]);
  }, 60_000);

  test('in-house settings: VIEW_SALES_CHANNEL reads, EDIT_IN_HOUSE_CHANNEL writes', async () => {
    const viewer = await limitedUserToken(api, a, ['VIEW_SALES_CHANNEL'], [loc0()]);
    expect((await api.call('GET', `${BO}/in-house-settings/${loc0()}`, { token: viewer })).body).toEqual({
      data: { location_id: loc0(), dine_in: true, takeaway: true, ask_customer_name: false, ask_table_number: false },
    });
    expect((await api.call('PUT', `${BO}/in-house-settings/${loc0()}`, { token: viewer, body: { dine_in: false } })).status).toBe(403);
    const editor = await limitedUserToken(api, a, ['EDIT_IN_HOUSE_CHANNEL'], [loc0()]);
    expect((await api.call('GET', `${BO}/in-house-settings/${loc0()}`, { token: editor })).status).toBe(403);
    const r = await api.call('PUT', `${BO}/in-house-settings/${loc0()}`, { token: editor, body: { dine_in: false, ask_customer_name: true } });
    expect(r.body).toEqual({ data: { location_id: loc0(), dine_in: false, takeaway: true, ask_customer_name: true, ask_table_number: false } });
  });

  test('QR ordering config and the channel lists', async () => {
    // The demo seed turns table QR ordering on where its table section is; the default is off.
    expect((await api.call('PUT', `${BO}/qr-ordering/${loc0()}`, { token: owner, body: { enabled: false } })).body.data.enabled).toBe(false);
    expect((await api.call('GET', `${BO}/in-house-channels/${loc0()}`, { token: owner })).body).toEqual({
      data: [{ channel: 'pos', enabled: true }, { channel: 'kiosk', enabled: true }, { channel: 'qr_ordering', enabled: false }],
    });
    const qr = await api.call('PUT', `${BO}/qr-ordering/${loc0()}`, { token: owner, body: { enabled: true } });
    expect(qr.body).toEqual({ data: { location_id: loc0(), enabled: true, pay_at_table: true, allow_guest_checkout: true } });
    expect((await api.call('GET', `${BO}/qr-ordering/${loc0()}`, { token: owner })).body).toEqual(qr.body);
    expect((await api.call('GET', `${BO}/in-house-channels/${loc0()}`, { token: owner })).body.data[2]).toEqual({ channel: 'qr_ordering', enabled: true });
    // The seed turns online ordering on at location [0]: pickup only.
    expect((await api.call('GET', `${BO}/online-channels/${loc0()}`, { token: owner })).body).toEqual({
      data: [{ channel: 'pickup', enabled: true }, { channel: 'delivery', enabled: false }],
    });
    await api.call('PUT', `${BO}/online-ordering/${loc0()}`, { token: owner, body: { delivery: true } });
    expect((await api.call('GET', `${BO}/online-channels/${loc0()}`, { token: owner })).body.data[1]).toEqual({ channel: 'delivery', enabled: true });
    expect((await api.call('GET', `${BO}/online-channels/not-a-uuid`, { token: owner })).status).toBe(404);
  });
});

describe('routes without a permission of their own (spec "-")', () => {
  test('need the location in the caller grant: another location of the merchant is 403, nothing written', async () => {
    const member = await limitedUserToken(api, a, [], [loc0()]);
    const before = await rows(a);
    for (const path of ['online-settings', 'qr-ordering', 'in-house-channels', 'online-channels']) {
      expect(await api.call('GET', `${BO}/${path}/${loc1()}`, { token: member })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
      expect((await api.call('GET', `${BO}/${path}/${loc0()}`, { token: member })).status).toBe(200);
    }
    expect(await api.call('PUT', `${BO}/online-settings/${loc1()}`, { token: member, body: {} })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await api.call('PUT', `${BO}/qr-ordering/${loc1()}`, { token: member, body: {} })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await rows(a)).toEqual(before);
    // Another merchant's location stays a 404.
    expect((await api.call('GET', `${BO}/online-settings/${b.locations[0]!.id}`, { token: member })).status).toBe(404);
  });
});

describe('settings saved while the location changes', () => {
  test('a status change to inactive in flight: the save reads it, and the location is not listed (before: listed again)', async () => {
    const loc = (await api.call('POST', `${BO}/settings/locations`, { token: owner, body: { name: 'Listing race', timezone: 'Europe/Brussels', country: 'BE' } })).body.data.id as string;
    expect((await api.call('PUT', `${BO}/online-ordering/${loc}`, { token: owner, body: { enabled: false } })).status).toBe(200);
    const saved = await whileWriting(
      bindTenant(api.deps.db, a.merchant.tenant_database),
      async (t) => {
        // As `PUT /settings/locations/{id}/status` writes it: the location row, then its listing.
        await t.updateTable('locations').set({ status: 'inactive' }).where('id', '=', loc).execute();
        await centralIn(t).updateTable('restaurant_listings').set({ listed: false }).where('location_id', '=', loc).execute();
      },
      () => api.call('PUT', `${BO}/online-ordering/${loc}`, { token: owner, body: { enabled: true } }),
    );
    expect(saved.status).toBe(200);
    const listing = await api.deps.db.selectFrom('restaurant_listings').select('listed').where('location_id', '=', loc).executeTakeFirstOrThrow();
    expect(listing.listed).toBe(false);
  });

  test('a delete of the location in flight: the save and the snooze are the 404 a later request gets (before: a foreign-key 500)', async () => {
    for (const [method, path, body] of [
      ['PUT', '', { enabled: true }],
      ['POST', '/snooze', { minutes: 30 }],
    ] as const) {
      const loc = (await api.call('POST', `${BO}/settings/locations`, { token: owner, body: { name: `Deleted race ${method}`, timezone: 'Europe/Brussels', country: 'BE' } })).body.data.id as string;
      const r = await whileWriting(
        bindTenant(api.deps.db, a.merchant.tenant_database),
        async (t) => {
          await t.deleteFrom('locations').where('id', '=', loc).execute();
        },
        () => api.call(method, `${BO}/online-ordering/${loc}${path}`, { token: owner, body }),
      );
      expect({ status: r.status, body: r.body }).toEqual({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    }
  });
});
