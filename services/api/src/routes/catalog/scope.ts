import type { Access } from '@pos/core/auth/access';
import type { CatalogScope } from '@pos/core/catalog/catalog-scope';
import type { ApiDeps } from '../../context.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';

/** The catalog use-case scope of a back-office request. */
export async function catalogScope(deps: ApiDeps, ctx: { tenant: TenantContext; access: () => Promise<Access> }): Promise<CatalogScope> {
  return { tdb: ctx.tenant.db, redis: deps.redis, merchantId: ctx.tenant.merchant.id, access: await ctx.access(), now: deps.clock.now() };
}

/** OpenAPI detail of a catalog route: the permission slug of the spec's table is stated in the description. */
export const doc = (tags: string[], summary: string, perm: string | null, description?: string) => ({
  detail: {
    tags,
    summary,
    description: [`Permission: ${perm ?? '- (none)'}.`, description].filter(Boolean).join(' '),
    security: [{ bearer: [] }],
  },
});
