import { loadMembers } from '../team/team-scope.ts';
import type { PosAdminScope } from './pos-admin-scope.ts';

/** A back-office member who may be linked to a new register credential. */
export interface AssignableMember {
  id: string;
  name: string;
  email: string;
}

/**
 * `GET /back-office/pos/staff-credentials/assignable-staff`: the merchant's back-office members
 * (accepted memberships; a pending invitation is not a member yet) who hold no live credential,
 * by name then email. A deleted credential frees its member again.
 */
export async function listAssignableStaff(scope: PosAdminScope): Promise<AssignableMember[]> {
  const [members, linked] = await Promise.all([
    loadMembers(scope.db, scope.tdb, scope.merchant.id),
    scope.tdb.selectFrom('staff_credentials').select('user_id').where('deleted_at', 'is', null).where('user_id', 'is not', null).execute(),
  ]);
  const taken = new Set(linked.map((r) => r.user_id));
  return members.filter((m) => m.status === 'active' && !taken.has(m.id)).map((m) => ({ id: m.id, name: m.name, email: m.email }));
}
