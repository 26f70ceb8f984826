import { timingSafeEqual } from 'node:crypto';
import type Redis from 'ioredis';
import type { CentralDb } from '@pos/db';
import { isUuid } from '@pos/domain/ids';
import { AppError, errors } from '@pos/kernel';
import type { Principal, TokenType } from './principal.ts';
import { findUserStanding, locationExists, recordUserActive } from './auth-records.ts';
import type { TenantContext } from './tenant-context.ts';

// The spec's per-caller middleware decisions (spec 1 section 5), each one function.

/** `type:<t>`: 403 `Unauthorized: Invalid user type` when the token's type is not one of `types`. */
export function requireType<T extends TokenType>(p: Principal, types: readonly T[]): asserts p is Extract<Principal, { type: T }> {
  if (!(types as readonly string[]).includes(p.type)) throw errors.invalidUserType();
}

/** `device-key`: the `X-Client-API-Key` value must equal the configured key (constant-time compare). */
export function checkDeviceKey(given: string | undefined | null, expected: string): void {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new AppError('unauthenticated', 'Invalid API key');
}

/** `check-user-activity`: records when a back-office user was last active, at most once a minute. */
export async function recordUserActivity(db: CentralDb, redis: Redis, userId: string, now: Date): Promise<void> {
  const first = await redis.set(`user-activity:${userId}`, '1', 'EX', 60, 'NX');
  if (first) await recordUserActive(db, userId, now);
}

/** `global-admin`: only internal administrators. */
export async function requireGlobalAdmin(db: CentralDb, userId: string): Promise<void> {
  const u = await findUserStanding(db, userId);
  if (!u?.is_global_admin) throw errors.insufficientPermissions();
}

/** `location-owner`: a `{locationId}` not of the bound merchant (after any override) is a 404. */
export async function requireOwnLocation(tenant: TenantContext, locationId: string): Promise<void> {
  if (!isUuid(locationId) || !(await locationExists(tenant.db, locationId))) throw errors.notFound('location');
}
