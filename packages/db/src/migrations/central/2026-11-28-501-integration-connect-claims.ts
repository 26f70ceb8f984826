import { sql, type Kysely } from 'kysely';

/**
 * A claim on a marketplace store and on a location while one request connects them (delivery-a,
 * delivery-b): committed before the provider's HTTP call and removed in the transaction that writes the
 * connection (or on failure), so no transaction stays open across the call (DESIGN 2). The primary key
 * keeps two requests off one store; the unique key keeps two requests off one location. A claim whose
 * `claimed_until` passed (a crashed process) may be taken over.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('integration_connect_claims')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('external_ref', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('location_id', 'uuid', (c) => c.notNull())
    .addColumn('claimed_until', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('integration_connect_claims_pkey', ['provider', 'external_ref'])
    .addUniqueConstraint('integration_connect_claims_location', ['provider', 'merchant_id', 'location_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('integration_connect_claims').ifExists().execute();
}
