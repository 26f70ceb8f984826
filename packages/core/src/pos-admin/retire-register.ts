import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { findRegister, presentRegister, type RegisterView } from './register-records.ts';

/**
 * `POST /back-office/pos/{locationId}/registers/{registerId}/retire` (MANAGE_POS_CONFIGURATION): sets
 * `retired_at`; the register keeps its device, drawer and terminal as a record, but they no longer
 * count as taken. Retiring a retired register answers it unchanged (idempotent).
 */
export async function retireRegister(scope: PosAdminScope, locationId: string, id: string): Promise<RegisterView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    const current = await findRegister(tx, locationId, id, { lock: true });
    if (current.retired_at !== null) return current;
    const retired = await tx.updateTable('pos_registers').set({ retired_at: scope.now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'retired', subject: 'pos_register', subjectId: id, properties: { location_id: locationId } });
    return retired;
  });
  return presentRegister(row);
}
