import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ManualClock } from '@pos/kernel';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { bindTenant } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeOrder } from '../customer-account/customer-test-support.ts';

/**
 * Scheduled orders around midnight and a spring-forward night (Europe/Brussels). A window crossing
 * midnight lists its after-midnight slots under the day it opened: after midnight they are
 * yesterday's, and the business day before a slot is the calendar day before (not 24 hours before).
 */
const clock = new ManualClock(new Date('2026-01-16T12:00:00Z'));
let api: TestApi;
let cardA: CardASimulator;
let m: DemoSeedResult;
let owner: string;
const CREDS = { CARD_A_SECRET_KEY: 'sk_test_midnight' };

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY, webhookSecret: 'whsec_midnight_0123456789' });
  api = await createTestApi({ clock, env: { ...CREDS, CARD_A_BASE_URL: cardA.url } });
  m = await api.seed('slots-midnight');
  owner = await api.ownerToken(m);
}, 60_000);
afterAll(async () => {
  await api.close();
  await cardA.stop();
});

const loc = () => m.online_ordering.location_id;
const hours = (opening_hours: { day: number; open: string; close: string }[]) =>
  api.call('PUT', `/api/back-office/online-ordering/${loc()}`, { token: owner, body: { enabled: true, slot_capacity: 0, preparation_minutes: 15, max_days_ahead: 7, opening_hours } });
const slots = (date?: string) => api.call('POST', `/api/online-ordering/${m.merchant.slug}/${loc()}/available-timeslots`, { body: date ? { date } : {} });
const pay = (scheduled_for: string) => api.call('POST', `/api/online-ordering/${m.merchant.slug}/${loc()}/payment`, { body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }], scheduled_for } });

describe('timeslots around midnight', () => {
  test('after midnight, the rest of the evening window is offered (no date, or yesterday\'s date) and can be ordered', async () => {
    expect((await hours([{ day: 5, open: '18:00', close: '02:00' }])).status).toBe(200);
    // Saturday 00:30 in Brussels: Friday's window runs until 02:00.
    clock.set(new Date('2026-01-16T23:30:00Z'));
    const now = await slots();
    // Before: no slots (today's windows only), and Friday's date was refused (422).
    expect(now.status).toBe(200);
    expect(now.body.data.slots.length).toBeGreaterThan(0);
    expect(now.body.data.slots[0].start > '2026-01-16T23:30:00.000Z').toBe(true);
    const friday = await slots('2026-01-16');
    expect(friday.body.data.slots.map((s: { start: string }) => s.start)).toEqual(now.body.data.slots.map((s: { start: string }) => s.start));
    const r = await pay('2026-01-17T00:00:00.000Z');
    expect([r.status, r.body.data?.scheduled_for ?? r.body]).toEqual([200, expect.anything()]);
    // Two days back is still out of range.
    expect((await slots('2026-01-15')).status).toBe(422);
  });

  test('the night the clocks go forward: a slot after midnight of a window crossing it is accepted', async () => {
    expect((await hours([{ day: 7, open: '22:00', close: '02:00' }])).status).toBe(200);
    clock.set(new Date('2026-03-29T12:00:00Z')); // Sunday 14:00 CEST, a 23-hour day
    const offered = (await slots('2026-03-29')).body.data.slots.map((s: { start: string }) => s.start);
    expect(offered).toContain('2026-03-29T22:15:00.000Z'); // Monday 00:15 CEST
    // Before: 422 TIMESLOT_UNAVAILABLE (the day before was read as `scheduled - 24 h`: Saturday).
    expect((await pay('2026-03-29T22:15:00.000Z')).status).toBe(200);
  });

  test('a paid order its marketplace cancelled frees its place in the slot', async () => {
    expect((await hours([{ day: 1, open: '10:00', close: '14:00' }])).status).toBe(200);
    await api.call('PUT', `/api/back-office/online-ordering/${loc()}`, { token: owner, body: { slot_capacity: 1 } });
    clock.set(new Date('2026-02-02T07:00:00Z')); // Monday 08:00 in Brussels
    const slot = (await slots('2026-02-02')).body.data.slots[0];
    expect(slot.remaining).toBe(1);
    const order = await makeOrder(api, m, { locationIndex: m.locations.findIndex((l) => l.id === loc()) });
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    await tdb.updateTable('transactions').set({ capacity_slot_at: new Date(slot.start) }).where('id', '=', order.id).execute();
    const offered = async () => (await slots('2026-02-02')).body.data.slots.map((s: { start: string }) => s.start);
    expect(await offered()).not.toContain(slot.start); // full
    // The marketplace cancels it after paying: `Complete`, `Cancelled`. Before: the place stayed taken.
    await tdb.updateTable('transactions').set({ order_status: 'Cancelled' }).where('id', '=', order.id).execute();
    expect(await offered()).toContain(slot.start);
  });
});
