import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// Tracked stock held by unpaid storefront orders (docs/decisions.md "Online and table ordering
// robustness"): a hold expires after 15 minutes, and one client (or one table session) holds only so many
// orders' stock at once. Real PostgreSQL, Redis and the card-a simulator over HTTP.
let cardA: CardASimulator;
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
const A_KEY = 'sk_test_oo_holds';

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: A_KEY, webhookSecret: 'whsec_oo_holds_0123' });
  api = await createTestApi({ env: { CARD_A_BASE_URL: cardA.url, CARD_A_SECRET_KEY: A_KEY } });
  m = await api.seed('opholds');
  owner = await api.ownerToken(m);
  await api.call('PUT', `/api/back-office/qr-ordering/${m.online_ordering.location_id}`, { token: owner, body: { enabled: true } });
}, 60_000);
afterAll(async () => {
  await cardA.idle();
  await api.close();
  await cardA.stop();
});

const someAddress = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const loc = () => m.online_ordering.location_id;
const tracked = () => m.items[0]!;
const untracked = () => m.items[1]!;
const pay = (body: Record<string, unknown>, ip: string) => api.call('POST', `/api/online-ordering/${m.merchant.slug}/${loc()}/payment`, { body, ip });
const stock = async (quantity: number) => {
  const r = await api.call('POST', '/api/back-office/inventories', { token: owner, body: { item_id: tracked().id, location_id: loc(), type: 'count', quantity } });
  expect(r.status).toBe(201);
};
const counts = async () => ({
  orders: Number((await tdb().selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n),
  holds: Number((await tdb().selectFrom('stock_reservations').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n),
});

describe('stock held by unpaid storefront orders', () => {
  test('a hold lasts 15 minutes: another customer is told it is sold out, then served once it expired', async () => {
    await stock(1);
    const first = await pay({ lines: [{ item_id: tracked().id, qty: 1 }] }, someAddress());
    expect(first.status).toBe(200);
    const hold = await tdb().selectFrom('stock_reservations').selectAll().where('transaction_id', '=', first.body.data.transaction_id).executeTakeFirstOrThrow();
    const created = (await tdb().selectFrom('transactions').select('created_at').where('id', '=', first.body.data.transaction_id).executeTakeFirstOrThrow()).created_at;
    expect(hold.expires_at.getTime() - created.getTime()).toBe(15 * 60_000);
    const other = await pay({ lines: [{ item_id: tracked().id, qty: 1 }] }, someAddress());
    expect([other.status, other.body.reason]).toEqual([422, 'insufficient_stock']);
    // 15 minutes later the unpaid order holds nothing.
    await tdb().updateTable('stock_reservations').set({ expires_at: new Date(Date.now() - 1000) }).where('transaction_id', '=', first.body.data.transaction_id).execute();
    expect((await pay({ lines: [{ item_id: tracked().id, qty: 1 }] }, someAddress())).status).toBe(200);
  });

  test('one client address holds at most 10 orders of tracked stock at a location; the 11th is 429 and stores nothing; untracked baskets and other clients are served', async () => {
    await stock(1000);
    const ip = someAddress();
    for (let i = 0; i < 10; i++) expect((await pay({ lines: [{ item_id: tracked().id, qty: 1 }] }, ip)).status).toBe(200);
    const before = await counts();
    const refused = await pay({ lines: [{ item_id: tracked().id, qty: 1 }] }, ip);
    expect([refused.status, refused.body.message, typeof refused.body.retry_after]).toEqual([429, 'Too Many Attempts.', 'number']);
    expect(await counts()).toEqual(before);
    // Nothing tracked in the basket: nothing held, nothing counted.
    expect((await pay({ lines: [{ item_id: untracked().id, qty: 1 }] }, ip)).status).toBe(200);
    expect((await pay({ lines: [{ item_id: tracked().id, qty: 1 }] }, someAddress())).status).toBe(200);
  });

  test('orders sent at once are bounded as orders sent in turn: of 20 at once, 10 hold stock and 10 are 429 with nothing stored', async () => {
    await stock(1000);
    const ip = someAddress();
    const before = await counts();
    // Before: each request read the count before any hold was counted, and all twenty held stock.
    const burst = await Promise.all(Array.from({ length: 20 }, () => pay({ lines: [{ item_id: tracked().id, qty: 1 }] }, ip)));
    expect(burst.map((r) => r.status).sort()).toEqual([...Array(10).fill(200), ...Array(10).fill(429)]);
    const after = await counts();
    expect([after.orders - before.orders, after.holds - before.holds]).toEqual([10, 10]);
  });

  test('a refused basket (not enough stock) does not use up the client\'s holds', async () => {
    await stock(1000);
    const ip = someAddress();
    for (let i = 0; i < 12; i++) expect((await pay({ lines: [{ item_id: tracked().id, qty: 5000 }] }, ip)).status).toBe(422);
    expect((await pay({ lines: [{ item_id: tracked().id, qty: 1 }] }, ip)).status).toBe(200);
  });

  test('places in slots of limited capacity are holds too: 10 unpaid scheduled orders per client, then 429 with nothing stored', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc()}`, { token: owner, body: { slot_capacity: 100 } });
    try {
      const tomorrow = new Date(Date.now() + 36 * 3600_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Brussels' });
      const slots = (await api.call('POST', `/api/online-ordering/${m.merchant.slug}/${loc()}/available-timeslots`, { body: { date: tomorrow } })).body.data.slots as { start: string }[];
      const scheduled = { lines: [{ item_id: untracked().id, qty: 1 }], scheduled_for: slots.at(-1)!.start };
      const ip = someAddress();
      for (let i = 0; i < 10; i++) expect((await pay(scheduled, ip)).status).toBe(200);
      const before = await counts();
      expect((await pay(scheduled, ip)).status).toBe(429);
      expect(await counts()).toEqual(before);
      // An order for now holds no slot (and nothing tracked): served.
      expect((await pay({ lines: [{ item_id: untracked().id, qty: 1 }] }, ip)).status).toBe(200);
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc()}`, { token: owner, body: { slot_capacity: 0 } });
    }
  });

  test('table orders count per table session, not per address (a venue\'s guests share one)', async () => {
    await stock(1000);
    const section = m.table_sections.find((s) => s.location_id === loc())!;
    const ip = someAddress();
    const scan = async (table: number) => (await api.call('GET', `/api/table-qr-ordering/${loc()}/${section.id}/${table}`, { ip })).body.data.id as string;
    const [s1, s2] = [await scan(3), await scan(4)];
    for (let i = 0; i < 10; i++) expect((await pay({ lines: [{ item_id: tracked().id, qty: 1 }], table_session_id: s1 }, ip)).status).toBe(200);
    expect((await pay({ lines: [{ item_id: tracked().id, qty: 1 }], table_session_id: s1 }, ip)).status).toBe(429);
    expect((await pay({ lines: [{ item_id: tracked().id, qty: 1 }], table_session_id: s2 }, ip)).status).toBe(200);
  });
});
