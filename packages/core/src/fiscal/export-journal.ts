import { resultSeal, sealMatches, verifyJournal, type JournalProblem, type SealKey, type SignResult } from '@pos/fiscal';
import type { TenantDb } from '@pos/db';
import { counterValue, SEQ_LABEL } from './counter-store.ts';
import { failureHash, parseOr, toJournalEntry, type JournalRow } from './journal-rows.ts';

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
  /** Inclusive lower bound on created_at. */
  readonly from?: Date;
  /** Exclusive upper bound on created_at. */
  readonly to?: Date;
}

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
 * Verifies stored rows of one device given in seq order: the chain, results and seals
 * (@pos/fiscal's `verifyJournal`), plus the refusal binding and result seal of failed entries.
 * Reports the lowest failing seq.
 */
export function verifyDeviceRows(rows: readonly JournalRow[], opts: VerifyDeviceOptions): DeviceVerification {
  const chain = verifyJournal(rows.map(toJournalEntry), {
    allowPending: true,
    sealKey: opts.sealKey,
    ...(opts.expectedLastSeq !== undefined ? { expectedLastSeq: opts.expectedLastSeq } : {}),
    ...(opts.publicKey ? { publicKey: opts.publicKey } : {}),
  });
  const problems: { seq: number; problem: JournalProblem; detail: string }[] = [];
  if (!chain.ok) problems.push(chain);
  const badFailure = rows.find((r) => r.status === 'failed' && (r.sign_result === null || r.result_hash !== failureHash(r.hash, parseOr(r.sign_result))));
  if (badFailure) problems.push({ seq: Number(badFailure.seq), problem: 'altered', detail: 'refusal does not match result_hash' });
  const badFailureSeal = rows.find((r) => r.status === 'failed' && !sealMatches(r.result_seal, resultSeal(opts.sealKey, r)));
  if (badFailureSeal) problems.push({ seq: Number(badFailureSeal.seq), problem: 'bad_seal', detail: 'result seal does not match' });
  const firstPending = rows.find((r) => r.status === 'pending');
  if (opts.allowPending === false && firstPending) problems.push({ seq: Number(firstPending.seq), problem: 'pending', detail: 'entry was never completed' });
  // A pending entry carries no result, so one put back to pending (its signature removed) passed the
  // checks above. Entries complete in journal order (`sendInJournalOrder`): no completed entry follows a
  // pending one; and a software-mode device has no pending entry at all.
  if (firstPending) {
    const from = rows.indexOf(firstPending);
    if (opts.software) problems.push({ seq: Number(firstPending.seq), problem: 'altered', detail: 'a software-mode entry is never pending' });
    else if (rows.slice(from + 1).some((r) => r.status !== 'pending')) problems.push({ seq: Number(firstPending.seq), problem: 'altered', detail: 'pending entry before a completed one' });
  }
  // Lowest seq first; at one seq, a forged-but-rehashed entry reports `bad_seal` after `altered`.
  const first = problems.sort((a, b) => a.seq - b.seq)[0];
  if (first) return { ok: false, seq: first.seq, problem: first.problem, detail: first.detail };
  return {
    ok: true,
    count: rows.length,
    pending: rows.filter((r) => r.status === 'pending').length,
    failed: rows.filter((r) => r.status === 'failed').length,
    last_seq: rows.length ? Number(rows[rows.length - 1]!.seq) : 0,
  };
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

/**
 * The fiscal journal of a location, per fiscal device it ever had (the back-office fiscal-events
 * export): the entries in the window, and a verification of each device's whole journal against
 * its head counter and the seal key (`keys`, the fiscal service); software-mode signatures too.
 */
export async function exportJournal(tdb: TenantDb, input: ExportJournalInput, keys: JournalKeys): Promise<DeviceJournal[]> {
  const enrolled = await tdb.selectFrom('fdm_devices').select(['fdm_id', 'mode', 'status']).where('location_id', '=', input.locationId).orderBy('created_at').execute();
  const journaled = await tdb.selectFrom('fiscal_journal').select('fdm_id').distinct().where('location_id', '=', input.locationId).execute();
  const devices = new Map<string, { mode: 'software' | 'remote' | null; status: 'active' | 'retired' | null }>();
  for (const d of enrolled) devices.set(d.fdm_id, { mode: d.mode, status: d.status });
  for (const j of journaled) if (!devices.has(j.fdm_id)) devices.set(j.fdm_id, { mode: null, status: null });

  const out: DeviceJournal[] = [];
  for (const [fdmId, device] of devices) {
    const rows = await tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', fdmId).orderBy('seq').execute();
    const head = await counterValue(tdb, fdmId, SEQ_LABEL);
    const verification = verifyDeviceRows(rows, {
      sealKey: keys.sealKey,
      expectedLastSeq: head,
      software: device.mode === 'software',
      ...(device.mode === 'software' ? { publicKey: keys.publicKeyFor(fdmId) } : {}),
    });
    const entries = rows
      .filter((r) => r.location_id === input.locationId && (!input.from || r.created_at >= input.from) && (!input.to || r.created_at < input.to))
      .map(exported);
    out.push({ fdm_id: fdmId, mode: device.mode, status: device.status, entries, verification });
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
  const rows = await tdb.selectFrom('fiscal_journal').select('location_id').distinct().where('location_id', 'in', [...locationIds]).execute();
  return new Set(rows.map((r) => r.location_id));
}
