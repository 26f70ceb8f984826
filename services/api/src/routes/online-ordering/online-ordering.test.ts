import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
// Thursday 15 January 2026, 10:07 UTC = 11:07 in Brussels.
const clock = { at: new Date('2026-01-15T10:07:00Z'), now() { return this.at; } };
const loc0 = () => a.locations[0]!.id;
const loc1 = () => a.locations[1]!.id;
const slots = (slug: string, loc: string, body: Record<string, unknown> = {}) => api.call('POST', `/api/online-ordering/${slug}/${loc}/available-timeslots`, { body });
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);

let orderNo = 1000;
/** A completed order occupying the capacity slot `slot` (what the capture stamps on Complete). */
async function completedIn(locationId: string, slot: string) {
  const n = orderNo++;
  await tdbOf(a)
    .insertInto('transactions')
    .values({
      id: Bun.randomUUIDv7(),
      location_id: locationId,
      channel: 'online_ordering',
      order_no: n,
      status: 'Complete',
      receipt_no: n,
      payment_provider: 'card-a',
      payment_snapshot: JSON.stringify({}),
      idempotency_key: `idemp_test_${n}`,
      all_idempotency_keys: [`idemp_test_${n}`],
      subtotal: 100,
      discount: 0,
      vat: 0,
      total: 100,
      by_vat_rate: JSON.stringify([]),
      offers: JSON.stringify([]),
      menu_version: null,
      customer_id: null,
      loyalty_token: null,
      cart_session_id: null,
      completed_at: new Date(slot),
      capacity_slot_at: new Date(slot),
      created_at: new Date(slot),
      updated_at: new Date(slot),
    } as never)
    .execute();
}

beforeAll(async () => {
  api = await createTestApi({ clock });
  a = await api.seed('oo-a');
  b = await api.seed('oo-b');
  owner = await api.ownerToken(a);
}, 60_000);
afterAll(() => api.close());

describe('GET /online-ordering/{slug}', () => {
  test('the storefront lists the locations with online ordering on, with hours and the online menu', async () => {
    const r = await api.call('GET', `/api/online-ordering/${a.online_ordering.slug}`);
    expect(r.status).toBe(200);
    expect(r.body.data.merchant).toEqual({ slug: a.merchant.slug, name: expect.any(String) });
    expect(r.body.data.locations.map((l: { id: string }) => l.id)).toEqual([loc0()]);
    const l = r.body.data.locations[0];
    expect(l).toMatchObject({
      id: loc0(),
      name: a.locations[0]!.name,
      timezone: 'Europe/Brussels',
      open_now: true,
      snoozed_until: null,
      preparation_minutes: 20,
      minimum_order: 0,
      channels: { pickup: true, delivery: false },
    });
    expect(l.opening_hours).toHaveLength(7);
    const itemIds = l.menu.display_groups.flatMap((g: { items: { id: string }[] }) => g.items.map((i) => i.id));
    expect(itemIds.length).toBeGreaterThan(0);
    for (const id of itemIds) expect(a.items.map((i) => i.id)).toContain(id);
    for (const g of l.menu.display_groups) for (const it of g.items) expect(it.channels).toContain('online_ordering');
  });

  test('an unknown slug is a 404; another merchant never shows', async () => {
    expect(await api.call('GET', '/api/online-ordering/no-such-restaurant')).toMatchObject({ status: 404, body: { message: 'Unable to locate the restaurant you requested.' } });
    expect(await api.call('GET', '/api/online-ordering/NOT_A_SLUG!')).toMatchObject({ status: 404 });
    const other = await api.call('GET', `/api/online-ordering/${b.merchant.slug}`);
    expect(other.body.data.locations.map((l: { id: string }) => l.id)).toEqual([b.locations[0]!.id]);
  });
});

describe('POST available-timeslots', () => {
  test('today in the location zone: from now + preparation to closing, 15-minute slots', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { opening_hours: [{ day: 4, open: '11:00', close: '12:30' }], preparation_minutes: 20 } });
    const r = await slots(a.merchant.slug, loc0());
    expect(r.status).toBe(200);
    // No body at all is today too (its one field is optional). Before: 422 `The body field is required.`
    const bare = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/available-timeslots`);
    expect({ status: bare.status, body: bare.body }).toEqual({ status: 200, body: r.body });
    expect(r.body).toEqual({
      data: {
        location_id: loc0(),
        date: '2026-01-15',
        timezone: 'Europe/Brussels',
        slots: ['11:30', '11:45', '12:00', '12:15'].map((time, i) => ({
          start: new Date(Date.UTC(2026, 0, 15, 10, 30 + 15 * i)).toISOString(),
          end: new Date(Date.UTC(2026, 0, 15, 10, 45 + 15 * i)).toISOString(),
          time,
          remaining: null,
        })),
      },
    });
  });

  test('capacity per slot: completed orders fill a slot, a full one is left out', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { slot_capacity: 2 } });
    await completedIn(loc0(), '2026-01-15T10:30:00Z');
    await completedIn(loc0(), '2026-01-15T10:30:00Z');
    await completedIn(loc0(), '2026-01-15T10:45:00Z');
    // Another location's orders take nothing here.
    await completedIn(loc1(), '2026-01-15T11:00:00Z');
    const r = await slots(a.merchant.slug, loc0());
    expect(r.body.data.slots.map((s: { time: string; remaining: number }) => [s.time, s.remaining])).toEqual([['11:45', 1], ['12:00', 2], ['12:15', 2]]);
  });

  test('a later date, across the spring-forward night, and the range of days', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, {
      token: owner,
      body: { opening_hours: [{ day: 7, open: '01:30', close: '03:30' }], slot_capacity: 0, max_days_ahead: 30 },
    });
    clock.at = new Date('2026-03-28T12:00:00Z');
    const r = await slots(a.merchant.slug, loc0(), { date: '2026-03-29' });
    expect(r.body.data.slots.map((s: { time: string }) => s.time)).toEqual(['01:30', '01:45', '03:00', '03:15']);
    expect(r.body.data.slots[2].start).toBe('2026-03-29T01:00:00.000Z');
    // Yesterday is in range (a window crossing midnight lists its after-midnight slots under it); the day before is not.
    expect((await slots(a.merchant.slug, loc0(), { date: '2026-03-27' })).status).toBe(200);
    expect(await slots(a.merchant.slug, loc0(), { date: '2026-03-26' })).toMatchObject({ status: 422, body: { errors: { date: ['The date must be between 2026-03-27 and 2026-04-27.'] } } });
    expect((await slots(a.merchant.slug, loc0(), { date: '2026-02-30' })).body.errors).toEqual({ date: ['The date field must be a date (YYYY-MM-DD).'] });
    expect((await slots(a.merchant.slug, loc0(), { date: 'tomorrow' })).status).toBe(422);
    clock.at = new Date('2026-01-15T10:07:00Z');
  });

  test('a window crossing midnight and a snoozed location', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { opening_hours: [{ day: 4, open: '23:00', close: '00:30' }], preparation_minutes: 0 } });
    const r = await slots(a.merchant.slug, loc0());
    expect(r.body.data.slots.map((s: { time: string }) => s.time)).toEqual(['23:00', '23:15', '23:30', '23:45', '00:00', '00:15']);
    await api.call('POST', `/api/back-office/online-ordering/${loc0()}/snooze`, { token: owner, body: { minutes: 12 * 60 } });
    // Snoozed until 23:07 Brussels time: the first slot is 23:15.
    expect((await slots(a.merchant.slug, loc0())).body.data.slots[0].time).toBe('23:15');
    const front = await api.call('GET', `/api/online-ordering/${a.merchant.slug}`);
    expect(front.body.data.locations[0]).toMatchObject({ open_now: false, snoozed_until: '2026-01-15T22:07:00.000Z' });
    await api.call('POST', `/api/back-office/online-ordering/${loc0()}/snooze`, { token: owner, body: { minutes: 0 } });
  });

  test('a location with online ordering off, of another merchant, or unknown is a 404', async () => {
    expect(await slots(a.merchant.slug, loc1())).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect(await slots(b.merchant.slug, loc0())).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect(await slots('nobody-here', loc0())).toMatchObject({ status: 404, body: { message: 'Unable to locate the restaurant you requested.' } });
    expect((await slots(a.merchant.slug, loc0(), { date: '2026-01-15', extra: true })).status).toBe(422);
  });
});

describe('POST offers/validate', () => {
  test('the online channel offers apply; kiosk-only ones do not; nothing is stored', async () => {
    const espresso = a.items.find((i) => i.name === 'Espresso') ?? a.items[0]!;
    const base = { description: null, category_ids: [], location_ids: null, created_at: new Date(), updated_at: new Date(), item_ids: [], min_basket: 0, schedule: null, status: 'active' };
    const online = crypto.randomUUID();
    await tdbOf(a)
      .insertInto('offers')
      .values([
        { ...base, id: online, name: 'Online -50%', rule: JSON.stringify({ kind: 'percentage', percent: 50 }), channels: ['online_ordering'] },
        { ...base, id: crypto.randomUUID(), name: 'Kiosk -10%', rule: JSON.stringify({ kind: 'percentage', percent: 10 }), channels: ['kiosk'] },
      ] as never)
      .execute();
    const before = await tdbOf(a).selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const r = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/offers/validate`, { body: { lines: [{ item_id: espresso.id, qty: 2 }] } });
    expect(r.status).toBe(200);
    const gross = espresso.unit_price * 2;
    expect(r.body.data).toMatchObject({ location_id: loc0(), subtotal: gross, discount: gross / 2, total: gross - gross / 2, offers: [{ id: online, name: 'Online -50%', discount: gross / 2 }] });
    const bad = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/offers/validate`, { body: { lines: [{ item_id: crypto.randomUUID(), qty: 1 }] } });
    expect(bad.status).toBe(422);
    expect((await api.call('POST', `/api/online-ordering/${b.merchant.slug}/${loc0()}/offers/validate`, { body: { lines: [{ item_id: espresso.id, qty: 1 }] } })).status).toBe(404);
    expect(await tdbOf(a).selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).toEqual(before);
    await tdbOf(a).deleteFrom('offers').execute();
  });
});
