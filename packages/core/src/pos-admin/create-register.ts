import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { lockLocation } from '../settings/locations.ts';
import { presentRegister, requireAssignableDevice, requireLiveDrawer, type RegisterView } from './register-records.ts';

export interface CreateRegisterInput {
  name: string;
  /** A live POS device of the location, not held by another live register. */
  device_id?: string | null;
  /** A live drawer of the location. */
  drawer_id?: string | null;
}

/** `POST /back-office/pos/{locationId}/registers` (MANAGE_POS_CONFIGURATION): a new live register without a terminal. */
export async function createRegister(scope: PosAdminScope, locationId: string, input: CreateRegisterInput): Promise<RegisterView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    await lockLocation(tx, locationId, 'update');
    if (input.device_id) await requireAssignableDevice(tx, locationId, input.device_id);
    if (input.drawer_id) await requireLiveDrawer(tx, locationId, input.drawer_id);
    const created = await tx
      .insertInto('pos_registers')
      .values({
        id: Bun.randomUUIDv7(),
        location_id: locationId,
        name: input.name.trim(),
        device_id: input.device_id ?? null,
        drawer_id: input.drawer_id ?? null,
        terminal: null,
        created_at: scope.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'created', subject: 'pos_register', subjectId: created.id, properties: { location_id: locationId, name: created.name } });
    return created;
  });
  return presentRegister(row);
}
