import { presentCredential, type StaffCredentialView } from './staff-credential-records.ts';
import type { PosAdminScope } from './pos-admin-scope.ts';

/** `GET /back-office/pos/staff-credentials`: the merchant's live credentials, by name then id. */
export async function listStaffCredentials(scope: PosAdminScope): Promise<StaffCredentialView[]> {
  const rows = await scope.tdb.selectFrom('staff_credentials').selectAll().where('deleted_at', 'is', null).orderBy('name').orderBy('id').execute();
  return rows.map(presentCredential);
}
