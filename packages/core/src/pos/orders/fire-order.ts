import { withWriteRetry, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { orderTransition } from '@pos/domain/orders/order-state';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { findLocationOrder, orderNotFound } from './order-queries.ts';
import { fireToKitchen } from '../../kitchen/tickets.ts';
import type { KitchenEvent, KitchenPublisher } from '../../kitchen/kitchen-events.ts';
import { storedLines, toOrderResource, type OrderResource, type OrderRow } from './order-resource.ts';
import type { RegisterActor } from '../register-actor.ts';
import { sendFireEntry, signFireInTransaction, type FireFiscal } from './sign-fire.ts';
import type { ReservedEntry } from '../../fiscal/index.ts';
import { AppError } from '@pos/kernel';

/** The refusal (409 business rule, `reason`) when `action` may not happen to `row`, else null. */
export function transitionRefusal(row: OrderRow, action: 'fire' | 'void' | 'settle'): Error | null {
  const t = orderTransition({ state: row.state, fired: row.fired, line_count: storedLines(row).length }, action);
  return t.kind === 'refused' ? errors.conflict(t.message, { reason: t.reason }) : null;
}

/**
 * `POST /pos/orders/{clientUuid}/fire` (`take_orders`): an OPEN order with lines gets `fired`
 * true and version + 1 (stays OPEN; firing again sends what was added since). A settled or voided
 * order is 409 `not_open`, an empty one 409 `empty_order`. The row is locked for the check and the write.
 * A fire that sends the kitchen something is signed as an order event (sign-fire.ts).
 */
export async function fireOrder(db: TenantDb, fiscal: FireFiscal, actor: RegisterActor, authorizer: StaffAuthorizer, clientUuid: string, now: Date, publish?: KitchenPublisher): Promise<OrderResource> {
  if (!(await findLocationOrder(db, actor.locationId, clientUuid))) throw orderNotFound();
  await authorizer.require('take_orders');
  let events: KitchenEvent[] = [];
  let reserved: ReservedEntry | null = null;
  const row = await withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      events = [];
      reserved = null;
      const current = await findLocationOrder(tx, actor.locationId, clientUuid, { lock: true });
      if (!current) throw orderNotFound();
      const refused = transitionRefusal(current, 'fire');
      if (refused) throw refused;
      const fired = await tx
        .updateTable('pos_orders')
        .set({ fired: true, fired_at: now, version: current.version + 1, updated_at: now })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      // The kitchen tickets of the lines not sent yet, in the same commit (issue 14).
      const lines = storedLines(fired);
      const kitchen = await fireToKitchen(tx, { ...fired, lines }, now);
      events = kitchen.tickets.map((t) => t.event);
      reserved = await signFireInTransaction(tx, fiscal, actor, { orderId: fired.id, fireNo: fired.version, delta: kitchen.delta, orderLines: lines, now });
      return fired;
    }),
  ).catch(async (e: unknown) => {
    // Refused after an approval was taken (the day's Z is done: nothing written): it serves the next try.
    if (e instanceof AppError && e.reason === 'business_day_closed') await authorizer.giveBack();
    throw e;
  });
  // The screens hear of the new tickets after the commit (they catch up from the database otherwise).
  if (publish) await publish(events);
  // Then a remote module gets the fire's pending entry (the kitchen never waits for it).
  await sendFireEntry(db, fiscal, reserved);
  return toOrderResource(row);
}
