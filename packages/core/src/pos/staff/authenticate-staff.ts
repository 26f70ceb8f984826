import type { AuthCache } from '../../auth/auth-cache.ts';
import type { TenantContext } from '../../auth/tenant-context.ts';
import { resolveStaffSession, type StaffSession } from './staff-session.ts';

/**
 * `X-Pos-Staff-Token` of a register: the staff session behind the token, from the auth cache while it
 * is fresh and the session has not expired, else read (401 `Invalid POS staff token` when missing,
 * ended or expired).
 */
export async function authenticateStaff(deps: { authCache: AuthCache; clock: { now(): Date } }, tenant: TenantContext, deviceId: string, token: string | undefined): Promise<StaffSession> {
  const now = deps.clock.now();
  const key = token ? `staff:${deviceId}:${token}` : undefined;
  const hit = key ? deps.authCache.get<StaffSession>(tenant.merchant.id, key) : undefined;
  if (hit && hit.expiresAt && hit.expiresAt.getTime() > now.getTime()) return hit;
  const staff = await resolveStaffSession(tenant.db, token, deviceId, now);
  if (key) deps.authCache.set(tenant.merchant.id, key, staff);
  return staff;
}
