import { sql } from 'kysely';
import { isUniqueViolation, type CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { encryptSecret, type TokenKey } from './token-crypto.ts';

const REGISTER_C = 'register-c';

export interface RegisterCTokens {
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly tokenExpiresAt: Date | null;
  readonly scopes: string | null;
}

/**
 * register-c's OAuth callback: one merchant, one register-c connection (register-c is merchant level, and
 * its administration, sync, dispatch and token refresh read the merchant's newest connection). Connecting
 * ANOTHER register-c account replaces the merchant's connection: the row is re-pointed to the new account
 * with the new tokens, and the mappings and payment-method map of the old account (they name its records) are dropped. Any other
 * register-c connection of the merchant (rows from before this rule) is disabled with its tokens dropped
 * and its schedule stopped, so one account is live per merchant. An account connected to another merchant
 * stays 409 `integration_taken`, nothing written. Connects of one merchant take turns (advisory lock).
 */
export async function connectRegisterCAccount(
  db: CentralDb,
  key: TokenKey,
  input: { externalRef: string; merchantId: string; locationId: string | null },
  t: RegisterCTokens,
  now: Date,
): Promise<{ id: string }> {
  try {
    return await write(db, key, input, t, now);
  } catch (e) {
    // Another merchant's connect of the same new account committed first (each merchant's connects are
    // serialised, two merchants' are not): theirs, as if it had been there before.
    if (isUniqueViolation(e, 'integration_connections_provider_ref')) throw taken();
    throw e;
  }
}

const taken = () => errors.conflict('This provider account is already connected to another merchant.', { reason: 'integration_taken' });

async function write(db: CentralDb, key: TokenKey, input: { externalRef: string; merchantId: string; locationId: string | null }, t: RegisterCTokens, now: Date): Promise<{ id: string }> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`integration-connect:${REGISTER_C}:${input.merchantId}`}, 0))`.execute(trx);
    const owner = await trx.selectFrom('integration_connections').select(['id', 'merchant_id']).where('provider', '=', REGISTER_C).where('external_ref', '=', input.externalRef).forUpdate().executeTakeFirst();
    if (owner && owner.merchant_id !== input.merchantId) throw taken();
    const current = await trx
      .selectFrom('integration_connections')
      .select(['id', 'external_ref'])
      .where('merchant_id', '=', input.merchantId)
      .where('provider', '=', REGISTER_C)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    const values = {
      external_ref: input.externalRef,
      location_id: input.locationId,
      status: 'active',
      access_token_encrypted: encryptSecret(key, t.accessToken),
      refresh_token_encrypted: t.refreshToken === null ? null : encryptSecret(key, t.refreshToken),
      token_expires_at: t.tokenExpiresAt,
      scopes: t.scopes,
      connected_at: now,
      updated_at: now,
    };
    let id: string;
    if (owner) {
      // The account's own row (the merchant's current one, or an older one made current again).
      id = owner.id;
      await trx.updateTable('integration_connections').set({ ...values, ...(current && current.id !== owner.id ? { created_at: now } : {}) }).where('id', '=', id).execute();
    } else if (current) {
      id = current.id;
      // The old account's mappings and its payment-method ids (settings) name ITS records, not the new account's.
      await trx.deleteFrom('register_c_mappings').where('connection_id', '=', id).execute();
      await trx.updateTable('integration_connections').set({ ...values, settings: JSON.stringify({}) }).where('id', '=', id).execute();
    } else {
      id = Bun.randomUUIDv7();
      await trx.insertInto('integration_connections').values({ id, provider: REGISTER_C, merchant_id: input.merchantId, settings: JSON.stringify({}), created_at: now, ...values }).execute();
    }
    const others = await trx
      .updateTable('integration_connections')
      .set({ status: 'disabled', access_token_encrypted: null, refresh_token_encrypted: null, token_expires_at: null, updated_at: now })
      .where('merchant_id', '=', input.merchantId)
      .where('provider', '=', REGISTER_C)
      .where('id', '!=', id)
      .returning('id')
      .execute();
    if (others.length > 0) await trx.updateTable('integration_auto_syncs').set({ next_run_at: null, updated_at: now }).where('connection_id', 'in', others.map((o) => o.id)).execute();
    return { id };
  });
}
