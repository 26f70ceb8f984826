import { sql, type Kysely } from 'kysely';

/**
 * When the customer app first signed into an account (a customer token was minted for it). Such an
 * account is its signer's for good: dropping its proven contacts does not make it an account "with no
 * proof at all" that a later sign-in of a contact typed there would open (an account pre-hijack).
 * Existing rows: signed into if a contact is verified, an identity-provider subject is bound, or the
 * customer app enrolled it (its `enrolled` timeline event).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('customers').addColumn('signed_in_at', 'timestamptz').execute();
  // The query builder, not raw SQL: the tenant schema is applied by the migrator's schema plugin.
  await db
    .updateTable('customers as c')
    .set({ signed_in_at: sql.ref('c.created_at') })
    .where((eb) =>
      eb.or([
        eb('c.email_verified', '=', true),
        eb('c.phone_verified', '=', true),
        eb('c.idp_subject', 'is not', null),
        eb.exists(
          eb
            .selectFrom('customer_timeline as t')
            .select('t.id')
            .whereRef('t.customer_id', '=', 'c.id')
            .where('t.kind', '=', 'enrolled')
            .where(sql`t.detail->>'source'`, '=', 'customer_app'),
        ),
      ]),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('customers').dropColumn('signed_in_at').execute();
}
