import { errors } from '@pos/kernel';
import type { TenantContext } from './tenant.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `location-owner`: a `{locationId}` not of the bound merchant (after any override) is a 404. */
export async function requireOwnLocation(tenant: TenantContext, locationId: string): Promise<void> {
  const found = UUID.test(locationId) ? await tenant.db.selectFrom('locations').select('id').where('id', '=', locationId).executeTakeFirst() : undefined;
  if (!found) throw errors.notFound('location');
}
