import { readFileSync } from 'node:fs';
import pg from 'pg';
import { expect, test, type APIRequestContext } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { cardASimUrl, challengeSimUrl, E2E, smsSimUrl } from '../support/stack-env.ts';

/**
 * Issue 16 "Done when": a logged-in customer orders online and a table guest orders for the table's
 * session, both paid through the card-a simulator (its own process) whose signed
 * `payment_intent.succeeded` webhook completes the transaction; the customer finds the order in the
 * history, the table finds it bound to its session.
 */
async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The storefront's first online item at the seed's online-ordering location. */
async function onlineItem(request: APIRequestContext) {
  const { slug, location_id } = loadSeed().online_ordering;
  const front = await (await request.get(`/api/online-ordering/${slug}`)).json();
  const location = front.data.locations.find((l: { id: string }) => l.id === location_id);
  return location.menu.display_groups.flatMap((g: { items: { id: string; unit_price: number }[] }) => g.items)[0] as { id: string; unit_price: number };
}

/** The customer's browser confirms the intent at the card-a simulator, which then sends its signed webhook. */
async function payInBrowser(request: APIRequestContext, payment: { id: string; client_secret: string }) {
  const confirmed = await request.post(cardASimUrl(`/_sim/payment_intents/${payment.id}/confirm`), { data: { client_secret: payment.client_secret } });
  expect(confirmed.status()).toBe(200);
}

test.describe.serial('online ordering as a customer and at a table', () => {
  let db: pg.Client;
  test.beforeAll(async () => {
    db = new pg.Client({ connectionString: readFileSync(E2E.databaseUrlFile, 'utf8') });
    await db.connect();
  });
  test.afterAll(async () => {
    await db.end();
  });
  const transaction = async (id: string) =>
    (await db.query(`select status, channel, customer_id, table_session_id from "${loadSeed().merchant.tenant_database}".transactions where id = $1`, [id])).rows[0];

  test('a logged-in customer orders for tomorrow, pays through card-a and finds the order in the history', async ({ request }) => {
    const { slug, location_id } = loadSeed().online_ordering;
    const phone = `+3248${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const challenge = (await (await request.post(challengeSimUrl('/_sim/tokens'))).json()).token as string;
    expect((await request.post('/api/customer/send-otp', { data: { slug, phone, 'challenge-response': challenge } })).status()).toBe(200);
    const inbox = (await (await request.get(smsSimUrl(`/_sim/messages?to=${encodeURIComponent(phone)}`))).json()).data as { text: string }[];
    const code = /(\d{6})/.exec(inbox.at(-1)!.text)![1]!;
    const login = await request.post('/api/customer/login', { data: { slug, phone, code } });
    expect(login.status()).toBe(200);
    const session = await login.json();
    expect(session).toMatchObject({ status: 'success', created: true, customer: { phone } });
    const headers = { authorization: `Bearer ${session.token}` };

    const item = await onlineItem(request);
    // Tomorrow's business day in the location's zone: today's slots run out late in the evening.
    const tomorrow = new Date(Date.now() + 36 * 3600_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Brussels' });
    const slot = (await (await request.post(`/api/online-ordering/${slug}/${location_id}/available-timeslots`, { data: { date: tomorrow } })).json()).data.slots[0];
    expect(slot).toMatchObject({ start: expect.any(String) });

    const created = await request.post(`/api/online-ordering/${slug}/${location_id}/payment`, {
      headers,
      data: { lines: [{ item_id: item.id, qty: 1 }], customer: { name: 'Clara Peeters', email: 'clara@example.com' }, scheduled_for: slot.start },
    });
    expect(created.status()).toBe(200);
    const order = (await created.json()).data;
    expect(order).toMatchObject({ provider: 'card-a', total: item.unit_price, payment: { id: expect.stringMatching(/^pi_/), status: 'requires_payment_method' } });
    expect(await transaction(order.transaction_id)).toMatchObject({ status: 'Awaiting Payment', customer_id: session.customer.id });

    await payInBrowser(request, order.payment);
    const row = await eventually(() => transaction(order.transaction_id), (r) => r?.status === 'Complete');
    expect(row).toEqual({ status: 'Complete', channel: 'online_ordering', customer_id: session.customer.id, table_session_id: null });
    const verified = await (await request.post(`/api/online-ordering/${slug}/${location_id}/verify-payment`, { data: { transaction_id: order.transaction_id } })).json();
    expect(verified.data).toMatchObject({ transaction_id: order.transaction_id, status: 'Complete', total: item.unit_price });

    const history = await eventually(
      async () => (await request.post(`/api/customer/${slug}/order-history`, { headers, data: {} })).json(),
      (b) => b.total === 1,
    );
    expect(history.data).toEqual([expect.objectContaining({ id: order.transaction_id, status: 'Complete', total: item.unit_price, channel: 'online_ordering' })]);
    const detail = await request.get(`/api/customer/${slug}/order-detail/${order.transaction_id}`, { headers });
    expect(detail.status()).toBe(200);
    expect((await detail.json()).data).toMatchObject({ id: order.transaction_id, status: 'Complete', total: item.unit_price });
  });

  test('a table guest scans the code, orders for the session, pays through card-a and finds the order bound', async ({ request }) => {
    const seed = loadSeed();
    const section = seed.table_sections[0]!;
    const { slug, location_id } = seed.online_ordering;
    expect(section.location_id).toBe(location_id);

    const scanned = await request.get(`/api/table-qr-ordering/${section.location_id}/${section.id}/9`);
    expect(scanned.status()).toBe(200);
    const opened = await scanned.json();
    expect(opened).toMatchObject({ opened: true, data: { table_number: 9, status: 'open', orders: [], total: 0 } });
    const sessionId = opened.data.id as string;

    const item = await onlineItem(request);
    const created = await request.post(`/api/online-ordering/${slug}/${location_id}/payment`, {
      data: { lines: [{ item_id: item.id, qty: 3 }], customer: { name: 'Table Nine' }, table_session_id: sessionId },
    });
    expect(created.status()).toBe(200);
    const order = (await created.json()).data;
    expect(order).toMatchObject({ provider: 'card-a', total: 3 * item.unit_price });

    // Unpaid, it is not on the session yet.
    const before = await (await request.get(`/api/table-qr-ordering/${location_id}/session/${sessionId}`)).json();
    expect(before.data.orders).toEqual([]);

    await payInBrowser(request, order.payment);
    const row = await eventually(() => transaction(order.transaction_id), (r) => r?.status === 'Complete');
    expect(row).toMatchObject({ status: 'Complete', table_session_id: sessionId });

    const details = await eventually(
      async () => (await request.get(`/api/table-qr-ordering/${location_id}/session/${sessionId}`)).json(),
      (b) => b.data.orders.length === 1,
    );
    expect(details.data).toMatchObject({ id: sessionId, table_number: 9, status: 'open', total: 3 * item.unit_price });
    expect(details.data.orders).toEqual([expect.objectContaining({ status: 'Complete', total: 3 * item.unit_price, order_no: order.order_no })]);
    expect(JSON.stringify(details)).not.toContain(order.transaction_id);
    // Binding it again (the guest's app after verify) changes nothing.
    const again = await request.post(`/api/table-qr-ordering/${location_id}/session/${sessionId}/bind-order`, { data: { transaction_id: order.transaction_id } });
    expect(again.status()).toBe(200);
    expect((await again.json()).data.orders).toHaveLength(1);
  });
});
