import type { TenantTx } from '@pos/db';

/** Settings tables with one default row (a partial unique index on `is_default`). */
export type DefaultTable = 'languages' | 'payment_profiles' | 'branding_profiles';

/**
 * Makes `id` the one default row of `table`. The table's rows are locked first, in id order, so two
 * switches sent at once run one after the other: the second, waiting on the lock, then reads the
 * first's commit and clears its default, instead of setting a second default (a unique violation, a
 * 500 before). Call it before any other lock on the table in the transaction (lock order).
 */
export async function lockDefaults(tx: TenantTx, table: DefaultTable): Promise<void> {
  await tx.selectFrom(table).select('id').orderBy('id').forUpdate().execute();
}

/** After `lockDefaults`: clears the current default and sets `id`'s. */
export async function switchDefault(tx: TenantTx, table: DefaultTable, id: string, now: Date): Promise<void> {
  await tx.updateTable(table).set({ is_default: false, updated_at: now }).where('is_default', '=', true).where('id', '<>', id).execute();
  await tx.updateTable(table).set({ is_default: true, updated_at: now }).where('id', '=', id).execute();
}
