import { errors } from '@pos/kernel';
import { accessCan, type Access } from '@pos/core/auth/access';

/**
 * Per-route permission slug, scoped to the user's granted locations: 403 `Unauthorized: Insufficient
 * permissions` without the slug, or for a `{locationId}` outside the grant.
 */
export function requirePermission(access: Access, permission: string, locationId?: string): void {
  if (!accessCan(access, permission, locationId)) throw errors.insufficientPermissions();
}
