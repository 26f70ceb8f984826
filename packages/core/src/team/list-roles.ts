import type { TenantDb } from '@pos/db';
import { presentRole, type RoleView } from './team-scope.ts';

/** The merchant's roles with how many members hold each; the owner role first, then by name. */
export async function listRoles(tdb: TenantDb): Promise<RoleView[]> {
  const rows = await tdb
    .selectFrom('roles')
    .leftJoin('user_roles', 'user_roles.role_id', 'roles.id')
    .select(['roles.id', 'roles.name', 'roles.is_owner', 'roles.permissions', 'roles.created_at'])
    .select((eb) => eb.fn.count<number>('user_roles.user_id').as('users_count'))
    .groupBy('roles.id')
    .orderBy('roles.is_owner', 'desc')
    .orderBy('roles.name')
    .execute();
  return rows.map((r) => presentRole(r, Number(r.users_count)));
}
