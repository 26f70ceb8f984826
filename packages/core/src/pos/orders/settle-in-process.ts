import type { TenantSession } from '@pos/db';
import { errors } from '@pos/kernel';
import { businessDate } from '@pos/domain/business-day/business-day';
import type { FrozenTender } from '@pos/tenders';
import { canonicalJson } from '@pos/fiscal';
import { isSigning, notEnrolledError, ticketLabel, type FdmEnrolment, type SignEventInput } from '../../fiscal/index.ts';
import type { HeadSnapshot, SignedOverHead } from '../../fiscal/sign-over-head.ts';
import { storedSignature } from '../../fiscal/stored-signature.ts';
import { KeyedQueue } from '../../concurrency/keyed-queue.ts';
import { businessDayClosed, ensureBusinessDay } from '../business-day/business-day-queries.ts';
import type { TenantDb } from '@pos/db';
import type { OrderRow } from './order-resource.ts';
import type { TillRow } from '../tills/till-queries.ts';
import { readForSettle, writeSettleNoTill, writeSettleWithTill, type SettleReadRow } from './settle-statements.ts';
import type { RegisterActor } from '../register-actor.ts';

// Settle with the in-process signer in two round trips: one read of everything the settle decides on
// (settle-statements.ts), signing in the process over the journal head that read saw, and one
// statement that writes counters, journal entry, sale and order only if that head (and the order,
// business day and till) are still as read. When another writer moved first, nothing was written: read
// again and sign over the new head. Settles of one location queue in the process (they share a head),
// so retries come only from other processes or other kinds of signed changes.

/** Settles of one location run one at a time per process (see KeyedQueue). */
const locationQueue = new KeyedQueue();
/** Attempts before giving up on a head that keeps moving (other processes signing for the location). */
const MAX_ATTEMPTS = 10;

export function inLocationQueue<T>(session: TenantSession, locationId: string, work: () => Promise<T>): Promise<T> {
  return locationQueue.run(`${session.schema}:${locationId}`, work);
}

export async function readSettleRow(session: TenantSession, actor: RegisterActor, orderId: string, now: Date): Promise<SettleReadRow | undefined> {
  const rows = await readForSettle.run(session, [orderId, actor.locationId, ticketLabel(actor.deviceId), now, actor.staffId, actor.deviceId]);
  // An order of another location is no order of this register's (the uniform 404).
  const row = rows[0];
  return row && row.location_id === actor.locationId ? row : undefined;
}

/** The location's enrolment as read with the order (null without an active one). */
export function enrolmentOf(row: SettleReadRow): FdmEnrolment | null {
  if (!row.f_id || !row.f_fdm_id || !row.f_regime || !row.f_status || !row.f_mode) return null;
  return { id: row.f_id, location_id: row.location_id, fdm_id: row.f_fdm_id, regime: row.f_regime, status: row.f_status, mode: row.f_mode };
}

/** The business day a sale `now` books on: from the read, else created now (first booking of the date). 409 when closed. */
async function bookingDay(db: TenantDb, row: SettleReadRow, locationId: string, now: Date): Promise<{ id: string; date: string }> {
  const date = businessDate(now, row.l_timezone);
  if (row.d_id && row.d_date === date) {
    if (row.d_status === 'closed') throw businessDayClosed(date);
    return { id: row.d_id, date };
  }
  const day = await ensureBusinessDay(db, locationId, date, now);
  if (day.status === 'closed') throw businessDayClosed(date);
  return { id: day.id, date };
}

/** The open till a cash sale books to (the member's wallet first, else this register's drawer), as read. */
type BookingTill = Pick<TillRow, 'id' | 'drawer_snapshot'>;
function bookingTill(row: SettleReadRow, tender: FrozenTender, takesCash: (t: FrozenTender) => boolean): BookingTill | null {
  if (!takesCash(tender)) return null;
  if (row.tw_id && row.tw_drawer) return { id: row.tw_id, drawer_snapshot: row.tw_drawer };
  if (row.td_id && row.td_drawer) return { id: row.td_id, drawer_snapshot: row.td_drawer };
  return null;
}

/** What the settle use case supplies: its rules (refusal, tender, fiscal lines) and the fiscal service. */
export interface InProcessSettle {
  readonly refuse: (row: OrderRow) => Error | null;
  readonly freeze: (row: SettleReadRow) => FrozenTender;
  readonly takesCash: (tender: FrozenTender) => boolean;
  readonly signInput: (row: OrderRow, tender: FrozenTender, day: { id: string; date: string }, till: BookingTill | null) => SignEventInput;
  readonly signOverHead: (snapshot: HeadSnapshot, input: SignEventInput) => SignedOverHead;
  readonly paymentSnapshot: (tender: FrozenTender) => unknown;
}

const isHeadRace = (e: unknown): boolean => {
  const code = (e as { code?: unknown } | null)?.code;
  // Deadlock or serialisation failure; or two first entries of a device racing for seq 1.
  return code === '40P01' || code === '40001' || (code === '23505' && (e as { constraint?: string }).constraint === 'fiscal_journal_fdm_seq');
};

/**
 * Settles the OPEN order `first` (already read, in the location queue) with the in-process signer.
 * Refusals (409 not_open / business_day_closed, 422 tender or fiscal) are thrown as the rules say.
 */
export async function settleInProcess(db: TenantDb, session: TenantSession, actor: RegisterActor, rules: InProcessSettle, first: SettleReadRow, now: Date): Promise<OrderRow> {
  let row: SettleReadRow | undefined = first;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    if (attempt > 1) row = await readSettleRow(session, actor, first.id, now);
    if (!row) throw errors.notFound('order');
    const refused = rules.refuse(row);
    if (refused) throw refused;
    const tender = rules.freeze(row);
    const day = await bookingDay(db, row, actor.locationId, now);
    const till = bookingTill(row, tender, rules.takesCash);
    const fdm = enrolmentOf(row);
    if (!isSigning(fdm)) throw notEnrolledError();
    if (fdm.mode !== 'software') throw new Error(`Fiscal device ${fdm.fdm_id} is a remote module: settle through the remote flow`);
    const over = rules.signOverHead(
      {
        fdmId: fdm.fdm_id,
        location: { timezone: row.l_timezone, vat_no: row.l_vat_no, est_no: row.l_est_no },
        last: row.h_seq === null || row.h_hash === null ? null : { seq: Number(row.h_seq), hash: row.h_hash },
        counters: new Map(Object.entries(row.f_counters ?? {}).map(([k, v]) => [k, Number(v)])),
      },
      rules.signInput(row, tender, day, till),
    );
    const { entry, signed } = over;
    const fiscal = JSON.stringify(storedSignature(signed));
    const tenderJson = JSON.stringify(tender);
    const statement = till ? writeSettleWithTill : writeSettleNoTill;
    let written: OrderRow[];
    try {
      written = await statement.run(session, [
        row.id, row.version, fdm.fdm_id, over.expectedHead, day.id, till?.id ?? null, over.counters.labels, over.counters.values,
        signed.journal_id, row.location_id, entry.seq, entry.event_kind, entry.payload, entry.sign_result === null ? null : canonicalJson(entry.sign_result), entry.prev_hash, entry.hash, entry.result_hash, entry.seal, entry.result_seal,
        signed.subject?.type ?? null, signed.subject?.id ?? null, now,
        Bun.randomUUIDv7(), actor.deviceId, actor.staffId, tender.total, tenderJson, JSON.stringify(rules.paymentSnapshot(tender)), fiscal, signed.event.bookingDate,
      ]);
    } catch (e) {
      if (isHeadRace(e)) continue;
      throw e;
    }
    if (written[0]) return written[0];
  }
  throw errors.conflict('The fiscal journal of this location is busy; try again.', { reason: 'fiscal_busy' });
}

