import { sellRegisterStock } from './settle-statements.ts';
import { tenantSession, withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import { AppError, errors } from '@pos/kernel';
import { toFieldErrorMap } from '@pos/domain/field-error';
import { lineTotals } from '@pos/domain/orders/line-totals';
import { notOpenRefusal, orderTransition, type OrderAction, type OrderState } from '@pos/domain/orders/order-state';
import { normalisePosTenders, parseSettleBody, settle, type FrozenLeg, type FrozenTender, type SettleInput } from '@pos/tenders';
import { saleEvent, type FiscalDrawer, type LineInput } from '@pos/fiscal';
import { isSigning, requireVatLabels, type FiscalService, type SignedFiscalEvent, type SignEventInput } from '../../fiscal/index.ts';
import { findChangeEntry, resumeSignedChange, runSignedChange, type PreparedChange, type SignedChangeKind } from '../signed-change/signed-change.ts';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { findLocationOrder, isUuidText, orderNotFound } from './order-queries.ts';
import { enrolmentOf, inLocationQueue, readSettleRow, settleInProcess, type InProcessSettle } from './settle-in-process.ts';
import { storedSignature } from '../../fiscal/stored-signature.ts';
import { storedLines, toOrderResource, type OrderResource, type OrderRow, type StoredLine } from './order-resource.ts';
import { requireOpenBusinessDay } from '../business-day/business-day-queries.ts';
import { queueSaleReceipt } from '../../printers/print-dispatch.ts';
import { findTakingTill, findTillByDrawer, fiscalDrawerOf, type TillRow } from '../tills/till-queries.ts';
import type { RegisterActor } from '../register-actor.ts';

/** Second settle of one order (409 business rule, `reason` `not_open`). */
export const ALREADY_SETTLED = 'This order is already settled.';
export const EMPTY_ORDER_SETTLE = 'An order without lines cannot be settled.';

/** The journal subject of a sale: the order. */
export const SALE_SUBJECT_TYPE = 'pos_order';

/** What the fiscal service must offer settle (the whole FiscalService in production). */
export type SettleFiscal = Pick<FiscalService, 'signInTransaction' | 'reserveRemote' | 'sendReserved' | 'completePending' | 'signOverHead'>;

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

/** The 409 for an order that can no longer be settled, the 422 `fiscal_vat_rate` for a line no VAT label signs, or null. */
function settleRefusal(row: OrderRow): AppError | null {
  if (row.state === 'SETTLED') return errors.conflict(ALREADY_SETTLED, { reason: 'not_open' });
  const refused = notOpenRefusal(row.state);
  if (refused) return errors.conflict(refused.message, { reason: refused.reason });
  const lines = storedLines(row);
  if (lines.length === 0) return errors.conflict(EMPTY_ORDER_SETTLE, { reason: 'empty_order' });
  try {
    requireVatLabels(lines.map((l) => l.vat_rate));
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
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
async function saleTill(db: TenantDb, actor: RegisterActor, tender: FrozenTender, lock: boolean): Promise<TillRow | null> {
  if (!takesCash(tender)) return null;
  return findTakingTill(db, actor, lock ? { lock: 'share' } : {});
}

function signInputFor(row: OrderRow, actor: RegisterActor, tender: FrozenTender, day: { id: string; date: string }, drawer: FiscalDrawer | undefined): SignEventInput {
  return { ...saleInput(row, actor, tender, day, drawer), subject: { type: SALE_SUBJECT_TYPE, id: row.id } };
}

/** The sale's event input (the signed-change step adds the subject). */
function saleInput(row: OrderRow, actor: RegisterActor, tender: FrozenTender, day: { id: string; date: string }, drawer: FiscalDrawer | undefined): PreparedChange<null>['input'] {
  const lines = storedLines(row).map(fiscalLineOf);
  return {
    locationId: row.location_id,
    deviceId: actor.deviceId,
    employeeId: actor.staffId,
    businessDay: day,
    // The cash lines carry the till's drawer identity (financials[].drawer).
    build: (common) => saleEvent(common, lines, tender, drawer),
  };
}

/** Writes the sale transaction and moves the order to `state` (SETTLED, from the domain; inside `tx`, the order row locked). */
async function recordSale(tx: TenantTx, row: OrderRow, state: OrderState, tender: FrozenTender, signed: SignedFiscalEvent, who: { deviceId: string; staffId: string | null }, tillId: string | null, now: Date): Promise<OrderRow> {
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
  await sellRegisterStock.execute(tx, [row.id, row.location_id, now]);
  return tx
    .updateTable('pos_orders')
    .set({
      state,
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
 * The sale is a signed change (`saleChange`, pos/signed-change): with the in-process signer it takes
 * the change's one-statement write over the journal head, two round trips (settle-in-process.ts,
 * docs/performance.md): one read gathers the order, its location, the enrolment, the device's counters
 * and last journal entry, the business day and the open tills; the checks run on it (OPEN with lines,
 * else 409 `not_open` `This order is already settled.`; the tender; the day), the sale is signed in the
 * process over the journal head that read saw, and ONE statement writes the counters, the sealed
 * journal entry, the `pos_transactions` row and SETTLED (tender, fiscal data, `transaction_id`,
 * `settled_at`, version + 1), only if the order is still OPEN at that version, the day and till still
 * open and the head unmoved; otherwise nothing is written and the settle reads and signs again. So a
 * sale is signed exactly once and the journal stays chained. Without an active enrolment: 422
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
 * Remote module (the step's remote flow): the tender is frozen and the order committed as SETTLING
 * (listed by `state=settling`), the module is called outside any transaction, then the sale is
 * recorded. A refusal puts the order back to OPEN; an unreachable module leaves it SETTLING (503): a
 * retry of settle, or the recovery job, completes it with the frozen tender (`saleChange`).
 */
export async function settleOrder(db: TenantDb, fiscal: SettleFiscal, actor: RegisterActor, authorizer: StaffAuthorizer, input: SettleOrderInput, now: Date): Promise<OrderResource> {
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
    // The remote module is called outside any transaction and any queue: the step runs after the queue.
    if (isSigning(fdm) && fdm.mode === 'remote') return { kind: 'remote' as const, id: row.id, body: parsed.input, fdm };
    const rules: InProcessSettle = {
      refuse: settleRefusal,
      freeze: (r) => freezeWith(r, parsed.input, r.l_pos_tenders),
      takesCash,
      signInput: (r, tender, day, till) => signInputFor(r, actor, tender, day, till ? fiscalDrawerOf(till) : undefined),
      signOverHead: (snapshot, signInput) => fiscal.signOverHead(snapshot, signInput),
      paymentSnapshot,
    };
    const settled = await runSignedChange(db, fiscal, saleChange, { ...saleCall(actor, row.id, parsed.input, now), enrolment: fdm, overHead: () => settleInProcess(db, session, actor, rules, row, now) }, now);
    return { kind: 'settled' as const, row: settled };
  });
  switch (next.kind) {
    case 'settled':
      return toOrderResource(next.row);
    case 'settling':
      return resumeSettling(db, fiscal, next.id, now);
    case 'remote':
      return toOrderResource(await runSignedChange(db, fiscal, saleChange, { ...saleCall(actor, next.id, next.body, now), enrolment: next.fdm }, now));
  }
}

/**
 * The same settle through the signed-change step's transaction (order locked, signed with
 * `signInTransaction`), for a tenant instance the two-statement path cannot run on.
 */
async function settleInTransaction(db: TenantDb, fiscal: SettleFiscal, actor: RegisterActor, authorizer: StaffAuthorizer, input: SettleOrderInput, now: Date): Promise<OrderResource> {
  const found = await findLocationOrder(db, actor.locationId, input.clientUuid);
  if (!found) throw orderNotFound();
  const parsed = parseSettleBody(input.body);
  if (!parsed.ok) throw errors.validation(toFieldErrorMap(parsed.errors));
  await authorizer.require('settle');
  if (found.state === 'SETTLING') return resumeSettling(db, fiscal, found.id, now);
  return toOrderResource(await runSignedChange(db, fiscal, saleChange, saleCall(actor, found.id, parsed.input, now), now));
}

/** The order's next state for a settle step, from the domain machine; a refusal is the 409 `not_open`. */
function settleStep(row: OrderRow, action: Extract<OrderAction, 'begin_settle' | 'finish_settle' | 'revert_settle'>) {
  return orderTransition({ state: row.state, fired: row.fired, line_count: storedLines(row).length }, action);
}

/**
 * The sale as a call of the signed-change step: `prepare` locks the OPEN order, freezes the tender,
 * books the day and the till and reserves the sale as SETTLING (the domain's `begin_settle`; with the
 * in-process signer the same transaction finishes it, so nobody ever sees it SETTLING).
 */
function saleCall(actor: RegisterActor, orderId: string, body: SettleInput, now: Date) {
  return {
    locationId: actor.locationId,
    async prepare(tx: TenantTx): Promise<PreparedChange<null>> {
      const current = await findLocationOrder(tx, actor.locationId, orderId, { lock: true });
      if (!current) throw orderNotFound();
      const refused = settleRefusal(current);
      if (refused) throw refused;
      const step = settleStep(current, 'begin_settle');
      if (step.kind === 'refused') throw errors.conflict(step.message, { reason: step.reason });
      const tender = await freezeTender(tx, current, body);
      const day = await requireOpenBusinessDay(tx, actor.locationId, now);
      const till = await saleTill(tx, actor, tender, true);
      await tx.updateTable('pos_orders').set({ state: step.state, tender: JSON.stringify(tender), updated_at: now }).where('id', '=', current.id).execute();
      return { subjectId: current.id, state: null, input: saleInput(current, actor, tender, day, till ? fiscalDrawerOf(till) : undefined) };
    },
    respond: (row: OrderRow) => row,
  };
}

/** A settle retried while the order is SETTLING: complete the pending entry, then record or revert. */
async function resumeSettling(db: TenantDb, fiscal: SettleFiscal, orderId: string, now: Date): Promise<OrderResource> {
  const entry = await findChangeEntry(db, saleChange, orderId);
  if (!entry) {
    // The entry commits with SETTLING (runSignedChange), so this is a row from before that: nothing was counted.
    await withWriteRetry(() => db.transaction().execute((tx) => saleChange.undo(tx, orderId, null, now)));
    throw errors.conflict('The settlement of this order was interrupted; settle it again.', { reason: 'settle_interrupted' });
  }
  return toOrderResource(await resumeSignedChange(db, fiscal, saleChange, entry, orderId, now));
}

/** The till a signed sale was booked to: the unclosed till whose drawer identity its cash line carries, else null. */
async function signedTillId(tx: TenantTx, locationId: string, signed: SignedFiscalEvent): Promise<string | null> {
  if (signed.event.kind !== 'sale') return null;
  const drawerId = signed.event.financials.find((f) => f.type === 'CASH' && f.drawer)?.drawer?.drawerId;
  if (!drawerId) return null;
  return (await findTillByDrawer(tx, locationId, drawerId))?.id ?? null;
}

/**
 * Sales as a signed change. The reservation is the order SETTLING with its frozen tender; `finish`
 * writes the sale transaction and moves it to SETTLED (the domain's `finish_settle`; an order no longer
 * SETTLING is returned as it is), `undo` puts it back to OPEN without its tender (`revert_settle`: the
 * module counted nothing). After a late signature the recovery job queues the receipt the settle could
 * not print (issue 15).
 */
export const saleChange: SignedChangeKind<OrderRow> = {
  name: 'sale',
  subjectType: SALE_SUBJECT_TYPE,
  async finish(tx, orderId, signed, now) {
    const row = await tx.selectFrom('pos_orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirstOrThrow();
    const step = settleStep(row, 'finish_settle');
    if (step.kind === 'refused') return row; // settled already (or reverted): as it is
    const tender = parseJson<FrozenTender>(row.tender);
    return recordSale(tx, row, step.state, tender, signed, { deviceId: signed.event.deviceId, staffId: signed.event.employeeId }, await signedTillId(tx, row.location_id, signed), now);
  },
  async undo(tx, orderId, _refusal, now) {
    const row = await tx.selectFrom('pos_orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirst();
    if (!row) return;
    const step = settleStep(row, 'revert_settle');
    if (step.kind === 'refused') return;
    await tx.updateTable('pos_orders').set({ state: step.state, tender: null, updated_at: now }).where('id', '=', orderId).execute();
  },
  async afterRecovered(tdb, orderId, now) {
    await queueSaleReceipt(tdb, orderId, now);
  },
  async unfinished(db, olderThan, limit) {
    return (await db.selectFrom('pos_orders').select('id').where('state', '=', 'SETTLING').where('updated_at', '<=', olderThan).orderBy('updated_at').limit(limit).execute()).map((r) => r.id);
  },
};
