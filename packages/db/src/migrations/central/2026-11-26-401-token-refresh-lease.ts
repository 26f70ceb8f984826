import type { Kysely } from 'kysely';

/**
 * A short lease on an OAuth connection while one process refreshes its token (rotation makes a
 * refresh token single-use): claimed and committed before the call to the token endpoint, so no
 * transaction stays open across it (DESIGN 2, "Side effects outside our database").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('integration_connections').addColumn('token_refresh_until', 'timestamptz').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('integration_connections').dropColumn('token_refresh_until').execute();
}
