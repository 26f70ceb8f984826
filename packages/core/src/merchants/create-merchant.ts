import { sql } from 'kysely';
import { migrateTenant, newTenantSchemaName, withWriteRetry, type CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';

export interface CreateMerchantInput {
  slug: string;
  name: string;
  posProvider?: string | null;
  isTest?: boolean;
  resellerId?: string | null;
}

export interface CreatedMerchant {
  id: string;
  slug: string;
  name: string;
  tenant_database: string;
}

/**
 * Creates the central merchant row and its own schema, migrated to the latest tenant migration.
 * Schema DDL cannot share a transaction with the migrator's lock, so a failure drops both again.
 */
export async function createMerchant(db: CentralDb, input: CreateMerchantInput): Promise<CreatedMerchant> {
  if (!/^[a-z0-9][a-z0-9-]{1,62}$/.test(input.slug)) throw errors.field('slug', 'The slug may contain only lowercase letters, digits and dashes.');
  const existing = await db.selectFrom('merchants').select('id').where('slug', '=', input.slug).executeTakeFirst();
  if (existing) throw errors.conflict(`A merchant with slug "${input.slug}" already exists.`);
  const merchant: CreatedMerchant = { id: Bun.randomUUIDv7(), slug: input.slug, name: input.name, tenant_database: newTenantSchemaName(input.slug) };
  await db
    .insertInto('merchants')
    .values({ ...merchant, pos_provider: input.posProvider ?? null, is_test: input.isTest ?? false, reseller_id: input.resellerId ?? null })
    .execute();
  try {
    await migrateTenant(db, merchant.tenant_database);
  } catch (e) {
    await dropMerchant(db, merchant);
    throw e;
  }
  return merchant;
}

/** Removes a merchant, its schema and its central rows (seed --reset, failed creation). */
export async function dropMerchant(db: CentralDb, m: { id: string; tenant_database: string }): Promise<void> {
  await sql`drop schema if exists ${sql.id(m.tenant_database)} cascade`.execute(db);
  await withWriteRetry(() => db.transaction().execute(async (tx) => {
    const members = await tx.selectFrom('memberships').select('user_id').where('merchant_id', '=', m.id).execute();
    await tx.deleteFrom('merchants').where('id', '=', m.id).execute();
    await tx.deleteFrom('tenant_schema_versions').where('schema_name', '=', m.tenant_database).execute();
    // Users who belonged only to this merchant go with it.
    for (const { user_id } of members) {
      const other = await tx.selectFrom('memberships').select('merchant_id').where('user_id', '=', user_id).executeTakeFirst();
      if (!other) await tx.deleteFrom('users').where('id', '=', user_id).execute();
    }
  }));
}
