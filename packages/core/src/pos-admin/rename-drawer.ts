import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { findDrawer, presentDrawer, type DrawerView } from './drawer-records.ts';

export const DRAWER_RETIRED = 'This drawer is retired.';

/**
 * `PUT /back-office/pos/{locationId}/drawers/{drawerId}` (MANAGE_POS_CONFIGURATION): renames the
 * drawer. Only `name` changes: the frozen `fiscal_identity` keeps the name the drawer was created
 * with, so signed events stay comparable. A retired drawer is 409.
 */
export async function renameDrawer(scope: PosAdminScope, locationId: string, id: string, name: string): Promise<DrawerView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    const current = await findDrawer(tx, locationId, id, { lock: true });
    if (current.retired_at !== null) throw errors.conflict(DRAWER_RETIRED);
    const updated = await tx.updateTable('drawers').set({ name: name.trim() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'renamed', subject: 'drawer', subjectId: id, properties: { from: current.name, to: updated.name } });
    return updated;
  });
  return presentDrawer(row);
}
