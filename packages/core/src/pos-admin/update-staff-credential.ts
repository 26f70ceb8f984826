import type { RegisterPermission } from '@pos/domain/permissions';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import type { Access } from '../auth/access.ts';
import { findLiveCredential, normalisePermissions, presentCredential, requireOwnerReach, type StaffCredentialView } from './staff-credential-records.ts';

export interface UpdateStaffCredentialInput {
  name?: string;
  role?: string;
  permissions?: RegisterPermission[];
}

/**
 * `PUT /back-office/pos/staff-credentials/{credentialId}` (MANAGE_POS_STAFF): name, role and register
 * permissions; a key left out keeps its value (an empty body changes nothing). The PIN changes only through reset-pin. A deleted or
 * unknown credential is 404. Permissions are read at each staff action, so a change applies to open
 * sessions at once. An owner's credential is the owner's (403 for other members, `requireOwnerReach`).
 */
export async function updateStaffCredential(scope: PosAdminScope, id: string, input: UpdateStaffCredentialInput, access: Access): Promise<StaffCredentialView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    const current = await findLiveCredential(tx, id, { lock: true });
    await requireOwnerReach(scope.db, tx, scope.merchant.id, access, current.user_id);
    const changes = {
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.role !== undefined ? { role: input.role.trim() } : {}),
      ...(input.permissions !== undefined ? { permissions: normalisePermissions(input.permissions) } : {}),
    };
    if (Object.keys(changes).length === 0) return current;
    const updated = await tx
      .updateTable('staff_credentials')
      .set(changes)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'updated', subject: 'staff_credential', subjectId: id, properties: { fields: Object.keys(input).sort() } });
    return updated;
  });
  return presentCredential(row);
}
