import { errors } from '@pos/kernel';
import type { TenantContext } from './tenant.ts';
import { isUuid } from '@pos/domain/ids';


/** `location-owner`: a `{locationId}` not of the bound merchant (after any override) is a 404. */
export async function requireOwnLocation(tenant: TenantContext, locationId: string): Promise<void> {
  const found = isUuid(locationId) ? await tenant.db.selectFrom('locations').select('id').where('id', '=', locationId).executeTakeFirst() : undefined;
  if (!found) throw errors.notFound('location');
}
