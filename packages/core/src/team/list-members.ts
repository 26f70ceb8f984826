import type { CentralDb, TenantDb } from '@pos/db';
import { loadMembers, type MemberView } from './team-scope.ts';

/**
 * `GET /team/users` (every member of the merchant) and `GET /team/users/global` (`globalOnly`: the
 * members whose access spans every location, including future ones).
 */
export async function listMembers(db: CentralDb, tdb: TenantDb, merchantId: string, opts: { globalOnly?: boolean } = {}): Promise<MemberView[]> {
  const all = await loadMembers(db, tdb, merchantId);
  return opts.globalOnly ? all.filter((m) => m.all_locations) : all;
}
