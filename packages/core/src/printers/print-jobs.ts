import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { isTenantSchemaName, type CentralDb, type TenantDb, type TenantTx } from '@pos/db';
import { outcomeOf, type PrintOutcome } from '@pos/domain/printing/printer-rules';

/**
 * The print-job queue of one printer (issue 15 point 5). Jobs print in order of `seq`; only the head
 * of a printer's queue is ever offered, and to one poll at a time (a lease). A job not confirmed
 * within its lease is offered again; a job reported printed is never offered again.
 */

/** NOTIFY channel: a printer has work again (payload: printer id), sent in the queuing transaction. */
export const PRINT_JOBS_CHANNEL = 'print_jobs';

export interface NewPrintJob {
  printerId: string;
  kind: string;
  /** What caused it (`sale:<id>`...): queuing the same source twice for a printer writes nothing. */
  sourceKey: string | null;
  document: string;
}

/**
 * Queues a job for a printer still in service (configured or paired); null when it is not (retired,
 * unconfigured, gone) or the source was queued already. Callers read the printers before they render,
 * so a retire may commit in between: the printer's row is key-share locked in the insert itself and
 * read at its latest version, so the job is never left queued on a retired printer (a printer seen
 * again and paired anew would print it, days later). A retire in flight is waited for; a retire after
 * the insert waits for this transaction and cancels the job.
 */
export async function enqueuePrintJob(tdb: TenantDb | TenantTx, job: NewPrintJob): Promise<string | null> {
  const row = await tdb
    .insertInto('print_jobs')
    .columns(['id', 'printer_id', 'kind', 'source_key', 'document'])
    .expression((eb) =>
      eb
        .selectFrom('printers')
        .select([sql<string>`${randomUUID()}::uuid`.as('id'), 'printers.id as printer_id', sql<string>`${job.kind}::text`.as('kind'), sql<string | null>`${job.sourceKey}::text`.as('source_key'), sql<string>`${job.document}::text`.as('document')])
        .where('printers.id', '=', job.printerId)
        .where('printers.state', 'in', ['configured', 'paired'])
        .forKeyShare(),
    )
    .onConflict((oc) => oc.columns(['printer_id', 'source_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (row) await sql`select pg_notify(${PRINT_JOBS_CHANNEL}, ${job.printerId})`.execute(tdb);
  return row?.id ?? null;
}

export interface LeasedJob {
  seq: string;
  /** The how-many-th hand-out of this job this is (1 for the first). */
  attempt: number;
  document: string;
}

/**
 * One poll: stamps the printer's last poll (and marks a configured printer paired: it polled with its
 * token), then leases the head of its queue when it is free or its lease ran out. Null: nothing to print.
 * One statement, so an idle poll is one round trip.
 */
export async function pollNextJob(db: CentralDb, schema: string, printerId: string, now: Date, leaseMs: number): Promise<LeasedJob | null> {
  return (await pollQueue(db, schema, printerId, now, leaseMs)).job;
}

/** `pollNextJob`, also saying whether the queue was empty (no job queued or leased at all). */
export async function pollQueue(db: CentralDb, schema: string, printerId: string, now: Date, leaseMs: number, tokenHash?: string): Promise<{ job: LeasedJob | null; empty: boolean }> {
  if (!isTenantSchemaName(schema)) throw new Error('Invalid tenant schema name');
  const leaseUntil = new Date(now.getTime() + leaseMs);
  // With the poll's token: paired only while that token is still the printer's (one minted since it
  // was resolved leaves the printer configured until it polls with the new one).
  const current = tokenHash === undefined ? sql`true` : sql`exists (select 1 from ${sql.id('public', 'printer_tokens')} t where t.token_hash = ${tokenHash} and t.printer_id = ${printerId})`;
  const r = await sql<LeasedJob & { leased: boolean }>`
    with touch as (
      update ${sql.id(schema, 'printers')} set last_poll_at = ${now}, state = case when state = 'configured' and ${current} then 'paired' else state end
      where id = ${printerId}
    ),
    head as (
      select id, state, lease_until from ${sql.id(schema, 'print_jobs')}
      where printer_id = ${printerId} and state in ('queued', 'leased')
      order by seq limit 1
      for update
    ),
    leased as (
      update ${sql.id(schema, 'print_jobs')} j set state = 'leased', lease_until = ${leaseUntil}, attempts = j.attempts + 1
      from head
      where j.id = head.id and (head.state = 'queued' or head.lease_until <= ${now})
      returning j.seq::text as seq, j.attempts as attempt, j.document
    )
    select seq, attempt, document, true as leased from leased
    union all
    select null, null, null, false from head where not exists (select 1 from leased)`.execute(db);
  const row = r.rows[0];
  if (!row) return { job: null, empty: true };
  return { job: row.leased ? { seq: row.seq, attempt: Number(row.attempt), document: row.document } : null, empty: false };
}

/**
 * A result report. Success: printed (once; a repeated or late report changes nothing). A failure the
 * printer recovers from: back in the queue for the next poll. Any other failure: failed with the code.
 * Reports for unknown jobs, jobs never offered or finished ones are ignored. `attempt` (from the job id
 * the printer was given; null for a bare `J<seq>`) keeps a late failure of an earlier hand-out, whose
 * lease ran out and whose job went out again, from putting it back while the new hand-out prints it
 * (it would print twice). A late success still counts: it did print. Answers what happened, or null.
 */
export async function recordPrintResult(tdb: TenantDb, printerId: string, seq: string, success: boolean, code: string | undefined, now: Date, attempt: number | null = null): Promise<PrintOutcome | null> {
  const outcome = await recordOnce(tdb, printerId, seq, success, code, now, attempt);
  // Now and then (about one finished job in PRUNE_EVERY of the merchant's), the printer's long-finished jobs go.
  if (outcome !== null && outcome !== 'retry' && /^[0-9]+$/.test(seq) && BigInt(seq) % PRUNE_EVERY === 0n) await pruneFinishedPrintJobs(tdb, printerId, now);
  return outcome;
}

/** How long a finished job (printed, failed, cancelled) is kept: nothing reads it again; its source key guards re-runs of the last day only (the post-capture sweep). */
export const FINISHED_JOB_RETENTION_MS = 7 * 24 * 3_600_000;
/** A printer's finished jobs are pruned when a job whose `seq` is a multiple of this finishes. */
const PRUNE_EVERY = 100n;

/**
 * Deletes a printer's jobs finished more than `FINISHED_JOB_RETENTION_MS` ago: each held its whole
 * rendered document (one per receipt and kitchen ticket: ~200 MB a location a year). Waiting and leased
 * jobs stay whatever their age. Answers how many went.
 */
export async function pruneFinishedPrintJobs(tdb: TenantDb | TenantTx, printerId: string, now: Date): Promise<number> {
  const r = await tdb
    .deleteFrom('print_jobs')
    .where('printer_id', '=', printerId)
    .where('state', 'in', ['printed', 'failed', 'cancelled'])
    .where('finished_at', '<', new Date(now.getTime() - FINISHED_JOB_RETENTION_MS))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

async function recordOnce(tdb: TenantDb, printerId: string, seq: string, success: boolean, code: string | undefined, now: Date, attempt: number | null): Promise<PrintOutcome | null> {
  return tdb.transaction().execute(async (tx) => {
    const job = await tx.selectFrom('print_jobs').select(['id', 'state', 'attempts']).where('printer_id', '=', printerId).where('seq', '=', seq).forUpdate().executeTakeFirst();
    if (!job || (job.state !== 'queued' && job.state !== 'leased')) return null;
    // Only a job handed to a poll can have a result: one still queued behind the head was never offered.
    if (job.attempts === 0 || (attempt !== null && attempt > job.attempts)) return null;
    // A failure counts for the hand-out in progress only.
    if (!success && (job.state !== 'leased' || (attempt !== null && attempt !== job.attempts))) return null;
    const outcome = outcomeOf(success, code);
    const base = tx.updateTable('print_jobs').where('id', '=', job.id);
    if (outcome === 'printed') await base.set({ state: 'printed', printed_at: now, finished_at: now, lease_until: null, last_code: null }).execute();
    else if (outcome === 'retry') {
      await base.set({ state: 'queued', lease_until: null, last_code: code ?? null }).execute();
      await sql`select pg_notify(${PRINT_JOBS_CHANNEL}, ${printerId})`.execute(tx);
    }
    else await base.set({ state: 'failed', finished_at: now, lease_until: null, last_code: code ?? 'unknown' }).execute();
    return outcome;
  });
}

/** Counts of a printer's waiting jobs, for the printer views. */
export async function pendingJobCounts(tdb: TenantDb, printerIds: readonly string[]): Promise<Map<string, number>> {
  if (printerIds.length === 0) return new Map();
  const rows = await tdb
    .selectFrom('print_jobs')
    .select((eb) => ['printer_id', eb.fn.countAll<string>().as('n')])
    .where('printer_id', 'in', printerIds)
    .where('state', 'in', ['queued', 'leased'])
    .groupBy('printer_id')
    .execute();
  return new Map(rows.map((r) => [r.printer_id, Number(r.n)]));
}

/**
 * Deletes the print jobs of these sources (`ticket:<id>`, `order:<id>`) on the printers of these
 * locations, whatever their state: what they printed is gone (a deleted test-mode transaction). A
 * printer's late report for a deleted job is ignored like any unknown job's. By printer, so the
 * `(printer_id, source_key)` key finds them.
 */
export async function deletePrintJobs(db: TenantDb | TenantTx, locationIds: readonly string[], sourceKeys: readonly string[]): Promise<number> {
  if (locationIds.length === 0 || sourceKeys.length === 0) return 0;
  const r = await db
    .deleteFrom('print_jobs')
    .where('printer_id', 'in', (eb) => eb.selectFrom('printers').select('id').where('location_id', 'in', [...locationIds]))
    .where('source_key', 'in', [...sourceKeys])
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
