import type { Kysely } from 'kysely';

/**
 * The amount (cents) a card-b terminal payment's commission was computed on (spec 3 "Card-b events"
 * rule 6). A reversal claws back the entry's own commission in proportion to what it reverses of this
 * amount, so a commission rate changed between the sale and its refund never changes what is given
 * back. On a `card_b_reversal` adjustment, the cents it reversed (the next reversal's share counts them).
 * Null on every other row, and on card-b rows written before it (their reversal keeps the rate).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('commission_ledger').addColumn('base_amount', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('commission_ledger').dropColumn('base_amount').execute();
}
