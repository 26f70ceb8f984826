import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { DRAWER_HAS_TILL, findDrawer, presentDrawer, type DrawerView } from './drawer-records.ts';

/**
 * `POST /back-office/pos/{locationId}/drawers/{drawerId}/retire` (MANAGE_POS_CONFIGURATION): sets
 * `retired_at`. Refused with 409 (reason `till_not_closed`) while a till on the drawer is open or
 * ended, i.e. not closed: its cash has not been counted out yet. Live registers that pointed at the
 * drawer are unbound from it. Retiring a retired drawer answers it unchanged (idempotent).
 */
export async function retireDrawer(scope: PosAdminScope, locationId: string, id: string): Promise<DrawerView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    const current = await findDrawer(tx, locationId, id, { lock: true });
    if (current.retired_at !== null) return current;
    const live = await tx.selectFrom('pos_tills').select('id').where('drawer_id', '=', id).where('state', '<>', 'closed').limit(1).executeTakeFirst();
    if (live) throw errors.conflict(DRAWER_HAS_TILL, { reason: 'till_not_closed' });
    const retired = await tx.updateTable('drawers').set({ retired_at: scope.now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await tx.updateTable('pos_registers').set({ drawer_id: null }).where('drawer_id', '=', id).where('retired_at', 'is', null).execute();
    await logActivity(tx, { userId: scope.userId, action: 'retired', subject: 'drawer', subjectId: id, properties: { location_id: locationId } });
    return retired;
  });
  return presentDrawer(row);
}
