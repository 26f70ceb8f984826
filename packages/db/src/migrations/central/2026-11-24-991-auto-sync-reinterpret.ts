import type { Kysely } from 'kysely';
import { reinterpretLegacySyncTimes } from '../../auto-sync-reinterpret.ts';

/**
 * Rule 7, once: schedules that had a `sync_time` and no zone (a `settings.sync_time` of a connection
 * written before zones, or an auto-sync row without zone) meant UTC; they are read in the resolved
 * local zone and snapped to :00 or :30.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await reinterpretLegacySyncTimes(db, new Date());
}

export async function down(): Promise<void> {
  // A reinterpretation is not undone: the UTC reading is gone on purpose.
}
