import { createHash } from 'node:crypto';
import { formatInTimeZone } from 'date-fns-tz';
import {
  appendEntry,
  appendSigned,
  canonicalJson,
  completeEntry,
  resultSeal,
  journalContent,
  type FiscalCommon,
  type FiscalEvent,
  type FiscalLanguage,
  type JournalEntry,
  type SignResult,
  type TicketMedium,
  unlabelledVatRates,
} from '@pos/fiscal';
import { FdmError, FdmNetworkError, type RemoteFdmSigner } from '@pos/providers/fdm/fdm-client';
import { sql } from 'kysely';
import { withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import { AppError, errors, type Clock, type Logger } from '@pos/kernel';
import { activeFdmFor, isSigning, type FdmEnrolment } from './active-fdm.ts';
import { DbCounterStore, reserveCounters, SEQ_LABEL, ticketLabel } from './counter-store.ts';
import { failureHash, lastEntryRow, signedEventOf, subjectOf, toJournalEntry, type FiscalSignError, type FiscalSubject, type JournalRow, type SignedFiscalEvent } from './journal-rows.ts';
import type { SignerRegistry } from './signer-registry.ts';
import type { RecoveryHooks } from './recover-pending.ts';

// Signing a fiscal event and journaling it (DESIGN 2, Fiscal):
// - software mode (in-process signer): `signInTransaction` reserves the counters, signs and appends
//   the signed entry in the caller's transaction, so the state change, the counters and the journal
//   commit or roll back together.
// - remote mode (a fiscal data module over HTTP): `signRemote` commits a pending entry, calls the
//   module outside any transaction, then completes the entry in a new transaction. A refusal marks
//   it failed; an unreachable module leaves it pending for `recoverPendingEntries`.
//
// Contract for callers of the remote flow (e.g. settle):
//   1. Commit your own state first as in progress (order state 'SETTLING', tender frozen), never
//      holding a transaction across step 2.
//   2. Call `fiscal.signEvent(tdb, input)` (or `signRemote`) with `subject` naming your record.
//   3. On success, commit the final state with the returned result (SETTLED + fiscal block).
//      On a 422 `fiscal_refused` the module counted nothing: revert (e.g. back to OPEN).
//      On a 503 `fiscal_unreachable` keep the in-progress state: the entry is pending and the
//      recovery job (or `completePending` on a client retry, found through `findJournalEntry` by
//      subject) completes it later; a `RecoveryHooks` callback can then finish your record.

/** What a caller gives to sign one event. */
export interface SignEventInput {
  readonly locationId: string;
  /** The register device: `posId` and `deviceId` of the event; its ticket numbers are counted per fiscal device. */
  readonly deviceId: string;
  /** Default: `deviceId`. */
  readonly terminalId?: string;
  /** The staff member (employee id) the event is booked to. */
  readonly employeeId: string;
  /** What the entry records (`pos_order` + order id, ...); stored as subject_type / subject_id. */
  readonly subject: FiscalSubject;
  /**
   * The fiscal business day (`bookingPeriodId`, `bookingDate`). Default: today's date in the
   * location's zone and a period id derived from location and date.
   */
  readonly businessDay?: { readonly id: string; readonly date: string };
  /**
   * When the event happened, for an event signed after the fact (a staff work-in or work-out, signed
   * by its queued job): `posDateTime`, and the default `bookingDate` is its local date. Default: the
   * signing clock's now. The journal's `created_at` / `completed_at` stay the signing time.
   */
  readonly at?: Date;
  /** Default false. */
  readonly isTraining?: boolean;
  /** Default 'NL'. */
  readonly language?: FiscalLanguage;
  /** Default 'PAPER'. */
  readonly ticketMedium?: TicketMedium;
  /** Builds the event from the common fields (e.g. `(c) => saleEvent(c, lines, tender, drawer)`). */
  readonly build: (common: FiscalCommon) => FiscalEvent;
}

/** Outcome of completing a pending (remote) entry. */
export type PendingOutcome =
  | { readonly status: 'signed'; readonly signed: SignedFiscalEvent }
  | { readonly status: 'failed'; readonly journal_id: string; readonly error: FiscalSignError }
  | { readonly status: 'pending'; readonly journal_id: string; readonly reason: string; readonly cause?: unknown };

/** What the signing functions use; built by `createFiscalService`. */
export interface FiscalSignDeps {
  readonly signers: SignerRegistry;
  readonly clock: Clock;
  readonly log: Logger;
  readonly posSwVersion: string;
  /**
   * Finish the record of an EARLIER entry this send completed on its way (`sendInJournalOrder`):
   * its own request may be gone (it answered 503), and recovery only looks at pending entries.
   */
  readonly hooks?: RecoveryHooks;
}

/** 422 `fiscal_not_enrolled`: no active Belgian-regime enrolment at the location. */
export const notEnrolledError = (): AppError => errors.businessRule('This location has no active fiscal data module.', { reason: 'fiscal_not_enrolled' });

/**
 * 503 `fiscal_unreachable` (message verbatim for the register). `kept` names what is kept: the sale by
 * default (its words are spec'd); a signed-change kind names its own (`the refund`, `the Z report`).
 */
export const unreachableError = (cause?: unknown, kept = 'the sale'): AppError =>
  errors.unavailable(`The fiscal data module is unreachable; ${kept} is kept and will be signed when it answers.`, { reason: 'fiscal_unreachable', cause });

/** 422 `fiscal_refused`: the module refused the event and counted nothing. */
export const refusedError = (error: FiscalSignError, cause?: unknown): AppError =>
  errors.businessRule('The fiscal data module refused this event.', {
    reason: 'fiscal_refused',
    extra: { fiscal_error: { code: error.code, ...(error.sub_code ? { sub_code: error.sub_code } : {}) } },
    cause,
  });

/** YYYY-MM-DD of `at` in the IANA zone `timeZone`. */
export function businessDateIn(timeZone: string, at: Date): string {
  return formatInTimeZone(at, timeZone, 'yyyy-MM-dd');
}

/** A stable UUID-shaped id for (location, date) when the caller has no business-day record. */
export function derivedBookingPeriodId(locationId: string, date: string): string {
  const h = createHash('sha256').update(`booking-period:${locationId}:${date}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x80; // version 8 (custom)
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * 422 `fiscal_vat_rate` when a line's VAT rate has no Belgian label (A 21 %, B 12 %, C 6 %, D 0 %):
 * the module cannot register it, so the sale (or the fire) is refused before anything is written.
 * A merchant can hold other rates (a custom rate, another country's default) for other channels.
 */
export function requireVatLabels(ratesPercent: Iterable<number>): void {
  const missing = unlabelledVatRates(ratesPercent);
  if (missing.length === 0) return;
  throw errors.businessRule(
    `The fiscal data module has no VAT label for ${missing.map((r) => `${r} %`).join(', ')}: only 21 %, 12 %, 6 % and 0 % can be signed. Give the item a Belgian VAT rate or take the line off.`,
    { reason: 'fiscal_vat_rate', extra: { vat_rates: missing } },
  );
}

/** A location's fiscal identity, checked before anything is signed. */
export interface FiscalLocation {
  readonly timezone: string;
  readonly vat_no: string | null;
  readonly est_no: string | null;
}

/** 422 `fiscal_identity_missing` unless the location has its VAT and establishment numbers. */
export function requireFiscalIdentity(location: FiscalLocation): asserts location is FiscalLocation & { vat_no: string; est_no: string } {
  if (!location.vat_no || !location.est_no) {
    throw errors.businessRule('This location needs a VAT number and an establishment number before it can sign fiscal events.', { reason: 'fiscal_identity_missing' });
  }
}

/** The fields every event carries, from the location, the caller's input and the register's ticket number. */
export function fiscalCommon(deps: Pick<FiscalSignDeps, 'clock' | 'posSwVersion'>, location: FiscalLocation & { vat_no: string; est_no: string }, input: SignEventInput, posFiscalTicketNo: number): FiscalCommon {
  const at = input.at ?? deps.clock.now();
  const bookingDate = input.businessDay?.date ?? businessDateIn(location.timezone, at);
  return {
    vatNo: location.vat_no,
    estNo: location.est_no,
    posId: input.deviceId,
    posFiscalTicketNo,
    posDateTime: at.toISOString(),
    posSwVersion: deps.posSwVersion,
    terminalId: input.terminalId ?? input.deviceId,
    deviceId: input.deviceId,
    bookingPeriodId: input.businessDay?.id ?? derivedBookingPeriodId(input.locationId, bookingDate),
    bookingDate,
    ticketMedium: input.ticketMedium ?? 'PAPER',
    employeeId: input.employeeId,
    language: input.language ?? 'NL',
    isTraining: input.isTraining ?? false,
  };
}

interface Prepared {
  readonly seq: number;
  readonly prev: JournalEntry | null;
  readonly event: FiscalEvent;
}

/**
 * Inside `tx`: locks the device's journal head (the 'seq' counter row, held until commit), checks
 * it against the last entry, reserves the register's ticket number, and builds the event.
 */
async function prepareEntry(deps: FiscalSignDeps, tx: TenantTx, fdm: FdmEnrolment, input: SignEventInput): Promise<Prepared> {
  const location = await tx.selectFrom('locations').select(['timezone', 'vat_no', 'est_no']).where('id', '=', input.locationId).executeTakeFirst();
  if (!location) throw errors.notFound('location');
  requireFiscalIdentity(location);
  // The head ('seq', locked until commit) and the register's ticket number in one round trip.
  const ticket = ticketLabel(input.deviceId);
  const [seq, posFiscalTicketNo] = await reserveCounters(tx, fdm.fdm_id, [SEQ_LABEL, ticket]);
  const prevRow = await lastEntryRow(tx, fdm.fdm_id);
  const prevSeq = prevRow ? Number(prevRow.seq) : 0;
  if (prevSeq !== seq - 1) {
    // Someone removed or wrote journal rows behind this module's back: never sign on top of that.
    deps.log.error('fiscal journal head does not match its counter', { fdm_id: fdm.fdm_id, last_seq: prevSeq, head: seq - 1 });
    throw new Error(`Fiscal journal of ${fdm.fdm_id} is inconsistent: last entry is seq ${prevSeq}, the head counter says ${seq - 1}`);
  }
  const common = fiscalCommon(deps, location, input, posFiscalTicketNo);
  return { seq, prev: prevRow ? toJournalEntry(prevRow) : null, event: input.build(common) };
}

async function insertEntry(deps: FiscalSignDeps, tx: TenantTx, input: SignEventInput, entry: JournalEntry): Promise<string> {
  const id = Bun.randomUUIDv7();
  const now = deps.clock.now();
  await tx
    .insertInto('fiscal_journal')
    .values({
      id,
      fdm_id: entry.fdm_id,
      location_id: input.locationId,
      seq: entry.seq,
      event_kind: entry.event_kind,
      payload: entry.payload,
      sign_result: entry.sign_result === null ? null : canonicalJson(entry.sign_result),
      status: entry.status,
      prev_hash: entry.prev_hash,
      hash: entry.hash,
      result_hash: entry.result_hash,
      seal: entry.seal,
      result_seal: entry.result_seal,
      subject_type: input.subject.type,
      subject_id: input.subject.id,
      created_at: now,
      completed_at: entry.status === 'signed' ? now : null,
    })
    .execute();
  return id;
}

/**
 * Software mode: signs and journals the event in the caller's transaction (counters, signature and
 * signed entry commit or roll back with the caller's state change). Concurrent signers of one device
 * wait for each other on the journal head row. Throws 422 `fiscal_not_enrolled` without an active
 * enrolment; a remote-mode enrolment is a programming error here (use `signEvent`).
 */
export async function signInTransaction(deps: FiscalSignDeps, tx: TenantTx, input: SignEventInput): Promise<SignedFiscalEvent> {
  if (!tx.isTransaction) throw new Error('signInTransaction needs a transaction');
  const fdm = await activeFdmFor(tx, input.locationId);
  if (!isSigning(fdm)) throw notEnrolledError();
  if (fdm.mode !== 'software') throw new Error(`Fiscal device ${fdm.fdm_id} is a remote module: sign through signEvent/signRemote, outside a transaction`);
  const signer = deps.signers.software(fdm.fdm_id);
  const { seq, prev, event } = await prepareEntry(deps, tx, fdm, input);
  const result = await signer.withCounters(new DbCounterStore(tx, fdm.fdm_id)).sign(event);
  const entry = appendSigned(prev, journalContent(fdm.fdm_id, event), result, deps.signers.sealKey);
  if (entry.seq !== seq) throw new Error(`Fiscal journal of ${fdm.fdm_id}: appended seq ${entry.seq}, reserved ${seq}`);
  const journal_id = await insertEntry(deps, tx, input, entry);
  return { journal_id, fdm_id: fdm.fdm_id, seq, subject: input.subject, event, result };
}

function signErrorOf(e: FdmError): FiscalSignError {
  return { code: e.code, ...(e.subCode ? { sub_code: e.subCode } : {}), message: e.message, status: e.status };
}

function outcomeOf(row: JournalRow): PendingOutcome {
  if (row.status === 'signed') return { status: 'signed', signed: signedEventOf(row) };
  if (row.status === 'failed') {
    let error: FiscalSignError;
    try {
      error = JSON.parse(row.sign_result ?? 'null') as FiscalSignError;
    } catch {
      error = { code: 'UNKNOWN', message: 'unreadable refusal', status: 0 };
    }
    return { status: 'failed', journal_id: row.id, error };
  }
  return { status: 'pending', journal_id: row.id, reason: 'in progress' };
}

/** Records the module's answer on a pending row (idempotent: an already completed row is returned as is). */
async function finishRow(deps: FiscalSignDeps, tdb: TenantDb, journalId: string, answer: { result: SignResult } | { error: FiscalSignError }): Promise<PendingOutcome> {
  return withWriteRetry(() =>
    tdb.transaction().execute(async (tx) => {
      const row = await tx.selectFrom('fiscal_journal').selectAll().where('id', '=', journalId).forUpdate().executeTakeFirstOrThrow();
      if (row.status !== 'pending') return outcomeOf(row);
      const now = deps.clock.now();
      if ('result' in answer) {
        const done = completeEntry(toJournalEntry(row), answer.result, deps.signers.sealKey);
        await tx
          .updateTable('fiscal_journal')
          .set({ status: 'signed', sign_result: canonicalJson(answer.result), result_hash: done.result_hash, result_seal: done.result_seal, completed_at: now })
          .where('id', '=', journalId)
          .execute();
      } else {
        const failed = failureHash(row.hash, answer.error);
        await tx
          .updateTable('fiscal_journal')
          .set({ status: 'failed', sign_result: canonicalJson(answer.error), result_hash: failed, result_seal: resultSeal(deps.signers.sealKey, { hash: row.hash, status: 'failed', result_hash: failed }), completed_at: now })
          .where('id', '=', journalId)
          .execute();
      }
      return outcomeOf(await tx.selectFrom('fiscal_journal').selectAll().where('id', '=', journalId).executeTakeFirstOrThrow());
    }),
  );
}

/**
 * Sends a pending row's stored payload to the remote module (outside any transaction) and records
 * the answer. The request is rebuilt from the stored payload, so a retry is byte-for-byte the same
 * event and a module that replays identical requests does not count it twice.
 */
async function sendPendingRow(deps: FiscalSignDeps, tdb: TenantDb, row: JournalRow, signer: RemoteFdmSigner): Promise<PendingOutcome> {
  let result: SignResult;
  try {
    result = await signer.sign(JSON.parse(row.payload) as FiscalEvent);
  } catch (e) {
    if (e instanceof FdmError) {
      deps.log.warn('fiscal data module refused an event', { fdm_id: row.fdm_id, seq: Number(row.seq), code: e.code, sub_code: e.subCode });
      return finishRow(deps, tdb, row.id, { error: signErrorOf(e) });
    }
    if (e instanceof FdmNetworkError) {
      deps.log.warn('fiscal data module unreachable; entry stays pending', { fdm_id: row.fdm_id, seq: Number(row.seq), err: e.message });
      return { status: 'pending', journal_id: row.id, reason: 'unreachable', cause: e };
    }
    throw e;
  }
  return finishRow(deps, tdb, row.id, { result });
}

/** Label of a remote device's send lease in `fiscal_counters` (value: the holder's expiry, epoch ms; free once past). */
export const SEND_LEASE_LABEL = 'send-lease';
/** A lease outlives one module call (15 s client time-out) and is renewed before each call. */
const SEND_LEASE_MS = 30_000;
/** How long a sender waits for the device's lease before its entry is left pending for recovery. */
const SEND_WAIT_MS = 20_000;
const SEND_POLL_MS = 15;

const dbNowMs = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/**
 * Takes the device's send lease (one sender per remote module at a time, across processes) without
 * holding a connection or a transaction while the module is called: a conditional upsert of the
 * `send-lease` counter row, taken when it is free or its holder's lease ran out (a crashed holder).
 * The value is the holder's token; renewing and releasing only touch the holder's own lease.
 */
async function takeSendLease(tdb: TenantDb, fdmId: string): Promise<{ renew(): Promise<boolean>; release(): Promise<void> } | null> {
  const deadline = Date.now() + SEND_WAIT_MS;
  for (;;) {
    const row = await tdb
      .insertInto('fiscal_counters')
      .values({ fdm_id: fdmId, label: SEND_LEASE_LABEL, value: sql<number>`${dbNowMs} + ${SEND_LEASE_MS}` })
      .onConflict((oc) => oc.columns(['fdm_id', 'label']).doUpdateSet({ value: sql<number>`excluded.value` }).where('fiscal_counters.value', '<', dbNowMs))
      .returning('value')
      .executeTakeFirst();
    if (row) {
      let token = Number(row.value);
      let renewedAt = Date.now();
      return {
        async renew() {
          // A lease taken or renewed within the last few seconds outlives the next call as it is.
          if (Date.now() - renewedAt < SEND_LEASE_MS - 15_000 - 5_000) return true;
          const r = await tdb
            .updateTable('fiscal_counters')
            .set({ value: sql<number>`${dbNowMs} + ${SEND_LEASE_MS}` })
            .where('fdm_id', '=', fdmId)
            .where('label', '=', SEND_LEASE_LABEL)
            .where('value', '=', token)
            .returning('value')
            .executeTakeFirst();
          if (!r) return false;
          token = Number(r.value);
          renewedAt = Date.now();
          return true;
        },
        async release() {
          await tdb.updateTable('fiscal_counters').set({ value: 0 }).where('fdm_id', '=', fdmId).where('label', '=', SEND_LEASE_LABEL).where('value', '=', token).execute();
        },
      };
    }
    if (Date.now() >= deadline) return null;
    await Bun.sleep(SEND_POLL_MS);
  }
}

/**
 * Sends a pending entry to its remote module in journal order (docs/decisions.md "Fiscal and the
 * business day", one device's events reach its module in journal order). The module counts events as they arrive
 * (`eventCounter`, `totalCounter`) and the register numbers them in `seq` and `posFiscalTicketNo`:
 * entry N+1 must never reach it before entry N. Under the device's send lease, the device's earlier
 * entries still pending are sent first, oldest first (their records finished through `deps.hooks`);
 * when one of them stays pending (module unreachable), this entry is not sent either and stays
 * pending (503 for a live request, the next recovery run for the sweep). The entry is read again
 * under the lease: one completed meanwhile (by recovery or a retry) is answered as it is, never
 * sent twice.
 */
async function sendInJournalOrder(deps: FiscalSignDeps, tdb: TenantDb, row: JournalRow, signer: RemoteFdmSigner): Promise<PendingOutcome> {
  const lease = await takeSendLease(tdb, row.fdm_id);
  if (!lease) {
    deps.log.warn('fiscal data module busy; entry stays pending', { fdm_id: row.fdm_id, seq: Number(row.seq) });
    return { status: 'pending', journal_id: row.id, reason: 'busy', cause: new FdmNetworkError('Another send to this fiscal data module is still in progress') };
  }
  try {
    const earlier = await tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', row.fdm_id).where('status', '=', 'pending').where('seq', '<', row.seq).orderBy('seq').execute();
    for (const e of earlier) {
      let outcome: PendingOutcome;
      try {
        if (!(await lease.renew())) return { status: 'pending', journal_id: row.id, reason: 'lease lost' };
        outcome = await sendPendingRow(deps, tdb, e, signer);
      } catch (err) {
        deps.log.error('an earlier fiscal entry could not be sent; later entries wait', { fdm_id: e.fdm_id, seq: Number(e.seq), err });
        return { status: 'pending', journal_id: row.id, reason: 'earlier entry not sent', cause: err };
      }
      if (outcome.status === 'pending') return { status: 'pending', journal_id: row.id, reason: `waits for seq ${Number(e.seq)}`, cause: outcome.cause };
      await finishEarlier(deps, tdb, e, outcome);
    }
    const current = await tdb.selectFrom('fiscal_journal').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    if (current.status !== 'pending') return outcomeOf(current);
    if (!(await lease.renew())) return { status: 'pending', journal_id: row.id, reason: 'lease lost' };
    return await sendPendingRow(deps, tdb, current, signer);
  } finally {
    await lease.release().catch((err: unknown) => deps.log.warn('fiscal send lease not released; it runs out by itself', { fdm_id: row.fdm_id, err }));
  }
}

/** Runs the record hooks of an earlier entry completed on the way; a failure is logged (its owner or a retry finishes it). */
async function finishEarlier(deps: FiscalSignDeps, tdb: TenantDb, row: JournalRow, outcome: PendingOutcome): Promise<void> {
  try {
    if (outcome.status === 'signed') await deps.hooks?.onSigned?.(tdb, outcome.signed);
    else if (outcome.status === 'failed') await deps.hooks?.onFailed?.(tdb, { journal_id: outcome.journal_id, subject: subjectOf(row), error: outcome.error });
  } catch (err) {
    deps.log.error('finishing an earlier fiscal entry failed', { journal_id: row.id, fdm_id: row.fdm_id, seq: Number(row.seq), err });
  }
}

/** A remote module's pending journal entry, written in the caller's transaction (`reserveRemote`). */
export type ReservedEntry = JournalRow;

/**
 * Remote mode, step (a) inside the caller's transaction: checks the enrolment, resolves the module's
 * configuration (a device without one writes nothing) and appends the pending entry (the journal
 * head locked until the caller commits). Written with the caller's reservation (order SETTLING, the
 * refund, the movement), so nobody ever sees the reservation without its entry.
 */
export async function reserveRemote(deps: FiscalSignDeps, tx: TenantTx, input: SignEventInput): Promise<ReservedEntry> {
  if (!tx.isTransaction) throw new Error('reserveRemote needs a transaction');
  const fdm = await activeFdmFor(tx, input.locationId);
  if (!isSigning(fdm)) throw notEnrolledError();
  if (fdm.mode !== 'remote') throw new Error(`Fiscal device ${fdm.fdm_id} signs in process: use signEvent/signInTransaction`);
  deps.signers.remote(fdm.fdm_id);
  const { seq, prev, event } = await prepareEntry(deps, tx, fdm, input);
  const entry = appendEntry(prev, journalContent(fdm.fdm_id, event), deps.signers.sealKey);
  if (entry.seq !== seq) throw new Error(`Fiscal journal of ${fdm.fdm_id}: appended seq ${entry.seq}, reserved ${seq}`);
  const id = await insertEntry(deps, tx, input, entry);
  return tx.selectFrom('fiscal_journal').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * Remote mode, steps (b) and (c), after the caller committed `reserveRemote`'s entry: calls the
 * module outside any transaction and completes the entry. Throws 422 `fiscal_refused` (entry failed)
 * or 503 `fiscal_unreachable` (entry left pending for recovery).
 */
export async function sendReserved(deps: FiscalSignDeps, tdb: TenantDb, reserved: ReservedEntry): Promise<SignedFiscalEvent> {
  if (tdb.isTransaction) throw new Error('sendReserved must not run inside a transaction: the fiscal module is called outside it');
  const outcome = await sendInJournalOrder(deps, tdb, reserved, deps.signers.remote(reserved.fdm_id));
  switch (outcome.status) {
    case 'signed':
      return outcome.signed;
    case 'failed':
      throw refusedError(outcome.error);
    case 'pending':
      throw unreachableError(outcome.cause);
  }
}

/**
 * Remote mode: (a) commits a pending entry, (b) calls the module outside any transaction, (c)
 * completes the entry. Throws 422 `fiscal_refused` (entry failed) or 503 `fiscal_unreachable`
 * (entry left pending for recovery). Never call it inside a transaction.
 */
export async function signRemote(deps: FiscalSignDeps, tdb: TenantDb, input: SignEventInput): Promise<SignedFiscalEvent> {
  if (tdb.isTransaction) throw new Error('signRemote must not run inside a transaction: the fiscal module is called outside it');
  const enrolled = await activeFdmFor(tdb, input.locationId);
  if (!isSigning(enrolled)) throw notEnrolledError();
  if (enrolled.mode !== 'remote') throw new Error(`Fiscal device ${enrolled.fdm_id} signs in process: use signEvent/signInTransaction`);
  // Resolved before anything is written: a device without configuration leaves no pending entry.
  deps.signers.remote(enrolled.fdm_id);
  const pending = await withWriteRetry(() =>
    tdb.transaction().execute(async (tx) => {
      const fdm = await activeFdmFor(tx, input.locationId);
      if (!isSigning(fdm) || fdm.fdm_id !== enrolled.fdm_id || fdm.mode !== 'remote') throw errors.conflict('The fiscal enrolment of this location changed; try again.', { reason: 'fiscal_enrolment_changed' });
      return reserveRemote(deps, tx, input);
    }),
  );
  return sendReserved(deps, tdb, pending);
}

/**
 * Completes one pending entry (recovery, or a client retrying the operation that created it). A
 * signed or failed entry is returned as it is; a pending one is re-sent to its remote module.
 */
export async function completePendingEntry(deps: FiscalSignDeps, tdb: TenantDb, journalId: string): Promise<PendingOutcome> {
  const row = await tdb.selectFrom('fiscal_journal').selectAll().where('id', '=', journalId).executeTakeFirst();
  if (!row) throw errors.notFound('fiscal journal entry');
  if (row.status !== 'pending') return outcomeOf(row);
  const device = await tdb.selectFrom('fdm_devices').select(['mode']).where('fdm_id', '=', row.fdm_id).executeTakeFirst();
  if (device?.mode !== 'remote') {
    return { status: 'pending', journal_id: row.id, reason: device ? 'entry of an in-process signer cannot be resumed' : 'unknown fiscal device' };
  }
  let signer: RemoteFdmSigner;
  try {
    signer = deps.signers.remote(row.fdm_id);
  } catch (e) {
    deps.log.error('pending fiscal entry cannot be sent: module not configured', { fdm_id: row.fdm_id, err: e instanceof AppError && e.cause instanceof Error ? e.cause.message : e });
    return { status: 'pending', journal_id: row.id, reason: 'not configured', cause: e };
  }
  return sendInJournalOrder(deps, tdb, row, signer);
}

/**
 * Signs by the location's enrolment mode. Software: in `opts.tx` when given (the caller's state
 * change), else in a transaction of its own (retried on write conflicts). Remote: the three-step
 * flow of `signRemote` (refused with `opts.tx`: the module is never called inside a transaction).
 */
export async function signEvent(deps: FiscalSignDeps, tdb: TenantDb, input: SignEventInput, opts: { tx?: TenantTx } = {}): Promise<SignedFiscalEvent> {
  const fdm = await activeFdmFor(opts.tx ?? tdb, input.locationId);
  if (!isSigning(fdm)) throw notEnrolledError();
  if (fdm.mode === 'remote') {
    if (opts.tx) throw new Error(`Fiscal device ${fdm.fdm_id} is a remote module: commit first, then call signEvent without a transaction`);
    return signRemote(deps, tdb, input);
  }
  if (opts.tx) return signInTransaction(deps, opts.tx, input);
  return withWriteRetry(() => tdb.transaction().execute((tx) => signInTransaction(deps, tx, input)));
}
