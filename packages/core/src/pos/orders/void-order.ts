import { withWriteRetry, type TenantDb } from '@pos/db';
import { logActivity } from '../../activity/log-activity.ts';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { transitionRefusal } from './fire-order.ts';
import { findLocationOrder, orderNotFound } from './order-queries.ts';
import { storedLines, toOrderResource, type OrderResource } from './order-resource.ts';
import type { RegisterActor } from '../register-actor.ts';
import { fireToKitchen } from '../../kitchen/tickets.ts';
import type { KitchenEvent, KitchenPublisher } from '../../kitchen/kitchen-events.ts';
import { sendFireEntry, signFireInTransaction, type FireFiscal } from './sign-fire.ts';
import type { ReservedEntry } from '../../fiscal/index.ts';
import { AppError } from '@pos/kernel';

export interface VoidOrderInput {
  readonly clientUuid: string;
  /** Why, as the operator said it; null when not given. */
  readonly reason: string | null;
}

/**
 * `POST /pos/orders/{clientUuid}/void` (`void_order`): an OPEN order, fired or not, becomes
 * VOIDED with version + 1; its lines and totals are kept as a record of what was voided, and the
 * void (with its reason, staff and device) goes to the activity log in the same transaction. A
 * settled or voided order is 409 `not_open`. A fired order tells the kitchen in the same commit: one last
 * fire (number = the new version) of `VOID` lines for everything still fired, as a fire after taking every
 * line off would (docs/decisions.md "Kitchen display"), so screens, printers and the all-day counts stop
 * the food; its `created` events are published after the commit. That last fire is signed as an order event
 * of negative CORRECTION lines, like any fire (sign-fire.ts).
 */
export async function voidOrder(db: TenantDb, fiscal: FireFiscal, actor: RegisterActor, authorizer: StaffAuthorizer, input: VoidOrderInput, now: Date, publish?: KitchenPublisher): Promise<OrderResource> {
  const { clientUuid } = input;
  if (!(await findLocationOrder(db, actor.locationId, clientUuid))) throw orderNotFound();
  await authorizer.require('void_order');
  let events: KitchenEvent[] = [];
  let reserved: ReservedEntry | null = null;
  const row = await withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      events = [];
      reserved = null;
      const current = await findLocationOrder(tx, actor.locationId, clientUuid, { lock: true });
      if (!current) throw orderNotFound();
      const refused = transitionRefusal(current, 'void');
      if (refused) throw refused;
      const voided = await tx
        .updateTable('pos_orders')
        .set({ state: 'VOIDED', version: current.version + 1, updated_at: now })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      // Register staff are not back-office users: user_id stays null, the staff and device go in properties.
      await logActivity(tx, { userId: null, action: 'voided', subject: 'pos_order', subjectId: current.id, properties: { reason: input.reason, staff_id: actor.staffId, device_id: actor.deviceId } });
      if (current.fired) {
        const kitchen = await fireToKitchen(tx, { ...voided, lines: [] }, now);
        events = kitchen.tickets.map((t) => t.event);
        // The voided lines are kept on the order: they price the VOID lines.
        reserved = await signFireInTransaction(tx, fiscal, actor, { orderId: voided.id, fireNo: voided.version, delta: kitchen.delta, orderLines: storedLines(voided), now });
      }
      return voided;
    }),
  ).catch(async (e: unknown) => {
    // Refused after the approval was taken (the day's Z is done: nothing written): the approval serves
    // the next try, as a refused refund's does.
    if (e instanceof AppError && e.reason === 'business_day_closed') await authorizer.giveBack();
    throw e;
  });
  if (publish) await publish(events);
  await sendFireEntry(db, fiscal, reserved);
  return toOrderResource(row);
}
