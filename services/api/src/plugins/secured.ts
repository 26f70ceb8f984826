import { Elysia } from 'elysia';
import type { TokenType } from '@pos/core/auth/principal';
import { authenticateRequest, type AuthenticatedRequest, type RequestAuthOptions } from '@pos/core/auth/authenticate-request';
import type { ApiDeps } from '../context.ts';
import { bearerToken } from '../middleware/authenticate.ts';

export type SecuredOptions<T extends TokenType> = RequestAuthOptions<T>;
export type SecuredContext<T extends TokenType> = AuthenticatedRequest<T>;

/** Reads the request's credentials (bearer token, `X-Client-API-Key`, `vendor_id`) and authenticates it (core). */
export function resolveSecured<const T extends TokenType>(
  deps: ApiDeps,
  opts: SecuredOptions<T>,
  { headers, query }: { headers: Record<string, string | undefined>; query: Record<string, unknown> },
): Promise<SecuredContext<T>> {
  return authenticateRequest(deps, opts, {
    token: bearerToken(headers.authorization),
    apiKey: headers['x-client-api-key'],
    vendorId: opts.vendorOverride && typeof query.vendor_id === 'string' ? query.vendor_id : undefined,
  });
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
    ({ headers, query }): Promise<SecuredContext<T>> => resolveSecured(deps, opts, { headers, query }),
  );
}
