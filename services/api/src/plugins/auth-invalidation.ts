import { Elysia } from 'elysia';
import { invalidateAuth } from '@pos/core/auth/auth-invalidation';
import type { ApiDeps } from '../context.ts';
import { bearerToken } from '../middleware/authenticate.ts';
import type { RoutePatterns } from './route-patterns.ts';

/**
 * Register routes whose writes never change anyone's authentication state (orders, payments, tills,
 * the business day, PIN login, escalation, liveness). Every other successful write (back-office edits
 * of devices, staff, merchants; device and staff logout; activation; admin switch) drops the merchant's
 * cached authentication state in every API process. A route missing here only costs cache misses; a
 * route wrongly listed here would let a revoked credential live until the TTL, so the list is short.
 */
const NEVER_CHANGES_AUTH = [/^\/api\/pos\/(orders|refunds|tills|business-day)(\/|$)/, /^\/api\/pos\/staff\/(pin-login|escalate)$/, /\/(heartbeat|network-info)$/];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Routes that authenticate inside the handler (device logout) leave no `auth`: read the token's merchant. */
async function verifiedMerchant(deps: ApiDeps, header: string | null): Promise<string | undefined> {
  const raw = bearerToken(header);
  return raw ? (await deps.tokens.verify(raw))?.merchant_id : undefined;
}

/**
 * The route pattern comes from `routes` (route-patterns.ts), set by the app once every route is
 * registered: a hook reading Elysia's `route` would compile the route's path into every route's handler.
 */
export function authInvalidationPlugin(deps: ApiDeps, routes: { current: RoutePatterns | null }) {
  return new Elysia({ name: 'auth-invalidation' }).onAfterHandle({ as: 'global' }, async (ctx) => {
    if (SAFE_METHODS.has(ctx.request.method)) return;
    const route = routes.current?.patternOfRequest(ctx.request) ?? '';
    if (NEVER_CHANGES_AUTH.some((r) => r.test(route))) return;
    const merchantId = (ctx as { auth?: { merchantId?: string } }).auth?.merchantId ?? (await verifiedMerchant(deps, ctx.request.headers.get('authorization')));
    // With `vendor_id` (an admin or reseller acting on another merchant) the write changed the tenant's
    // merchant, not the token's: that one's cache goes.
    const tenantId = (ctx as { tenant?: { merchant?: { id?: string } } }).tenant?.merchant?.id;
    if (tenantId && tenantId !== merchantId) await invalidateAuth(deps.authCache, deps.redis, tenantId, deps.log);
    if (merchantId) return invalidateAuth(deps.authCache, deps.redis, merchantId, deps.log);
    // Without a token: only activation (by code) changes a device's tokens, and its merchant is not
    // known here, so every merchant. Logins and sign-ups change nothing cached.
    if (/\/activate$/.test(route)) await invalidateAuth(deps.authCache, deps.redis, null, deps.log);
  });
}
