import { sql, type Kysely } from 'kysely';

/**
 * Printer tokens (issue 15 point 4): only the SHA-256 of the token is kept, with the merchant and
 * printer it is bound to. Central because the poll service learns the tenant from the token alone.
 * One live token per printer: minting another replaces the row, so the old token fails at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('printer_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('tenant_database', 'text', (c) => c.notNull())
    .addColumn('printer_id', 'uuid', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('printer_tokens_one_per_printer', ['merchant_id', 'printer_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('printer_tokens').ifExists().execute();
}
