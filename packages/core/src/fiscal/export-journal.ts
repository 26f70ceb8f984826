import { JournalVerifier, resultSeal, sealMatches, type JournalProblem, type SealKey, type SignResult } from '@pos/fiscal';
import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { counterValue, SEQ_LABEL } from './counter-store.ts';
import { failureHash, parseOr, toJournalEntry, type JournalRow } from './journal-rows.ts';
import { isBusinessDate } from '@pos/domain/business-day/business-day';
import { businessDateIn } from './sign-event.ts';

/** Journal rows read at a time for the export's verification. */
const JOURNAL_PAGE = 1000;

/** One journal entry as exported (payload kept as the stored canonical text its hash covers). */
export interface ExportedEntry {
  readonly id: string;
  readonly fdm_id: string;
  readonly seq: number;
  readonly event_kind: string;
  readonly payload: string;
  readonly status: 'pending' | 'signed' | 'failed';
  /** The module's answer when signed. */
  readonly sign_result: SignResult | null;
  /** The module's refusal when failed. */
  readonly sign_error: unknown;
  readonly prev_hash: string;
  readonly hash: string;
  readonly result_hash: string | null;
  readonly subject_type: string | null;
  readonly subject_id: string | null;
  readonly created_at: Date;
  readonly completed_at: Date | null;
}

/** End-to-end verification of one device's whole journal (whatever the export window). */
export type DeviceVerification =
  | { readonly ok: true; readonly count: number; readonly pending: number; readonly failed: number; readonly last_seq: number }
  | { readonly ok: false; readonly seq: number; readonly problem: JournalProblem; readonly detail: string };

export interface DeviceJournal {
  readonly fdm_id: string;
  /** Null for a device whose enrolment row is gone. */
  readonly mode: 'software' | 'remote' | null;
  readonly status: 'active' | 'retired' | null;
  /** Entries of the location in the window, in seq order. */
  readonly entries: readonly ExportedEntry[];
  readonly verification: DeviceVerification;
}

export interface ExportJournalInput {
  readonly locationId: string;
  /**
   * First and last booking date kept (`YYYY-MM-DD`, inclusive): an entry's own `bookingDate`, so the Z
   * report closing a day at 02:45 the next morning, or days later, is in that day's export with its sales.
   * An entry whose payload names none is dated by its creation in `timeZone`.
   */
  readonly from?: string;
  readonly to?: string;
  /** The location's zone (UTC when not given). */
  readonly timeZone?: string;
  /** Most entries the window may hold across devices (`FISCAL_EXPORT_MAX_ENTRIES` by default). */
  readonly maxEntries?: number;
}

/**
 * Most entries one export answers: the answer is one JSON document built in memory, so a window over
 * years of a busy location would hold the process's memory for as long as it is written. A window with
 * more is refused (422 on `from`); the verification covers the whole journal whatever the window.
 */
export const FISCAL_EXPORT_MAX_ENTRIES = 20_000;
export const fiscalExportTooLarge = (max: number) => `The window holds more than ${max} fiscal events; narrow it with from and to.`;

export interface VerifyDeviceOptions {
  /** The journal seal key: every entry's seals are checked (both signer kinds). */
  readonly sealKey: SealKey;
  /** The journal head: where the journal must end (detects a removed tail). */
  readonly expectedLastSeq?: number;
  /** Software-mode public key: also checks every signature. */
  readonly publicKey?: string;
  /** Default true: a live journal may hold entries waiting for a remote module. */
  readonly allowPending?: boolean;
  /** A software-mode device signs in the transaction that writes the entry: none of its entries is ever pending. */
  readonly software?: boolean;
}

/** What verification needs from the fiscal service: software-mode public keys and the seal key. */
export interface JournalKeys {
  publicKeyFor(fdmId: string): string;
  readonly sealKey: SealKey;
}

/**
 * Verifies the stored rows of one device fed in seq order (`add`, then `result`): the chain, results
 * and seals (@pos/fiscal's `JournalVerifier`), the refusal binding and result seal of failed entries,
 * and where pending entries may be. Reports the lowest failing seq. Holds no row: a journal of years is
 * read page by page.
 */
export class DeviceVerifier {
  private readonly chain: JournalVerifier;
  private readonly problems: { seq: number; problem: JournalProblem; detail: string }[] = [];
  private firstPending: number | null = null;
  private completedAfterPending = false;
  private count = 0;
  private pending = 0;
  private failed = 0;
  private lastSeq = 0;
  private badFailure = false;
  private badFailureSeal = false;

  constructor(private readonly opts: VerifyDeviceOptions) {
    this.chain = new JournalVerifier({
      allowPending: true,
      sealKey: opts.sealKey,
      ...(opts.expectedLastSeq !== undefined ? { expectedLastSeq: opts.expectedLastSeq } : {}),
      ...(opts.publicKey ? { publicKey: opts.publicKey } : {}),
    });
  }

  add(r: JournalRow): void {
    this.chain.add(toJournalEntry(r));
    const seq = Number(r.seq);
    this.count++;
    this.lastSeq = seq;
    if (r.status === 'failed') {
      this.failed++;
      if (!this.badFailure && (r.sign_result === null || r.result_hash !== failureHash(r.hash, parseOr(r.sign_result)))) {
        this.badFailure = true;
        this.problems.push({ seq, problem: 'altered', detail: 'refusal does not match result_hash' });
      }
      if (!this.badFailureSeal && !sealMatches(r.result_seal, resultSeal(this.opts.sealKey, r))) {
        this.badFailureSeal = true;
        this.problems.push({ seq, problem: 'bad_seal', detail: 'result seal does not match' });
      }
    }
    if (r.status === 'pending') {
      this.pending++;
      this.firstPending ??= seq;
    } else if (this.firstPending !== null) this.completedAfterPending = true;
  }

  result(): DeviceVerification {
    const chain = this.chain.result();
    const problems: { seq: number; problem: JournalProblem; detail: string }[] = chain.ok ? [] : [{ seq: chain.seq, problem: chain.problem, detail: chain.detail }];
    problems.push(...this.problems);
    if (this.firstPending !== null) {
      if (this.opts.allowPending === false) problems.push({ seq: this.firstPending, problem: 'pending', detail: 'entry was never completed' });
      // A pending entry carries no result, so one put back to pending (its signature removed) passed the
      // checks above. Entries complete in journal order (`sendInJournalOrder`): no completed entry follows a
      // pending one; and a software-mode device has no pending entry at all.
      if (this.opts.software) problems.push({ seq: this.firstPending, problem: 'altered', detail: 'a software-mode entry is never pending' });
      else if (this.completedAfterPending) problems.push({ seq: this.firstPending, problem: 'altered', detail: 'pending entry before a completed one' });
    }
    // Lowest seq first; at one seq, a forged-but-rehashed entry reports `bad_seal` after `altered`.
    const first = problems.sort((a, b) => a.seq - b.seq)[0];
    if (first) return { ok: false, seq: first.seq, problem: first.problem, detail: first.detail };
    return { ok: true, count: this.count, pending: this.pending, failed: this.failed, last_seq: this.lastSeq };
  }
}

/** `DeviceVerifier` over rows already read, in seq order. */
export function verifyDeviceRows(rows: readonly JournalRow[], opts: VerifyDeviceOptions): DeviceVerification {
  const v = new DeviceVerifier(opts);
  for (const r of rows) v.add(r);
  return v.result();
}

function exported(row: JournalRow): ExportedEntry {
  const parsed = row.sign_result === null ? null : parseOr(row.sign_result);
  return {
    id: row.id,
    fdm_id: row.fdm_id,
    seq: Number(row.seq),
    event_kind: row.event_kind,
    payload: row.payload,
    status: row.status,
    sign_result: row.status === 'signed' ? (parsed as SignResult) : null,
    sign_error: row.status === 'failed' ? parsed : null,
    prev_hash: row.prev_hash,
    hash: row.hash,
    result_hash: row.result_hash,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}

/** The entry's booking date (its payload's `bookingDate`; else its creation's local date) within the export's dates. */
function inWindow(r: Pick<JournalRow, 'payload' | 'created_at'>, input: ExportJournalInput): boolean {
  if (!input.from && !input.to) return true;
  const date = bookingDateOf(r, input.timeZone ?? 'UTC');
  return (!input.from || date >= input.from) && (!input.to || date <= input.to);
}

function bookingDateOf(r: Pick<JournalRow, 'payload' | 'created_at'>, timeZone: string): string {
  const payload = parseOr(r.payload) as { bookingDate?: unknown } | null;
  const date = payload && typeof payload === 'object' ? payload.bookingDate : undefined;
  return typeof date === 'string' && isBusinessDate(date) ? date : businessDateIn(timeZone, r.created_at);
}

/**
 * The fiscal journal of a location, per fiscal device it ever had (the back-office fiscal-events
 * export): the entries in the window, and a verification of each device's whole journal against
 * its head counter and the seal key (`keys`, the fiscal service); software-mode signatures too.
 */
export async function exportJournal(db: TenantDb, input: ExportJournalInput, keys: JournalKeys, pageSize = JOURNAL_PAGE): Promise<DeviceJournal[]> {
  // One snapshot for every page: entries a remote module completes while the export reads would otherwise
  // show a pending entry before completed ones, which is how a downgraded entry looks ('altered').
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute((tdb) => exportInSnapshot(tdb, input, keys, pageSize));
}

async function exportInSnapshot(tdb: TenantDb, input: ExportJournalInput, keys: JournalKeys, pageSize: number): Promise<DeviceJournal[]> {
  const enrolled = await tdb.selectFrom('fdm_devices').select(['fdm_id', 'mode', 'status']).where('location_id', '=', input.locationId).orderBy('created_at').execute();
  const journaled = await tdb.selectFrom('fiscal_journal').select('fdm_id').distinct().where('location_id', '=', input.locationId).execute();
  const devices = new Map<string, { mode: 'software' | 'remote' | null; status: 'active' | 'retired' | null }>();
  for (const d of enrolled) devices.set(d.fdm_id, { mode: d.mode, status: d.status });
  for (const j of journaled) if (!devices.has(j.fdm_id)) devices.set(j.fdm_id, { mode: null, status: null });

  const out: DeviceJournal[] = [];
  const maxEntries = input.maxEntries ?? FISCAL_EXPORT_MAX_ENTRIES;
  let kept = 0;
  for (const [fdmId, device] of devices) {
    const head = await counterValue(tdb, fdmId, SEQ_LABEL);
    const verifier = new DeviceVerifier({
      sealKey: keys.sealKey,
      expectedLastSeq: head,
      software: device.mode === 'software',
      ...(device.mode === 'software' ? { publicKey: keys.publicKeyFor(fdmId) } : {}),
    });
    // Page by page: the whole journal is verified, only the window's entries are kept.
    const entries: ExportedEntry[] = [];
    for (let after = 0; ; ) {
      const page = await tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', fdmId).where('seq', '>', after).orderBy('seq').limit(pageSize).execute();
      for (const r of page) {
        verifier.add(r);
        if (r.location_id === input.locationId && inWindow(r, input)) {
          if (++kept > maxEntries) throw errors.field('from', fiscalExportTooLarge(maxEntries));
          entries.push(exported(r));
        }
      }
      if (page.length < pageSize) break;
      after = Number(page[page.length - 1]!.seq);
    }
    out.push({ fdm_id: fdmId, mode: device.mode, status: device.status, entries, verification: verifier.result() });
  }
  return out;
}

/** True when the location has at least one journaled fiscal event (stays true after its enrolment is retired). */
export async function hasFiscalHistory(tdb: TenantDb, locationId: string): Promise<boolean> {
  const row = await tdb.selectFrom('fiscal_journal').select('id').where('location_id', '=', locationId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The locations among `locationIds` with fiscal history (the fiscal-locations report). */
export async function locationsWithFiscalHistory(tdb: TenantDb, locationIds: readonly string[]): Promise<Set<string>> {
  if (locationIds.length === 0) return new Set();
  // One look per location (an EXISTS on `fiscal_journal_location`), not a DISTINCT over every entry of
  // the journal: at a busy merchant the journal holds a row per sale, refund and till event for years.
  const rows = await tdb
    .selectFrom('locations as l')
    .select('l.id')
    .where('l.id', 'in', [...locationIds])
    .where((eb) => eb.exists(eb.selectFrom('fiscal_journal as j').select('j.location_id').whereRef('j.location_id', '=', 'l.id')))
    .execute();
  return new Set(rows.map((r) => r.id));
}
