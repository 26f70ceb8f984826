import { Elysia, type AnyElysia } from 'elysia';
import { deleteLoyalty, loyaltyConfig, loyaltySubscription, saveLoyalty } from '@pos/core/customers/loyalty-admin';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { locationOwner, permission } from '../../plugins/guards.ts';
import * as S from './loyalty.schemas.ts';

const doc = (summary: string, perm: string, description = '') => ({
  detail: { tags: ['Loyalty'], security: [{ bearer: [] }], summary, description: `Permission: ${perm} (location-scoped). ${description}`.trim() },
});

/** Loyalty administration per location (spec 1 "Loyalty, setup, utilities"): the points program and its rewards. */
export function loyaltyAdminRoutes(deps: ApiDeps): AnyElysia {
  return loyaltyAdminRoutesTyped(deps);
}

function loyaltyAdminRoutesTyped(deps: ApiDeps) {
  const now = () => deps.clock.now();
  return new Elysia({ name: 'loyalty-admin', prefix: '/back-office/loyalty' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/:locationId', async ({ tenant, params }) => ({ data: await loyaltyConfig(tenant.db, params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.ConfigResponse },
      transform: [locationOwner(), permission('VIEW_LOYALTY', 'locationId')],
      ...doc('Loyalty program', 'VIEW_LOYALTY', 'The points program of the location with every reward (inactive ones too); `data` null when none is set up.'),
    })
    .get('/:locationId/subscription', async ({ tenant, params }) => ({ data: await loyaltySubscription(tenant.db, params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.SubscriptionResponse },
      transform: [locationOwner(), permission('EDIT_LOYALTY', 'locationId')],
      ...doc('Loyalty subscription', 'EDIT_LOYALTY', 'Loyalty is included in the plan: `status` is `active`, `paused` or `not_configured`, with the number of members.'),
    })
    .post('/:locationId', async ({ tenant, auth, params, body }) => ({ data: await saveLoyalty(tenant.db, { userId: auth.userId }, params.locationId, body, now()) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      body: S.LoyaltyBody,
      response: { 200: S.SavedResponse },
      transform: [locationOwner(), permission('EDIT_LOYALTY', 'locationId')],
      ...doc(
        'Create or update the loyalty program',
        'EDIT_LOYALTY',
        'Points per whole euro paid and, with `rewards`, the full reward list: an entry with `id` updates that reward, one without creates one, a reward left out is deactivated (kept for history).',
      ),
    })
    .delete(
      '/:locationId',
      async ({ tenant, auth, params }) => {
        await deleteLoyalty(tenant.db, { userId: auth.userId }, params.locationId);
        return { status: 'success' as const };
      },
      {
        params: S.LocationParams,
        query: S.VendorQuery,
        response: { 200: S.Success },
        transform: [locationOwner(), permission('DELETE_LOYALTY', 'locationId')],
        ...doc('Delete the loyalty program', 'DELETE_LOYALTY', 'Rewards are deactivated; customers keep their points. 404 when the location has no program.'),
      },
    );
}
