import type Redis from 'ioredis';
import type { Clock } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { loadAccess, type Access } from './access.ts';
import type { AuthCache } from './auth-cache.ts';
import { authenticateToken } from './authenticate-token.ts';
import { checkDeviceKey, recordUserActivity, requireType } from './caller-gates.ts';
import { loadDevice, requireSubscription, touchDevice, type DeviceRecord } from './device-gates.ts';
import type { BackofficePrincipal, DevicePrincipal, Principal, TokenService, TokenType } from './principal.ts';
import { applyVendorOverride, bindTokenTenant, type TenantContext } from './tenant-context.ts';

/** What authenticating a request needs; the API's dependencies satisfy it as they are. */
export interface RequestAuthDeps {
  readonly db: CentralDb;
  readonly redis: Redis;
  readonly tokens: Pick<TokenService, 'verify'>;
  readonly authCache: AuthCache;
  readonly clock: Clock;
  readonly config: { readonly DEVICE_API_KEY: string };
}

export interface RequestAuthOptions<T extends TokenType> {
  /** `type:<t>` (and `tenant:<t>`): accepted token types. */
  types: readonly T[];
  /** `device-key`: require the client API key. */
  deviceKey?: boolean;
  /** `admin-vendor-override`: honour `vendor_id`. */
  vendorOverride?: boolean;
  /** `check-user-activity` for back-office users (default on). */
  activity?: boolean;
}

/** The credentials a request presented, read from its headers and query by the API. */
export interface RequestCredentials {
  /** The bearer token, or null when there is none. */
  readonly token: string | null;
  /** The client API key header, when given. */
  readonly apiKey?: string | null;
  /** `vendor_id` of the query, when given. */
  readonly vendorId?: string;
}

type PrincipalOf<T extends TokenType> = Extract<Principal, { type: T }>;

/** Who a request acts as and for which merchant. */
export type AuthenticatedRequest<T extends TokenType> = {
  auth: PrincipalOf<T>;
  tenant: TenantContext;
  /** The device behind a device token (kiosk, kds, pos), else null. */
  device: DeviceRecord | null;
  /** True when an internal admin or reseller rebound the tenant through `vendor_id`. */
  elevated: boolean;
  /** Back-office permissions and location grant, loaded on first use. */
  access: () => Promise<Access>;
};

/**
 * The spec's middleware in order for one route group: `auth`, `type:<t>`, `device-key`, `tenant:<t>`,
 * `admin-vendor-override`, then the device gates (subscription 402, liveness) or `check-user-activity`.
 */
export async function authenticateRequest<const T extends TokenType>(deps: RequestAuthDeps, opts: RequestAuthOptions<T>, creds: RequestCredentials): Promise<AuthenticatedRequest<T>> {
  const principal = await authenticateToken(deps, creds.token);
  requireType(principal, opts.types);
  if (opts.deviceKey) checkDeviceKey(creds.apiKey, deps.config.DEVICE_API_KEY);
  let tenant = await bindTokenTenant(deps.db, principal.merchantId, principal.tenantDatabase, principal.type === 'backoffice' ? undefined : deps.authCache);
  let elevated = false;
  let device: DeviceRecord | null = null;
  const now = deps.clock.now();
  if (principal.type === 'backoffice') {
    const bo = principal as BackofficePrincipal;
    if (opts.vendorOverride) ({ tenant, elevated } = await applyVendorOverride(deps.db, bo.userId, tenant, creds.vendorId));
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
