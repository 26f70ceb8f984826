import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { TenantDb, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';

/** Spec 1 sections 5 and 8: six digits, valid 15 minutes, no per-attempt counter (the route throttle bounds guessing). */
export const CUSTOMER_OTP_TTL_MS = 15 * 60 * 1000;

export type OtpChannel = 'sms' | 'email';

/** HMAC of destination and code under a server key: a leaked table does not give codes back by brute force alone. */
export function hashOtp(key: string, destination: string, code: string): string {
  return createHmac('sha256', key).update(`customer-otp\0${destination}\0${code}`).digest('hex');
}

export function newOtpCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/**
 * Stores a new code for `destination` (hashed) and answers it for sending. It replaces the destination's
 * earlier codes: only the newest is live, so asking again does not add chances to guess. Sends to one
 * destination at once run one after the other (a transaction lock on it), so two never both stay live.
 */
export async function issueCustomerOtp(db: TenantDb, key: string, channel: OtpChannel, destination: string, now: Date): Promise<{ id: string; code: string; expires_at: Date }> {
  const code = newOtpCode();
  const id = Bun.randomUUIDv7();
  const expires_at = new Date(now.getTime() + CUSTOMER_OTP_TTL_MS);
  await db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${'customer-otp:' + destination}, 0))`.execute(tx);
    // The destination's earlier codes go, and every code past its expiry: a code row names its phone or
    // address in clear, and is of no use once spent or expired (a customer erased later is not found by it).
    await tx.deleteFrom('customer_otps').where((eb) => eb.or([eb('destination', '=', destination), eb('expires_at', '<=', now)])).execute();
    await tx.insertInto('customer_otps').values({ id, channel, destination, code_hash: hashOtp(key, destination, code), expires_at, created_at: now }).execute();
  });
  return { id, code, expires_at };
}

/**
 * Spends a live code of `destination`: the matching unused, unexpired row is deleted in one statement,
 * so a code logs in once. A wrong, spent or expired code is a 422 on `code`.
 */
export async function consumeCustomerOtp(db: TenantDb | TenantTx, key: string, destination: string, code: string, now: Date): Promise<void> {
  const want = Buffer.from(hashOtp(key, destination, code));
  const live = await db.selectFrom('customer_otps').select(['id', 'code_hash']).where('destination', '=', destination).where('used_at', 'is', null).where('expires_at', '>', now).execute();
  const hit = live.find((r) => r.code_hash.length === want.length && timingSafeEqual(Buffer.from(r.code_hash), want));
  if (hit) {
    // Spent by deleting it (one statement: a code logs in once); nothing of it is kept.
    const r = await db.deleteFrom('customer_otps').where('id', '=', hit.id).where('used_at', 'is', null).executeTakeFirst();
    if (Number(r.numDeletedRows) === 1) return;
  }
  throw errors.field('code', 'The code is invalid or has expired.');
}
