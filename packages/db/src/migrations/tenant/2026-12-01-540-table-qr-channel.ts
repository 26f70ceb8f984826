import { sql, type Kysely } from 'kysely';

/**
 * Table QR orders were stored on channel `online_ordering` and marked only by `payment_snapshot.channel`
 * `table_qr` (docs/decisions.md "Identity limits and transaction reporting"): the channel column becomes
 * theirs, so the back-office filter, stats and the register's stream read them as table QR orders.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.updateTable('transactions').set({ channel: 'table_qr' }).where('channel', '=', 'online_ordering').where(sql`payment_snapshot->>'channel'`, '=', 'table_qr').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.updateTable('transactions').set({ channel: 'online_ordering' }).where('channel', '=', 'table_qr').where(sql`payment_snapshot->>'channel'`, '=', 'table_qr').execute();
}
