import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { findLiveRegisterForUpdate, presentRegister, type RegisterView } from './register-records.ts';

/**
 * `DELETE /back-office/pos/{locationId}/registers/{registerId}/terminal` (MANAGE_POS_CONFIGURATION):
 * clears the pairing; a register without a terminal is answered unchanged (idempotent). A retired
 * register is 409.
 */
export async function unpairTerminal(scope: PosAdminScope, locationId: string, id: string): Promise<RegisterView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    const current = await findLiveRegisterForUpdate(tx, locationId, id);
    if (current.terminal === null) return current;
    const updated = await tx.updateTable('pos_registers').set({ terminal: null }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'unpaired_terminal', subject: 'pos_register', subjectId: id, properties: { terminal: current.terminal } });
    return updated;
  });
  return presentRegister(row);
}
