import type { Kysely } from 'kysely';
import type { TenantDb, TenantTables } from '@pos/db';
import { errors } from '@pos/kernel';
import { isUuid as isUuidText } from '@pos/domain/ids';
import type { OrderRow } from './order-resource.ts';
import type { RegisterActor } from '../register-actor.ts';

/** Any UUID text (the `pos_orders.id` column is `uuid`; other text never reaches SQL). */
export { isUuidText };

/** 404 of spec 2 section 7: unknown order, or an order of another location or merchant. */
export const orderNotFound = () => errors.notFound('order');

/**
 * The order `clientUuid` of the actor's location, or null. An order of another location is null
 * too (the caller answers the uniform 404); another merchant's lives in another schema.
 */
export async function findLocationOrder(db: Kysely<TenantTables>, locationId: string, clientUuid: string, opts: { lock?: boolean } = {}): Promise<OrderRow | null> {
  if (!isUuidText(clientUuid)) return null;
  let q = db.selectFrom('pos_orders').selectAll().where('id', '=', clientUuid).where('location_id', '=', locationId);
  if (opts.lock) q = q.forUpdate();
  return (await q.executeTakeFirst()) ?? null;
}

/** The order of the actor's location, else 404 `Unable to locate the order you requested.`. */
export async function requireLocationOrder(db: TenantDb, locationId: string, clientUuid: string): Promise<OrderRow> {
  const row = await findLocationOrder(db, locationId, clientUuid);
  if (!row) throw orderNotFound();
  return row;
}
