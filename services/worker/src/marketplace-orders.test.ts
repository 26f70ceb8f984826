/**
 * Inbound marketplace orders (issue 17) end to end inside one process, every hop over real HTTP or
 * the real queue: the delivery-a / delivery-b simulators send signed order webhooks to the API (the
 * real app behind a real socket), the route records the event and writes the import job to the
 * outbox, the worker reads the order through the marketplace client, creates the transaction, accepts
 * it, captures it as paid by the marketplace, and the post-capture job writes the kitchen ticket.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { enableDeliveryA } from '@pos/core/integrations/delivery-a';
import { connectDeliveryBStore } from '@pos/core/integrations/delivery-b';
import { syncClientsFromEnv } from '@pos/core/integrations/sync-runners';
import { importMarketplaceOrder } from '@pos/core/integrations/marketplace-orders';
import { DeliveryAClient } from '@pos/providers/delivery-a/delivery-a-client';
import { DeliveryBClient } from '@pos/providers/delivery-b/delivery-b-client';
import { startDeliveryASimulator, type DeliveryASimulator } from '@pos/providers/delivery-a/delivery-a-simulator';
import { startDeliveryBSimulator, type DeliveryBSimulator } from '@pos/providers/delivery-b/delivery-b-simulator';
import { createTestApi, type TestApi } from '../../api/src/testing/harness.ts';
import { connectTestDeliveryBAccount } from '@pos/core/integrations/delivery-b-account.test-support';
import { parseTokenKey } from '@pos/core/integrations/token-crypto';
import { kitchenChannel } from '@pos/core/payments/payment-events';
import { listSteps } from '@pos/core/payments/post-capture';
import { startWorker, stopWorker, type RunningWorker } from './worker.ts';
import { dropPrefix, openTestEnv, testWorkerDeps, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

const SECRETS = { DELIVERY_A_WEBHOOK_SECRET: 'mkt-delivery-a-secret-0123', DELIVERY_B_WEBHOOK_SECRET: 'mkt-delivery-b-secret-0123', INTEGRATION_TOKEN_KEY: 'cd'.repeat(32) };
const TOKENS = { a: 'mkt-delivery-a-api-token', b: 'mkt-delivery-b-api-token' };
let env: TestEnv;
let api: TestApi;
let server: ReturnType<typeof Bun.serve>;
let simA: DeliveryASimulator;
let simB: DeliveryBSimulator;
let worker: RunningWorker;
let m: DemoSeedResult;
let tdb: TenantDb;
const prefix = uniquePrefix();
const storeA = `da-${crypto.randomUUID().slice(0, 8)}`;
const storeB = `db-${crypto.randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  env = await openTestEnv();
  api = await createTestApi({ env: SECRETS });
  // The real app behind a real socket: the simulators deliver their webhooks over HTTP.
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => api.app.handle(req) });
  simA = startDeliveryASimulator({ apiToken: TOKENS.a, webhookUrl: `http://127.0.0.1:${server.port}/api/webhook/delivery-a/orders`, webhookSecret: SECRETS.DELIVERY_A_WEBHOOK_SECRET });
  simB = startDeliveryBSimulator({ apiToken: TOKENS.b, webhookUrl: `http://127.0.0.1:${server.port}/api/webhook/delivery-b`, webhookSecret: SECRETS.DELIVERY_B_WEBHOOK_SECRET });
  simA.addStore(storeA);
  simB.addStore(storeB);
  m = await api.seed('mkt');
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  const scope = { merchant: { id: m.merchant.id, tenant_database: m.merchant.tenant_database }, locationId: m.locations[0]!.id };
  // delivery-a accepts orders automatically; delivery-b leaves acceptance to the marketplace side.
  await enableDeliveryA(env.handle.db, new DeliveryAClient({ baseUrl: simA.url, apiToken: TOKENS.a }), scope, { store_id: storeA, link_code: simA.stores.get(storeA)!.linkCode, auto_accept_orders: true }, new Date());
  await connectTestDeliveryBAccount(env.handle.db, simB, { merchantId: m.merchant.id, tokenKeyHex: SECRETS.INTEGRATION_TOKEN_KEY, stores: [storeB] });
  await connectDeliveryBStore(env.handle.db, new DeliveryBClient({ baseUrl: simB.url, apiToken: TOKENS.b }), parseTokenKey(SECRETS.INTEGRATION_TOKEN_KEY), scope, { store_id: storeB, auto_accept_orders: false }, new Date());
  worker = await startWorker({
    ...testWorkerDeps(env, prefix),
    relayIntervalMs: 25,
    integrations: syncClientsFromEnv({ DELIVERY_A_API_URL: simA.url, DELIVERY_A_API_TOKEN: TOKENS.a, DELIVERY_B_API_URL: simB.url, DELIVERY_B_API_TOKEN: TOKENS.b }),
  });
}, 60_000);

afterAll(async () => {
  await stopWorker(worker);
  await dropPrefix(env.redis, prefix);
  await env.handle.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await api.close();
  await server.stop(true);
  await simA.stop();
  await simB.stop();
  await env.close();
});

const item = (name: string) => m.items.find((i) => i.name === name)!;
const place = async (url: string, store: string, body: unknown) => {
  const r = await fetch(`${url}/_sim/stores/${store}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(201);
  return (await r.json()) as { order: { id: string; total: number }; event_id: string; webhook_status: number };
};
const simPost = async (url: string, path: string, body: unknown = {}) => (await (await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as { event_id: string; webhook_status: number };
const transactionsOf = (provider: string, orderId: string) => tdb.selectFrom('transactions').selectAll().where('external_provider', '=', provider).where('external_order_id', '=', orderId).execute();
const ticketsOf = (transactionId: string) => tdb.selectFrom('kitchen_tickets').select(['id', 'source', 'order_no', 'status']).where('source', '=', 'transaction').where('source_id', '=', transactionId).execute();
const eventStatuses = (orderId: string) =>
  env.handle.db.selectFrom('integration_events').select(['event_type', 'status']).where('merchant_id', '=', m.merchant.id).where('external_id', '=', orderId).orderBy('created_at').orderBy('id').execute();

describe('delivery-a (auto-accept on)', () => {
  test('a signed order webhook, delivered twice and followed by a status event, becomes one paid delivery transaction and one kitchen ticket', async () => {
    const espresso = item('Espresso');
    const croissant = item('Croissant');
    const placed = await place(simA.url, storeA, {
      customer_name: 'Dana Marketplace',
      items: [
        { external_id: espresso.id, name: 'Espresso', quantity: 2, unit_price: 260 },
        { external_id: croissant.id, name: 'Croissant', quantity: 1, unit_price: 310 },
      ],
      delivery_fee: 250,
      tip: 100,
    });
    expect(placed.webhook_status).toBe(200);
    // The marketplace delivers the same event again (a retry) before anything is done.
    expect((await simPost(simA.url, `/_sim/webhooks/${placed.event_id}/redeliver`)).webhook_status).toBe(200);

    const t = await waitFor(async () => {
      const [row] = await transactionsOf('delivery-a', placed.order.id);
      return row?.status === 'Complete' ? row : undefined;
    }, 10_000, 'captured delivery-a order');
    const tickets = await waitFor(async () => {
      const rows = await ticketsOf(t.id);
      return rows.length > 0 ? rows : undefined;
    }, 10_000, 'kitchen ticket');

    // Preparation update from the marketplace: applied to the same transaction.
    expect((await simPost(simA.url, `/_sim/orders/${placed.order.id}/status`, { status: 'PREPARING' })).webhook_status).toBe(200);
    await waitFor(async () => (await transactionsOf('delivery-a', placed.order.id))[0]?.external_status === 'PREPARING' || undefined, 10_000, 'status update');
    await Bun.sleep(400);

    const rows = await transactionsOf('delivery-a', placed.order.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      channel: 'delivery',
      payment_provider: 'delivery-a',
      status: 'Complete',
      order_status: 'Queued',
      device_id: null,
      subtotal: 830,
      discount: 0,
      fees: 250,
      tip_amount: 100,
      total: 1180,
      customer_name: 'Dana Marketplace',
      dining_option: 'Delivery',
      external_status: 'PREPARING',
      idempotency_key: `mkt_delivery-a_${placed.order.id}`,
    });
    expect(placed.order.total).toBe(1180);
    const lines = await tdb.selectFrom('transaction_lines').select(['item_id', 'name', 'qty', 'unit_price', 'total']).where('transaction_id', '=', t.id).orderBy('position').execute();
    expect(lines).toEqual([
      { item_id: espresso.id, name: 'Espresso', qty: 2, unit_price: 260, total: 520 },
      { item_id: croissant.id, name: 'Croissant', qty: 1, unit_price: 310, total: 310 },
    ]);
    // Exactly one kitchen ticket set (one per station the lines route to), written once.
    expect(await ticketsOf(t.id)).toEqual(tickets);
    expect(tickets.every((k) => k.order_no === String(t.order_no) && k.status === 'Queued')).toBe(true);
    const kitchenItems = await tdb.selectFrom('kitchen_items').select(['name', 'qty']).where('transaction_id', '=', t.id).orderBy('position').execute();
    expect(kitchenItems).toEqual([{ name: 'Espresso', qty: 2 }, { name: 'Croissant', qty: 1 }]);
    // Accepted at the marketplace once, through the client.
    expect(simA.orders.accepts.filter((id) => id === placed.order.id)).toHaveLength(1);
    expect(simA.orders.orders.get(placed.order.id)!.status).toBe('PREPARING');
    // The repeated delivery was a duplicate; both real events were handled.
    const logs = await env.handle.db.selectFrom('webhook_logs').select('status').where('provider', '=', 'delivery-a').where('event_id', '=', placed.event_id).orderBy('created_at').execute();
    expect(logs.map((l) => l.status)).toEqual(['processed', 'duplicate']);
    expect(await eventStatuses(placed.order.id)).toEqual([
      { event_type: 'orders.notification', status: 'done' },
      { event_type: 'orders.status_changed', status: 'done' },
    ]);
  });

  test('an item we do not sell there refuses the order: denied at the marketplace, nothing written', async () => {
    const placed = await place(simA.url, storeA, { items: [{ external_id: crypto.randomUUID(), name: 'Mystery box', quantity: 1, unit_price: 999 }] });
    expect(placed.webhook_status).toBe(200);
    await waitFor(async () => (await eventStatuses(placed.order.id))[0]?.status === 'refused' || undefined, 10_000, 'refused event');
    expect(simA.orders.orders.get(placed.order.id)).toMatchObject({ status: 'DENIED', deny_reason: 'Unknown items: Mystery box' });
    expect(simA.orders.accepts.filter((id) => id === placed.order.id)).toHaveLength(0);
    expect(await transactionsOf('delivery-a', placed.order.id)).toEqual([]);
  });
});

describe('concurrent events of one order', () => {
  test('three import runs at once (order placed, then status events racing) leave one transaction and one ticket set', async () => {
    const espresso = item('Espresso');
    const order = simA.orders.create(storeA, { items: [{ external_id: espresso.id, name: 'Espresso', quantity: 1, unit_price: 280 }] });
    const connectionId = (await env.handle.db.selectFrom('integration_connections').select('id').where('provider', '=', 'delivery-a').where('external_ref', '=', storeA).executeTakeFirstOrThrow()).id;
    const deps = {
      central: env.handle.db,
      redis: env.redis,
      log: env.log,
      now: () => new Date(),
      clients: { 'delivery-a': new DeliveryAClient({ baseUrl: simA.url, apiToken: TOKENS.a }), 'delivery-b': null },
    };
    const runs = await Promise.all(['e1', 'e2', 'e3'].map((e) => importMarketplaceOrder(deps, { provider: 'delivery-a', connectionId, externalOrderId: order.id, eventId: `race-${order.id}-${e}` })));
    expect(runs.map((r) => r.outcome)).toEqual(['imported', 'imported', 'imported']);
    expect(new Set(runs.map((r) => r.transactionId)).size).toBe(1);
    const rows = await transactionsOf('delivery-a', order.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('Complete');
    const tickets = await waitFor(async () => {
      const list = await ticketsOf(rows[0]!.id);
      return list.length > 0 ? list : undefined;
    }, 10_000, 'kitchen ticket');
    await Bun.sleep(300);
    expect(await ticketsOf(rows[0]!.id)).toEqual(tickets);
    const captures = await tdb.selectFrom('transaction_steps').select('outcome').where('transaction_id', '=', rows[0]!.id).where('step', '=', 'capture').execute();
    expect(captures).toEqual([{ outcome: 'marketplace' }]);
  });
});

describe('delivery-b (acceptance on the marketplace side)', () => {
  test('order.new waits Pending without a kitchen ticket; accepted later it is captured once; a cancellation after that marks the order cancelled', async () => {
    const water = item('Sparkling water');
    const placed = await place(simB.url, storeB, { type: 'PICKUP', items: [{ external_id: water.id, name: 'Sparkling water', quantity: 3, unit_price: 350 }] });
    expect(placed.webhook_status).toBe(200);
    const pending = await waitFor(async () => (await transactionsOf('delivery-b', placed.order.id))[0], 10_000, 'pending delivery-b order');
    expect(pending).toMatchObject({ status: 'Pending', channel: 'delivery', payment_provider: 'delivery-b', total: 1050, dining_option: 'Pickup', external_status: 'CREATED', receipt_no: null });
    expect(simB.orders.accepts).toEqual([]);
    expect(await ticketsOf(pending.id)).toEqual([]);
    // Its item's stock is tracked at the location: the capture takes 3, the cancellation gives them back.
    await tdb.insertInto('inventory_levels').values({ item_id: water.id, location_id: pending.location_id, quantity: 20 }).onConflict((oc) => oc.columns(['item_id', 'location_id']).doUpdateSet({ quantity: 20 })).execute();
    const stock = async () => {
      const level = await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', water.id).where('location_id', '=', pending.location_id).executeTakeFirstOrThrow();
      const moves = await tdb.selectFrom('inventory_history').select(['type', 'quantity_change', 'quantity_after']).where('item_id', '=', water.id).where('note', 'like', `Order ${pending.order_no}%`).orderBy('created_at').orderBy('id').execute();
      return { level: level.quantity, moves };
    };

    // The merchant accepts on the marketplace; the update webhook arrives (twice).
    const accepted = await simPost(simB.url, `/_sim/orders/${placed.order.id}/status`, { status: 'ACCEPTED' });
    await simPost(simB.url, `/_sim/webhooks/${accepted.event_id}/redeliver`);
    const t = await waitFor(async () => {
      const [row] = await transactionsOf('delivery-b', placed.order.id);
      return row?.status === 'Complete' ? row : undefined;
    }, 10_000, 'captured delivery-b order');
    await waitFor(async () => ((await ticketsOf(t.id)).length > 0 ? true : undefined), 10_000, 'kitchen ticket');
    const tickets = await ticketsOf(t.id);

    const cancel = await simPost(simB.url, `/_sim/orders/${placed.order.id}/status`, { status: 'CANCELED' });
    await waitFor(async () => (await transactionsOf('delivery-b', placed.order.id))[0]?.order_status === 'Cancelled' || undefined, 10_000, 'cancelled');
    const [final] = await transactionsOf('delivery-b', placed.order.id);
    expect(final).toMatchObject({ id: pending.id, status: 'Complete', order_status: 'Cancelled', external_status: 'CANCELED' });
    // Withdrawn from the kitchen: completed, so off the screens.
    expect(await ticketsOf(t.id)).toEqual(tickets.map((k) => ({ ...k, status: 'Complete' })));
    expect(await transactionsOf('delivery-b', placed.order.id)).toHaveLength(1);
    expect((await eventStatuses(placed.order.id)).map((e) => e.event_type)).toEqual(['order.new', 'order.updated', 'order.cancelled']);
    // No sale: the stock is as before it (once, though the cancellation is sent again).
    const returned = { level: 20, moves: [{ type: 'sale' as const, quantity_change: -3, quantity_after: 17 }, { type: 'sale' as const, quantity_change: 3, quantity_after: 20 }] };
    expect(await stock()).toEqual(returned);
    await simPost(simB.url, `/_sim/webhooks/${cancel.event_id}/redeliver`);
    await Bun.sleep(500);
    expect(await stock()).toEqual(returned);
  });

  test('a cancellation after paying gives back only the stock the capture took (an item tracked since took none)', async () => {
    const water = item('Sparkling water');
    const placed = await place(simB.url, storeB, { type: 'PICKUP', items: [{ external_id: water.id, name: 'Sparkling water', quantity: 2, unit_price: 350 }] });
    const pending = await waitFor(async () => (await transactionsOf('delivery-b', placed.order.id))[0], 10_000, 'pending delivery-b order');
    await tdb.deleteFrom('inventory_levels').where('item_id', '=', water.id).where('location_id', '=', pending.location_id).execute();
    await simPost(simB.url, `/_sim/orders/${placed.order.id}/status`, { status: 'ACCEPTED' });
    await waitFor(async () => ((await transactionsOf('delivery-b', placed.order.id))[0]?.status === 'Complete' ? true : undefined), 10_000, 'captured');
    // Tracked only now: the capture took nothing.
    await tdb.insertInto('inventory_levels').values({ item_id: water.id, location_id: pending.location_id, quantity: 20 }).execute();
    await simPost(simB.url, `/_sim/orders/${placed.order.id}/status`, { status: 'CANCELED' });
    await waitFor(async () => (await transactionsOf('delivery-b', placed.order.id))[0]?.order_status === 'Cancelled' || undefined, 10_000, 'cancelled');
    const level = await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', water.id).where('location_id', '=', pending.location_id).executeTakeFirstOrThrow();
    expect(level.quantity).toBe(20);
    expect(await tdb.selectFrom('inventory_history').select('id').where('note', 'like', `Order ${pending.order_no} %`).execute()).toEqual([]);
  });

  test('an order cancelled before it was ever captured ends Cancelled', async () => {
    const water = item('Sparkling water');
    const placed = await place(simB.url, storeB, { items: [{ external_id: water.id, name: 'Sparkling water', quantity: 1, unit_price: 350 }] });
    await waitFor(async () => (await transactionsOf('delivery-b', placed.order.id))[0], 10_000, 'pending');
    await simPost(simB.url, `/_sim/orders/${placed.order.id}/status`, { status: 'CANCELED' });
    const t = await waitFor(async () => {
      const [row] = await transactionsOf('delivery-b', placed.order.id);
      return row?.status === 'Cancelled' ? row : undefined;
    }, 10_000, 'cancelled');
    expect(t).toMatchObject({ external_status: 'CANCELED', receipt_no: null });
    expect(await ticketsOf(t.id)).toEqual([]);
  });
});

describe('a marketplace order cancelled after it reached the kitchen', () => {
  test('its ticket leaves the kitchen screens (a cancelled event, live) and its station printer prints one VOID, however often the cancel comes', async () => {
    const kds = await api.deviceToken(m, 'kds');
    const onScreen = async () => ((await api.call('GET', '/api/kds/orders', { token: kds, deviceKey: true })).body.data as { id: string }[]).map((o) => o.id);
    const location = m.locations[0]!.id;
    const now = new Date();
    const printer = Bun.randomUUIDv7();
    await tdb.insertInto('printers').values({ id: printer, location_id: location, station_id: m.kds.station_id, mac: `00:11:33:${printer.slice(-8, -6)}:${printer.slice(-6, -4)}:${printer.slice(-4, -2)}`, state: 'configured', role: 'kitchen', last_reported_at: now, created_at: now, updated_at: now }).execute();
    const heard: { type: string; action: string; order: { id: string } }[] = [];
    const sub = env.redis.duplicate();
    await sub.subscribe(kitchenChannel(m.merchant.tenant_database));
    sub.on('message', (_channel, text: string) => {
      for (const line of text.split('\n')) heard.push(JSON.parse(line));
    });
    try {
      const espresso = item('Espresso');
      const croissant = item('Croissant');
      const placed = await place(simA.url, storeA, {
        items: [
          { external_id: espresso.id, name: 'Espresso', quantity: 2, unit_price: 260 },
          { external_id: croissant.id, name: 'Croissant', quantity: 1, unit_price: 310 },
        ],
      });
      const t = await waitFor(async () => {
        const [row] = await transactionsOf('delivery-a', placed.order.id);
        return row?.status === 'Complete' ? row : undefined;
      }, 10_000, 'captured delivery-a order');
      const [ticket] = await waitFor(async () => {
        const rows = await ticketsOf(t.id);
        return rows.length > 0 ? rows : undefined;
      }, 10_000, 'kitchen ticket');
      expect(await ticketsOf(t.id)).toHaveLength(1);
      expect(await onScreen()).toContain(ticket!.id);

      await simPost(simA.url, `/_sim/orders/${placed.order.id}/status`, { status: 'CANCELED' });
      // The marketplace sends it again: the same delivery (a duplicate), then a new cancel event.
      const again = await simPost(simA.url, `/_sim/orders/${placed.order.id}/status`, { status: 'CANCELED' });
      await simPost(simA.url, `/_sim/webhooks/${again.event_id}/redeliver`);
      await waitFor(async () => {
        const events = await eventStatuses(placed.order.id);
        return events.length === 3 && events.every((e) => e.status === 'done') ? true : undefined;
      }, 10_000, 'both cancel events imported');
      await Bun.sleep(400);

      expect(await transactionsOf('delivery-a', placed.order.id)).toEqual([expect.objectContaining({ status: 'Complete', order_status: 'Cancelled', external_status: 'CANCELED' })]);
      // Before: still open on the screen, nothing sent to the kitchen.
      expect(await onScreen()).not.toContain(ticket!.id);
      expect(await ticketsOf(t.id)).toEqual([{ ...ticket!, status: 'Complete' }]);
      const cancelled = heard.filter((e) => e.type === 'kitchen.ticket' && e.order.id === ticket!.id && e.action === 'cancelled');
      expect(cancelled).toEqual([
        {
          type: 'kitchen.ticket',
          seq: expect.any(Number),
          action: 'cancelled',
          location_id: location,
          station_id: m.kds.station_id,
          order: expect.objectContaining({
            id: ticket!.id,
            order_no: String(t.order_no),
            status: 'Complete',
            completed_at: expect.any(String),
            items: [expect.objectContaining({ name: 'Espresso', qty: 2 }), expect.objectContaining({ name: 'Croissant', qty: 1 })],
          }),
        } as never,
      ]);
      // The station's printer: the ticket, then one VOID of all it held.
      const jobs = await tdb.selectFrom('print_jobs').select(['kind', 'source_key', 'document']).where('printer_id', '=', printer).orderBy('seq').execute();
      expect(jobs.map((j) => [j.kind, j.source_key])).toEqual([
        ['kitchen_ticket', `ticket:${ticket!.id}`],
        ['kitchen_ticket', `void:${ticket!.id}`],
      ]);
      expect(jobs[1]!.document).toContain('-2 x VOID Espresso');
      expect(jobs[1]!.document).toContain('-1 x VOID Croissant');
      expect(jobs[1]!.document).toContain('Cancelled by delivery-a');
      expect((await listSteps(tdb, t.id)).filter((s) => s.step === 'kitchen_withdrawn')).toEqual([{ step: 'kitchen_withdrawn', outcome: 'ok', detail: 'marketplace order cancelled after paying' }]);
    } finally {
      sub.disconnect();
      await tdb.updateTable('printers').set({ state: 'retired', retired_at: new Date() }).where('id', '=', printer).execute();
    }
  });
});

describe('a marketplace order cancelled after its ticket was made ready', () => {
  test('the withdrawn ticket cannot be recalled onto the screen (409 order_cancelled, nothing changed) and leaves the kitchen\'s completed counts, a normally completed order counting', async () => {
    const kds = await api.deviceToken(m, 'kds');
    const owner = await api.ownerToken(m);
    const location = m.locations[0]!.id;
    const kdsCall = (method: string, path: string) => api.call(method, `/api/kds${path}`, { token: kds, deviceKey: true });
    const onScreen = async () => ((await kdsCall('GET', '/orders')).body.data as { id: string }[]).map((o) => o.id);
    const completedToday = async () => (await kdsCall('GET', '/metrics/summary')).body.data.completed_today as number;
    const reportOrders = async () => {
      const r = await api.call('GET', `/api/back-office/kds-reports/summary?location_id=${location}`, { token: owner });
      expect(r.status).toBe(200);
      const station = (r.body.data.stations as { station_id: string; orders: number }[]).find((s) => s.station_id === m.kds.station_id)!;
      return { total: r.body.data.totals.orders as number, station: station.orders };
    };
    const orderWithTicket = async () => {
      const placed = await place(simA.url, storeA, { items: [{ external_id: item('Espresso').id, name: 'Espresso', quantity: 1, unit_price: 260 }] });
      const t = await waitFor(async () => {
        const [row] = await transactionsOf('delivery-a', placed.order.id);
        return row?.status === 'Complete' ? row : undefined;
      }, 10_000, 'captured delivery-a order');
      const [ticket] = await waitFor(async () => {
        const rows = await ticketsOf(t.id);
        return rows.length > 0 ? rows : undefined;
      }, 10_000, 'kitchen ticket');
      return { placed, t, ticket: ticket! };
    };
    const kept = await orderWithTicket();
    const cancelled = await orderWithTicket();
    const before = { completed: await completedToday(), report: await reportOrders() };

    // The cook completes one order, and makes the other ready: the marketplace then cancels that one.
    expect((await kdsCall('PUT', `/${kept.ticket.id}/complete`)).status).toBe(200);
    expect((await kdsCall('PUT', `/${cancelled.ticket.id}/ready`)).status).toBe(200);
    await simPost(simA.url, `/_sim/orders/${cancelled.placed.order.id}/status`, { status: 'CANCELED' });
    await waitFor(async () => (await ticketsOf(cancelled.t.id))[0]?.status === 'Complete' || undefined, 10_000, 'withdrawn');
    expect(await transactionsOf('delivery-a', cancelled.placed.order.id)).toEqual([expect.objectContaining({ status: 'Complete', order_status: 'Cancelled' })]);
    const withdrawn = await tdb.selectFrom('kitchen_tickets').selectAll().where('id', '=', cancelled.ticket.id).executeTakeFirstOrThrow();

    // Within the recall window, but cancelled: refused, the ticket as it was, still off the screen.
    const recall = await kdsCall('PUT', `/${cancelled.ticket.id}/recall`);
    expect({ status: recall.status, body: recall.body }).toEqual({ status: 409, body: { message: 'This order was cancelled and cannot be recalled.', reason: 'order_cancelled' } });
    expect(await tdb.selectFrom('kitchen_tickets').selectAll().where('id', '=', cancelled.ticket.id).executeTakeFirstOrThrow()).toEqual(withdrawn);
    expect(withdrawn).toMatchObject({ status: 'Complete', recalled_at: null });
    expect(await onScreen()).not.toContain(cancelled.ticket.id);
    expect((await transactionsOf('delivery-a', cancelled.placed.order.id))[0]!.order_status).toBe('Cancelled');

    // Completed today: the order the cook completed, not the withdrawn one (made ready before its cancel).
    expect(await completedToday()).toBe(before.completed + 1);
    expect(await reportOrders()).toEqual({ total: before.report.total + 1, station: before.report.station + 1 });
  });
});
