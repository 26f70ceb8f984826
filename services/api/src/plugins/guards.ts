import { requirePermission, type Access } from '@pos/core/auth/access';
import { requireOwnLocation } from '@pos/core/auth/caller-gates';
import type { TenantContext } from '@pos/core/auth/tenant-context';

/**
 * Route-level guards for `beforeHandle`, used after `secured(...)`:
 * `{ beforeHandle: [locationOwner(), permission('VIEW_DEVICES', 'locationId')] }`.
 */
export function permission(slug: string, locationParam?: string) {
  return async (ctx: { access: () => Promise<Access>; params: unknown }) => {
    const loc = locationParam ? (ctx.params as Record<string, string | undefined>)[locationParam] : undefined;
    requirePermission(await ctx.access(), slug, loc);
  };
}

/** `location-owner` for `{locationId}` (or another param name); runs after admin-vendor-override. */
export function locationOwner(param = 'locationId') {
  return async (ctx: { tenant: TenantContext; params: unknown }) => {
    await requireOwnLocation(ctx.tenant, (ctx.params as Record<string, string>)[param] ?? '');
  };
}
