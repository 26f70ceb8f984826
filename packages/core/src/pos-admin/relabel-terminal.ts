import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, notFound, type PosAdminScope } from './pos-admin-scope.ts';
import { findLiveRegisterForUpdate, presentRegister, type RegisterView } from './register-records.ts';

/**
 * `PATCH /back-office/pos/{locationId}/registers/{registerId}/terminal/label` (MANAGE_POS_CONFIGURATION):
 * renames the paired terminal (null or blank clears the label). 404 `terminal` when none is paired;
 * a retired register is 409.
 */
export async function relabelTerminal(scope: PosAdminScope, locationId: string, id: string, label: string | null): Promise<RegisterView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    const current = await findLiveRegisterForUpdate(tx, locationId, id);
    if (current.terminal === null || typeof current.terminal !== 'object') throw notFound('terminal');
    const terminal = { ...current.terminal, label: label?.trim() || null };
    const updated = await tx.updateTable('pos_registers').set({ terminal: JSON.stringify(terminal) }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'relabelled_terminal', subject: 'pos_register', subjectId: id, properties: { label: terminal.label } });
    return updated;
  });
  return presentRegister(row);
}
