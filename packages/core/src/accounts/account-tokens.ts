import { createHash } from 'node:crypto';
import type { CentralDb } from '@pos/db';
import { randomSecret } from '../security/passwords.ts';

export type TokenPurpose = 'verify_email' | 'reset_password';

/** Lifetimes of the mailed tokens. */
export const TOKEN_TTL_MS: Record<TokenPurpose, number> = { verify_email: 24 * 3600_000, reset_password: 60 * 60_000 };

/** Tokens are 256-bit random values, so a plain SHA-256 is enough to keep them out of the database. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/**
 * Issues a fresh token for `purpose`: the user's earlier tokens of that purpose stop working (only the
 * newest mail counts), only the hash is stored, and the clear value is returned once, for the mail.
 */
export async function issueToken(db: CentralDb, userId: string, purpose: TokenPurpose, now: Date): Promise<string> {
  const token = randomSecret(32);
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom('account_tokens').where('user_id', '=', userId).where('purpose', '=', purpose).execute();
    await tx
      .insertInto('account_tokens')
      .values({ id: Bun.randomUUIDv7(), user_id: userId, purpose, token_hash: sha256(token), expires_at: new Date(now.getTime() + TOKEN_TTL_MS[purpose]), created_at: now })
      .execute();
  });
  return token;
}

/** Spends a token once (one UPDATE decides between concurrent uses); the user id, or null when unknown, used or expired. */
export async function consumeToken(db: CentralDb, token: string, purpose: TokenPurpose, now: Date): Promise<string | null> {
  const row = await db
    .updateTable('account_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', sha256(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id ?? null;
}
