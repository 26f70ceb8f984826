import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { TenantDb, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import { MAX_ORDER_TOTAL } from '@pos/domain/orders/order-rules';

/** Crockford base32 without I, L, O, U: 32 symbols a person reads back without confusion. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 16;

/** `XXXX-XXXX-XXXX-XXXX`: 16 symbols from the CSPRNG, 80 bits. */
export function newGiftCardCode(): string {
  let s = '';
  for (let i = 0; i < CODE_LENGTH; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s.match(/.{4}/g)!.join('-');
}

/** Upper-cased, separators and spaces removed, the usual misreadings mapped (O->0, I/L->1). */
export function normaliseGiftCardCode(raw: string): string {
  return raw.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

export function hashGiftCardCode(normalised: string): string {
  return createHash('sha256').update(normalised, 'utf8').digest('hex');
}

/** Issues a gift card; the code is answered once and never stored (only its hash and last four). */
export async function issueGiftCard(db: TenantDb | TenantTx, input: { balance: number; customerId?: string | null; expiresAt?: Date | null }, now: Date): Promise<{ id: string; code: string }> {
  // Bounded as an order total is: the balance column is a 32-bit integer, and a larger value would be a 500.
  if (!Number.isSafeInteger(input.balance) || input.balance < 0 || input.balance > MAX_ORDER_TOTAL) {
    throw errors.field('balance', `The balance must be a whole number of cents from 0 to ${MAX_ORDER_TOTAL}.`);
  }
  const code = newGiftCardCode();
  const n = normaliseGiftCardCode(code);
  const id = Bun.randomUUIDv7();
  await db
    .insertInto('gift_cards')
    .values({ id, code_hash: hashGiftCardCode(n), last4: n.slice(-4), balance: input.balance, initial_balance: input.balance, customer_id: input.customerId ?? null, expires_at: input.expiresAt ?? null, created_at: now })
    .execute();
  return { id, code };
}

export interface GiftCardCheck {
  last4: string;
  balance: number;
  expires_at: string | null;
}

/**
 * A gift card by its code: the code is hashed and looked up by the hash (an index probe whose time
 * does not depend on how many leading characters of some stored code match), the stored hash
 * compared again in constant time. A code of the wrong shape, an unknown, disabled or expired card
 * are the same 404: a guesser learns nothing. Throttling is the route's.
 */
export async function checkGiftCard(db: TenantDb, rawCode: string, now: Date): Promise<GiftCardCheck> {
  const n = normaliseGiftCardCode(rawCode);
  const hash = hashGiftCardCode(n);
  const row = await db.selectFrom('gift_cards').select(['code_hash', 'last4', 'balance', 'status', 'expires_at']).where('code_hash', '=', hash).executeTakeFirst();
  const same = row !== undefined && timingSafeEqual(Buffer.from(row.code_hash, 'hex'), Buffer.from(hash, 'hex'));
  if (!row || !same || row.status !== 'active' || (row.expires_at !== null && row.expires_at.getTime() <= now.getTime()) || n.length !== CODE_LENGTH) {
    throw errors.notFound('gift card');
  }
  return { last4: row.last4, balance: row.balance, expires_at: row.expires_at ? row.expires_at.toISOString() : null };
}
