import { sql } from 'kysely';
import type { TenantTx } from '@pos/db';
import { recordStep } from './post-capture.ts';

/**
 * Takes a marketplace order cancelled after paying (no sale: `counted-sale.ts`) out of the daily
 * stats, once. Call it inside the transaction that marks the order cancelled.
 *
 * The `daily_stats` step is the claim the `stats.daily` job takes before adding a transaction
 * (`dailyStatsStatement`). Writing it here first, as `skipped`, means the job will never add this
 * one (it is not counted yet: nothing to take out). If the step is there already, the job counted
 * it: the `daily_stats_undo` step is the claim of the subtraction, so a repeated cancel or a re-run
 * subtracts nothing more. Two statements, not one: the second reads the step with a fresh snapshot,
 * so a job that committed its claim while the first waited on it is seen.
 */
export async function takeOutOfDailyStats(tx: TenantTx, transactionId: string): Promise<'not_counted' | 'taken_out' | 'already_taken_out'> {
  if (await recordStep(tx, transactionId, 'daily_stats', 'skipped', 'marketplace order cancelled after paying: no sale')) return 'not_counted';
  const counted = await tx
    .selectFrom('transaction_steps as s')
    .innerJoin('transactions as t', 't.id', 's.transaction_id')
    .select(['s.outcome', 's.detail', 't.location_id', 't.total'])
    .where('s.transaction_id', '=', transactionId)
    .where('s.step', '=', 'daily_stats')
    .executeTakeFirst();
  if (!counted || counted.outcome !== 'ok' || !counted.detail) return 'not_counted';
  if (!(await recordStep(tx, transactionId, 'daily_stats_undo', 'ok', counted.detail))) return 'already_taken_out';
  await tx
    .updateTable('daily_stats')
    .set((eb) => ({ transactions: eb('transactions', '-', 1), total: sql<string>`total - ${counted.total}` }))
    .where('location_id', '=', counted.location_id)
    .where('date', '=', counted.detail)
    .execute();
  return 'taken_out';
}
