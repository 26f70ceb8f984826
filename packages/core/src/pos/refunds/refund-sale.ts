import type { Selectable } from 'kysely';
import type { TenantDb, TenantTables } from '@pos/db';
import { AppError, errors, type FieldErrors, type Logger } from '@pos/kernel';
import type { Cents } from '@pos/domain/money';
import { vatGroup, type VatRateTotal } from '@pos/domain/orders/order-totals';
import { refundEvent, type FiscalCommon } from '@pos/fiscal';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { isUuidText } from '../orders/order-queries.ts';
import { storedLines, type StoredLine } from '../orders/order-resource.ts';
import { fiscalLineOf } from '../orders/settle-order.ts';
import { requireOpenBusinessDay } from '../business-day/business-day-queries.ts';
import type { JournalEntryState } from '../../fiscal/index.ts';
import {
  findChangeEntry,
  orphanSignature,
  resumeSignedChange,
  runSignedChange,
  storedSignature,
  type ResumableSignedChangeFiscal,
  type SignedChangeKind,
  type StoredSignature,
} from '../signed-change/signed-change.ts';
import { findTakingTill, fiscalDrawerOf, isUniqueViolation } from '../tills/till-queries.ts';
import { allRecordedAtTill, tendersAgree } from './tender-agreement.ts';
import { refundCash } from './refund-cash.ts';
import type { RegisterActor } from '../register-actor.ts';

/** Spec 2 refund rules 3 and 4, verbatim. */
export const CARD_PAID_MESSAGE = 'Card-paid sales cannot be refunded on the POS yet — refund via the payment provider.';
export const TENDER_MISMATCH_MESSAGE = 'This sale cannot be refunded on the POS: its payment records do not match. Nothing was refunded — contact support.';
export const ALREADY_REFUNDED_MESSAGE = 'Some of these lines were already refunded: a line is refunded once.';
export const NOTHING_LEFT_MESSAGE = 'Every line of this sale was already refunded.';
export const NO_OPEN_TILL_MESSAGE = 'A refund hands back cash from an open till: open a till first.';

/** Journal subject of a refund. */
export const REFUND_SUBJECT_TYPE = 'pos_refund';
const LINES_ONCE = 'pos_refund_lines_once';

export interface RefundSaleInput {
  readonly transaction_id: string;
  readonly mode: 'full' | 'partial';
  readonly line_uuids?: readonly string[] | null;
}

export interface RefundLineResource {
  uuid: string;
  item_id: string;
  name: string;
  qty: number;
  /** Cents handed back for the line (its line total). */
  amount: Cents;
}

export interface RefundResource {
  id: string;
  transaction_id: string;
  order_id: string;
  mode: 'full' | 'partial';
  /** Cents handed back in cash: the refunded lines' totals less `rounding`. */
  amount: Cents;
  /** The refunded lines' totals - the cash handed back: the sale's cash rounding, settled by the refund that completes it (see `refundCash`). */
  rounding: Cents;
  lines: RefundLineResource[];
  by_vat_rate: VatRateTotal[];
  till_id: string;
  business_date: string;
  fiscal: { short_signature?: string; digital_signature: string; verification_url?: string };
  created_at: string;
}

const lineResource = (l: StoredLine): RefundLineResource => ({ uuid: l.uuid, item_id: l.item_id, name: l.name, qty: l.qty, amount: l.line_total });

/**
 * VAT groups of the refunded lines (positive), rate descending: the report takes them off the day.
 * Each refund's VAT is its own lines', as the fiscal module computes it on the refund ticket it signs
 * (decisions, "Money consistency across channels"): a sale refunded line by line may give back a cent
 * more or less VAT than it collected, as its signed tickets say.
 */
function refundVat(lines: readonly StoredLine[]): VatRateTotal[] {
  const gross = new Map<number, Cents>();
  for (const l of lines) gross.set(l.vat_rate, (gross.get(l.vat_rate) ?? 0) + l.line_total);
  return [...gross.entries()].sort(([a], [b]) => b - a).map(([rate, g]) => vatGroup(rate, g));
}

const alreadyRefunded = (uuids: readonly string[]) => errors.conflict(ALREADY_REFUNDED_MESSAGE, { reason: 'already_refunded', extra: { line_uuids: [...uuids] } });

/** Mode and line checks that need no database (422 field errors). */
function checkInput(input: RefundSaleInput): void {
  const uuids = input.line_uuids ?? [];
  const errs: FieldErrors = {};
  if (input.mode === 'partial' && uuids.length === 0) errs.line_uuids = ['The line_uuids field is required for a partial refund: name the lines to refund.'];
  if (input.mode === 'full' && uuids.length > 0) errs.line_uuids = ['A full refund takes every line of the sale: leave line_uuids out, or use mode partial.'];
  const seen = new Set<string>();
  uuids.forEach((u, i) => {
    if (seen.has(u)) errs[`line_uuids.${i}`] = ['This line is named twice.'];
    seen.add(u);
  });
  if (Object.keys(errs).length) throw errors.validation(errs);
}

/** The frozen tender's cash rounding (0 when absent or unreadable: nothing to give back beside the lines). */
function saleRoundingOf(tender: unknown): Cents {
  const t = parseJson<{ rounding?: unknown } | null>(tender);
  const r = t && typeof t === 'object' ? t.rounding : 0;
  return typeof r === 'number' && Number.isSafeInteger(r) ? r : 0;
}

const parseJson = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

/**
 * Refunds as a signed change: the refund and its lines are the reservation (`fiscal` null until
 * signed); a signature fills `pos_refunds.fiscal`, a refusal removes the refund with its lines, so they
 * can be refunded again. `finish` returns the stored signature and the refund's creation time.
 */
export const refundChange: SignedChangeKind<{ stored: StoredSignature; created_at: Date }> = {
  name: 'refund',
  subjectType: REFUND_SUBJECT_TYPE,
  kept: 'the refund',
  async finish(tx, id, signed) {
    const stored = storedSignature(signed);
    const row = await tx.updateTable('pos_refunds').set({ fiscal: JSON.stringify(stored) }).where('id', '=', id).where('fiscal', 'is', null).returning(['created_at']).executeTakeFirst();
    if (row) return { stored, created_at: row.created_at };
    const recorded = await tx.selectFrom('pos_refunds').select(['fiscal', 'created_at']).where('id', '=', id).executeTakeFirst();
    if (!recorded) throw orphanSignature(signed, `refund ${id} does not exist`);
    return { stored: parseJson<StoredSignature>(recorded.fiscal), created_at: recorded.created_at }; // already recorded
  },
  async undo(tx, id) {
    const row = await tx.selectFrom('pos_refunds').select(['id', 'fiscal']).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!row || row.fiscal !== null) return; // removed already, or signed
    await tx.deleteFrom('pos_refund_lines').where('refund_id', '=', id).execute();
    await tx.deleteFrom('pos_refunds').where('id', '=', id).execute();
  },
  async unfinished(db, olderThan, limit) {
    return (await db.selectFrom('pos_refunds').select('id').where('fiscal', 'is', null).where('created_at', '<=', olderThan).orderBy('created_at').limit(limit).execute()).map((r) => r.id);
  },
};

type RefundRow = Selectable<TenantTables['pos_refunds']>;

/** The answer of a refund: its record's figures, its lines (as the sale holds them) and its signature. */
function refundResource(
  r: Pick<RefundRow, 'id' | 'transaction_id' | 'mode' | 'amount' | 'rounding' | 'business_date'> & { till_id: string },
  orderId: string,
  lines: readonly StoredLine[],
  by_vat_rate: VatRateTotal[],
  stored: StoredSignature,
  created_at: Date,
): RefundResource {
  return {
    id: r.id,
    transaction_id: r.transaction_id,
    order_id: orderId,
    mode: r.mode,
    amount: r.amount - r.rounding,
    rounding: r.rounding,
    lines: lines.map(lineResource),
    by_vat_rate,
    till_id: r.till_id,
    business_date: r.business_date,
    fiscal: {
      ...(stored.short_signature !== undefined ? { short_signature: stored.short_signature } : {}),
      digital_signature: stored.digital_signature,
      ...(stored.verification_url !== undefined ? { verification_url: stored.verification_url } : {}),
    },
    created_at: new Date(created_at).toISOString(),
  };
}

/**
 * The refund a request retries: a refund of the sale by this register, of the same mode, not signed
 * yet (`fiscal` null) and holding exactly the requested lines (`full`: the sale's full refund;
 * `partial`: the same line set as `line_uuids`), with its journal entry. A first request answered 503
 * `fiscal_unreachable` for it (spec 2: a 5xx is transient, the register retries the same request).
 */
async function unfinishedRefundOf(db: TenantDb, actor: RegisterActor, saleId: string, input: RefundSaleInput): Promise<{ row: RefundRow; uuids: Set<string>; entry: JournalEntryState } | null> {
  const rows = await db
    .selectFrom('pos_refunds')
    .selectAll()
    .where('transaction_id', '=', saleId)
    .where('device_id', '=', actor.deviceId)
    .where('mode', '=', input.mode)
    .where('fiscal', 'is', null)
    .orderBy('created_at', 'desc')
    .execute();
  if (rows.length === 0) return null;
  const lines = await db.selectFrom('pos_refund_lines').select(['refund_id', 'line_uuid']).where('refund_id', 'in', rows.map((r) => r.id)).execute();
  const named = input.line_uuids ?? [];
  for (const row of rows) {
    const uuids = new Set(lines.filter((l) => l.refund_id === row.id).map((l) => l.line_uuid));
    if (input.mode === 'partial' && !(uuids.size === named.length && named.every((u) => uuids.has(u)))) continue;
    const entry = await findChangeEntry(db, refundChange, row.id);
    // No entry: a refund written before its entry committed with it; nothing to resume.
    if (entry) return { row, uuids, entry };
  }
  return null;
}

/**
 * `POST /pos/refunds` (permission `refund`; spec 2 "Refund rules"), body `{transaction_id, mode,
 * line_uuids?, approval_token?}`.
 *
 * Checks, in order:
 * 1. the transaction is a sale of this location (another location's, another merchant's or an
 *    unknown id: 404);
 * 2. body: `partial` names at least one line, `full` names none, no line twice (422);
 * 3. a payment captured by the platform itself: 422 `card_paid`;
 * 4. every payment recorded at the till (cash, keyed card, vouchers) and the transaction's payment
 *    snapshot agreeing with the order's frozen tender (`tendersAgree`): otherwise 422
 *    `tender_mismatch`, an error is logged with the transaction id, and nothing is refunded;
 * 5. each named line is a line of the sale (422 on `line_uuids.N`);
 * 6. permission `refund` (403; escalate and retry with `approval_token`): asked once the input is
 *    known to be good; a refusal after it (already refunded, no open till, the day closed) gives the
 *    approval back (`giveBack`), so the manager is not called again for the next try.
 * Then, in one transaction holding the sale row: a line is refunded once (409 `already_refunded`
 * with the `line_uuids` already refunded; a `full` refund takes every line NOT yet refunded, and is
 * 409 `already_refunded` when none is left; the unique (transaction, line) constraint is the final
 * word); the refund books on today's business day (409 `business_day_closed` after its Z close);
 * the cash leaves the caller's taking till (own open staff_wallet till, else this register's open
 * register_drawer till): without one, 409 `no_open_till`. The refund is signed (one negative CASH
 * line, lines with negative quantities and reason REFUND, the till's drawer) in that transaction.
 *
 * The cash handed back is what the customer paid for the lines (`refundCash`): the lines' totals,
 * except that the sale's cash rounding goes back with the refund that completes the sale, so a
 * cash-rounded sale gives back exactly what was paid. The refund record keeps the lines' total as
 * `amount` (turnover, as its VAT groups) beside that `rounding`; the response's `amount` is the cash.
 *
 * A retry (with a remote module): the same request from the same register while its refund waits for
 * the module (`fiscal` null: its entry pending, the first answer 503 `fiscal_unreachable`; or the
 * module's answer not yet recorded on the refund) resumes that refund (`resumeSignedChange`): 200 with
 * it once signed, 503 while the module is still unreachable, 422 `fiscal_refused` (the refund undone)
 * if refused. Nothing new is written. A refund already signed keeps the 409 `already_refunded`.
 */
export async function refundSale(
  db: TenantDb,
  fiscal: ResumableSignedChangeFiscal,
  log: Logger,
  actor: RegisterActor,
  authorizer: StaffAuthorizer,
  input: RefundSaleInput,
  now: Date,
): Promise<{ refund: RefundResource }> {
  const sale = isUuidText(input.transaction_id)
    ? await db.selectFrom('pos_transactions').selectAll().where('id', '=', input.transaction_id).where('location_id', '=', actor.locationId).executeTakeFirst()
    : undefined;
  if (!sale) {
    // Spec 2 refund rule 3: a sale the platform captured (a kiosk, online, table or marketplace order of
    // this location, which the register lists in its order stream) is refused as card-paid, not unknown.
    const captured = isUuidText(input.transaction_id)
      ? await db.selectFrom('transactions').select('id').where('id', '=', input.transaction_id).where('location_id', '=', actor.locationId).where('status', '=', 'Complete').executeTakeFirst()
      : undefined;
    if (!captured) throw errors.notFound('transaction');
    checkInput(input);
    throw errors.businessRule(CARD_PAID_MESSAGE, { reason: 'card_paid' });
  }
  checkInput(input);
  if (sale.captured_by_platform) throw errors.businessRule(CARD_PAID_MESSAGE, { reason: 'card_paid' });
  const order = await db.selectFrom('pos_orders').select(['id', 'lines', 'tender']).where('id', '=', sale.order_id).executeTakeFirstOrThrow();
  if (!allRecordedAtTill(sale.payment_snapshot) || !tendersAgree(order.tender, sale.payment_snapshot)) {
    log.error('refund refused: payment snapshot and frozen tender disagree', { transaction_id: sale.id, order_id: order.id, location_id: actor.locationId });
    throw errors.businessRule(TENDER_MISMATCH_MESSAGE, { reason: 'tender_mismatch' });
  }
  const saleLines = storedLines(order);
  const byUuid = new Map(saleLines.map((l) => [l.uuid, l]));
  const named = input.line_uuids ?? [];
  const unknown: FieldErrors = {};
  named.forEach((u, i) => {
    if (!byUuid.has(u)) unknown[`line_uuids.${i}`] = ['This line is not a line of the sale.'];
  });
  if (Object.keys(unknown).length) throw errors.validation(unknown);

  const retried = await unfinishedRefundOf(db, actor, sale.id, input);
  if (retried) {
    // No permission is asked again: the refund was approved when its first request wrote it, and that
    // request's approval token was spent on it (single use, spec 2 section 5), so the register's retry
    // of the same request, token and all, would be a 403 and never learn the refund's fate. Resuming
    // writes nothing new (it completes the entry the `fiscal.recover` sweep would complete), and only
    // the register that made the refund resumes it this way; any other request takes the path below.
    const { row, uuids, entry } = retried;
    const { stored, created_at } = await resumeSignedChange(db, fiscal, refundChange, entry, row.id, now);
    const lines = input.mode === 'full' ? saleLines.filter((l) => uuids.has(l.uuid)) : named.map((u) => byUuid.get(u)!);
    // `till_id` is always written by a refund (the column is nullable only by its migration).
    return { refund: refundResource({ ...row, till_id: row.till_id ?? '' }, order.id, lines, parseJson<VatRateTotal[]>(row.by_vat_rate), stored, created_at) };
  }

  const approvedBy = await authorizer.require('refund');

  const id = Bun.randomUUIDv7();
  try {
    return await runSignedChange(db, fiscal, refundChange, {
      locationId: actor.locationId,
      async prepare(tx) {
        // One refund of a sale at a time: the sale row is held until commit.
        await tx.selectFrom('pos_transactions').select('id').where('id', '=', sale.id).forUpdate().execute();
        const done = new Set((await tx.selectFrom('pos_refund_lines').select('line_uuid').where('transaction_id', '=', sale.id).execute()).map((r) => r.line_uuid));
        let lines: StoredLine[];
        if (input.mode === 'full') {
          lines = saleLines.filter((l) => !done.has(l.uuid));
          if (lines.length === 0) throw errors.conflict(NOTHING_LEFT_MESSAGE, { reason: 'already_refunded', extra: { line_uuids: saleLines.map((l) => l.uuid) } });
        } else {
          const again = named.filter((u) => done.has(u));
          if (again.length) throw alreadyRefunded(again);
          lines = named.map((u) => byUuid.get(u)!);
        }
        const day = await requireOpenBusinessDay(tx, actor.locationId, now);
        const till = await findTakingTill(tx, actor, { lock: 'share' });
        if (!till) throw errors.conflict(NO_OPEN_TILL_MESSAGE, { reason: 'no_open_till' });
        const amount = lines.reduce((s, l) => s + l.line_total, 0);
        const before = await tx
          .selectFrom('pos_refunds')
          .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('lines'), eb.fn.coalesce(eb.fn.sum<number>('rounding'), eb.lit(0)).as('rounding')])
          .where('transaction_id', '=', sale.id)
          .executeTakeFirstOrThrow();
        const linesBefore = Number(before.lines);
        const { rounding } = refundCash({ saleTotal: Number(sale.total), saleRounding: saleRoundingOf(sale.tender), linesBefore, cashBefore: linesBefore - Number(before.rounding), lines: amount });
        const by_vat_rate = refundVat(lines);
        await tx
          .insertInto('pos_refunds')
          .values({
            id,
            transaction_id: sale.id,
            location_id: actor.locationId,
            device_id: actor.deviceId,
            staff_id: actor.staffId,
            approved_by: approvedBy,
            mode: input.mode,
            amount,
            rounding,
            by_vat_rate: JSON.stringify(by_vat_rate),
            till_id: till.id,
            fiscal: null,
            business_date: day.date,
            created_at: now,
          })
          .execute();
        await tx
          .insertInto('pos_refund_lines')
          .values(lines.map((l) => ({ refund_id: id, transaction_id: sale.id, line_uuid: l.uuid, amount: l.line_total })))
          .execute();
        const fiscalLines = lines.map(fiscalLineOf);
        const drawer = fiscalDrawerOf(till);
        return {
          subjectId: id,
          state: { lines, amount, rounding, by_vat_rate, till_id: till.id, business_date: day.date },
          input: {
            locationId: actor.locationId,
            deviceId: actor.deviceId,
            employeeId: actor.staffId,
            businessDay: day,
            build: (common: FiscalCommon) => refundEvent(common, fiscalLines, drawer, rounding),
          },
        };
      },
      respond: ({ stored, created_at }, state) => ({
        refund: refundResource(
          { id, transaction_id: sale.id, mode: input.mode, amount: state.amount, rounding: state.rounding, till_id: state.till_id, business_date: state.business_date },
          order.id,
          state.lines,
          state.by_vat_rate,
          stored,
          created_at,
        ),
      }),
    }, now);
  } catch (e) {
    // Refused before anything was written: the approval serves the next try (no second manager PIN).
    if (isUniqueViolation(e, LINES_ONCE) || (e instanceof AppError && REFUSED_BEFORE_WRITING.has(e.reason ?? ''))) await authorizer.giveBack();
    if (isUniqueViolation(e, LINES_ONCE)) throw alreadyRefunded(named);
    throw e;
  }
}

/** Refusals of the refund's transaction that leave nothing written. */
const REFUSED_BEFORE_WRITING = new Set(['already_refunded', 'no_open_till', 'business_day_closed']);
