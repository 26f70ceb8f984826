import type Redis from 'ioredis';
import { sql } from 'kysely';
import { bindTenant, withWriteRetry, type CentralDb, type TenantDb } from '@pos/db';
import type { Logger } from '@pos/kernel';
import { ORDER_OUT_OF_RANGE, marketplaceOrderInRange, paymentTransition, priceMarketplaceOrder } from '@pos/domain';
import type { MarketplaceProvider } from '@pos/domain/payments/transaction-values';
import { ProviderError } from '@pos/providers/shared/provider-error';
import type { MarketplaceOrder, MarketplaceOrderStatus } from '@pos/providers/shared/marketplace-orders';
import { capturePayment } from '../payments/capture-payment.ts';
import { takeOutOfDailyStats } from '../payments/daily-stats-uncount.ts';
import { insertQuotedLines, loadTransaction, nextCounter, type TransactionRow } from '../payments/transaction-records.ts';
import { recordStep } from '../payments/post-capture.ts';
import { moveSoldStock, stockSoldOf } from '../payments/sold-stock.ts';
import { syncConnection, type SyncConnection } from './sync-runners.ts';
import { acquireLock } from '../webhooks/redis-lock.ts';
import { importFinished } from './marketplace-import-recovery.ts';
import { withdrawKitchenTickets } from '../kitchen/withdraw-tickets.ts';
import { kitchenPublisher, type KitchenEvent } from '../kitchen/kitchen-events.ts';

const ORDER_LOCK_MS = 30_000;

/**
 * Inbound marketplace orders (issue 17; spec 3 section 6 "Other providers", "Pending: transaction
 * created, no payment initiated (third-party orders)"). A delivery-a / delivery-b order event names
 * an order; the `integration.order-import` job reads it through the marketplace's client and keeps
 * exactly one transaction for it (keyed by the marketplace order id, under a transaction-scoped
 * advisory lock), whatever the number or order of the webhooks:
 * - new: a `Pending` transaction on channel `delivery`, `payment_provider` the marketplace, lines
 *   mapped from the marketplace items (the menu push gave each item our item id) at the marketplace's
 *   prices; an item we do not sell on the delivery channel at the location refuses the order (denied
 *   at the marketplace while it can still be; recorded as `refused` either way), nothing written; so does
 *   an order whose quantities or amounts the transaction cannot hold (`marketplaceOrderInRange`);
 * - accepted at the marketplace (by us when the connection's `auto_accept_orders` is on, else by the
 *   merchant on the marketplace's side, reported by a later webhook): captured as paid by the
 *   marketplace, which runs the normal post-capture sequence (kitchen documents and tickets, register
 *   dispatch) through the outbox;
 * - cancelled or denied: a transaction not yet captured is `Cancelled`; a captured one keeps its
 *   payment and its `order_status` becomes `Cancelled`, and it is taken out of the daily stats once
 *   (`takeOutOfDailyStats`) and its kitchen tickets are withdrawn once (`withdrawKitchenTickets`);
 * The marketplace's latest status is kept in `external_status`.
 */
export interface MarketplaceClient {
  getOrder(orderId: string): Promise<MarketplaceOrder>;
  acceptOrder(orderId: string): Promise<MarketplaceOrder>;
  denyOrder(orderId: string, reason: string): Promise<MarketplaceOrder>;
}

/** The marketplaces: one list in the domain, which the transaction filters accept too. */
export type { MarketplaceProvider };

export interface MarketplaceImportDeps {
  readonly central: CentralDb;
  readonly redis: Redis;
  readonly log: Logger;
  readonly now: () => Date;
  readonly clients: Readonly<Record<MarketplaceProvider, MarketplaceClient | null>>;
}

export interface MarketplaceImportJob {
  readonly provider: MarketplaceProvider;
  readonly connectionId: string;
  readonly externalOrderId: string;
  readonly eventId: string;
}

export type ImportOutcome =
  /** Written: created, captured, cancelled or its marketplace status updated. */
  | 'imported'
  /** An item we do not sell there: the order was refused (denied at the marketplace when still possible). */
  | 'refused'
  /** Nothing to do: connection gone or disabled, an order cancelled before we ever saw it. */
  | 'ignored'
  | 'not_configured'
  /** The marketplace does not know the order, or it belongs to another store. */
  | 'failed';

export interface ImportResult {
  readonly outcome: ImportOutcome;
  readonly transactionId: string | null;
  readonly detail: string | null;
}

const ACTIVE: readonly MarketplaceOrderStatus[] = ['ACCEPTED', 'PREPARING', 'READY', 'PICKED_UP', 'DELIVERED'];
const ENDED: readonly MarketplaceOrderStatus[] = ['CANCELED', 'DENIED'];

/** The event's row in `integration_events` gets the import's outcome (`pending` until then). */
async function markEvent(central: CentralDb, job: MarketplaceImportJob, status: string): Promise<void> {
  await central.updateTable('integration_events').set({ status }).where('provider', '=', job.provider).where('event_id', '=', job.eventId).where('connection_id', '=', job.connectionId).execute();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface MappedLine {
  readonly item_id: string;
  readonly category_id: string | null;
  readonly name: string;
  readonly qty: number;
  readonly unit_price: number;
  readonly vat_rate: number;
}

/** Our items behind the marketplace lines: visible, on the delivery channel, sold at the location. Unknown names come back in `unknown`. */
async function mapLines(tdb: TenantDb, locationId: string, order: MarketplaceOrder): Promise<{ lines: MappedLine[]; unknown: string[] }> {
  const ids = [...new Set(order.items.map((i) => i.external_id).filter((id) => UUID.test(id)))];
  const rows = ids.length
    ? await tdb
        .selectFrom('items')
        .select(['id', 'name', 'category_id', 'vat_rate'])
        .where('id', 'in', ids)
        .where('visible', '=', true)
        .where(sql<boolean>`'delivery' = any(channels)`)
        .where((eb) => eb.or([eb('location_ids', 'is', null), sql<boolean>`${locationId}::uuid = any(location_ids)`]))
        .execute()
    : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const lines: MappedLine[] = [];
  const unknown: string[] = [];
  for (const i of order.items) {
    const it = byId.get(i.external_id);
    if (!it) unknown.push(i.name);
    else lines.push({ item_id: it.id, category_id: it.category_id, name: it.name, qty: i.quantity, unit_price: i.unit_price, vat_rate: Number(it.vat_rate) });
  }
  return { lines, unknown };
}

async function findByOrder(tdb: TenantDb, provider: string, orderId: string): Promise<TransactionRow | undefined> {
  return tdb.selectFrom('transactions').selectAll().where('external_provider', '=', provider).where('external_order_id', '=', orderId).executeTakeFirst();
}

/**
 * Creates the `Pending` transaction of a marketplace order, once: under an advisory lock on
 * (marketplace, order id), a transaction already there is answered instead.
 */
async function createOnce(tdb: TenantDb, c: SyncConnection & { locationId: string }, provider: MarketplaceProvider, order: MarketplaceOrder, lines: readonly MappedLine[], now: Date): Promise<TransactionRow> {
  return withWriteRetry(() =>
    tdb.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`${provider}:${order.id}`}))`.execute(tx);
      const existing = await tx.selectFrom('transactions').selectAll().where('external_provider', '=', provider).where('external_order_id', '=', order.id).executeTakeFirst();
      if (existing) return existing;
      // What the marketplace collected is the total; anything it took off (its promotions) is a discount,
      // spread over the lines so that VAT is on what was charged for the goods, then off the fee and the
      // tip; anything it charged beyond them is a fee (`priceMarketplaceOrder`): goods + fees + tip = total.
      const priced = priceMarketplaceOrder(
        lines.map((l, i) => ({ key: String(i), item_id: l.item_id, category_id: l.category_id, qty: l.qty, unit_price: l.unit_price, vat_rate: l.vat_rate })),
        order,
      );
      const { subtotal, discount, by_vat_rate: groups } = priced;
      const key = `mkt_${provider}_${order.id}`;
      const id = Bun.randomUUIDv7();
      const orderNo = await nextCounter(tx, c.locationId, 'order_no');
      await tx
        .insertInto('transactions')
        .values({
          id,
          location_id: c.locationId,
          device_id: null,
          channel: 'delivery',
          order_no: orderNo,
          status: 'Pending',
          order_status: null,
          payment_provider: provider,
          payment_snapshot: JSON.stringify({ idempotency_key: key, marketplace: provider, marketplace_order_id: order.id, marketplace_display_id: order.display_id }),
          idempotency_key: key,
          all_idempotency_keys: [key],
          invalid_idempotency_keys: [],
          receipt_no: null,
          subtotal,
          discount,
          vat: groups.reduce((s, g) => s + g.vat, 0),
          fees: priced.fees,
          tip_amount: priced.tip,
          total: order.total,
          by_vat_rate: JSON.stringify(groups),
          offers: JSON.stringify([]),
          menu_version: null,
          is_test: false,
          customer_id: null,
          loyalty_token: null,
          customer_name: order.customer.name.slice(0, 200) || null,
          dining_option: order.type === 'PICKUP' ? 'Pickup' : 'Delivery',
          cart_session_id: null,
          external_provider: provider,
          external_order_id: order.id,
          external_status: order.status,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await insertQuotedLines(
        tx,
        id,
        lines.map((l, position) => ({ ...l, gross: priced.lines[position]!.gross, discount: priced.lines[position]!.discount, total: priced.lines[position]!.total, modifiers: [], variant: null })),
      );
      return tx.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    }),
  );
}

/**
 * Applies the marketplace's status to the transaction: the status is written first (with the
 * cancellation in one commit), then an accepted order is captured, so whoever sees the capture sees
 * the marketplace status that caused it.
 */
async function applyStatus(deps: MarketplaceImportDeps, tdb: TenantDb, tenantDatabase: string, t: TransactionRow, order: MarketplaceOrder, provider: MarketplaceProvider): Promise<void> {
  const now = deps.now();
  if (ENDED.includes(order.status)) {
    let withdrawn: KitchenEvent[] = [];
    await tdb.transaction().execute(async (tx) => {
      withdrawn = [];
      const cur = await tx.selectFrom('transactions').select(['status']).where('id', '=', t.id).forUpdate().executeTakeFirstOrThrow();
      const d = paymentTransition(cur.status, { kind: 'cancel' });
      const change = d.kind === 'accepted' ? { status: d.next } : cur.status === 'Complete' ? { order_status: 'Cancelled' } : {};
      await tx.updateTable('transactions').set({ ...change, external_status: order.status, updated_at: now }).where('id', '=', t.id).execute();
      // Paid, then cancelled by the marketplace: no sale, so not in the daily stats either, and the stock
      // its capture took comes back (each once: a step marks it).
      if (d.kind !== 'accepted' && cur.status === 'Complete') {
        await takeOutOfDailyStats(tx, t.id);
        if (await recordStep(tx, t.id, 'stock_returned', 'ok', 'marketplace order cancelled after paying')) {
          // What the capture took, as its step names it (an item tracked since took nothing).
          const capture = await tx.selectFrom('transaction_steps').select('detail').where('transaction_id', '=', t.id).where('step', '=', 'capture').executeTakeFirst();
          await moveSoldStock(tx, { location_id: t.location_id, lines: stockSoldOf(capture?.detail) }, 'returned', `Order ${t.order_no} cancelled by ${provider}`, now);
        }
        // Nothing to cook: its tickets leave the screens and its stations' printers print a VOID, once (a
        // cancel delivered again finds the step). Before its post-capture there are none, and none come.
        if (await recordStep(tx, t.id, 'kitchen_withdrawn', 'ok', 'marketplace order cancelled after paying')) {
          withdrawn = await withdrawKitchenTickets(tx, t.id, now, `Cancelled by ${provider}`);
        }
      }
    });
    await kitchenPublisher(deps.redis, tenantDatabase, deps.log)(withdrawn);
    return;
  }
  await tdb.updateTable('transactions').set({ external_status: order.status, updated_at: now }).where('id', '=', t.id).where('external_status', 'is distinct from', order.status).execute();
  if (ACTIVE.includes(order.status) && t.status !== 'Complete' && t.status !== 'Cancelled') {
    await capturePayment({ tdb, tenantDatabase, redis: deps.redis, log: deps.log, now: deps.now }, t.id, { kind: 'marketplace', data: { marketplace: provider, marketplace_order_id: order.id } });
  }
}

/**
 * Runs one import job. Throws only what is worth retrying (the marketplace unreachable or failing on
 * its side); everything else is an outcome recorded on the event.
 */
export async function importMarketplaceOrder(deps: MarketplaceImportDeps, job: MarketplaceImportJob): Promise<ImportResult> {
  const done = async (outcome: ImportOutcome, transactionId: string | null, detail: string | null, eventStatus: string): Promise<ImportResult> => {
    // The delivery's log row first: whoever sees the event's outcome sees its failure cleared.
    await importFinished(deps.central, deps.log, job);
    await markEvent(deps.central, job, eventStatus);
    return { outcome, transactionId, detail };
  };
  const c = await syncConnection(deps.central, job.connectionId);
  // A store let go or disabled since its event came in still delivers that order: the marketplace took it
  // (and the customer's money) while the store was ours. New events of a disabled store are not stored.
  if (!c || (c.status !== 'active' && c.status !== 'disabled') || !c.locationId || c.provider !== job.provider) return done('ignored', null, 'connection gone or not active', 'ignored');
  const client = deps.clients[job.provider];
  if (!client) return done('not_configured', null, `${job.provider} is not configured`, 'not_configured');
  const conn = { ...c, locationId: c.locationId };
  const settings = await deps.central.selectFrom('integration_connections').select('settings').where('id', '=', c.id).executeTakeFirstOrThrow();
  const autoAccept = (settings.settings as { auto_accept_orders?: unknown }).auto_accept_orders === true;

  // Events of one order run one at a time, each reading the marketplace's state under the lock, so a
  // slower run can never write an older status over a newer one.
  const lock = await acquireLock(deps.redis, `marketplace_order:${job.provider}:${job.externalOrderId}`, ORDER_LOCK_MS, ORDER_LOCK_MS / 2, deps.log);
  if (!lock.held) throw new Error(`marketplace order ${job.provider} ${job.externalOrderId} is being imported by another run; retried`);
  try {
    return await importLocked(deps, job, conn, client, autoAccept, done);
  } finally {
    await lock.release();
  }
}

async function importLocked(
  deps: MarketplaceImportDeps,
  job: MarketplaceImportJob,
  c: SyncConnection & { locationId: string },
  client: MarketplaceClient,
  autoAccept: boolean,
  done: (outcome: ImportOutcome, transactionId: string | null, detail: string | null, eventStatus: string) => Promise<ImportResult>,
): Promise<ImportResult> {
  const conn = c;
  let order: MarketplaceOrder;
  try {
    order = await client.getOrder(job.externalOrderId);
  } catch (e) {
    if (e instanceof ProviderError && e.kind === 'http' && e.status !== null && e.status >= 400 && e.status < 500 && e.status !== 429) return done('failed', null, e.message, 'failed');
    throw e;
  }
  if (order.store_id !== c.externalRef) return done('failed', null, 'the order belongs to another store', 'failed');

  const tdb = bindTenant(deps.central, c.tenantDatabase);
  let t = await findByOrder(tdb, job.provider, order.id);
  if (!t) {
    if (ENDED.includes(order.status)) return done('ignored', null, `order ${order.status} before import`, 'done');
    // An order the transaction columns cannot hold would fail the insert on every retry for a day:
    // refused once, like an unknown item, and denied while the marketplace still lets us.
    if (!marketplaceOrderInRange(order)) {
      if (order.status === 'CREATED') await client.denyOrder(order.id, ORDER_OUT_OF_RANGE);
      deps.log.warn('marketplace order refused: amounts out of range', { provider: job.provider, order_id: order.id });
      return done('refused', null, ORDER_OUT_OF_RANGE, 'refused');
    }
    const { lines, unknown } = await mapLines(tdb, conn.locationId, order);
    if (unknown.length > 0 || lines.length === 0) {
      // An empty order has nothing unknown to name: the reason the marketplace shows must say why.
      const reason = unknown.length > 0 ? `Unknown items: ${unknown.join(', ')}`.slice(0, 500) : 'The order has no items';
      // Denied while the marketplace still lets us; an order it already accepted is flagged on the event.
      if (order.status === 'CREATED') await client.denyOrder(order.id, reason);
      deps.log.warn('marketplace order refused: unknown items', { provider: job.provider, order_id: order.id, unknown });
      return done('refused', null, reason, 'refused');
    }
    t = await createOnce(tdb, conn, job.provider, order, lines, deps.now());
  }
  if (order.status === 'CREATED' && autoAccept) {
    try {
      order = await client.acceptOrder(order.id);
    } catch (e) {
      // Changed at the marketplace meanwhile (cancelled by the customer): its status now decides.
      if (!(e instanceof ProviderError && e.kind === 'http' && e.status === 409)) throw e;
      order = await client.getOrder(order.id);
    }
  }
  await applyStatus(deps, tdb, c.tenantDatabase, t, order, job.provider);
  return done('imported', t.id, order.status, 'done');
}

/** The transaction of a marketplace order (tests, support). */
export async function marketplaceTransaction(central: CentralDb, tenantDatabase: string, provider: string, orderId: string): Promise<TransactionRow | null> {
  const t = await findByOrder(bindTenant(central, tenantDatabase), provider, orderId);
  return t ? loadTransaction(bindTenant(central, tenantDatabase), t.id) : null;
}
