import { createHash, type KeyObject } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import type { FiscalEvent, FiscalEventKind } from './events.ts';
import type { SignResult } from './signer.ts';
import { verifySignature } from './software-signer.ts';

// Hashing of the pending-then-completed life of an entry:
// - `hash` = SHA-256(canonicalJson({seq, fdm_id, event_kind, payload, prev_hash})) is fixed when the
//   entry is appended (pending), and the next entry's `prev_hash` is this `hash`. So entries can be
//   appended while an earlier one still waits for a remote module, and completing never rewrites the chain.
// - `result_hash` = SHA-256(canonicalJson({hash, sign_result})) is set on completion; it binds the
//   module's answer to that exact entry (null while pending).

/** prev_hash of the first entry of a journal. */
export const GENESIS_HASH = '0'.repeat(64);

/** What the caller supplies for a new entry. `payload` is canonical JSON of the event; store it as text, not jsonb. */
export interface JournalContent {
  readonly fdm_id: string;
  readonly event_kind: FiscalEventKind;
  readonly payload: string;
}

export interface JournalEntry extends JournalContent {
  /** 1, 2, 3, ... per fiscal device. */
  readonly seq: number;
  readonly sign_result: SignResult | null;
  readonly status: 'pending' | 'signed';
  readonly prev_hash: string;
  readonly hash: string;
  readonly result_hash: string | null;
}

export type JournalProblem =
  | 'altered' // content, sign result or status does not match its hashes
  | 'removed' // a seq is missing (gap, missing head, or fewer entries than expected)
  | 'reordered' // an entry is out of seq order or duplicated
  | 'broken_link' // seq is continuous but prev_hash is not the previous hash (a predecessor was replaced)
  | 'foreign_device' // an entry of another fiscal device
  | 'duplicate_counter' // two signed entries with the same module total counter
  | 'bad_signature' // signature does not verify (only with a public key)
  | 'pending'; // an entry never completed (unless allowed)

export type JournalVerification =
  | { readonly ok: true; readonly count: number; readonly pending: number }
  | { readonly ok: false; readonly seq: number; readonly problem: JournalProblem; readonly detail: string };

export interface VerifyOptions {
  /** Accept pending entries (a live journal while a remote call is in flight). Default false. */
  readonly allowPending?: boolean;
  /** The last seq the device has issued, to detect a truncated tail. */
  readonly expectedLastSeq?: number;
  /** The in-process signer's public key: also checks every signature against its payload. */
  readonly publicKey?: KeyObject | string;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The journal content of an event. */
export function journalContent(fdmId: string, event: FiscalEvent): JournalContent {
  return { fdm_id: fdmId, event_kind: event.kind, payload: canonicalJson(event) };
}

/** Hash of an entry's content chained to its predecessor's hash. */
export function chainHash(prevHash: string, entry: JournalContent & { readonly seq: number }): string {
  return sha256(canonicalJson({ seq: entry.seq, fdm_id: entry.fdm_id, event_kind: entry.event_kind, payload: entry.payload, prev_hash: prevHash }));
}

/** Hash binding a sign result to an entry's hash. */
export function resultHash(hash: string, signResult: SignResult): string {
  return sha256(canonicalJson({ hash, sign_result: signResult }));
}

/** A new pending entry after `prev` (null for the device's first entry). */
export function appendEntry(prev: JournalEntry | null, content: JournalContent): JournalEntry {
  const seq = prev ? prev.seq + 1 : 1;
  const prev_hash = prev ? prev.hash : GENESIS_HASH;
  const base = { seq, fdm_id: content.fdm_id, event_kind: content.event_kind, payload: content.payload };
  return { ...base, sign_result: null, status: 'pending', prev_hash, hash: chainHash(prev_hash, base), result_hash: null };
}

/** The pending entry completed with the module's answer. */
export function completeEntry(entry: JournalEntry, signResult: SignResult): JournalEntry {
  if (entry.status !== 'pending') throw new Error(`Journal entry ${entry.seq} is already ${entry.status}`);
  return { ...entry, sign_result: signResult, status: 'signed', result_hash: resultHash(entry.hash, signResult) };
}

/** Append and complete in one step (in-process signer, same transaction). */
export function appendSigned(prev: JournalEntry | null, content: JournalContent, signResult: SignResult): JournalEntry {
  return completeEntry(appendEntry(prev, content), signResult);
}

function fail(seq: number, problem: JournalProblem, detail: string): JournalVerification {
  return { ok: false, seq, problem, detail };
}

/** Checks one device's journal, given in seq order as stored, end to end. */
export function verifyJournal(entries: readonly JournalEntry[], opts: VerifyOptions = {}): JournalVerification {
  const seqs = new Set(entries.map((e) => e.seq));
  const counters = new Set<number>();
  const fdmId = entries[0]?.fdm_id;
  let prev: JournalEntry | null = null;
  let firstPending: number | null = null;
  for (const e of entries) {
    const expected = prev ? prev.seq + 1 : 1;
    if (e.seq !== expected) {
      return e.seq < expected || seqs.has(expected)
        ? fail(e.seq, 'reordered', `seq ${e.seq} where ${expected} was expected`)
        : fail(expected, 'removed', `seq ${expected} is missing`);
    }
    if (e.fdm_id !== fdmId) return fail(e.seq, 'foreign_device', `entry of device ${e.fdm_id}`);
    if (e.hash !== chainHash(e.prev_hash, e)) return fail(e.seq, 'altered', 'hash does not match content');
    if (e.prev_hash !== (prev ? prev.hash : GENESIS_HASH)) return fail(e.seq, 'broken_link', 'prev_hash is not the previous hash');
    const problem = checkResult(e, counters, opts);
    if (problem) return fail(e.seq, problem[0], problem[1]);
    if (e.status === 'pending' && firstPending === null) firstPending = e.seq;
    prev = e;
  }
  if (opts.expectedLastSeq !== undefined && (prev?.seq ?? 0) < opts.expectedLastSeq) {
    return fail((prev?.seq ?? 0) + 1, 'removed', `journal ends before seq ${opts.expectedLastSeq}`);
  }
  if (firstPending !== null && !opts.allowPending) return fail(firstPending, 'pending', 'entry was never completed');
  return { ok: true, count: entries.length, pending: entries.filter((e) => e.status === 'pending').length };
}

function checkResult(e: JournalEntry, counters: Set<number>, opts: VerifyOptions): [JournalProblem, string] | null {
  if (e.status === 'pending') {
    return e.sign_result === null && e.result_hash === null ? null : ['altered', 'pending entry carries a result'];
  }
  if (e.status !== 'signed' || e.sign_result === null) return ['altered', 'signed entry without a result'];
  if (e.result_hash !== resultHash(e.hash, e.sign_result)) return ['altered', 'sign result does not match result_hash'];
  const total = e.sign_result.fdmRef.totalCounter;
  if (counters.has(total)) return ['duplicate_counter', `total counter ${total} used twice`];
  counters.add(total);
  if (opts.publicKey) {
    let event: FiscalEvent;
    try {
      event = JSON.parse(e.payload) as FiscalEvent;
    } catch {
      return ['altered', 'payload is not JSON'];
    }
    if (!verifySignature(opts.publicKey, event, e.sign_result)) return ['bad_signature', 'signature does not verify'];
  }
  return null;
}
