import type { TenantDb } from '@pos/db';
import { findActorTill, tillResource, type TillResource } from './till-queries.ts';
import type { RegisterActor } from '../register-actor.ts';

/**
 * `GET /pos/tills/current`: the member's own staff_wallet till at this location, else this
 * register's register_drawer till, while it is open or ended (not yet closed); null when there is
 * none (the route answers 204 with no body).
 */
export async function getCurrentTill(db: TenantDb, actor: RegisterActor): Promise<TillResource | null> {
  const row = await findActorTill(db, actor, ['open', 'ended']);
  return row ? tillResource(db, row) : null;
}
