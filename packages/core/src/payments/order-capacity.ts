import type { TenantDb } from '@pos/db';
import { capacitySlotOf } from '@pos/domain';

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
