import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import { canonicalJson, type FiscalEvent, type JournalEntry, type SignResult } from '@pos/fiscal';
import type { TenantDb, TenantTables } from '@pos/db';

// Storage of the per-device journal (`fiscal_journal`). The chain fields (seq, prev_hash, hash,
// result_hash) are those of @pos/fiscal's journal. A `failed` entry (the remote module refused the
// event, so it counted nothing) keeps its place in the chain; its `sign_result` holds the refusal
// and its `result_hash` binds that refusal to the entry (`failureHash`).

export type JournalRow = Selectable<TenantTables['fiscal_journal']>;

/** What a refused event stores in `sign_result`. */
export interface FiscalSignError {
  readonly code: string;
  readonly sub_code?: string;
  readonly message: string;
  readonly status: number;
}

/** The subject an entry records (`pos_order`, `pos_refund`, `till_movement`, `business_day`, ...). */
export interface FiscalSubject {
  readonly type: string;
  readonly id: string;
}

/** A signed and journaled fiscal event. */
export interface SignedFiscalEvent {
  readonly journal_id: string;
  readonly fdm_id: string;
  readonly seq: number;
  readonly subject: FiscalSubject | null;
  readonly event: FiscalEvent;
  readonly result: SignResult;
}

/** SHA-256 binding a refusal to an entry's hash (the `failed` counterpart of `resultHash`). */
export function failureHash(hash: string, error: unknown): string {
  return createHash('sha256').update(canonicalJson({ hash, sign_error: error }), 'utf8').digest('hex');
}

/** JSON.parse, or the text itself when it does not parse. */
export function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // kept as is: its hash will not match, so verification reports the entry as altered
  }
}

/**
 * A stored row as a @pos/fiscal JournalEntry. A `failed` row becomes a pending-shaped link (no
 * result), since the chain only needs its content, hashes and entry seal; its refusal and result
 * seal are checked apart (`verifyDeviceRows`).
 */
export function toJournalEntry(row: JournalRow): JournalEntry {
  const base = {
    seq: Number(row.seq),
    fdm_id: row.fdm_id,
    event_kind: row.event_kind as JournalEntry['event_kind'],
    payload: row.payload,
    prev_hash: row.prev_hash,
    hash: row.hash,
    seal: row.seal,
  };
  if (row.status === 'failed') return { ...base, status: 'pending', sign_result: null, result_hash: null, result_seal: null };
  return {
    ...base,
    status: row.status as JournalEntry['status'],
    sign_result: row.sign_result === null ? null : (parseOr(row.sign_result) as SignResult),
    result_hash: row.result_hash,
    result_seal: row.result_seal,
  };
}

/** The subject of a row, or null. */
export function subjectOf(row: Pick<JournalRow, 'subject_type' | 'subject_id'>): FiscalSubject | null {
  return row.subject_type !== null && row.subject_id !== null ? { type: row.subject_type, id: row.subject_id } : null;
}

/** A signed row as a SignedFiscalEvent. */
export function signedEventOf(row: JournalRow): SignedFiscalEvent {
  if (row.status !== 'signed' || row.sign_result === null) throw new Error(`Fiscal journal entry ${row.id} is ${row.status}, not signed`);
  return {
    journal_id: row.id,
    fdm_id: row.fdm_id,
    seq: Number(row.seq),
    subject: subjectOf(row),
    event: JSON.parse(row.payload) as FiscalEvent,
    result: JSON.parse(row.sign_result) as SignResult,
  };
}

/** The device's last entry (highest seq), or undefined for an empty journal. */
export async function lastEntryRow(tdb: TenantDb, fdmId: string): Promise<JournalRow | undefined> {
  return tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', fdmId).orderBy('seq', 'desc').limit(1).executeTakeFirst();
}
