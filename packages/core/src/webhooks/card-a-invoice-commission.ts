import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import type { WebhookDeps } from './card-b-webhook.ts';
import { clawBackTo, currentCharge } from './card-a-commission.ts';
import { invoiceLocation } from './card-a-invoices.ts';
import { str, type Obj } from './payload.ts';
import type { WebhookTenant } from './tenant-resolution.ts';

/**
 * Commission on the service's own invoices (spec 3 "Card-a events", `invoice.paid`): a paid device
 * subscription invoice earns the merchant's reseller its reseller subscription commission and records
 * the invoice-collection commission, each one ledger row per invoice (`source_ref` the invoice id, the
 * ledger's unique entry index), at the configured rates (`CARD_A_RESELLER_COMMISSION_BPS`,
 * `CARD_A_INVOICE_COLLECTION_BPS`) of what card-a collected (`amount_paid`). An invoice paid out of band
 * (collected outside card-a) or not issued by the service earns neither. A refund of the invoice's charge
 * claws both back in proportion (as a card-a payment's), whichever of the two events is processed first;
 * a voided invoice voids its rows.
 */
export const RESELLER_SUBSCRIPTION_SOURCE = 'card_a_reseller_subscription';
export const INVOICE_COLLECTION_SOURCE = 'card_a_invoice_collection';
const INVOICE_SOURCES = [RESELLER_SUBSCRIPTION_SOURCE, INVOICE_COLLECTION_SOURCE];

export interface InvoiceCommissionRow {
  readonly source: typeof RESELLER_SUBSCRIPTION_SOURCE | typeof INVOICE_COLLECTION_SOURCE;
  readonly commission: number;
  readonly resellerId: string | null;
}

/**
 * The rows a paid service invoice earns (pure): the reseller's when the merchant has one, and the
 * collection commission; each `bps` basis points of the amount collected, rounded to the cent.
 */
export function invoiceCommissionRows(amountPaid: number, resellerId: string | null, rates: { readonly resellerBps: number; readonly collectionBps: number }): InvoiceCommissionRow[] {
  const at = (bps: number) => Math.round((amountPaid * bps) / 10_000);
  return [
    ...(resellerId ? [{ source: RESELLER_SUBSCRIPTION_SOURCE, commission: at(rates.resellerBps), resellerId } as const] : []),
    { source: INVOICE_COLLECTION_SOURCE, commission: at(rates.collectionBps), resellerId: null },
  ];
}

/**
 * Whether the service issued the invoice: it bills one of our subscriptions, known locally, or (its
 * record not written yet: `subscribeDevices` writes it once card-a answered, and card-a's events may come
 * first) whose metadata names a location of this tenant, as every subscription the service creates
 * does. An invoice without a subscription was made in card-a's dashboard, not by the service.
 */
async function issuedByService(deps: WebhookDeps, tenant: WebhookTenant, invoice: Obj): Promise<boolean> {
  const subscriptionId = str(invoice.subscription);
  if (!subscriptionId) return false;
  const known = await bindTenant(deps.db, tenant.tenantDatabase).selectFrom('billing_subscriptions').select('id').where('provider_subscription_id', '=', subscriptionId).executeTakeFirst();
  return known !== undefined || invoiceLocation(invoice) === tenant.locationId;
}

/**
 * `invoice.paid`: the invoice's commission rows, written once (a replay or another delivery finds them:
 * `ignored`), less what card-a already refunded of its charge (`clawBackRefunded`).
 */
export async function invoicePaid(deps: WebhookDeps, tenant: WebhookTenant, invoice: Obj, eventId: string): Promise<'processed' | 'ignored'> {
  const invoiceId = str(invoice.id);
  if (!invoiceId) throw new Error('invoice_unreadable');
  const facts = { invoice_id: invoiceId, merchant_id: tenant.merchantId };
  if (invoice.paid_out_of_band === true) {
    deps.log.info('card-a invoice paid out of band: no commission', facts);
    return 'ignored';
  }
  if (!(await issuedByService(deps, tenant, invoice))) {
    deps.log.info('card-a invoice not issued by the service: no commission', facts);
    return 'ignored';
  }
  const amountPaid = invoice.amount_paid;
  if (typeof amountPaid !== 'number' || !Number.isSafeInteger(amountPaid) || amountPaid < 0) throw new Error('invoice_amount_missing');
  if (amountPaid === 0) {
    deps.log.info('card-a invoice collected nothing: no commission', facts);
    return 'ignored';
  }
  const merchant = await deps.db.selectFrom('merchants').select('reseller_id').where('id', '=', tenant.merchantId).executeTakeFirst();
  const rows = invoiceCommissionRows(amountPaid, merchant?.reseller_id ?? null, deps.invoiceCommission ?? { resellerBps: 0, collectionBps: 0 });
  // An invoice's rows are written together by its first run or not at all: a later run (another
  // delivery, a replay after a failed charge read) with the merchant's reseller changed meanwhile must
  // not add the new reseller's row to an invoice paid before. One writer per invoice at a time.
  const written = await deps.db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`card-a-invoice:${invoiceId}`}, 0))`.execute(tx);
    const existing = await tx.selectFrom('commission_ledger').select('id').where('source', 'in', INVOICE_SOURCES).where('source_ref', '=', invoiceId).where('is_adjustment', '=', false).limit(1).executeTakeFirst();
    if (existing) return [];
    return tx
      .insertInto('commission_ledger')
      .values(rows.map((r) => ({ id: Bun.randomUUIDv7(), merchant_id: tenant.merchantId, source: r.source, source_ref: invoiceId, commission_amount: r.commission, reseller_id: r.resellerId, created_at: deps.now() })))
      .onConflict((oc) => oc.columns(['source', 'source_ref']).where(sql<boolean>`not is_adjustment`).doNothing())
      .returning('id')
      .execute();
  });
  // A refund processed before these rows existed found none (`location_not_resolved`), so it is clawed
  // back here. The rows are committed first: a refund event from then on finds them and adjusts them
  // itself, and one that found none was refunded at card-a before the charge is read below.
  const charge = str(invoice.charge);
  const clawed = charge ? await clawBackRefunded(deps, invoiceId, charge, eventId) : 'ignored';
  return written.length || clawed === 'processed' ? 'processed' : 'ignored';
}

/**
 * `invoice.voided`: card-a voids only an unpaid invoice, so it normally has no commission; should rows
 * exist (a paid invoice voided by some path card-a adds later), they are voided, which also keeps
 * refunds from adjusting them. The invoice itself is read at card-a where the back office shows it
 * (past bills), so nothing else is stored.
 */
export async function invoiceVoided(deps: WebhookDeps, tenant: WebhookTenant, invoice: Obj): Promise<'processed'> {
  const invoiceId = str(invoice.id);
  if (!invoiceId) throw new Error('invoice_unreadable');
  const r = await deps.db
    .updateTable('commission_ledger')
    .set({ status: 'voided' })
    .where('merchant_id', '=', tenant.merchantId)
    .where('source', 'in', INVOICE_SOURCES)
    .where('source_ref', '=', invoiceId)
    .where('is_adjustment', '=', false)
    .where('status', '!=', 'voided')
    .executeTakeFirst();
  const voided = Number(r.numUpdatedRows);
  if (voided) deps.log.warn('card-a invoice voided after its commission was recorded: commission voided', { invoice_id: invoiceId, merchant_id: tenant.merchantId, rows: voided });
  else deps.log.info('card-a invoice voided: no commission was recorded for it', { invoice_id: invoiceId, merchant_id: tenant.merchantId });
  return 'processed';
}

/** The merchant whose service invoice earned commission (null when the ledger has none for it). */
export async function merchantOfInvoice(deps: WebhookDeps, invoiceId: string): Promise<string | null> {
  const row = await deps.db.selectFrom('commission_ledger').select('merchant_id').where('source', 'in', INVOICE_SOURCES).where('source_ref', '=', invoiceId).where('is_adjustment', '=', false).executeTakeFirst();
  return row?.merchant_id ?? null;
}

/**
 * `charge.refunded` of a service invoice's charge: each of the invoice's rows (not voided) gives back
 * its share of the refunded amount, as a card-a payment's row does (`clawBackTo`, the charge read
 * again at card-a under the rows' lock).
 */
export async function adjustInvoiceForRefund(deps: WebhookDeps, invoiceId: string, charge: Obj, eventId: string): Promise<'processed' | 'ignored'> {
  const chargeId = str(charge.id);
  if (!chargeId) throw new Error('charge_id_missing');
  return clawBackRefunded(deps, invoiceId, chargeId, eventId);
}

/**
 * Brings the invoice's rows (not voided) to their share of what card-a has refunded of `chargeId` now,
 * under the rows' lock: whichever of `invoice.paid` and `charge.refunded` runs second finds the share
 * given back already (`clawBackTo` adds only the difference), so a refund nets once in either order.
 * Each adjustment's source reference is the event that made it.
 */
async function clawBackRefunded(deps: WebhookDeps, invoiceId: string, chargeId: string, eventId: string): Promise<'processed' | 'ignored'> {
  return deps.db.transaction().execute(async (tx) => {
    const entries = await tx
      .selectFrom('commission_ledger')
      .selectAll()
      .where('source', 'in', INVOICE_SOURCES)
      .where('source_ref', '=', invoiceId)
      .where('is_adjustment', '=', false)
      .where('status', '!=', 'voided')
      .orderBy('id')
      .forUpdate()
      .execute();
    if (!entries.length) return 'ignored';
    const current = await currentCharge(deps, chargeId);
    let adjusted = false;
    for (const e of entries) if ((await clawBackTo(deps, tx, e, current, eventId)) === 'processed') adjusted = true;
    return adjusted ? 'processed' : 'ignored';
  });
}
