import { sql, type Selectable, type Transaction } from 'kysely';
import type { CentralTables } from '@pos/db';
import type { WebhookDeps } from './card-b-webhook.ts';
import { str, type Obj } from './payload.ts';

/**
 * card-a commission in the central ledger (issue 13 items 4 and 6). A completed card-a payment has one
 * ledger row (`source` `card_a_payment`, `source_ref` the payment intent); the platform's application
 * fee, which may attach after the payment succeeded, is back-filled onto that row and is its
 * commission; a refund adjusts the commission in proportion to the amount refunded. Both events are
 * claimed once by their event id before they get here.
 */
export const CARD_A_LEDGER_SOURCE = 'card_a_payment';
export const CARD_A_REFUND_REASON = 'card_a_refund';

/** The ledger row of a completed card-a payment (idempotent: one row per payment intent). */
export async function recordCardAPayment(deps: WebhookDeps, merchantId: string, paymentIntentId: string): Promise<void> {
  await deps.db
    .insertInto('commission_ledger')
    .values({ id: Bun.randomUUIDv7(), merchant_id: merchantId, source: CARD_A_LEDGER_SOURCE, source_ref: paymentIntentId, commission_amount: 0, created_at: deps.now() })
    .onConflict((oc) => oc.columns(['source', 'source_ref']).where(sql<boolean>`not is_adjustment`).doNothing())
    .execute();
}

const ledgerRow = (deps: WebhookDeps, paymentIntentId: string) =>
  deps.db.selectFrom('commission_ledger').selectAll().where('source', '=', CARD_A_LEDGER_SOURCE).where('source_ref', '=', paymentIntentId).where('is_adjustment', '=', false);

/** The merchant a card-a charge's payment belongs to, from its ledger row (null when there is none). */
export async function merchantOfPaymentIntent(deps: WebhookDeps, paymentIntentId: string): Promise<string | null> {
  return (await ledgerRow(deps, paymentIntentId).select('merchant_id').executeTakeFirst())?.merchant_id ?? null;
}

/** The payment intent of an application fee's charge, asked of the provider (the fee names only the charge). */
export async function paymentIntentOfFee(deps: WebhookDeps, fee: Obj): Promise<string | null> {
  const chargeId = str(fee.charge);
  if (!chargeId) return null;
  if (!deps.providers.cardA) throw new Error('card_a_not_configured');
  return (await deps.providers.cardA.retrieveCharge(chargeId)).payment_intent;
}

export type LedgerRow = Selectable<CentralTables['commission_ledger']>;
export type Tx = Transaction<CentralTables>;

/** The merchant's locked ledger row of a payment (not voided), or `ledger_row_missing` (replayable). */
async function lockedEntry(tx: Tx, paymentIntentId: string): Promise<LedgerRow> {
  const entry = await tx
    .selectFrom('commission_ledger')
    .selectAll()
    .where('source', '=', CARD_A_LEDGER_SOURCE)
    .where('source_ref', '=', paymentIntentId)
    .where('is_adjustment', '=', false)
    .where('status', '!=', 'voided')
    .forUpdate()
    .executeTakeFirst();
  if (!entry) throw new Error('ledger_row_missing');
  return entry;
}

/**
 * The charge as card-a has it now: events are not delivered in order, so an event's own
 * `amount_refunded` may be older than one already applied. Read under the ledger rows' lock, so
 * concurrent events see the charge in order.
 */
export async function currentCharge(deps: WebhookDeps, chargeId: string): Promise<{ amount: number; amount_refunded: number }> {
  if (!deps.providers.cardA) throw new Error('card_a_not_configured');
  const charge = await deps.providers.cardA.retrieveCharge(chargeId);
  if (!(charge.amount > 0) || !(charge.amount_refunded >= 0)) throw new Error('charge_amounts_missing');
  return charge;
}

/** Brings the commission given back on `entry` to `commission × refunded / amount` of the charge as card-a has it now (`currentCharge`). */
async function clawBackRefunded(deps: WebhookDeps, tx: Tx, entry: LedgerRow, chargeId: string, sourceRef: string): Promise<'processed' | 'ignored'> {
  return clawBackTo(deps, tx, entry, await currentCharge(deps, chargeId), sourceRef);
}

/**
 * One adjustment (reason `card_a_refund`, source reference `sourceRef`) bringing what `entry` gave back
 * to its share of the charge refunded; a refund is never undone (no positive adjustment). The caller
 * holds the entry's row lock.
 */
export async function clawBackTo(deps: WebhookDeps, tx: Tx, entry: LedgerRow, charge: { amount: number; amount_refunded: number }, sourceRef: string): Promise<'processed' | 'ignored'> {
  const given = await tx
    .selectFrom('commission_ledger')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('commission_amount'), sql<number>`0`).as('sum'))
    .where('adjusts_id', '=', entry.id)
    .where('reason', '=', CARD_A_REFUND_REASON)
    .executeTakeFirstOrThrow();
  const target = -Math.round((entry.commission_amount * Math.min(charge.amount_refunded, charge.amount)) / charge.amount);
  const delta = target - Number(given.sum);
  if (delta >= 0) return 'ignored';
  await tx
    .insertInto('commission_ledger')
    .values({
      id: Bun.randomUUIDv7(),
      merchant_id: entry.merchant_id,
      // The entry's own source (a payment's, or a service invoice's commission): adjustments are read by it.
      source: entry.source,
      reseller_id: entry.reseller_id,
      source_ref: sourceRef,
      is_adjustment: true,
      adjusts_id: entry.id,
      commission_amount: delta,
      reason: CARD_A_REFUND_REASON,
      created_at: deps.now(),
    })
    .onConflict((oc) => oc.columns(['adjusts_id', 'source_ref']).where(sql<boolean>`is_adjustment`).doNothing())
    .execute();
  return 'processed';
}

/**
 * `application_fee.created`: the fee is written onto the payment's existing ledger row. A refund
 * processed before the fee attached found no commission to claw back, so the part already refunded
 * is clawed back now (source reference the fee event).
 */
export async function backfillApplicationFee(deps: WebhookDeps, paymentIntentId: string, fee: Obj, eventId: string): Promise<'processed' | 'ignored'> {
  const amount = typeof fee.amount === 'number' && Number.isInteger(fee.amount) && fee.amount >= 0 ? fee.amount : null;
  if (amount === null) throw new Error('fee_amount_missing');
  const chargeId = str(fee.charge);
  if (!chargeId) throw new Error('fee_charge_missing');
  return deps.db.transaction().execute(async (tx) => {
    // Either no row (stored as failed, replayable once the payment is recorded) or already filled.
    const entry = await lockedEntry(tx, paymentIntentId);
    if (entry.fee_amount !== null) {
      deps.log.info('card-a application fee already on the ledger row', { payment_intent: paymentIntentId });
      return 'ignored';
    }
    await tx.updateTable('commission_ledger').set({ fee_amount: amount, commission_amount: amount }).where('id', '=', entry.id).execute();
    await clawBackRefunded(deps, tx, { ...entry, fee_amount: amount, commission_amount: amount }, chargeId, eventId);
    return 'processed';
  });
}

/**
 * `charge.refunded`: the charge's cumulative `amount_refunded` (as card-a answers it now) brings the
 * commission given back so far to its proportion with one adjustment for the difference (a second
 * partial refund adjusts only its own part). Reason `card_a_refund`, source reference the event.
 */
export async function adjustForRefund(deps: WebhookDeps, paymentIntentId: string, charge: Obj, eventId: string): Promise<'processed' | 'ignored'> {
  const chargeId = str(charge.id);
  if (!chargeId) throw new Error('charge_id_missing');
  return deps.db.transaction().execute(async (tx) => clawBackRefunded(deps, tx, await lockedEntry(tx, paymentIntentId), chargeId, eventId));
}
