import type { Kysely } from 'kysely';

/**
 * One payment profile per card-b account (decisions.md, payment profiles): the check before the write
 * let two requests sent at once attach the same account to two profiles, so the database now refuses
 * the second (the use case answers the same 422 on `account_id`). An account already on several
 * profiles stays on the oldest and is cleared from the others (their terminals settle nowhere new:
 * the merchant attaches the right account again).
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Builder queries (not raw SQL): the tenant schema is applied to builder table names only.
  await db
    .updateTable('payment_profiles as p')
    .set({ card_b_account_id: null })
    .where('p.card_b_account_id', 'is not', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('payment_profiles as keep')
          .select('keep.id')
          .whereRef('keep.card_b_account_id', '=', 'p.card_b_account_id')
          .where((k) => k.or([k('keep.created_at', '<', k.ref('p.created_at')), k.and([k('keep.created_at', '=', k.ref('p.created_at')), k('keep.id', '<', k.ref('p.id'))])])),
      ),
    )
    .execute();
  await db.schema.createIndex('payment_profiles_card_b_account_unique').on('payment_profiles').column('card_b_account_id').unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payment_profiles_card_b_account_unique').execute();
}
