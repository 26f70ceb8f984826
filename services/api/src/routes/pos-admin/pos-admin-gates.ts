import type { PosAdminScope } from '@pos/core/pos-admin/pos-admin-scope';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import type { ApiDeps } from '../../context.ts';
import { allLocations, locationOwner, permission } from '../../plugins/guards.ts';
import { firstPartyPos } from '../../plugins/first-party-pos.ts';

/**
 * What the back-office register administration groups (pos-admin-staff, -registers, -drawers,
 * -fdm-devices, -reports) share: spec 2 "Back-office routes for the first-party register", under
 * `/back-office/pos`. Each group runs auth, type:backoffice and `admin-vendor-override` (`vendor_id`
 * rebinds the merchant for an internal admin or the merchant's reseller); `first-party-pos` gates
 * every route (403 for a merchant without the marker; `POST /pos/select-provider` lives in
 * routes/pos-provider and is not gated); `location-owner` on `/pos/{locationId}/...`; the permission
 * of the spec's table per route, except `GET /pos/fiscal-locations`, whose VIEW_POS_REPORTS check
 * runs in the service.
 */

export const doc = (tags: string[], summary: string, description?: string) => ({
  detail: { tags, summary, ...(description ? { description } : {}), security: [{ bearer: [] }] },
});

export const scopeOf = (deps: ApiDeps, ctx: { tenant: TenantContext; auth: { userId: string } }): PosAdminScope => ({
  db: deps.db,
  tdb: ctx.tenant.db,
  merchant: ctx.tenant.merchant,
  userId: ctx.auth.userId,
  now: deps.clock.now(),
});

/*
 * The gates run as `transform` hooks, right after `secured(...)` resolved the caller and the merchant
 * and BEFORE body and query validation: a merchant without the marker, another merchant's location
 * or a missing permission is refused as such (403/404), never answered with a 422 that would tell
 * the caller its body would have been accepted.
 */
/** Merchant-level groups: `first-party-pos`, then the route's permission. */
export const merchantGate = (slug: string) => [firstPartyPos(), permission(slug)];
/**
 * Writes of merchant-wide records (staff credentials: a PIN signs in at every location's registers):
 * the merchant gate, then every location (403 for a member granted only some).
 */
export const merchantWideGate = (slug: string) => [firstPartyPos(), permission(slug), allLocations()];
/** `/pos/{locationId}` group: `first-party-pos`, `location-owner` (404 for another merchant's location), then the permission scoped to the caller's location grant (403 outside it). */
export const locationGate = (slug: string) => [firstPartyPos(), locationOwner(), permission(slug, 'locationId')];
