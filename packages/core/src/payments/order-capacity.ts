import type { TenantDb, TenantTx } from '@pos/db';
import { capacitySlotOf, ORDER_CAPACITY_SLOT_MINUTES } from '@pos/domain';

/**
 * Completed orders occupying the slot of `at` at a location (order capacity timing, set by the capture
 * on Complete): what available timeslots compare with a slot's capacity.
 */
export async function ordersInCapacitySlot(tdb: TenantDb, locationId: string, at: Date): Promise<number> {
  const r = await tdb
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('location_id', '=', locationId)
    .where('capacity_slot_at', '=', capacitySlotOf(at))
    .where('status', '=', 'Complete')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * How long a scheduled online order waiting for its payment holds its slot: two customers paying for
 * the last place of a slot at once would otherwise both be taken (capacity counted only Complete
 * orders). A payment that completes later still takes its slot (the money is taken).
 */
export const SLOT_HOLD_MS = 15 * 60_000;

/**
 * The statuses of an order whose payment may still complete (spec 3): being paid, authorised, or
 * Unpaid ("attempted but not verified; may still succeed": a declined card, another card may follow).
 */
const HOLDING_STATUSES = ['Pending', 'Awaiting Payment', 'Awaiting Capture', 'Unpaid'] as const;

/**
 * The orders taking each capacity slot of a location between `from` and `to` (slot starts, ms): the
 * Complete ones by their capacity slot, and the scheduled ones whose payment may still complete
 * (`HOLDING_STATUSES`, created less than `SLOT_HOLD_MS` before `now`) by the slot they are scheduled for.
 */
export async function slotUsage(tdb: TenantDb | TenantTx, locationId: string, from: Date, to: Date, now: Date): Promise<Map<number, number>> {
  const taken = new Map<number, number>();
  const add = (at: Date | string | null, n: number) => {
    if (at === null) return;
    const slot = capacitySlotOf(new Date(at)).getTime();
    taken.set(slot, (taken.get(slot) ?? 0) + n);
  };
  const complete = await tdb
    .selectFrom('transactions')
    .select(['capacity_slot_at', (eb) => eb.fn.countAll<string>().as('n')])
    .where('location_id', '=', locationId)
    .where('status', '=', 'Complete')
    // A paid order its marketplace cancelled (`Complete`, `Cancelled`) is not made: its place is free again.
    .where((eb) => eb.or([eb('order_status', 'is', null), eb('order_status', '<>', 'Cancelled')]))
    .where('capacity_slot_at', '>=', capacitySlotOf(from))
    .where('capacity_slot_at', '<=', to)
    .groupBy('capacity_slot_at')
    .execute();
  for (const r of complete) add(r.capacity_slot_at, Number(r.n));
  const held = await tdb
    .selectFrom('transactions')
    .select(['scheduled_for', (eb) => eb.fn.countAll<string>().as('n')])
    .where('location_id', '=', locationId)
    .where('status', 'in', HOLDING_STATUSES)
    .where('created_at', '>', new Date(now.getTime() - SLOT_HOLD_MS))
    .where('scheduled_for', '>=', capacitySlotOf(from))
    .where('scheduled_for', '<', new Date(capacitySlotOf(to).getTime() + ORDER_CAPACITY_SLOT_MINUTES * 60_000))
    .groupBy('scheduled_for')
    .execute();
  for (const r of held) add(r.scheduled_for, Number(r.n));
  return taken;
}
