import type { TenantDb } from '@pos/db';
import { requireLocationOrder } from './order-queries.ts';
import { toOrderResource, type OrderResource } from './order-resource.ts';
import type { RegisterActor } from '../register-actor.ts';

/** `GET /pos/orders/{clientUuid}`: the order of the register's location, else 404. */
export async function getOrder(db: TenantDb, actor: Pick<RegisterActor, 'locationId'>, clientUuid: string): Promise<OrderResource> {
  return toOrderResource(await requireLocationOrder(db, actor.locationId, clientUuid));
}
