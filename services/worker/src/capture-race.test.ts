import { rowMessages } from '@pos/kernel/queues/index';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { capturePayment, type CaptureResult } from '@pos/core/payments/capture-payment';
import { runPostCapture } from '@pos/core/payments/post-capture';
import { CardBClient, startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { deleteTenantOutbox, openTestEnv, type TestEnv } from './test-support.ts';

/**
 * Capture races, proven (issue 12 point 9): at least 1,000 transactions, each captured twice at once,
 * in-process against the real PostgreSQL and Redis: webhook against poll (both orders) and poll
 * against poll (two workers); the polls ask the card-b simulator over HTTP. Then the post-capture
 * sequence of every transaction is delivered twice at once. Zero double captures, zero lost
 * captures, exactly one post-capture sequence each. CAPTURE_RACES sets the count (default 1000).
 */
const RACES = Math.max(1000, Number(process.env.CAPTURE_RACES ?? 1000));
const BATCH = 25;
let env: TestEnv;
let sim: CardBSimulator;
let m: DemoSeedResult;
let tdb: TenantDb;
const providers = () => paymentProvidersFromEnv({ CARD_B_BASE_URL: sim.url, CARD_B_CLIENT_ID: 'race', CARD_B_CLIENT_SECRET: 'race-secret' });

beforeAll(async () => {
  env = await openTestEnv();
  sim = startCardBSimulator({ clientId: 'race', clientSecret: 'race-secret' });
  m = await seedDemo(env.handle.db, { slug: `race-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
});
afterAll(async () => {
  // No worker runs here: the sequences' outbox rows would otherwise wait for the next test file's
  // worker (thousands of rows of a dropped schema ahead of that file's own jobs).
  await deleteTenantOutbox(env.handle.db, m.merchant.tenant_database);
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await sim.stop();
  await env.close();
});

async function inBatches<T>(items: readonly T[], size: number, fn: (x: T, i: number) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map((x, k) => fn(x, i + k)));
}

describe('capture races', () => {
  test(`${RACES} webhook-vs-poll races: zero double, zero lost, one post-capture sequence each`, async () => {
    const location = m.locations[0]!.id;
    const item = m.items[0]!;
    const STOCK = 1_000_000;
    await tdb.insertInto('inventory_levels').values({ item_id: item.id, location_id: location, quantity: STOCK }).execute();
    const base = Date.now();
    const txs = Array.from({ length: RACES }, (_, i) => {
      const key = `idemp_${m.kiosk.device_id}_${base + i}`;
      return { id: Bun.randomUUIDv7(), key, terminal: `RACE-${i}` };
    });
    for (let i = 0; i < txs.length; i += 200) {
      const chunk = txs.slice(i, i + 200);
      await tdb
        .insertInto('transactions')
        .values(
          chunk.map((t, k) => ({
            id: t.id,
            location_id: location,
            device_id: m.kiosk.device_id,
            channel: 'kiosk' as const,
            order_no: i + k + 1,
            status: 'Awaiting Payment' as const,
            order_status: null,
            payment_provider: 'card-b' as const,
            payment_snapshot: JSON.stringify({ provider: 'card-b', idempotency_key: t.key, sessionId: t.key, terminalId: t.terminal }),
            idempotency_key: t.key,
            all_idempotency_keys: [t.key],
            receipt_no: null,
            subtotal: item.unit_price,
            discount: 0,
            vat: 0,
            total: item.unit_price,
            by_vat_rate: JSON.stringify([]),
            offers: JSON.stringify([]),
            menu_version: 1,
            customer_id: null,
            loyalty_token: 'loyal-token',
            cart_session_id: null,
            created_at: new Date(),
            updated_at: new Date(),
          })),
        )
        .execute();
      await tdb
        .insertInto('transaction_lines')
        .values(chunk.map((t) => ({ transaction_id: t.id, position: 0, item_id: item.id, category_id: null, name: item.name, qty: 1, unit_price: item.unit_price, vat_rate: item.vat_rate, gross: item.unit_price, discount: 0, total: item.unit_price, modifiers: JSON.stringify([]), variant: null })))
        .execute();
    }
    // Every sale paid at the terminal (card-b simulator over HTTP).
    const client = new CardBClient({ baseUrl: sim.url, clientId: 'race', clientSecret: 'race-secret' });
    await inBatches(txs, 50, async (t) => {
      await client.startSale({ sessionId: t.key, terminalId: t.terminal, cashRegisterId: m.kiosk.device_id, amount: item.unit_price, currencyCode: '978', merchantReference: '', customerTrns: '' });
      await sim.complete(t.key);
    });

    const deps = { tdb, tenantDatabase: m.merchant.tenant_database, redis: env.redis, providers: providers(), log: env.log, now: () => new Date() };
    const webhook = (t: (typeof txs)[number]) => {
      const s = sim.session(t.key)!;
      return capturePayment(deps, t.id, { kind: 'webhook', outcome: 'succeeded', data: { transactionId: s.transactionId, orderCode: s.orderCode, eventId: 0, via: 'webhook' } });
    };
    const poll = (t: (typeof txs)[number]) => capturePayment(deps, t.id, { kind: 'poll' });
    const results = new Map<string, CaptureResult[]>();
    const started = performance.now();
    await inBatches(txs, BATCH, async (t, i) => {
      const pair = i % 3 === 0 ? [webhook(t), poll(t)] : i % 3 === 1 ? [poll(t), webhook(t)] : [poll(t), poll(t)];
      results.set(t.id, await Promise.all(pair));
    });
    const captureMs = performance.now() - started;

    const ids = txs.map((t) => t.id);
    const doubles = [...results.values()].filter((r) => r.filter((x) => x.completed).length > 1).length;
    const noneWon = [...results.values()].filter((r) => r.filter((x) => x.completed).length === 0).length;
    const rows = await tdb.selectFrom('transactions').select(['id', 'status', 'receipt_no', 'order_status', 'loyalty_token']).where('id', 'in', ids).execute();
    const lost = rows.filter((r) => r.status !== 'Complete').length;
    const captureSteps = await tdb.selectFrom('transaction_steps').select('transaction_id').where('step', '=', 'capture').where('transaction_id', 'in', ids).execute();
    const outbox = (await env.handle.db.selectFrom('outbox').select(['job', 'payload']).where('job', '=', 'payment.post-capture').execute()).filter((r) => ids.includes((r.payload as { transaction_id: string }).transaction_id));

    expect({ doubles, noneWon, lost }).toEqual({ doubles: 0, noneWon: 0, lost: 0 });
    expect([...results.values()].every((r) => r.every((x) => x.status === 'Complete'))).toBe(true);
    expect(captureSteps.length).toBe(RACES);
    expect(new Set(captureSteps.map((s) => s.transaction_id)).size).toBe(RACES);
    expect(outbox.length).toBe(RACES);
    expect(new Set(rows.map((r) => r.receipt_no)).size).toBe(RACES);
    expect(Math.max(...rows.map((r) => r.receipt_no!))).toBe(RACES);
    expect(rows.every((r) => r.order_status === 'Queued' && r.loyalty_token === null)).toBe(true);
    const level = await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', item.id).executeTakeFirstOrThrow();
    expect(level.quantity).toBe(STOCK - RACES);
    const webhookWins = rows.length && (await tdb.selectFrom('transactions').select('id').where('id', 'in', ids).where(({ eb, ref }) => eb(ref('payment_snapshot', '->>').key('via'), '=', 'webhook')).execute()).length;

    // Each post-capture job delivered twice at once: one sequence per transaction.
    const seqStarted = performance.now();
    await inBatches(txs, BATCH, async (t) => {
      await Promise.all([runPostCapture(tdb, m.merchant.tenant_database, t.id, true), runPostCapture(tdb, m.merchant.tenant_database, t.id, true)]);
    });
    const seqMs = performance.now() - seqStarted;
    const claims = await tdb.selectFrom('transaction_steps').select('transaction_id').where('step', '=', 'queue_jobs').where('transaction_id', 'in', ids).execute();
    expect(claims.length).toBe(RACES);
    const dispatches = (await env.handle.db.selectFrom('outbox').select(['job', 'payload']).execute())
      .flatMap((r) => rowMessages(r))
      .filter((x) => x.job === 'order.dispatch' && ids.includes((x.payload as { transaction_id: string }).transaction_id));
    expect(dispatches.length).toBe(RACES);
    const kitchen = await tdb.selectFrom('kitchen_items').select((e) => e.fn.countAll<string>().as('n')).where('transaction_id', 'in', ids).executeTakeFirstOrThrow();
    expect(Number(kitchen.n)).toBe(RACES);

    console.log(
      `capture races: ${RACES} transactions, ${RACES * 2} concurrent captures (${BATCH} at a time) in ${Math.round(captureMs)} ms; ` +
        `double ${doubles}, lost ${lost}; webhook won ${webhookWins}, poll won ${RACES - Number(webhookWins)}; post-capture sequences ${claims.length} from ${RACES * 2} deliveries in ${Math.round(seqMs)} ms`,
    );
  }, 300_000);
});
