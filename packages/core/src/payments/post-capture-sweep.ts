import { sql } from 'kysely';
import { enqueueOutbox, type TenantDb } from '@pos/db';
import { fanOut, jobMessage, paymentPostCaptureJob, type JobMessage } from '@pos/kernel/queues/index';
import { FOLLOW_UP_STEPS, followUpJobs } from './post-capture.ts';

/**
 * The post-capture sweep. The outbox marks a job's row relayed once Redis has it; from then on Redis
 * holds the only copy. A Redis that loses its data (a restart without persistence, a failover to a
 * lagging replica), or a job that spent its retries while the database was away, would leave a
 * Complete transaction without some of its post-capture steps, for good. Every step is recorded once
 * per transaction (`transaction_steps`) and is safe to run again, so the sweep looks for Complete
 * transactions whose recorded steps fall short and writes the missing jobs to the outbox again: the
 * post-capture job when it never claimed `queue_jobs`, else the follow-up jobs whose steps are missing,
 * in the spec's order.
 */

/** A transaction completed less than this ago is left to the jobs in flight. */
export const SWEEP_GRACE_MS = 2 * 60_000;
/** How far back the sweep looks. */
export const SWEEP_WINDOW_MS = 24 * 3600_000;
/** Transactions read per page, and re-driven per sweep and merchant (the next sweep takes the rest). */
export const SWEEP_LIMIT = 500;
/** Pages read per sweep and merchant at most: transactions that stay unfinished (a register down for hours) do not hide newer ones, and a sweep stays bounded. */
export const SWEEP_MAX_PAGES = 20;

export interface UnfinishedSequence {
  readonly id: string;
  readonly completed_at: Date;
  readonly location_id: string;
  readonly cart_session_id: string | null;
  readonly is_test: boolean;
  /** The `queue_jobs` claim's detail (the jobs queued, JSON), null when the post-capture job never got that far. */
  readonly queued: string | null;
  readonly steps: string[];
  readonly item_ids: string[];
  readonly stock_tracked: boolean;
}

/** Complete transactions of the window whose post-capture sequence is missing a step, oldest first, after `after` (paging). */
export async function findUnfinishedSequences(db: TenantDb, now: Date, limit = SWEEP_LIMIT, after?: { readonly completed_at: Date; readonly id: string }): Promise<UnfinishedSequence[]> {
  const from = new Date(now.getTime() - SWEEP_WINDOW_MS);
  const to = new Date(now.getTime() - SWEEP_GRACE_MS);
  const rows = await db
    .selectFrom('transactions as t')
    .select((eb) => [
      't.id',
      't.completed_at',
      't.location_id',
      't.cart_session_id',
      't.is_test',
      eb.selectFrom('transaction_steps as s').select('s.detail').whereRef('s.transaction_id', '=', 't.id').where('s.step', '=', 'queue_jobs').as('queued'),
      sql<string[]>`array(${eb.selectFrom('transaction_steps as s').select('s.step').whereRef('s.transaction_id', '=', 't.id')})`.as('steps'),
      sql<string[]>`array(${eb.selectFrom('transaction_lines as l').select(sql<string>`l.item_id::text`.as('item_id')).distinct().whereRef('l.transaction_id', '=', 't.id')})`.as('item_ids'),
      eb
        .exists(
          eb
            .selectFrom('transaction_lines as l')
            .innerJoin('inventory_levels as v', (j) => j.onRef('v.item_id', '=', 'l.item_id').onRef('v.location_id', '=', 't.location_id'))
            .select('l.position')
            .whereRef('l.transaction_id', '=', 't.id'),
        )
        .as('stock_tracked'),
    ])
    .where('t.status', '=', 'Complete')
    .where('t.completed_at', '>=', from)
    .where('t.completed_at', '<', to)
    .where((eb) => {
      const step = (name: string) => eb.selectFrom('transaction_steps as s').select('s.step').whereRef('s.transaction_id', '=', 't.id').where('s.step', '=', name);
      return eb.or([
        eb.not(eb.exists(step('queue_jobs'))),
        eb.not(eb.exists(step('register_dispatch'))),
        eb.not(eb.exists(step('finalise'))),
        eb.and([eb('t.is_test', '=', false), eb.not(eb.exists(step('daily_stats')))]),
        eb.and([eb('t.cart_session_id', 'is not', null), eb.not(eb.exists(step('stock_release')))]),
        eb.and([eb.exists(step('queue_jobs').where('s.detail', 'like', '%stock.edge-sync%')), eb.not(eb.exists(step('edge_stock_sync')))]),
      ]);
    })
    .$if(after !== undefined, (q) => q.where((eb) => eb(eb.refTuple('t.completed_at', 't.id'), '>', eb.tuple(after!.completed_at, after!.id))))
    .orderBy('t.completed_at')
    .orderBy('t.id')
    .limit(limit)
    .execute();
  return rows as UnfinishedSequence[];
}

/**
 * The jobs that finish a sequence: the post-capture job itself when `queue_jobs` was never claimed
 * (it writes the kitchen documents, then queues the follow-ups), else the queued follow-up jobs whose
 * steps are missing, in one fan-out row in the spec's order.
 */
export function missingJobs(tenantDatabase: string, u: UnfinishedSequence): JobMessage | null {
  if (u.queued === null) return jobMessage(paymentPostCaptureJob, { tenant_database: tenantDatabase, transaction_id: u.id, stock_changed: u.stock_tracked });
  let queued: readonly string[];
  try {
    queued = (JSON.parse(u.queued) as { queued?: string[] }).queued ?? [];
  } catch {
    queued = [];
  }
  const done = new Set(u.steps);
  const { messages } = followUpJobs(tenantDatabase, u, u.item_ids.map((item_id) => ({ item_id })), queued.includes('stock.edge-sync'));
  const missing = messages.filter((m) => queued.includes(m.job) && !done.has(FOLLOW_UP_STEPS[m.job]!));
  return missing.length === 0 ? null : fanOut(missing);
}

/**
 * Writes the missing jobs of each unfinished sequence to the outbox (one row per transaction); `claim`
 * says whether a transaction may be re-driven now (the worker keeps it from re-driving one whose jobs
 * are merely slow more than once in a while). Answers the transactions re-driven.
 */
export async function redriveSequences(db: TenantDb, tenantDatabase: string, unfinished: readonly UnfinishedSequence[], claim: (id: string) => Promise<boolean>): Promise<string[]> {
  const redriven: string[] = [];
  for (const u of unfinished) {
    const message = missingJobs(tenantDatabase, u);
    if (!message || !(await claim(u.id))) continue;
    await enqueueOutbox(db, message);
    redriven.push(u.id);
  }
  return redriven;
}
