import { Elysia } from 'elysia';
import * as offers from '@pos/core/catalog/offers';
import type { OfferRule, OfferSchedule } from '@pos/domain/catalog/pricing';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { catalogScope, doc } from '../catalog/scope.ts';
import * as S from './offers.schemas.ts';

/** Spec 1 "Offers" and section 3 (offer states), under `/back-office/offers`. Refused transitions: 409 with `reason`. */
export function offerRoutes(deps: ApiDeps) {
  const tags = ['Catalog: offers'];
  const stateHook = (summary: string, description: string) => ({
    params: S.IdParams,
    response: { 200: S.OfferResponse },
    transform: [permission('EDIT_OFFERS')],
    ...doc(tags, summary, 'EDIT_OFFERS', description),
  });
  const input = <B extends { rule?: unknown; schedule?: unknown }>(b: B) => b as B & { rule: OfferRule; schedule?: OfferSchedule | null };
  return new Elysia({ name: 'catalog-offers', prefix: '/back-office/offers' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('', async ({ tenant, query }) => ({ data: await offers.listOffers(tenant.db, query) }), {
      query: S.OfferListQuery,
      response: { 200: S.OfferList },
      transform: [permission('VIEW_OFFERS')],
      ...doc(tags, 'Offers', 'VIEW_OFFERS', 'Newest first; optional status.'),
    })
    .post(
      '',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await offers.createOffer(await catalogScope(deps, ctx), input(ctx.body)) };
      },
      {
        body: S.CreateOfferBody,
        response: { 201: S.OfferResponse },
        transform: [permission('CREATE_OFFERS')],
        ...doc(
          tags,
          'Create an offer (inactive)',
          'CREATE_OFFERS',
          'Rule: percentage, amount off (cents) or buy-x-get-y; targets (items, categories; none = every item), basket minimum (cents), channels (none = every channel), locations (null = all), schedule in the location\'s time zone. An unknown or foreign id is a 422 on its field.',
        ),
      },
    )
    .get('/:id', async ({ tenant, params }) => ({ data: await offers.getOffer(tenant.db, params.id) }), {
      params: S.IdParams,
      response: { 200: S.OfferResponse },
      transform: [permission('VIEW_OFFERS')],
      ...doc(tags, 'Show an offer', 'VIEW_OFFERS'),
    })
    .put('/:id', async (ctx) => ({ data: await offers.updateOffer(await catalogScope(deps, ctx), ctx.params.id, input(ctx.body)) }), {
      params: S.IdParams,
      body: S.UpdateOfferBody,
      response: { 200: S.OfferResponse },
      transform: [permission('EDIT_OFFERS')],
      ...doc(tags, 'Update an offer', 'EDIT_OFFERS', 'Partial. Archived: 409 `offer_archived`.'),
    })
    .delete(
      '/:id',
      async (ctx) => {
        await offers.deleteOffer(await catalogScope(deps, ctx), ctx.params.id);
        return { status: 'success' as const };
      },
      { params: S.IdParams, response: { 200: S.Success }, transform: [permission('DELETE_OFFERS')], ...doc(tags, 'Delete an offer', 'DELETE_OFFERS', 'Active: 409 `offer_active`.') },
    )
    .post('/activate/:id', async (ctx) => ({ data: await offers.transitionOffer(await catalogScope(deps, ctx), ctx.params.id, 'activate') }), stateHook('Activate an offer', 'From inactive. Archived: 409 `offer_archived`; active: 409 `offer_already_active`.'))
    .post('/deactivate/:id', async (ctx) => ({ data: await offers.transitionOffer(await catalogScope(deps, ctx), ctx.params.id, 'deactivate') }), stateHook('Deactivate an offer', 'From active. Archived: 409 `offer_archived`; inactive: 409 `offer_already_inactive`.'))
    .post('/archive/:id', async (ctx) => ({ data: await offers.transitionOffer(await catalogScope(deps, ctx), ctx.params.id, 'archive') }), stateHook('Archive an offer', 'From inactive or active. Archived: 409 `offer_already_archived`.'))
    .post('/unarchive/:id', async (ctx) => ({ data: await offers.transitionOffer(await catalogScope(deps, ctx), ctx.params.id, 'unarchive') }), stateHook('Unarchive an offer (inactive)', 'From archived. Otherwise 409 `offer_not_archived`.'));
}
