import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type Redis from 'ioredis';
import { bindTenant, type TenantDb } from '@pos/db';
import { systemClock } from '@pos/kernel';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { listSteps } from '@pos/core/payments/post-capture';
import { kitchenChannel } from '@pos/core/payments/payment-events';
import { createPaymentBatchHandlers } from './jobs/payments.handlers.ts';
import type { JobContext } from './jobs/job-handler.ts';
import { deleteTenantOutbox, openTestEnv, waitFor, type TestEnv } from './test-support.ts';

/**
 * The `kitchen.order` push of a captured order (the real-time nudge to the kitchen displays and registers)
 * is sent once per transaction: the post-capture job run again (a retry, a batch relayed twice, the sweep
 * re-driving it) writes nothing new and announces nothing again. Real PostgreSQL and Redis pub/sub.
 */
let env: TestEnv;
let m: DemoSeedResult;
let tdb: TenantDb;
let sub: Redis;
const heard: { type: string; transaction_id: string }[] = [];
let orderNo = 7000;

beforeAll(async () => {
  env = await openTestEnv();
  m = await seedDemo(env.handle.db, { slug: `kord-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  sub = env.redis.duplicate();
  await sub.subscribe(kitchenChannel(m.merchant.tenant_database));
  sub.on('message', (_channel, text: string) => {
    for (const line of text.split('\n')) heard.push(JSON.parse(line));
  });
});
afterAll(async () => {
  sub.disconnect();
  await deleteTenantOutbox(env.handle.db, m.merchant.tenant_database);
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await env.close();
});

/** A kiosk transaction captured (its post-capture job is left in the outbox: the test runs it itself). */
async function captured(opts: { item?: string; variant?: { id: string; name: string } } = {}): Promise<string> {
  const id = Bun.randomUUIDv7();
  const item = m.items.find((i) => i.name === (opts.item ?? 'Espresso'))!;
  const key = `idemp_${m.kiosk.device_id}_${Date.now()}${orderNo}`;
  await tdb
    .insertInto('transactions')
    .values({ id, location_id: m.locations[0]!.id, device_id: m.kiosk.device_id, channel: 'kiosk', order_no: ++orderNo, status: 'Awaiting Payment', order_status: null, payment_provider: 'card-b', payment_snapshot: JSON.stringify({ provider: 'card-b' }), idempotency_key: key, all_idempotency_keys: [key], receipt_no: null, subtotal: item.unit_price, discount: 0, vat: 0, total: item.unit_price, by_vat_rate: JSON.stringify([]), offers: JSON.stringify([]), menu_version: 1, customer_id: null, loyalty_token: null, cart_session_id: null, created_at: new Date(), updated_at: new Date() })
    .execute();
  const { category_id } = await tdb.selectFrom('items').select('category_id').where('id', '=', item.id).executeTakeFirstOrThrow();
  await tdb.insertInto('transaction_lines').values({ transaction_id: id, position: 0, item_id: item.id, category_id, name: item.name, qty: 1, unit_price: item.unit_price, vat_rate: item.vat_rate, gross: item.unit_price, discount: 0, total: item.unit_price, modifiers: JSON.stringify([]), variant: opts.variant ? JSON.stringify(opts.variant) : null }).execute();
  const r = await capturePayment({ tdb, tenantDatabase: m.merchant.tenant_database, redis: env.redis, log: env.log, now: () => new Date() }, id, { kind: 'webhook', outcome: 'succeeded', data: {} });
  expect(r.status).toBe('Complete');
  return id;
}

const ctx = (): JobContext => ({ db: env.handle.db, log: env.log, clock: systemClock, notifications: { send: async () => undefined } as unknown as JobContext['notifications'], jobId: `test-${crypto.randomUUID()}` });
const postCapture = (ids: readonly string[]) =>
  createPaymentBatchHandlers({ redis: env.redis })['payment.post-capture'](
    ids.map((id) => ({ tenant_database: m.merchant.tenant_database, transaction_id: id, stock_changed: false })),
    ctx(),
  );
const ordersHeard = (id: string) => heard.filter((e) => e.type === 'kitchen.order' && e.transaction_id === id);

describe('kitchen.order push: once per transaction', () => {
  test('the post-capture sequence run again (retry, duplicate relay, sweep) announces the order once', async () => {
    const id = await captured();
    await postCapture([id]);
    await waitFor(() => ordersHeard(id).length === 1, 5000, 'the first kitchen.order');
    expect(ordersHeard(id)).toEqual([{ type: 'kitchen.order', location_id: m.locations[0]!.id, transaction_id: id, order_no: orderNo, items: [{ name: 'Espresso', qty: 1 }] } as never]);

    // The job again, alone and in a batch with a new order: only the new order is announced.
    await postCapture([id]);
    const other = await captured();
    await postCapture([id, other]);
    await waitFor(() => ordersHeard(other).length === 1, 5000, "the new order's kitchen.order");
    await Bun.sleep(300);
    expect(ordersHeard(id).length).toBe(1);
    expect(ordersHeard(other).length).toBe(1);
    expect((await listSteps(tdb, id)).filter((s) => s.step === 'queue_jobs').length).toBe(1);
  });
});

describe('kitchen.order push: the item as the kitchen documents name it', () => {
  test('a line sold in a variant is pushed with the variant, as its kitchen ticket shows it', async () => {
    const id = await captured({ item: 'Spaghetti bolognese', variant: { id: crypto.randomUUID(), name: 'Large' } });
    await postCapture([id]);
    await waitFor(() => ordersHeard(id).length === 1, 5000, 'the kitchen.order');
    expect(ordersHeard(id)).toEqual([{ type: 'kitchen.order', location_id: m.locations[0]!.id, transaction_id: id, order_no: orderNo, items: [{ name: 'Spaghetti bolognese (Large)', qty: 1 }] } as never]);
    // The same name as the order's kitchen ticket line.
    const lines = await tdb.selectFrom('kitchen_ticket_lines as l').innerJoin('kitchen_tickets as t', 't.id', 'l.ticket_id').select('l.name').where('t.source_id', '=', id).execute();
    expect(lines).toEqual([{ name: 'Spaghetti bolognese (Large)' }]);
  });
});
