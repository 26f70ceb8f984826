import { sql, type Kysely } from 'kysely';

/**
 * A captured transaction's row is updated again after its capture (the register dispatch records its
 * sync state). With full pages that update had to move the row and add an entry to each of the
 * table's ten indexes; with room left on the page it stays there and touches no index (a HOT update).
 * Applies to pages written from now on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table ${await transactionsTable(db)} set (fillfactor = 70)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table ${await transactionsTable(db)} reset (fillfactor)`.execute(db);
}

/** The schema-qualified table: raw SQL does not get the tenant schema the query builder adds (the migrator's introspector knows it). */
async function transactionsTable(db: Kysely<any>) {
  const found = (await db.introspection.getTables()).filter((t) => t.name === 'transactions');
  if (found.length !== 1 || !found[0]!.schema) throw new Error(`expected one transactions table, found ${found.length}`);
  return sql.id(found[0]!.schema, 'transactions');
}
