import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import type { Access } from '../auth/access.ts';
import { findLiveCredential, requireOwnerReach } from './staff-credential-records.ts';
import { tenantDatabaseOf } from '../pos/staff/sign-work-event.ts';
import { endLiveStaffSessions, type EndedStaffSession } from '../pos/staff/staff-session.ts';

export type { EndedStaffSession };

/**
 * `DELETE /back-office/pos/staff-credentials/{credentialId}` (MANAGE_POS_STAFF): soft delete
 * (`deleted_at`), so past orders, tills and fiscal events keep their member; the PIN is free again
 * (the unique index covers live credentials only) and a linked back-office member becomes
 * assignable. Every open staff session of the credential ends in the same transaction (its token
 * answers 401 `Invalid POS staff token` from then on) and queues its fiscal work-out event, like
 * pin-logout (the worker signs it); the ended sessions are returned. Unknown or already deleted: 404.
 */
export async function deleteStaffCredential(scope: PosAdminScope, id: string, access: Access): Promise<EndedStaffSession[]> {
  const tenantDatabase = tenantDatabaseOf(scope.tdb);
  return inTenantTx(scope.tdb, async (tx) => {
    const row = await findLiveCredential(tx, id, { lock: true });
    await requireOwnerReach(scope.db, tx, scope.merchant.id, access, row.user_id);
    await tx.updateTable('staff_credentials').set({ deleted_at: scope.now }).where('id', '=', id).execute();
    const sessions = await endLiveStaffSessions(tx, tenantDatabase, { staffId: id }, scope.now);
    await logActivity(tx, { userId: scope.userId, action: 'deleted', subject: 'staff_credential', subjectId: id, properties: { name: row.name, ended_sessions: sessions.length } });
    return sessions;
  });
}
