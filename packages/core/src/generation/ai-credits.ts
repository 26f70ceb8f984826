import { sql } from 'kysely';
import { errors } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import { formatCents } from '@pos/domain/printing/render';

export const NOT_ENOUGH_CREDITS = 'Not enough AI photo credits — buy a credits package first.';

/** Credit packages offered for AI photos (prices in cents, EUR). */
export const CREDIT_PACKAGES = [
  { id: 'small', credits: 10, price: 500, currency: 'EUR' },
  { id: 'medium', credits: 50, price: 2000, currency: 'EUR' },
  { id: 'large', credits: 200, price: 6000, currency: 'EUR' },
] as const;

/**
 * `GET /ai-photo/credits-package-options`: select options `{value: id, label, credits, price, currency}`;
 * the label reads `10 credits — 5.00 EUR` (the price is in cents).
 */
export function creditPackageOptions(): { value: string; label: string; credits: number; price: number; currency: string }[] {
  return CREDIT_PACKAGES.map((p) => ({ value: p.id, label: `${p.credits} credits — ${formatCents(p.price)} ${p.currency}`, credits: p.credits, price: p.price, currency: p.currency }));
}

export async function creditBalance(tdb: TenantDb): Promise<number> {
  const row = await tdb.selectFrom('ai_credits').select('balance').where('id', '=', 1).executeTakeFirst();
  return row?.balance ?? 0;
}

/**
 * Takes `n` credits in ONE guarded statement: the row only changes when the balance covers it, so
 * concurrent requests can never drive it below zero (the CHECK constraint backs this). 422 otherwise.
 */
export async function debitCredits(tdb: TenantDb, n: number): Promise<number> {
  const row = await tdb
    .updateTable('ai_credits')
    .set({ balance: sql<number>`balance - ${n}`, updated_at: sql<Date>`now()` })
    .where('id', '=', 1)
    .where('balance', '>=', n)
    .returning('balance')
    .executeTakeFirst();
  if (!row) throw errors.businessRule(NOT_ENOUGH_CREDITS);
  return row.balance;
}

/** Gives credits back (a failed generation) or adds bought ones. */
export async function creditCredits(tdb: TenantDb, n: number): Promise<number> {
  const row = await tdb
    .insertInto('ai_credits')
    .values({ id: 1, balance: n })
    .onConflict((oc) => oc.column('id').doUpdateSet({ balance: sql<number>`ai_credits.balance + ${n}`, updated_at: sql<Date>`now()` }))
    .returning('balance')
    .executeTakeFirstOrThrow();
  return row.balance;
}
