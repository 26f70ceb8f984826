import { createHash, createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
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
// - A hash chain proves order, not authenticity: anyone who can write the table can alter an entry
//   and recompute every later hash. So each entry also carries two HMAC-SHA256 seals under a key the
//   database never holds (the seal key, from the environment): `seal` over {fdm_id, seq, prev_hash,
//   hash}, set on append and never rewritten, and `result_seal` over {hash, status, result_hash},
//   set on completion (null while pending). Verifying with `sealKey` makes a re-forged journal fail.

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
  /** HMAC of the appended entry (`entrySeal`); null only on rows journaled before sealing existed. */
  readonly seal: string | null;
  /** HMAC of the completed entry (`resultSeal`); null while pending. */
  readonly result_seal: string | null;
}

/** The seal key: HMAC key material held outside the database. */
export type SealKey = Buffer | KeyObject;

export type JournalProblem =
  | 'altered' // content, sign result or status does not match its hashes
  | 'removed' // a seq is missing (gap, missing head, or fewer entries than expected)
  | 'reordered' // an entry is out of seq order or duplicated
  | 'broken_link' // seq is continuous but prev_hash is not the previous hash (a predecessor was replaced)
  | 'foreign_device' // an entry of another fiscal device
  | 'duplicate_counter' // two signed entries with the same module total counter
  | 'bad_signature' // signature does not verify (only with a public key)
  | 'bad_seal' // a seal is missing or does not match (only with the seal key): re-forged or unsealed
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
  /** The journal's seal key: also checks every entry's seals (what makes a re-forged journal fail). */
  readonly sealKey?: SealKey;
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

function hmac(key: SealKey, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

/** Seal of an appended entry: binds its place (device, seq, predecessor) and its content hash. */
export function entrySeal(key: SealKey, e: { readonly fdm_id: string; readonly seq: number; readonly prev_hash: string; readonly hash: string }): string {
  return hmac(key, canonicalJson({ seal: 'entry', fdm_id: e.fdm_id, seq: e.seq, prev_hash: e.prev_hash, hash: e.hash }));
}

/** Seal of a completed entry: binds its final status and result hash (a refusal's, for a failed entry). */
export function resultSeal(key: SealKey, e: { readonly hash: string; readonly status: string; readonly result_hash: string | null }): string {
  return hmac(key, canonicalJson({ seal: 'result', hash: e.hash, status: e.status, result_hash: e.result_hash }));
}

/** Constant-time comparison of a stored seal with the expected one. */
export function sealMatches(stored: string | null, expected: string): boolean {
  if (stored === null || stored.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(stored, 'utf8'), Buffer.from(expected, 'utf8'));
}

/** What appending needs of the previous entry: its place and its hash. */
export type JournalHead = Pick<JournalEntry, 'seq' | 'hash'>;

/** A new pending, sealed entry after `prev` (null for the device's first entry). */
export function appendEntry(prev: JournalHead | null, content: JournalContent, sealKey: SealKey): JournalEntry {
  const seq = prev ? prev.seq + 1 : 1;
  const prev_hash = prev ? prev.hash : GENESIS_HASH;
  const base = { seq, fdm_id: content.fdm_id, event_kind: content.event_kind, payload: content.payload };
  const hash = chainHash(prev_hash, base);
  return { ...base, sign_result: null, status: 'pending', prev_hash, hash, result_hash: null, seal: entrySeal(sealKey, { ...base, prev_hash, hash }), result_seal: null };
}

/** The pending entry completed with the module's answer, and sealed. */
export function completeEntry(entry: JournalEntry, signResult: SignResult, sealKey: SealKey): JournalEntry {
  if (entry.status !== 'pending') throw new Error(`Journal entry ${entry.seq} is already ${entry.status}`);
  const result_hash = resultHash(entry.hash, signResult);
  return { ...entry, sign_result: signResult, status: 'signed', result_hash, result_seal: resultSeal(sealKey, { hash: entry.hash, status: 'signed', result_hash }) };
}

/** Append and complete in one step (in-process signer, same transaction). */
export function appendSigned(prev: JournalHead | null, content: JournalContent, signResult: SignResult, sealKey: SealKey): JournalEntry {
  return completeEntry(appendEntry(prev, content, sealKey), signResult, sealKey);
}

function fail(seq: number, problem: JournalProblem, detail: string): JournalVerification {
  return { ok: false, seq, problem, detail };
}

/**
 * Checks one device's journal entry by entry, in seq order as stored (`add`, then `result`): what
 * `verifyJournal` does, without holding the journal (a device's years of entries are read page by
 * page). `knownSeqs` (every seq of the journal) tells a reordered entry from a removed one; without it
 * (entries read ordered by seq, so never reordered) a gap is a removal.
 */
export class JournalVerifier {
  private prev: JournalEntry | null = null;
  private readonly counters = new Set<number>();
  private fdmId: string | undefined;
  private firstPending: number | null = null;
  private count = 0;
  private pending = 0;
  private failure: JournalVerification | null = null;

  constructor(
    private readonly opts: VerifyOptions = {},
    private readonly knownSeqs?: ReadonlySet<number>,
  ) {}

  /** Checks the next entry; false once a problem was found (the rest changes nothing). */
  add(e: JournalEntry): boolean {
    if (this.failure) return false;
    this.failure = this.check(e);
    if (this.failure) return false;
    this.count++;
    if (e.status === 'pending') this.pending++;
    return true;
  }

  private check(e: JournalEntry): JournalVerification | null {
    const prev = this.prev;
    const expected = prev ? prev.seq + 1 : 1;
    if (e.seq !== expected) {
      return e.seq < expected || this.knownSeqs?.has(expected)
        ? fail(e.seq, 'reordered', `seq ${e.seq} where ${expected} was expected`)
        : fail(expected, 'removed', `seq ${expected} is missing`);
    }
    this.fdmId ??= e.fdm_id;
    if (e.fdm_id !== this.fdmId) return fail(e.seq, 'foreign_device', `entry of device ${e.fdm_id}`);
    if (e.hash !== chainHash(e.prev_hash, e)) return fail(e.seq, 'altered', 'hash does not match content');
    if (e.prev_hash !== (prev ? prev.hash : GENESIS_HASH)) return fail(e.seq, 'broken_link', 'prev_hash is not the previous hash');
    if (this.opts.sealKey && !sealMatches(e.seal, entrySeal(this.opts.sealKey, e))) return fail(e.seq, 'bad_seal', e.seal === null ? 'entry is not sealed' : 'entry seal does not match');
    const problem = checkResult(e, this.counters, this.opts);
    if (problem) return fail(e.seq, problem[0], problem[1]);
    if (e.status === 'pending' && this.firstPending === null) this.firstPending = e.seq;
    // Only what the next entry is checked against is kept (its place and hash).
    this.prev = { ...e, payload: '', sign_result: null };
    return null;
  }

  result(): JournalVerification {
    if (this.failure) return this.failure;
    const last = this.prev?.seq ?? 0;
    if (this.opts.expectedLastSeq !== undefined && last < this.opts.expectedLastSeq) {
      return fail(last + 1, 'removed', `journal ends before seq ${this.opts.expectedLastSeq}`);
    }
    if (this.firstPending !== null && !this.opts.allowPending) return fail(this.firstPending, 'pending', 'entry was never completed');
    return { ok: true, count: this.count, pending: this.pending };
  }
}

/** Checks one device's journal, given in seq order as stored, end to end. */
export function verifyJournal(entries: readonly JournalEntry[], opts: VerifyOptions = {}): JournalVerification {
  const v = new JournalVerifier(opts, new Set(entries.map((e) => e.seq)));
  for (const e of entries) if (!v.add(e)) break;
  return v.result();
}

function checkResult(e: JournalEntry, counters: Set<number>, opts: VerifyOptions): [JournalProblem, string] | null {
  if (e.status === 'pending') {
    return e.sign_result === null && e.result_hash === null && e.result_seal === null ? null : ['altered', 'pending entry carries a result'];
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
  // After the signature: with a public key, a forged signature is named as such.
  if (opts.sealKey && !sealMatches(e.result_seal, resultSeal(opts.sealKey, e))) return ['bad_seal', e.result_seal === null ? 'result is not sealed' : 'result seal does not match'];
  return null;
}
