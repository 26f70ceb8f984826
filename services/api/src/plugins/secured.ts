import { Elysia } from 'elysia';
import type { Access } from '@pos/core/auth/access';
import { loadAccess } from '@pos/core/auth/access';
import type { BackofficePrincipal, DevicePrincipal, Principal, TokenType } from '@pos/core/auth/principal';
import type { ApiDeps } from '../context.ts';
import { authenticate } from '../middleware/authenticate.ts';
import { requireType } from '../middleware/require-type.ts';
import { checkDeviceKey } from '../middleware/device-key.ts';
import { bindTokenTenant, type TenantContext } from '../middleware/tenant.ts';
import { applyVendorOverride } from '../middleware/vendor-override.ts';
import { recordUserActivity } from '../middleware/user-activity.ts';
import { loadDevice, requireSubscription, touchDevice, type DeviceRecord } from '../middleware/device-gates.ts';

export interface SecuredOptions<T extends TokenType> {
  /** `type:<t>` (and `tenant:<t>`): accepted token types. */
  types: readonly T[];
  /** `device-key`: require `X-Client-API-Key`. */
  deviceKey?: boolean;
  /** `admin-vendor-override`: honour `vendor_id`. */
  vendorOverride?: boolean;
  /** `check-user-activity` for back-office users (default on). */
  activity?: boolean;
}

type PrincipalOf<T extends TokenType> = Extract<Principal, { type: T }>;

export type SecuredContext<T extends TokenType> = {
  auth: PrincipalOf<T>;
  tenant: TenantContext;
  /** The device behind a device token (kiosk, kds, pos), else null. */
  device: DeviceRecord | null;
  /** True when an internal admin or reseller rebound the tenant through `vendor_id`. */
  elevated: boolean;
  /** Back-office permissions and location grant, loaded on first use. */
  access: () => Promise<Access>;
};

/** The composed middleware as a function, so audience-specific plugins (the register's) can extend it. */
export async function resolveSecured<const T extends TokenType>(
  deps: ApiDeps,
  opts: SecuredOptions<T>,
  { headers, query }: { headers: Record<string, string | undefined>; query: Record<string, unknown> },
): Promise<SecuredContext<T>> {
  const principal = await authenticate(deps, headers.authorization);
  requireType(principal, opts.types);
  if (opts.deviceKey) checkDeviceKey(headers['x-client-api-key'], deps.config.DEVICE_API_KEY);
  let tenant = await bindTokenTenant(deps.db, principal.merchantId, principal.tenantDatabase, principal.type === 'backoffice' ? undefined : deps.authCache);
  let elevated = false;
  let device: DeviceRecord | null = null;
  const now = deps.clock.now();
  if (principal.type === 'backoffice') {
    const bo = principal as BackofficePrincipal;
    if (opts.vendorOverride) {
      const vendorId = typeof query.vendor_id === 'string' ? query.vendor_id : undefined;
      ({ tenant, elevated } = await applyVendorOverride(deps.db, bo.userId, tenant, vendorId));
    }
    if (opts.activity !== false) await recordUserActivity(deps.db, deps.redis, bo.userId, now);
  } else if (principal.type !== 'customer') {
    device = await loadDevice(tenant, (principal as DevicePrincipal).deviceId, deps.authCache);
    requireSubscription(device, now);
    await touchDevice(tenant, deps.redis, device, now);
  }
  let cached: Promise<Access> | undefined;
  const bound = tenant;
  const isElevated = elevated;
  const access = () => {
    if (principal.type !== 'backoffice') return Promise.reject(new Error('access() is for back-office users'));
    cached ??= loadAccess(bound.db, (principal as BackofficePrincipal).userId, isElevated);
    return cached;
  };
  return { auth: principal as PrincipalOf<T>, tenant, device, elevated, access };
}

/**
 * Composes the spec's middleware in order for one route group: `auth`, `type:<t>`, `device-key`,
 * `tenant:<t>`, `admin-vendor-override`, then device gates (subscription 402, liveness) or
 * `check-user-activity`. It runs at the transform stage, so an unauthenticated caller gets 401 before
 * any body validation. Per-route permission and location-owner checks use the resolved context.
 */
export function secured<const T extends TokenType>(deps: ApiDeps, opts: SecuredOptions<T>) {
  return new Elysia().derive(
    { as: 'scoped' },
    (ctx): Promise<SecuredContext<T>> => resolveSecured(deps, opts, ctx),
  );
}
