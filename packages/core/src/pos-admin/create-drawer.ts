import { logActivity } from '../activity/log-activity.ts';
import { lockLocation } from '../settings/locations.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { presentDrawer, type DrawerKind, type DrawerView } from './drawer-records.ts';

export interface CreateDrawerInput {
  name: string;
  kind: DrawerKind;
}

/**
 * `POST /back-office/pos/{locationId}/drawers` (MANAGE_POS_CONFIGURATION): a live drawer whose fiscal
 * identity `{drawerId, drawerName}` is frozen now, from its id and the name it is created with.
 */
export async function createDrawer(scope: PosAdminScope, locationId: string, input: CreateDrawerInput): Promise<DrawerView> {
  const id = Bun.randomUUIDv7();
  const name = input.name.trim();
  const row = await inTenantTx(scope.tdb, async (tx) => {
    await lockLocation(tx, locationId, 'key share');
    const created = await tx
      .insertInto('drawers')
      .values({ id, location_id: locationId, name, kind: input.kind, fiscal_identity: JSON.stringify({ drawerId: id, drawerName: name }), created_at: scope.now })
      .returningAll()
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'created', subject: 'drawer', subjectId: id, properties: { location_id: locationId, name, kind: input.kind } });
    return created;
  });
  return presentDrawer(row);
}
