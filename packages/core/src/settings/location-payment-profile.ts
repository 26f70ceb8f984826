import { errors } from '@pos/kernel';
import type { TenantTx } from '@pos/db';
import { isUuid } from '@pos/domain/ids';

/**
 * The `payment_profile_id` column of a location write (`POST`/`PUT /back-office/settings/locations`):
 * a payment profile of the merchant (404 otherwise) or null (the default profile). The profile row is
 * share-locked until the write commits, so a profile deleted at the same time either waits and then
 * moves the location back to the default (`on delete set null`) or is gone before the check (404).
 */
export async function locationPaymentProfile(tx: TenantTx, input: { payment_profile_id?: string | null }): Promise<{ payment_profile_id?: string | null }> {
  const id = input.payment_profile_id;
  if (id === undefined) return {};
  if (id === null) return { payment_profile_id: null };
  const row = isUuid(id) ? await tx.selectFrom('payment_profiles').select('id').where('id', '=', id).forShare().executeTakeFirst() : undefined;
  if (!row) throw errors.notFound('payment profile');
  return { payment_profile_id: row.id };
}
