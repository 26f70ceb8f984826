/**
 * A prober's pass on inbound marketplace orders: what a careless or hostile marketplace order does to
 * the import (`importMarketplaceOrder`), run directly against the real delivery-a simulator over HTTP,
 * PostgreSQL and Redis.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { disableDeliveryA, enableDeliveryA } from '@pos/core/integrations/delivery-a';
import { importMarketplaceOrder } from '@pos/core/integrations/marketplace-orders';
import { addToDailyStats, listSteps, runPostCaptureMany } from '@pos/core/payments/post-capture';
import { DeliveryAClient } from '@pos/providers/delivery-a/delivery-a-client';
import { startDeliveryASimulator, type DeliveryASimulator } from '@pos/providers/delivery-a/delivery-a-simulator';
import { createTestApi, type TestApi } from '../../api/src/testing/harness.ts';
import { openTestEnv, type TestEnv } from './test-support.ts';

const TOKEN = 'mkt-adv-delivery-a-token';
let env: TestEnv;
let api: TestApi;
let sim: DeliveryASimulator;
let m: DemoSeedResult;
let tdb: TenantDb;
let client: DeliveryAClient;
const store = `da-adv-${crypto.randomUUID().slice(0, 8)}`;
const strangerStore = `da-adv-x-${crypto.randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  env = await openTestEnv();
  api = await createTestApi({ env: { INTEGRATION_TOKEN_KEY: 'cd'.repeat(32) } });
  sim = startDeliveryASimulator({ apiToken: TOKEN });
  sim.addStore(store);
  sim.addStore(strangerStore);
  m = await api.seed('mkt-adv');
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  client = new DeliveryAClient({ baseUrl: sim.url, apiToken: TOKEN });
  await enableDeliveryA(env.handle.db, client, { merchant: { id: m.merchant.id, tenant_database: m.merchant.tenant_database }, locationId: m.locations[0]!.id }, { store_id: store, link_code: sim.stores.get(store)!.linkCode, auto_accept_orders: true }, new Date());
}, 60_000);

afterAll(async () => {
  await env.handle.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await api.close();
  await sim.stop();
  await env.close();
});

const connectionId = async () => (await env.handle.db.selectFrom('integration_connections').select('id').where('provider', '=', 'delivery-a').where('external_ref', '=', store).executeTakeFirstOrThrow()).id;
const deps = () => ({ central: env.handle.db, redis: env.redis, log: env.log, now: () => new Date(), clients: { 'delivery-a': client, 'delivery-b': null } });
const run = async (orderId: string) => importMarketplaceOrder(deps(), { provider: 'delivery-a', connectionId: await connectionId(), externalOrderId: orderId, eventId: `adv-${crypto.randomUUID()}` });
const transactionsOf = (orderId: string) => tdb.selectFrom('transactions').select(['id', 'status']).where('external_provider', '=', 'delivery-a').where('external_order_id', '=', orderId).execute();
const espresso = () => m.items.find((i) => i.name === 'Espresso')!;

describe('marketplace order import, adversarial', () => {
  test('absurd quantities and prices (beyond what an order can hold) refuse the order at the marketplace instead of failing on every retry', async () => {
    // 100,000 x 100,000.00: ten thousand million cents, beyond the 32-bit money columns.
    const order = sim.orders.create(store, { items: [{ external_id: espresso().id, name: 'Espresso', quantity: 100_000, unit_price: 10_000_000 }] });
    const r = await run(order.id);
    expect(r).toEqual({ outcome: 'refused', transactionId: null, detail: 'Order amounts out of range' });
    expect(sim.orders.orders.get(order.id)).toMatchObject({ status: 'DENIED', deny_reason: 'Order amounts out of range' });
    expect(sim.orders.accepts.filter((id) => id === order.id)).toHaveLength(0);
    expect(await transactionsOf(order.id)).toEqual([]);
  });

  test('a free line with an absurd quantity is refused too (the quantity column is 32-bit)', async () => {
    const order = sim.orders.create(store, { items: [{ external_id: espresso().id, name: 'Espresso', quantity: 5_000_000_000, unit_price: 0 }] });
    const r = await run(order.id);
    expect(r.outcome).toBe('refused');
    expect(sim.orders.orders.get(order.id)!.status).toBe('DENIED');
    expect(await transactionsOf(order.id)).toEqual([]);
  });

  test('a line of quantity 0 or a negative price is refused and denied once, not retried as an unreadable answer', async () => {
    for (const line of [{ quantity: 0, unit_price: 260 }, { quantity: 1, unit_price: -260 }]) {
      const order = sim.orders.create(store, { items: [{ external_id: espresso().id, name: 'Espresso', ...line }] });
      expect(await run(order.id)).toEqual({ outcome: 'refused', transactionId: null, detail: 'Order amounts out of range' });
      expect(sim.orders.orders.get(order.id)).toMatchObject({ status: 'DENIED', deny_reason: 'Order amounts out of range' });
      expect(await transactionsOf(order.id)).toEqual([]);
    }
  });

  test('a negative delivery fee is refused the same way', async () => {
    const order = sim.orders.create(store, { items: [{ external_id: espresso().id, name: 'Espresso', quantity: 1, unit_price: 260 }], delivery_fee: -500 });
    expect(await run(order.id)).toEqual({ outcome: 'refused', transactionId: null, detail: 'Order amounts out of range' });
    expect(await transactionsOf(order.id)).toEqual([]);
  });

  test('an order without items is refused with a reason that says so', async () => {
    const order = sim.orders.create(store, { items: [] });
    expect(await run(order.id)).toEqual({ outcome: 'refused', transactionId: null, detail: 'The order has no items' });
    expect(sim.orders.orders.get(order.id)).toMatchObject({ status: 'DENIED', deny_reason: 'The order has no items' });
    expect(await transactionsOf(order.id)).toEqual([]);
  });

  test('a large but representable order is imported', async () => {
    const order = sim.orders.create(store, { items: [{ external_id: espresso().id, name: 'Espresso', quantity: 200, unit_price: 260 }] });
    const r = await run(order.id);
    expect(r.outcome).toBe('imported');
    expect(await transactionsOf(order.id)).toEqual([{ id: r.transactionId!, status: 'Complete' }]);
  });

  test('an order id of another store, named in an event of ours, is not imported', async () => {
    const order = sim.orders.create(strangerStore, { items: [{ external_id: espresso().id, name: 'Espresso', quantity: 1, unit_price: 260 }] });
    expect(await run(order.id)).toEqual({ outcome: 'failed', transactionId: null, detail: 'the order belongs to another store' });
    expect(sim.orders.orders.get(order.id)!.status).toBe('CREATED');
    expect(await transactionsOf(order.id)).toEqual([]);
  });

  test('an order id the marketplace does not know is a recorded failure, not a retry', async () => {
    const r = await run('no-such-order');
    expect(r.outcome).toBe('failed');
    expect(await transactionsOf('no-such-order')).toEqual([]);
  });

  test('an order whose event came in before the integration was disabled is still imported: the marketplace took it (and the customer\'s money) while the store was ours', async () => {
    const order = sim.orders.create(store, { items: [{ external_id: espresso().id, name: 'Espresso', quantity: 1, unit_price: 260 }] });
    const id = await connectionId();
    await disableDeliveryA(env.handle.db, client, { merchant: { id: m.merchant.id, tenant_database: m.merchant.tenant_database }, locationId: m.locations[0]!.id }, new Date());
    const r = await importMarketplaceOrder(deps(), { provider: 'delivery-a', connectionId: id, externalOrderId: order.id, eventId: `adv-${crypto.randomUUID()}` });
    expect(r.outcome).toBe('imported');
    expect((await transactionsOf(order.id)).map((t) => t.status)).toEqual(['Complete']);
  });

  test('a location switched to another store: the store let go is turned off at delivery-a, its row kept (disabled) with its events, and its pending order still imported', async () => {
    const scope = { merchant: { id: m.merchant.id, tenant_database: m.merchant.tenant_database }, locationId: m.locations[1]!.id };
    const first = `da-adv-s1-${crypto.randomUUID().slice(0, 8)}`;
    const second = `da-adv-s2-${crypto.randomUUID().slice(0, 8)}`;
    sim.addStore(first);
    sim.addStore(second);
    await enableDeliveryA(env.handle.db, client, scope, { store_id: first, link_code: sim.stores.get(first)!.linkCode, auto_accept_orders: true }, new Date());
    const firstRow = await env.handle.db.selectFrom('integration_connections').select('id').where('provider', '=', 'delivery-a').where('external_ref', '=', first).executeTakeFirstOrThrow();
    // An order event of the first store, recorded and waiting for its import.
    const order = sim.orders.create(first, { items: [{ external_id: espresso().id, name: 'Espresso', quantity: 1, unit_price: 260 }] });
    await env.handle.db.insertInto('integration_events').values({ id: Bun.randomUUIDv7(), provider: 'delivery-a', event_id: `switch-${order.id}`, connection_id: firstRow.id, merchant_id: m.merchant.id, location_id: scope.locationId, kind: 'order', event_type: 'order.created', external_id: order.id, webhook_log_id: null, status: 'pending', created_at: new Date() }).execute();
    await enableDeliveryA(env.handle.db, client, scope, { store_id: second, link_code: sim.stores.get(second)!.linkCode, auto_accept_orders: true }, new Date());
    // Before: delivery-a still sent the first store's orders to us, its row and pending event were deleted.
    expect(sim.stores.get(first)).toMatchObject({ integrationEnabled: false });
    expect(await env.handle.db.selectFrom('integration_connections').select(['external_ref', 'status']).where('provider', '=', 'delivery-a').where('location_id', '=', scope.locationId).orderBy('external_ref').execute()).toEqual(
      [{ external_ref: first, status: 'disabled' }, { external_ref: second, status: 'active' }].sort((x, y) => x.external_ref.localeCompare(y.external_ref)),
    );
    expect(await env.handle.db.selectFrom('integration_events').select('status').where('event_id', '=', `switch-${order.id}`).execute()).toHaveLength(1);
    const r = await importMarketplaceOrder(deps(), { provider: 'delivery-a', connectionId: firstRow.id, externalOrderId: order.id, eventId: `switch-${order.id}` });
    expect(r.outcome).toBe('imported');
    // The location's status is the live store's.
    const status = await api.call('GET', `/api/back-office/delivery-a/${scope.locationId}`, { token: await api.ownerToken(m) });
    expect(status.body.data).toMatchObject({ enabled: true, store_id: second });
  });
});

describe('marketplace order money: goods + fees + tip = what the marketplace collected', () => {
  // The connection again (the test above disabled it).
  beforeAll(() => enableDeliveryA(env.handle.db, client, { merchant: { id: m.merchant.id, tenant_database: m.merchant.tenant_database }, locationId: m.locations[0]!.id }, { store_id: store, link_code: sim.stores.get(store)!.linkCode, auto_accept_orders: true }, new Date()));
  const money = (orderId: string) =>
    tdb.selectFrom('transactions').select(['id', 'status', 'subtotal', 'discount', 'fees', 'tip_amount', 'total', 'by_vat_rate']).where('external_provider', '=', 'delivery-a').where('external_order_id', '=', orderId).executeTakeFirstOrThrow();
  const groupsGross = (t: { by_vat_rate: unknown }) => ((typeof t.by_vat_rate === 'string' ? JSON.parse(t.by_vat_rate) : t.by_vat_rate) as { gross: number }[]).reduce((s, g) => s + g.gross, 0);

  test('a promotion larger than the goods comes off the delivery fee: no negative sale in the sales report', async () => {
    // 2.60 of goods + 3.00 delivery; the marketplace collected 1.00 (a 4.60 promotion).
    const order = sim.orders.create(store, { items: [{ external_id: espresso().id, name: 'Espresso', quantity: 1, unit_price: 260 }], delivery_fee: 300 });
    sim.orders.orders.get(order.id)!.total = 100;
    expect((await run(order.id)).outcome).toBe('imported');
    const t = await money(order.id);
    expect([t.status, t.subtotal, t.discount, t.fees, t.tip_amount, t.total]).toEqual(['Complete', 260, 260, 100, 0, 100]);
    expect(groupsGross(t)).toBe(t.total - t.fees - t.tip_amount);
    const day = new Date().toLocaleDateString('en-CA', { timeZone: 'Europe/Brussels' });
    const r = await api.call('GET', `/api/back-office/reports/sales?from=${day}&to=${day}`, { token: await api.ownerToken(m) });
    expect(r.status).toBe(200);
    const delivery = r.body.data.by_channel.find((c: { channel: string }) => c.channel === 'delivery');
    expect(delivery.gross).toBeGreaterThanOrEqual(0);
    expect(r.body.data.by_vat_rate.reduce((s: number, g: { gross: number }) => s + g.gross, 0)).toBe(r.body.data.totals.gross);
  });

  test('a charge beyond lines + fee + tip (a service fee the order does not itemise) is a fee, not goods without VAT', async () => {
    const order = sim.orders.create(store, { items: [{ external_id: espresso().id, name: 'Espresso', quantity: 2, unit_price: 260 }], delivery_fee: 250, tip: 100 });
    sim.orders.orders.get(order.id)!.total = 520 + 250 + 100 + 99;
    expect((await run(order.id)).outcome).toBe('imported');
    const t = await money(order.id);
    expect([t.subtotal, t.discount, t.fees, t.tip_amount, t.total]).toEqual([520, 0, 349, 100, 969]);
    expect(groupsGross(t)).toBe(t.total - t.fees - t.tip_amount);
  });
});

describe('a marketplace order cancelled after paying leaves the daily stats (no sale, as in the reports)', () => {
  beforeAll(() => enableDeliveryA(env.handle.db, client, { merchant: { id: m.merchant.id, tenant_database: m.merchant.tenant_database }, locationId: m.locations[0]!.id }, { store_id: store, link_code: sim.stores.get(store)!.linkCode, auto_accept_orders: true }, new Date()));
  // The location's stats over all its days (a day taken back to nothing keeps its row at 0).
  const statsOf = async (locationId: string) =>
    (await tdb.selectFrom('daily_stats').select(['transactions', 'total']).where('location_id', '=', locationId).execute()).reduce((a, r) => ({ transactions: a.transactions + r.transactions, total: a.total + Number(r.total) }), { transactions: 0, total: 0 });
  const stepsOf = async (id: string) => (await listSteps(tdb, id)).filter((s) => s.step.startsWith('daily_stats')).map((s) => [s.step, s.outcome]);
  const paidOrder = async (qty: number) => {
    const order = sim.orders.create(store, { items: [{ external_id: espresso().id, name: 'Espresso', quantity: qty, unit_price: 260 }] });
    expect((await run(order.id)).outcome).toBe('imported');
    const t = await tdb.selectFrom('transactions').select(['id', 'status', 'total', 'location_id']).where('external_provider', '=', 'delivery-a').where('external_order_id', '=', order.id).executeTakeFirstOrThrow();
    expect(t.status).toBe('Complete');
    return { order, t };
  };
  const cancel = async (orderId: string) => {
    sim.orders.orders.get(orderId)!.status = 'CANCELED';
    await run(orderId);
    expect((await tdb.selectFrom('transactions').select(['status', 'order_status']).where('external_order_id', '=', orderId).executeTakeFirstOrThrow())).toEqual({ status: 'Complete', order_status: 'Cancelled' });
  };

  test('counted by the stats job, then cancelled: taken back out once, however often the cancel or the job runs again', async () => {
    const { order, t } = await paidOrder(3);
    const before = await statsOf(t.location_id);
    await addToDailyStats(tdb, t.id); // the post-capture `stats.daily` job
    expect(await statsOf(t.location_id)).toEqual({ transactions: before.transactions + 1, total: before.total + t.total });
    await cancel(order.id);
    expect(await statsOf(t.location_id)).toEqual(before);
    // The cancellation event again, and the stats job again (a retried job): nothing moves.
    await run(order.id);
    await addToDailyStats(tdb, t.id);
    expect(await statsOf(t.location_id)).toEqual(before);
    expect(await stepsOf(t.id)).toEqual([['daily_stats', 'ok'], ['daily_stats_undo', 'ok']]);
  });

  test('cancelled before its post-capture ran: the kitchen never gets its tickets, however often the job or the cancel runs', async () => {
    const { order, t } = await paidOrder(1);
    await cancel(order.id);
    for (let i = 0; i < 2; i++) {
      expect(await runPostCaptureMany(tdb, m.merchant.tenant_database, [{ transaction_id: t.id, stock_changed: false }])).toEqual([null]);
      await cancel(order.id);
    }
    expect(await tdb.selectFrom('kitchen_tickets').select('id').where('source', '=', 'transaction').where('source_id', '=', t.id).execute()).toEqual([]);
    expect(await tdb.selectFrom('kitchen_items').select('transaction_id').where('transaction_id', '=', t.id).execute()).toEqual([]);
    // The withdrawal ran once, finding nothing to withdraw.
    expect((await listSteps(tdb, t.id)).filter((s) => s.step === 'kitchen_withdrawn').map((s) => s.outcome)).toEqual(['ok']);
  });

  test('cancelled before the stats job ran: the job never counts it', async () => {
    const { order, t } = await paidOrder(2);
    const before = await statsOf(t.location_id);
    await cancel(order.id);
    await addToDailyStats(tdb, t.id);
    await cancel(order.id);
    expect(await statsOf(t.location_id)).toEqual(before);
    expect(await stepsOf(t.id)).toEqual([['daily_stats', 'skipped']]);
  });
});
