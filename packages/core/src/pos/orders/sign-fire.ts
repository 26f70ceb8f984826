import type { TenantDb, TenantTx } from '@pos/db';
import { AppError } from '@pos/kernel';
import { orderEvent, type FiscalLine, type OrderEvent } from '@pos/fiscal';
import type { FireDeltaLine } from '@pos/domain/kitchen/fire-delta';
import { activeFdmFor, isSigning, requireVatLabels, type FiscalService, type ReservedEntry } from '../../fiscal/index.ts';
import { journalOnlyKind } from '../signed-change/signed-change.ts';
import { requireOpenBusinessDay } from '../business-day/business-day-queries.ts';
import { fireFiscalLines } from './fire-fiscal-lines.ts';
import type { StoredLine } from './order-resource.ts';
import type { RegisterActor } from '../register-actor.ts';

// A fire (and the last fire of a fired order's void) is registered with the fiscal data module as an
// order event (signOrder, label N; docs/decisions.md "Fires are signed"): one journal entry per fire
// that sends the kitchen something, subject `pos_order_fire` + the order id (one entry per fire, in seq order).
// - in-process signer: signed in the fire's own transaction, so a fire never commits without its entry;
// - remote module: the pending entry commits with the fire and is sent after the commit
//   (`sendFireEntry`); an unreachable module leaves it pending for the recovery sweep, and the fire,
//   already in the kitchen, answers 200 all the same.
// A location without an active enrolment signs nothing (it cannot settle either).

/** Journal subject type of fire (order) events. */
export const ORDER_EVENT_SUBJECT_TYPE = 'pos_order_fire';

/** Order events as a signed change: the journal entry is the whole record (the fire itself is committed). */
export const orderEventChange = journalOnlyKind('order', ORDER_EVENT_SUBJECT_TYPE);

/** What signing a fire needs from the fiscal service (the whole FiscalService in production). */
export type FireFiscal = Pick<FiscalService, 'signInTransaction' | 'reserveRemote' | 'sendReserved'>;

export interface FireToSign {
  readonly orderId: string;
  /** The fire number: the order's version after the fire (its kitchen tickets' `fire_no`). */
  readonly fireNo: number;
  readonly delta: readonly FireDeltaLine[];
  /** The lines the delta's lines are priced from (by uuid). */
  readonly orderLines: readonly StoredLine[];
  /** When the fire happens: the business day its event books on. */
  readonly now: Date;
}

/**
 * The line uuids this fire's kitchen tickets hold: what the kitchen got. A line no station takes gets
 * no ticket and stays in the kitchen delta of every later fire, so signing the raw delta would register
 * it again at each fire; only what reached a ticket is signed (once, as the kitchen has it once).
 */
async function ticketedLineRefs(tx: TenantTx, orderId: string, fireNo: number): Promise<Set<string>> {
  const rows = await tx
    .selectFrom('kitchen_ticket_lines as l')
    .innerJoin('kitchen_tickets as t', 't.id', 'l.ticket_id')
    .select('l.line_ref')
    .distinct()
    .where('t.source', '=', 'pos_order')
    .where('t.source_id', '=', orderId)
    .where('t.fire_no', '=', fireNo)
    .execute();
  return new Set(rows.flatMap((r) => (r.line_ref === null ? [] : [r.line_ref])));
}

/** Lines of this order's earlier signed order events, oldest first (prices of lines since taken off). */
async function earlierOrderLines(tx: TenantTx, orderId: string): Promise<FiscalLine[]> {
  const rows = await tx
    .selectFrom('fiscal_journal')
    .select(['payload'])
    .where('subject_type', '=', ORDER_EVENT_SUBJECT_TYPE)
    .where('subject_id', '=', orderId)
    .where('status', '!=', 'failed')
    .orderBy('seq')
    .execute();
  return rows.flatMap((r) => (JSON.parse(r.payload) as OrderEvent).transaction.lines);
}

/**
 * In the fire's transaction: signs its order event (in-process signer) or writes it pending (remote
 * module; returned, send it with `sendFireEntry` after the commit). Nothing sent, or no enrolment: nothing.
 */
export async function signFireInTransaction(tx: TenantTx, fiscal: FireFiscal, actor: RegisterActor, fire: FireToSign): Promise<ReservedEntry | null> {
  if (!fire.delta.length) return null;
  const fdm = await activeFdmFor(tx, actor.locationId);
  if (!isSigning(fdm)) return null;
  const ticketed = await ticketedLineRefs(tx, fire.orderId, fire.fireNo);
  const delta = fire.delta.filter((d) => ticketed.has(d.uuid));
  // Corrections may need the prices earlier fires signed (lines taken off or changed since).
  const corrects = delta.some((d) => d.qty < 0);
  const lines = fireFiscalLines(delta, fire.orderLines, corrects ? await earlierOrderLines(tx, fire.orderId) : []);
  if (!lines.length) return null;
  // A line no VAT label signs: 422 `fiscal_vat_rate`, the fire (and its kitchen tickets) rolled back.
  requireVatLabels(lines.map((l) => l.vatRate));
  // The event books on today's business day, held open until the commit (a Z close waits for it); after
  // the day's Z: 409 `business_day_closed`, the fire rolled back (before: signed into the closed period).
  const businessDay = await requireOpenBusinessDay(tx, actor.locationId, fire.now);
  const input = {
    businessDay,
    locationId: actor.locationId,
    deviceId: actor.deviceId,
    employeeId: actor.staffId,
    subject: { type: ORDER_EVENT_SUBJECT_TYPE, id: fire.orderId },
    build: (common: Parameters<typeof orderEvent>[0]) => orderEvent(common, lines),
  };
  if (fdm.mode === 'remote') return fiscal.reserveRemote(tx, input);
  await fiscal.signInTransaction(tx, input);
  return null;
}

/**
 * After the fire committed: sends its pending entry to the remote module. The fire stands whatever
 * the module answers (the kitchen has it): unreachable leaves the entry pending for the recovery
 * sweep; a refusal is recorded on the entry (failed) and logged by the fiscal service.
 */
export async function sendFireEntry(db: TenantDb, fiscal: FireFiscal, reserved: ReservedEntry | null): Promise<void> {
  if (!reserved) return;
  try {
    await fiscal.sendReserved(db, reserved);
  } catch (e) {
    if (!(e instanceof AppError && (e.reason === 'fiscal_unreachable' || e.reason === 'fiscal_refused'))) throw e;
  }
}
