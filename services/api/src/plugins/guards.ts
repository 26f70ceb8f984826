import type { Access } from '@pos/core/auth/access';
import { requirePermission } from '../middleware/permission.ts';
import { requireOwnLocation } from '../middleware/location-owner.ts';
import type { TenantContext } from '../middleware/tenant.ts';

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
