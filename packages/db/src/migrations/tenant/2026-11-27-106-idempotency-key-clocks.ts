import { sql, type Kysely } from 'kysely';

/**
 * A kiosk's idempotency keys are `idemp_{deviceId}_{timestampMs}` (spec 3 "Transaction" rule 1). Two
 * payments started by one device in the same millisecond (two API processes, or a double tap) got the
 * same key: a 500 on the unique key, and a key in the history of two transactions. Each device keeps
 * the timestamp of its last key here; the next key takes a later one, whatever process mints it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_key_clocks')
    .addColumn('device_id', 'uuid', (c) => c.primaryKey().references('devices.id').onDelete('cascade'))
    .addColumn('last_ms', 'bigint', (c) => c.notNull())
    .execute();
  // Devices that minted keys already start after the newest of them (the query builder, not raw SQL: it
  // puts the tenant's schema on the tables).
  await db
    .insertInto('idempotency_key_clocks')
    .columns(['device_id', 'last_ms'])
    .expression(
      db
        .selectFrom('transactions as t')
        .innerJoin('devices as d', 'd.id', 't.device_id')
        .select(['t.device_id', sql<string>`max(split_part(t.idempotency_key, '_', 3)::bigint)`.as('last_ms')])
        .where(sql<boolean>`t.idempotency_key ~ '^idemp_[0-9a-fA-F-]{36}_[0-9]{13}$'`)
        .groupBy('t.device_id'),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_key_clocks').execute();
}
