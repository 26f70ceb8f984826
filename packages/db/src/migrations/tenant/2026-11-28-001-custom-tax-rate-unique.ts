import { sql, type Kysely } from 'kysely';

/**
 * One custom tax rate per percentage (decisions.md, Catalog): the check before the insert let two
 * requests sent at once both write one, so the database now refuses the second (the use case answers
 * the same 422 on `rate`). Duplicates written before are folded into the oldest row first; items carry
 * the percentage, not the row, so nothing else changes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Builder queries (not raw SQL): the tenant schema is applied to builder table names only.
  await db
    .deleteFrom('tax_rates as t')
    .where('t.is_custom', '=', true)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('tax_rates as keep')
          .select('keep.id')
          .where('keep.is_custom', '=', true)
          .whereRef('keep.rate', '=', 't.rate')
          .where((k) => k.or([k('keep.created_at', '<', k.ref('t.created_at')), k.and([k('keep.created_at', '=', k.ref('t.created_at')), k('keep.id', '<', k.ref('t.id'))])])),
      ),
    )
    .execute();
  await db.schema.createIndex('tax_rates_custom_rate_unique').on('tax_rates').column('rate').unique().where(sql<boolean>`is_custom`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tax_rates_custom_rate_unique').execute();
}
