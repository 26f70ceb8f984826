import { requireAllLocations, requireGrantedLocations, requirePermission, type Access } from '@pos/core/auth/access';
import { requireOwnLocation } from '@pos/core/auth/caller-gates';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { errors } from '@pos/kernel';

/**
 * Route-level guards, used after `secured(...)` as `transform` hooks:
 * `{ transform: [locationOwner(), permission('VIEW_DEVICES', 'locationId')] }`.
 *
 * They run at the transform stage, after `secured(...)` (a derive, also a transform hook, registered
 * first) resolved the caller and the merchant, and BEFORE the schema validation of params, query and
 * body: a caller lacking the permission (or the location) gets 403 (404 for another merchant's
 * location) whatever the request holds, never a 422 describing the route's fields. Never use them as
 * `beforeHandle` (which runs after validation). They read the raw params: `{locationId}` is compared in
 * lower case (`accessCan`).
 */
export function permission(slug: string, locationParam?: string) {
  return permissionGate(slug, async (ctx: { access: () => Promise<Access>; params: unknown }) => {
    const loc = locationParam ? (ctx.params as Record<string, string | undefined>)[locationParam] : undefined;
    requirePermission(await ctx.access(), slug, loc);
  });
}

/**
 * `permission` for a route whose location is named in the body (`location_id`, read raw like the
 * params): 403 for a location outside the grant; a body without one is left to the validation.
 */
export function bodyLocationPermission(slug: string, field = 'location_id') {
  return permissionGate(slug, async (ctx: { access: () => Promise<Access>; body: unknown }) => {
    const raw = ctx.body !== null && typeof ctx.body === 'object' ? (ctx.body as Record<string, unknown>)[field] : undefined;
    requirePermission(await ctx.access(), slug, typeof raw === 'string' ? raw : undefined);
  });
}

/**
 * For merchant-wide records (e.g. register staff credentials, whose PIN works at every location):
 * 403 `Unauthorized: Insufficient permissions` unless the caller holds every location (owner, global
 * user, internal admin). Runs after the route's `permission(...)`.
 */
export function allLocations() {
  return async (ctx: { access: () => Promise<Access> }) => {
    requireAllLocations(await ctx.access());
  };
}

/**
 * A route about one location with no permission of its own (spec "-"): the caller's location grant is
 * the gate (spec 1 section 5.8), 403 `Unauthorized: Insufficient permissions` outside it. After
 * `locationOwner` (another merchant's location stays a 404).
 */
export function locationGrant(param = 'locationId') {
  return async (ctx: { access: () => Promise<Access>; params: unknown }) => {
    requireGrantedLocations(await ctx.access(), [(ctx.params as Record<string, string>)[param] ?? '']);
  };
}

/**
 * For a route without a permission about one of our locations named outside the path's `locationId` (a
 * query field, another param), called from the handler: 404 when it is not a location of the merchant,
 * then 403 outside the caller's grant (spec 1 section 5 item 8). Answers the id as given.
 */
export async function grantedLocation(ctx: { tenant: TenantContext; access: () => Promise<Access> }, locationId: string): Promise<string> {
  await requireOwnLocation(ctx.tenant, locationId);
  requireGrantedLocations(await ctx.access(), [locationId.toLowerCase()]);
  return locationId;
}

/**
 * Passes a caller holding at least one of `slugs` (anywhere in the grant); the use case then checks the
 * slug against the record's own location. Used where a route's permission is "either of".
 */
export function anyPermission(...slugs: string[]) {
  return permissionGate(slugs.join(' or '), async (ctx: { access: () => Promise<Access> }) => {
    const access = await ctx.access();
    if (!slugs.some((s) => access.permissions.has(s))) throw errors.insufficientPermissions();
  });
}

/** Marks a route permission check (the slug, or a description of how it is chosen) so the route matrix tests find it. */
export const PERMISSION_GATE = Symbol.for('pos.permission-gate');

export function permissionGate<F extends (...args: never[]) => unknown>(what: string, fn: F): F & { [PERMISSION_GATE]: string } {
  return Object.assign(fn, { [PERMISSION_GATE]: what });
}

/** The slug of a permission gate, or undefined for any other function. */
export function permissionGateOf(fn: unknown): string | undefined {
  return typeof fn === 'function' ? (fn as { [PERMISSION_GATE]?: string })[PERMISSION_GATE] : undefined;
}

/**
 * `location-owner` for `{locationId}` (or another param name); runs after admin-vendor-override. The
 * param then holds the location's own id (a UUID in lower case): a path spelling it in upper case
 * names the same location, and handlers and answers see the stored id, never the path's spelling.
 */
export function locationOwner(param = 'locationId') {
  return async (ctx: { tenant: TenantContext; params: unknown }) => {
    const params = ctx.params as Record<string, string>;
    await requireOwnLocation(ctx.tenant, params[param] ?? '');
    params[param] = params[param]!.toLowerCase();
  };
}
