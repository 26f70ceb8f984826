import { readFileSync } from 'node:fs';
import pg from 'pg';
import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { cardASimUrl, E2E } from '../support/stack-env.ts';

/**
 * Issue 16: a guest orders online at the demo seed's `online_ordering` location. The storefront shows
 * the published online menu, the timeslots come from the location's zone, the payment is a card-a
 * intent; the customer's browser confirms it at the card-a simulator (its own process), whose signed
 * `payment_intent.succeeded` webhook completes the transaction, which the storefront's verify reads.
 */
async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
}

test.describe.serial('online ordering as a guest', () => {
  let db: pg.Client;
  test.beforeAll(async () => {
    db = new pg.Client({ connectionString: readFileSync(E2E.databaseUrlFile, 'utf8') });
    await db.connect();
  });
  test.afterAll(async () => {
    await db.end();
  });

  test('storefront, timeslots, card-a payment completed by the signed webhook', async ({ request }) => {
    const seed = loadSeed();
    const { slug, location_id } = seed.online_ordering;

    const front = await request.get(`/api/online-ordering/${slug}`);
    expect(front.status()).toBe(200);
    const location = (await front.json()).data.locations.find((l: { id: string }) => l.id === location_id);
    expect(location).toMatchObject({ id: location_id, open_now: true, channels: { pickup: true, delivery: false } });
    const items = location.menu.display_groups.flatMap((g: { items: { id: string; unit_price: number }[] }) => g.items);
    expect(items.length).toBeGreaterThan(0);
    const item = items[0] as { id: string; unit_price: number };

    // Tomorrow's business day in the location's zone: today's slots run out late in the evening.
    const tomorrow = new Date(Date.now() + 36 * 3600_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Brussels' });
    const slots = await request.post(`/api/online-ordering/${slug}/${location_id}/available-timeslots`, { data: { date: tomorrow } });
    expect(slots.status()).toBe(200);
    const slot = (await slots.json()).data.slots[0];
    expect(slot).toMatchObject({ start: expect.any(String), time: expect.stringMatching(/^\d\d:\d\d$/), remaining: null });

    const created = await request.post(`/api/online-ordering/${slug}/${location_id}/payment`, {
      data: { lines: [{ item_id: item.id, qty: 2 }], customer: { name: 'Guest Online', email: 'guest@example.com' }, scheduled_for: slot.start },
    });
    expect(created.status()).toBe(200);
    const order = (await created.json()).data;
    expect(order).toMatchObject({ provider: 'card-a', total: 2 * item.unit_price, payment: { id: expect.stringMatching(/^pi_/), client_secret: expect.any(String), status: 'requires_payment_method' } });

    const pending = await request.post(`/api/online-ordering/${slug}/${location_id}/verify-payment`, { data: { transaction_id: order.transaction_id } });
    expect((await pending.json()).data.status).toBe('Awaiting Payment');

    // The customer's browser confirms the intent; the simulator sends its signed webhook to the API.
    const confirmed = await request.post(cardASimUrl(`/_sim/payment_intents/${order.payment.id}/confirm`), { data: { client_secret: order.payment.client_secret } });
    expect(confirmed.status()).toBe(200);
    const tenant = seed.merchant.tenant_database;
    const row = await eventually(
      async () => (await db.query(`select status, order_status, receipt_no, channel from "${tenant}".transactions where id = $1`, [order.transaction_id])).rows[0],
      (r) => r?.status === 'Complete',
    );
    expect(row).toMatchObject({ status: 'Complete', order_status: 'Queued', channel: 'online_ordering', receipt_no: expect.any(Number) });
    const logs = await db.query(`select status from webhook_logs where provider = 'card-a' and event_type = 'payment_intent.succeeded' and payload->'data'->'object'->>'id' = $1`, [order.payment.id]);
    expect(logs.rows).toEqual([{ status: 'processed' }]);

    const verified = await request.post(`/api/online-ordering/${slug}/${location_id}/verify-payment`, { data: { transaction_id: order.transaction_id } });
    expect((await verified.json()).data).toEqual({ transaction_id: order.transaction_id, order_no: order.order_no, status: 'Complete', receipt_no: row.receipt_no, total: order.total });
    const captures = await db.query(`select step from "${tenant}".transaction_steps where transaction_id = $1 and step = 'capture'`, [order.transaction_id]);
    expect(captures.rows).toHaveLength(1);
  });
});
