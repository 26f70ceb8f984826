import { createHash, randomBytes } from 'node:crypto';
import type { TenantDb, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';

/** A kiosk's loyalty token lives this long (it covers one visit: identify, basket, payment). */
export const LOYALTY_TOKEN_TTL_MS = 15 * 60 * 1000;

/** SHA-256 hex of a token: what is stored and what lookups compare (an index probe, no string compare of secrets). */
export function hashLoyaltyToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Issues a loyalty token for a customer to the kiosk that identified them: 32 random bytes
 * (base64url), stored hashed, valid for 15 minutes, usable by that kiosk only, spent by the payment
 * it identifies (expired when the payment completes).
 */
export async function issueLoyaltyToken(db: TenantDb | TenantTx, customerId: string, deviceId: string, now: Date): Promise<{ token: string; expires_at: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expires_at = new Date(now.getTime() + LOYALTY_TOKEN_TTL_MS);
  await db.insertInto('loyalty_tokens').values({ token_hash: hashLoyaltyToken(token), customer_id: customerId, device_id: deviceId, expires_at, created_at: now }).execute();
  return { token, expires_at };
}

/**
 * The customer behind a token presented by a kiosk: unknown, another kiosk's, spent or expired
 * tokens are all the same 422 on the field (a guesser learns nothing). Returns the token's hash too,
 * which is what a transaction keeps.
 */
export async function resolveLoyaltyToken(db: TenantDb | TenantTx, token: string, deviceId: string, now: Date, field = 'loyalty_token'): Promise<{ customer_id: string; token_hash: string }> {
  const token_hash = hashLoyaltyToken(token);
  const row = await db.selectFrom('loyalty_tokens').select(['customer_id', 'device_id', 'expires_at', 'used_at']).where('token_hash', '=', token_hash).executeTakeFirst();
  if (!row || row.device_id !== deviceId || row.used_at !== null || row.expires_at.getTime() <= now.getTime()) {
    throw errors.field(field, 'The loyalty token is invalid or has expired.');
  }
  return { customer_id: row.customer_id, token_hash };
}

/** Spends a token (by its hash): it can no longer identify a payment. Called in the capture's commit. */
export async function expireLoyaltyToken(tx: TenantDb | TenantTx, tokenHash: string | null, now: Date): Promise<void> {
  if (!tokenHash) return;
  await tx.updateTable('loyalty_tokens').set({ used_at: now }).where('token_hash', '=', tokenHash).where('used_at', 'is', null).execute();
}
