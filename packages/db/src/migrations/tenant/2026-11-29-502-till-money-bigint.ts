import type { Kysely } from 'kysely';

/**
 * Till money as bigint. A till's expected cash is its float plus every cash sale, refund and movement
 * of its session: as integer columns, ~22 large cash sales or one accepted 2^31-1 movement overflowed
 * `expected_at_count` and `variance`, and the till could never be counted or closed (500s).
 */
const COLUMNS: readonly [string, string][] = [
  ['pos_tills', 'opening_float'],
  ['pos_tills', 'counted'],
  ['pos_tills', 'expected_at_count'],
  ['pos_tills', 'variance'],
  ['pos_tills', 'flagged_variance'],
  ['pos_till_movements', 'amount'],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, column] of COLUMNS) await db.schema.alterTable(table).alterColumn(column, (c) => c.setDataType('bigint')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, column] of COLUMNS) await db.schema.alterTable(table).alterColumn(column, (c) => c.setDataType('integer')).execute();
}
