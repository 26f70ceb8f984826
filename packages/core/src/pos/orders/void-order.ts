import { withWriteRetry, type TenantDb } from '@pos/db';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { transitionRefusal } from './fire-order.ts';
import { findLocationOrder, orderNotFound, type OrderActor } from './order-queries.ts';
import { toOrderResource, type OrderResource } from './order-resource.ts';

/**
 * `POST /pos/orders/{clientUuid}/void` (`void_order`): an OPEN order, fired or not, becomes
 * VOIDED with version + 1; its lines and totals are kept as a record of what was voided. A settled
 * or voided order is 409 `not_open`.
 */
export async function voidOrder(db: TenantDb, actor: OrderActor, authorizer: StaffAuthorizer, clientUuid: string, now: Date): Promise<OrderResource> {
  if (!(await findLocationOrder(db, actor.locationId, clientUuid))) throw orderNotFound();
  await authorizer.require('void_order');
  const row = await withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      const current = await findLocationOrder(tx, actor.locationId, clientUuid, { lock: true });
      if (!current) throw orderNotFound();
      const refused = transitionRefusal(current, 'void');
      if (refused) throw refused;
      return tx
        .updateTable('pos_orders')
        .set({ state: 'VOIDED', version: current.version + 1, updated_at: now })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }),
  );
  return toOrderResource(row);
}
