import { tenantSession, withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import { AppError, errors } from '@pos/kernel';
import { toFieldErrorMap } from '@pos/domain/field-error';
import { lineTotals } from '@pos/domain/orders/line-totals';
import { notOpenRefusal } from '@pos/domain/orders/order-state';
import { normalisePosTenders, parseSettleBody, settle, type FrozenLeg, type FrozenTender, type SettleInput } from '@pos/tenders';
import { saleEvent, type FiscalDrawer, type LineInput } from '@pos/fiscal';
import { activeFdmFor, findJournalEntry, isSigning, refusedError, unreachableError, type FiscalService, type RecoveryHooks, type SignedFiscalEvent, type SignEventInput } from '../../fiscal/index.ts';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { findLocationOrder, isUuidText, orderNotFound, type OrderActor } from './order-queries.ts';
import { enrolmentOf, inLocationQueue, readSettleRow, settleInProcess, type InProcessSettle } from './settle-in-process.ts';
import { storedSignature } from '../../fiscal/stored-signature.ts';
import { storedLines, toOrderResource, type OrderResource, type OrderRow, type StoredLine } from './order-resource.ts';
import { requireOpenBusinessDay } from '../business-day/business-day-queries.ts';
import { queueSaleReceipt } from '../../printers/print-dispatch.ts';
import { findTakingTill, findTillByDrawer, fiscalDrawerOf, type TillRow } from '../tills/till-queries.ts';

/** Second settle of one order (409 business rule, `reason` `not_open`). */
export const ALREADY_SETTLED = 'This order is already settled.';
export const EMPTY_ORDER_SETTLE = 'An order without lines cannot be settled.';

/** The journal subject of a sale: the order. */
export const SALE_SUBJECT_TYPE = 'pos_order';

/** What the fiscal service must offer settle (the whole FiscalService in production). */
export type SettleFiscal = Pick<FiscalService, 'signInTransaction' | 'signEvent' | 'completePending' | 'signOverHead'>;

export interface SettleOrderInput {
  readonly clientUuid: string;
  /** The raw JSON body: legacy `{amount_tendered}` or `{tenders:[...]}` (parsed by `parseSettleBody`). */
  readonly body: unknown;
}

/** A payment as recorded at the till, in the order taken (`pos_transactions.payment_snapshot`). */
export interface PaymentSnapshotLeg {
  readonly method: FrozenLeg['kind'];
  readonly funding?: 'debit' | 'credit';
  readonly amount: number;
  readonly issuer?: string;
}

/**
 * The legs as recorded at the till: method, funding (cards), amount paid toward the sale (cash: the
 * rounded cash due) and issuer. Refunds compare it with the order's frozen tender.
 */
export function paymentSnapshot(tender: FrozenTender): PaymentSnapshotLeg[] {
  return tender.legs.map((leg): PaymentSnapshotLeg => {
    switch (leg.kind) {
      case 'cash':
        return { method: 'cash', amount: leg.amount };
      case 'card':
        return { method: 'card', funding: leg.funding, amount: leg.amount, ...(leg.issuer !== undefined ? { issuer: leg.issuer } : {}) };
      case 'meal_voucher':
      case 'gift_voucher':
        return { method: leg.kind, amount: leg.amount, ...(leg.issuer !== undefined ? { issuer: leg.issuer } : {}) };
    }
  });
}

const departmentId = (category: string | null | undefined) =>
  category ? category.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'general' : 'general';

/**
 * A stored order line as a fiscal line: product = catalog item, department = its category, unit
 * price = the unit after modifiers and the per-unit discount (so quantity x unitPrice = lineTotal),
 * VAT label from the frozen rate.
 */
export function fiscalLineOf(line: StoredLine): LineInput {
  const t = lineTotals(line);
  return {
    productId: line.item_id,
    productName: line.name,
    departmentId: departmentId(line.category),
    departmentName: line.category ?? 'General',
    quantity: line.qty,
    unitPrice: t.unit - t.unit_discount,
    vatRate: line.vat_rate,
    lineTotal: t.gross,
  };
}

const parseJson = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

/** The 409 for an order that can no longer be settled, or null when it is OPEN with lines. */
function settleRefusal(row: OrderRow): AppError | null {
  if (row.state === 'SETTLED') return errors.conflict(ALREADY_SETTLED, { reason: 'not_open' });
  const refused = notOpenRefusal(row.state);
  if (refused) return errors.conflict(refused.message, { reason: refused.reason });
  if (storedLines(row).length === 0) return errors.conflict(EMPTY_ORDER_SETTLE, { reason: 'empty_order' });
  return null;
}

/** Runs the tender engine on a locked OPEN order; a refusal is 422 with the verbatim message and `reason` = its code. */
async function freezeTender(tx: TenantTx, row: OrderRow, body: SettleInput): Promise<FrozenTender> {
  const location = await tx.selectFrom('locations').select(['pos_tenders']).where('id', '=', row.location_id).executeTakeFirstOrThrow();
  return freezeWith(row, body, location.pos_tenders);
}

/** The tender engine over the location's `pos_tenders` (pure). */
function freezeWith(row: OrderRow, body: SettleInput, posTenders: unknown): FrozenTender {
  const total = parseJson<{ total: number }>(row.totals).total;
  const result = settle({ total, body, config: normalisePosTenders(posTenders) });
  if (!result.ok) {
    throw errors.businessRule(result.message, { reason: result.code, ...(result.field ? { errors: { [result.field]: [result.message] } } : {}) });
  }
  return result.tender;
}

/** True when the sale takes cash (a cash leg): only then is it booked to a till. */
export const takesCash = (tender: FrozenTender): boolean => tender.legs.some((l) => l.kind === 'cash');

/**
 * The till a cash sale is booked to: the member's open staff_wallet till, else this register's
 * open register_drawer till; null without a cash leg or without an open till. Held FOR SHARE
 * inside a transaction, so the till cannot end while the sale is booked to it.
 */
async function saleTill(db: TenantDb, actor: OrderActor, tender: FrozenTender, lock: boolean): Promise<TillRow | null> {
  if (!takesCash(tender)) return null;
  return findTakingTill(db, actor, lock ? { lock: 'share' } : {});
}

function signInputFor(row: OrderRow, actor: OrderActor, tender: FrozenTender, day: { id: string; date: string }, drawer: FiscalDrawer | undefined): SignEventInput {
  const lines = storedLines(row).map(fiscalLineOf);
  return {
    locationId: row.location_id,
    deviceId: actor.deviceId,
    employeeId: actor.staffId,
    subject: { type: SALE_SUBJECT_TYPE, id: row.id },
    businessDay: day,
    // The cash lines carry the till's drawer identity (financials[].drawer).
    build: (common) => saleEvent(common, lines, tender, drawer),
  };
}

/** Writes the sale transaction and moves the order to SETTLED (inside `tx`, the order row locked). */
async function recordSale(tx: TenantTx, row: OrderRow, tender: FrozenTender, signed: SignedFiscalEvent, who: { deviceId: string; staffId: string | null }, tillId: string | null, now: Date): Promise<OrderRow> {
  const transactionId = Bun.randomUUIDv7();
  const fiscal = storedSignature(signed);
  await tx
    .insertInto('pos_transactions')
    .values({
      id: transactionId,
      order_id: row.id,
      location_id: row.location_id,
      device_id: who.deviceId,
      staff_id: who.staffId,
      total: tender.total,
      tender: JSON.stringify(tender),
      payment_snapshot: JSON.stringify(paymentSnapshot(tender)),
      captured_by_platform: false,
      fiscal: JSON.stringify(fiscal),
      business_date: signed.event.bookingDate,
      till_id: tillId,
      created_at: now,
    })
    .execute();
  return tx
    .updateTable('pos_orders')
    .set({
      state: 'SETTLED',
      tender: JSON.stringify(tender),
      fiscal: JSON.stringify(fiscal),
      transaction_id: transactionId,
      settled_at: now,
      version: row.version + 1,
      updated_at: now,
    })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * `POST /pos/orders/{clientUuid}/settle` (permission `settle`; spec 2 "Tenders and settlement").
 *
 * The body is parsed by `parseSettleBody` (422 field errors) and settled by the tender engine
 * against the order's server total and the location's `pos_tenders`; a refusal is 422 with the
 * verbatim message, `reason` = the refusal code and the field, and the order stays OPEN.
 *
 * In-process signer (software enrolment), two round trips (settle-in-process.ts, docs/performance.md):
 * one read gathers the order, its location, the enrolment, the device's counters and last journal
 * entry, the business day and the open tills; the checks run on it (OPEN with lines, else 409
 * `not_open` `This order is already settled.`; the tender; the day), the sale is signed in the process
 * over the journal head that read saw, and ONE statement writes the counters, the sealed journal
 * entry, the `pos_transactions` row and SETTLED (tender, fiscal data, `transaction_id`, `settled_at`,
 * version + 1), only if the order is still OPEN at that version, the day and till still open and the
 * head unmoved; otherwise nothing is written and the settle reads and signs again. So a sale is
 * signed exactly once and the journal stays chained. Without an active enrolment: 422
 * `fiscal_not_enrolled`, nothing signed.
 *
 * Business day and till: the sale books on the location's business day of `now` (created at its
 * first booking, held FOR SHARE so a concurrent Z close waits and counts it); after that day's Z
 * close the settle is 409 `business_day_closed` and the order stays OPEN (the next business day
 * starts at local midnight). A sale with a cash leg is booked to a till (`pos_transactions.till_id`):
 * the member's open staff_wallet till, else this register's open register_drawer till, else none
 * (null); that till's frozen drawer identity is signed on the sale's cash lines
 * (`financials[].drawer`). Sales without cash are booked to no till.
 *
 * Remote module: the tender is frozen and the order committed as SETTLING (listed by
 * `state=settling`), the module is called outside any transaction, then the sale is recorded. A
 * refusal puts the order back to OPEN; an unreachable module leaves it SETTLING (503): a retry of
 * settle, or the recovery job with `settleRecoveryHooks`, completes it with the frozen tender.
 */
export async function settleOrder(db: TenantDb, fiscal: SettleFiscal, actor: OrderActor, authorizer: StaffAuthorizer, input: SettleOrderInput, now: Date): Promise<OrderResource> {
  const session = tenantSession(db);
  // A tenant instance not made by bindTenant (no pool to prepare statements on): the transaction path.
  if (!session) return settleInTransaction(db, fiscal, actor, authorizer, input, now);
  if (!isUuidText(input.clientUuid)) throw orderNotFound();
  const next = await inLocationQueue(session, actor.locationId, async () => {
    const row = await readSettleRow(session, actor, input.clientUuid, now);
    if (!row) throw orderNotFound();
    const parsed = parseSettleBody(input.body);
    if (!parsed.ok) throw errors.validation(toFieldErrorMap(parsed.errors));
    await authorizer.require('settle');
    if (row.state === 'SETTLING') return { kind: 'settling' as const, id: row.id };
    const fdm = enrolmentOf(row);
    // The remote module is called outside any transaction and any queue: its own flow below.
    if (isSigning(fdm) && fdm.mode === 'remote') return { kind: 'remote' as const, id: row.id, body: parsed.input };
    const rules: InProcessSettle = {
      refuse: settleRefusal,
      freeze: (r) => freezeWith(r, parsed.input, r.l_pos_tenders),
      takesCash,
      signInput: (r, tender, day, till) => signInputFor(r, actor, tender, day, till ? fiscalDrawerOf(till) : undefined),
      signOverHead: (snapshot, signInput) => fiscal.signOverHead(snapshot, signInput),
      paymentSnapshot,
    };
    return { kind: 'settled' as const, row: await settleInProcess(db, session, actor, rules, row, now) };
  });
  switch (next.kind) {
    case 'settled':
      return toOrderResource(next.row);
    case 'settling':
      return resumeSettling(db, fiscal, next.id, now);
    case 'remote':
      return settleRemote(db, fiscal, actor, next.id, next.body, now);
  }
}

/**
 * The same settle in one interactive transaction (order locked, signed with `signInTransaction`), for
 * a tenant instance the two-statement path cannot run on.
 */
async function settleInTransaction(db: TenantDb, fiscal: SettleFiscal, actor: OrderActor, authorizer: StaffAuthorizer, input: SettleOrderInput, now: Date): Promise<OrderResource> {
  const found = await findLocationOrder(db, actor.locationId, input.clientUuid);
  if (!found) throw orderNotFound();
  const parsed = parseSettleBody(input.body);
  if (!parsed.ok) throw errors.validation(toFieldErrorMap(parsed.errors));
  await authorizer.require('settle');

  if (found.state === 'SETTLING') return resumeSettling(db, fiscal, found.id, now);
  const fdm = await activeFdmFor(db, actor.locationId);
  if (isSigning(fdm) && fdm.mode === 'remote') return settleRemote(db, fiscal, actor, found.id, parsed.input, now);

  const row = await withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      const current = await findLocationOrder(tx, actor.locationId, found.id, { lock: true });
      if (!current) throw orderNotFound();
      const refused = settleRefusal(current);
      if (refused) throw refused;
      const tender = await freezeTender(tx, current, parsed.input);
      const day = await requireOpenBusinessDay(tx, actor.locationId, now);
      const till = await saleTill(tx, actor, tender, true);
      const signed = await fiscal.signInTransaction(tx, signInputFor(current, actor, tender, day, till ? fiscalDrawerOf(till) : undefined));
      return recordSale(tx, current, tender, signed, actor, till?.id ?? null, now);
    }),
  );
  return toOrderResource(row);
}

/** Remote flow, step 1 (commit SETTLING with the frozen tender), 2 (sign outside), 3 (record). */
async function settleRemote(db: TenantDb, fiscal: SettleFiscal, actor: OrderActor, orderId: string, body: SettleInput, now: Date): Promise<OrderResource> {
  const { row, tender, day } = await withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      const current = await findLocationOrder(tx, actor.locationId, orderId, { lock: true });
      if (!current) throw orderNotFound();
      const refused = settleRefusal(current);
      if (refused) throw refused;
      const frozen = await freezeTender(tx, current, body);
      const day = await requireOpenBusinessDay(tx, actor.locationId, now);
      const settling = await tx
        .updateTable('pos_orders')
        .set({ state: 'SETTLING', tender: JSON.stringify(frozen), updated_at: now })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row: settling, tender: frozen, day };
    }),
  );
  const till = await saleTill(db, actor, tender, false);
  let signed: SignedFiscalEvent;
  try {
    signed = await fiscal.signEvent(db, signInputFor(row, actor, tender, day, till ? fiscalDrawerOf(till) : undefined));
  } catch (e) {
    // Unreachable: the entry is pending, the order stays SETTLING. Anything else signed nothing.
    if (!(e instanceof AppError && e.reason === 'fiscal_unreachable')) await revertToOpen(db, row.id, now);
    throw e;
  }
  return toOrderResource(await finishSettling(db, signed, now));
}

/** A settle retried while the order is SETTLING: complete the pending entry, then record or revert. */
async function resumeSettling(db: TenantDb, fiscal: SettleFiscal, orderId: string, now: Date): Promise<OrderResource> {
  const entry = await findJournalEntry(db, { type: SALE_SUBJECT_TYPE, id: orderId });
  if (!entry) {
    // The sign call never wrote an entry (the process died in between): nothing was counted.
    await revertToOpen(db, orderId, now);
    throw errors.conflict('The settlement of this order was interrupted; settle it again.', { reason: 'settle_interrupted' });
  }
  const outcome = await fiscal.completePending(db, entry.journal_id);
  switch (outcome.status) {
    case 'signed':
      return toOrderResource(await finishSettling(db, outcome.signed, now));
    case 'failed':
      await revertToOpen(db, orderId, now);
      throw refusedError(outcome.error);
    case 'pending':
      throw unreachableError(outcome.cause);
  }
}

/** SETTLING -> SETTLED with the module's answer (idempotent: a settled order is returned as it is). */
async function finishSettling(db: TenantDb, signed: SignedFiscalEvent, now: Date): Promise<OrderRow> {
  const orderId = signed.subject?.id;
  if (!orderId) throw new Error(`Signed sale ${signed.journal_id} has no order subject`);
  return withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      const row = await tx.selectFrom('pos_orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirstOrThrow();
      if (row.state !== 'SETTLING') return row;
      const tender = parseJson<FrozenTender>(row.tender);
      return recordSale(tx, row, tender, signed, { deviceId: signed.event.deviceId, staffId: signed.event.employeeId }, await signedTillId(tx, row.location_id, signed), now);
    }),
  );
}

/** The till a signed sale was booked to: the unclosed till whose drawer identity its cash line carries, else null. */
async function signedTillId(tx: TenantTx, locationId: string, signed: SignedFiscalEvent): Promise<string | null> {
  if (signed.event.kind !== 'sale') return null;
  const drawerId = signed.event.financials.find((f) => f.type === 'CASH' && f.drawer)?.drawer?.drawerId;
  if (!drawerId) return null;
  return (await findTillByDrawer(tx, locationId, drawerId))?.id ?? null;
}

/** SETTLING -> OPEN, the frozen tender dropped (the module counted nothing). */
async function revertToOpen(db: TenantDb, orderId: string, now: Date): Promise<void> {
  await withWriteRetry(() =>
    db.updateTable('pos_orders').set({ state: 'OPEN', tender: null, updated_at: now }).where('id', '=', orderId).where('state', '=', 'SETTLING').execute(),
  );
}

/** Hooks for `recoverPendingEntries`: finish or revert the orders whose sale the recovery job completed. */
export const settleRecoveryHooks = (clock: { now(): Date }): RecoveryHooks => ({
  async onSigned(tdb, signed) {
    if (signed.subject?.type === SALE_SUBJECT_TYPE) {
      await finishSettling(tdb, signed, clock.now());
      // The receipt the settle could not print while the module was away (issue 15); never fails the recovery.
      await queueSaleReceipt(tdb, signed.subject.id, clock.now()).catch(() => 0);
    }
  },
  async onFailed(tdb, failed) {
    if (failed.subject?.type === SALE_SUBJECT_TYPE) await revertToOpen(tdb, failed.subject.id, clock.now());
  },
});
