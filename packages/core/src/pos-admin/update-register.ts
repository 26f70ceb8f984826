import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { lockLocation } from '../settings/locations.ts';
import { findLiveRegisterForUpdate, presentRegister, requireAssignableDevice, requireLiveDrawer, type RegisterView } from './register-records.ts';

export interface UpdateRegisterInput {
  name?: string;
  /** null unbinds the device. */
  device_id?: string | null;
  /** null unbinds the drawer. */
  drawer_id?: string | null;
}

/**
 * `PUT /back-office/pos/{locationId}/registers/{registerId}` (MANAGE_POS_CONFIGURATION): rename, bind
 * or unbind the device and drawer; a key left out keeps its value (an empty body changes nothing).
 * A retired register is 409.
 */
export async function updateRegister(scope: PosAdminScope, locationId: string, id: string, input: UpdateRegisterInput): Promise<RegisterView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    await lockLocation(tx, locationId, 'update');
    // The device before the register row: a move or delete of the device writes the device, then the
    // registers holding it (`unbindDeviceRegisters`); the other order deadlocked with it.
    if (input.device_id) await requireAssignableDevice(tx, locationId, input.device_id, id);
    const current = await findLiveRegisterForUpdate(tx, locationId, id);
    if (input.drawer_id) await requireLiveDrawer(tx, locationId, input.drawer_id);
    const changes = {
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.device_id !== undefined ? { device_id: input.device_id } : {}),
      ...(input.drawer_id !== undefined ? { drawer_id: input.drawer_id } : {}),
    };
    if (Object.keys(changes).length === 0) return current;
    const updated = await tx
      .updateTable('pos_registers')
      .set(changes)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'updated', subject: 'pos_register', subjectId: id, properties: { fields: Object.keys(input).sort() } });
    return updated;
  });
  return presentRegister(row);
}
