import type { TenantDb } from '@pos/db';

/** `GET /team/roles/options`: roles a member can be given (the owner role is never assigned through the team routes). */
export async function listRoleOptions(tdb: TenantDb): Promise<{ value: string; label: string }[]> {
  const rows = await tdb.selectFrom('roles').select(['id', 'name']).where('is_owner', '=', false).orderBy('name').execute();
  return rows.map((r) => ({ value: r.id, label: r.name }));
}
