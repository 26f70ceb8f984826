import type { TenantDb } from '@pos/db';
import { countRoleUsers, findRole, presentRole, type RoleView } from './team-scope.ts';

/** One role of the bound merchant; another merchant's id (or a non-UUID) is 404. */
export async function getRole(tdb: TenantDb, roleId: string): Promise<RoleView> {
  const role = await findRole(tdb, roleId);
  return presentRole(role, await countRoleUsers(tdb, role.id));
}
