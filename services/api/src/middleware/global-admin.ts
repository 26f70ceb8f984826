import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';

/** `global-admin`: only internal administrators. */
export async function requireGlobalAdmin(db: CentralDb, userId: string): Promise<void> {
  const u = await db.selectFrom('users').select('is_global_admin').where('id', '=', userId).executeTakeFirst();
  if (!u?.is_global_admin) throw errors.insufficientPermissions();
}
