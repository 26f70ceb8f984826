import { sql, type Selectable } from 'kysely';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import { isUuid } from '@pos/domain/ids';
import { isPaymentProvider, runningPaymentProvider, type PaymentProvider } from '@pos/domain';
import type { Quote } from '../catalog/quote-basket.ts';

export type TransactionRow = Selectable<TenantTables['transactions']>;
export type TransactionLineRow = Selectable<TenantTables['transaction_lines']>;

/**
 * The payment provider stamped on a transaction that takes a payment here. A marketplace order
 * (`payment_provider` `delivery-a` / `delivery-b`) is paid by its marketplace and takes none: 409.
 */
export function stampedPaymentProvider(t: Pick<TransactionRow, 'payment_provider'>): PaymentProvider {
  if (!isPaymentProvider(t.payment_provider)) throw errors.conflict('This order is paid by its marketplace and takes no payment here.', { reason: 'paid_by_marketplace' });
  return t.payment_provider;
}

/** Next value of a per-location counter (order or receipt number), inside the caller's transaction. */
export async function nextCounter(tx: TenantTx | TenantDb, locationId: string, name: 'order_no' | 'receipt_no'): Promise<number> {
  const row = await tx
    .insertInto('transaction_counters')
    .values({ location_id: locationId, name, value: 1 })
    .onConflict((oc) => oc.columns(['location_id', 'name']).doUpdateSet({ value: sql<number>`transaction_counters.value + 1` }))
    .returning('value')
    .executeTakeFirstOrThrow();
  return row.value;
}

/**
 * Removes a new order whose payment could not start, while it is still Pending (its lines go by
 * cascade; its order number stays used): a refused request leaves nothing behind. True when it went.
 */
export async function discardUnstarted(db: TenantDb | TenantTx, id: string): Promise<boolean> {
  const r = await db.deleteFrom('transactions').where('id', '=', id).where('status', '=', 'Pending').executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** A priced line as stored: what `quoteBasket` answers (a marketplace order's lines give no modifiers or variant). */
export type PricedLine = Pick<Quote['lines'][number], 'item_id' | 'category_id' | 'name' | 'qty' | 'unit_price' | 'vat_rate' | 'gross' | 'discount' | 'total' | 'modifiers' | 'variant'>;

/** A new order's lines as priced server-side (never the client's prices), in order. */
export async function insertQuotedLines(tx: TenantTx | TenantDb, transactionId: string, lines: readonly PricedLine[]): Promise<void> {
  await tx
    .insertInto('transaction_lines')
    .values(
      lines.map((l, position) => ({
        transaction_id: transactionId,
        position,
        item_id: l.item_id,
        category_id: l.category_id,
        name: l.name,
        qty: l.qty,
        unit_price: l.unit_price,
        vat_rate: l.vat_rate,
        gross: l.gross,
        discount: l.discount,
        total: l.total,
        modifiers: JSON.stringify(l.modifiers),
        variant: l.variant === null ? null : JSON.stringify(l.variant),
      })),
    )
    .execute();
}

/** The transaction by internal id; 404 when absent (or of another tenant: a different schema). */
export async function loadTransaction(db: TenantDb | TenantTx, id: string): Promise<TransactionRow> {
  // A path id that is not a UUID names no transaction (and must not reach the uuid column).
  if (!isUuid(id)) throw errors.notFound('transaction');
  const row = await db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw errors.notFound('transaction');
  return row;
}

/**
 * A transaction's sync state with its location's register (what the last dispatch ended with); nulls
 * before any. A dispatch that found no register writes only its `register_dispatch` step (the batch
 * path, `dispatchStatement`), so without a sync row that step answers.
 */
export async function registerSyncOf(db: TenantDb | TenantTx, transactionId: string): Promise<{ status: string | null; detail: string | null }> {
  const r = await db.selectFrom('transaction_register_sync').select(['status', 'detail']).where('transaction_id', '=', transactionId).executeTakeFirst();
  if (r) return r;
  const step = await db.selectFrom('transaction_steps').select(['outcome', 'detail']).where('transaction_id', '=', transactionId).where('step', '=', 'register_dispatch').executeTakeFirst();
  return step?.outcome === 'not_configured' ? { status: 'not_configured', detail: step.detail } : { status: null, detail: null };
}

/** Records what a register dispatch of a transaction ended with (the latest outcome replaces the one before). */
export async function setRegisterSync(db: TenantDb | TenantTx, transactionId: string, status: string, detail: string): Promise<void> {
  await db
    .insertInto('transaction_register_sync')
    .values({ transaction_id: transactionId, status, detail })
    .onConflict((oc) => oc.column('transaction_id').doUpdateSet({ status, detail, updated_at: new Date() }))
    .execute();
}

/**
 * A kiosk's transaction by any of its idempotency keys (current or folded into the history), limited
 * to that device: another device's key is a 404 like an unknown one.
 */
export async function findKioskTransactionByKey(db: TenantDb, deviceId: string, key: string): Promise<TransactionRow> {
  const row = await db
    .selectFrom('transactions')
    .selectAll()
    .where('device_id', '=', deviceId)
    .where((eb) => eb.or([eb('idempotency_key', '=', key), eb(sql<boolean>`all_idempotency_keys @> ARRAY[${key}]::text[]`, '=', true)]))
    // Keys are unique per device (its key clock); for keys minted before it, the one whose current key it is wins.
    .orderBy(sql`idempotency_key = ${key}`, 'desc')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) throw errors.notFound('transaction');
  return row;
}

export async function loadLines(db: TenantDb | TenantTx, transactionId: string): Promise<TransactionLineRow[]> {
  return db.selectFrom('transaction_lines').selectAll().where('transaction_id', '=', transactionId).orderBy('position').execute();
}

/** The transaction as routes answer it (money in integer cents, status Title Case). */
export function transactionView(t: TransactionRow, lines?: readonly TransactionLineRow[]) {
  return {
    id: t.id,
    order_no: t.order_no,
    location_id: t.location_id,
    device_id: t.device_id,
    channel: t.channel,
    status: t.status,
    order_status: t.order_status,
    payment_provider: t.payment_provider,
    running_provider: runningPaymentProvider(t.payment_provider, t.payment_snapshot.provider),
    idempotency_key: t.idempotency_key,
    all_idempotency_keys: t.all_idempotency_keys,
    invalid_idempotency_keys: t.invalid_idempotency_keys,
    payment_snapshot: t.payment_snapshot,
    receipt_no: t.receipt_no,
    subtotal: t.subtotal,
    discount: t.discount,
    vat: t.vat,
    fees: t.fees,
    tip_amount: t.tip_amount,
    total: t.total,
    by_vat_rate: t.by_vat_rate,
    is_free: t.is_free,
    auto_success: t.auto_success,
    // A payment test-mode order: no money was taken, so the stats and reports leave it out.
    is_test: t.is_test,
    created_at: t.created_at.toISOString(),
    completed_at: t.completed_at ? t.completed_at.toISOString() : null,
    ...(lines
      ? {
          lines: lines.map((l) => ({
            item_id: l.item_id,
            name: l.name,
            qty: l.qty,
            unit_price: l.unit_price,
            vat_rate: Number(l.vat_rate),
            gross: l.gross,
            discount: l.discount,
            total: l.total,
            modifiers: l.modifiers,
            variant: l.variant,
          })),
        }
      : {}),
  };
}
export type TransactionView = ReturnType<typeof transactionView>;
