import { Elysia } from 'elysia';
import type { Access } from '@pos/core/auth/access';
import type { BackofficeScope } from '@pos/core/devices/device-records';
import { bindDeviceStation, createStation, deleteStation, getStation, listStations, updateStation } from '@pos/core/kitchen/stations';
import type { ApiDeps } from '../../context.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { secured } from '../../plugins/secured.ts';
import { locationOwner, permission } from '../../plugins/guards.ts';
import { firstPartyPos } from '../../plugins/first-party-pos.ts';
import * as S from './stations.schemas.ts';

const doc = (summary: string, description?: string) => ({
  detail: { tags: ['Kitchen stations'], summary, ...(description ? { description } : {}), security: [{ bearer: [] }] },
});

async function scopeOf(deps: ApiDeps, ctx: { tenant: TenantContext; auth: { userId: string }; access: () => Promise<Access> }): Promise<BackofficeScope> {
  return { db: deps.db, tdb: ctx.tenant.db, merchant: ctx.tenant.merchant, userId: ctx.auth.userId, access: await ctx.access(), now: deps.clock.now() };
}

/*
 * Gates run as `transform` hooks (before body validation), as in the register administration:
 * `first-party-pos` (403 for a merchant without the marker: a KDS route group), then the permission.
 */
const gate = (slug: string) => [firstPartyPos(), permission(slug)];

/**
 * Spec 2 "Back-office routes for the first-party register", kitchen routing part, under
 * `/back-office/devices`: stations of a location with the categories they serve, and the binding of a
 * KDS device to a station. auth, type:backoffice, admin-vendor-override, first-party-pos.
 */
export function kitchenStationRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'kitchen-stations', prefix: '/back-office/devices' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .post(
      '/stations',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await createStation(await scopeOf(deps, ctx), ctx.body) };
      },
      {
        query: S.VendorQuery,
        body: S.CreateStationBody,
        response: { 201: S.StationResponse },
        transform: gate('EDIT_DEVICES'),
        ...doc(
          'Create a station',
          'Fields: `location_id`, `name`, `category_ids` (the categories whose lines it shows), `is_fallback` (shows the lines no station serves; making a station the fallback takes the flag from the location\'s previous one).',
        ),
      },
    )
    .get('/stations/location/:locationId', async (ctx) => ({ data: await listStations(await scopeOf(deps, ctx), ctx.params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.StationList },
      transform: [firstPartyPos(), locationOwner(), permission('VIEW_DEVICES', 'locationId')],
      ...doc('List the stations of a location', 'By name, each with its category ids and bound KDS device ids.'),
    })
    .get('/stations/:id', async (ctx) => ({ data: await getStation(await scopeOf(deps, ctx), ctx.params.id) }), {
      params: S.IdParams,
      query: S.VendorQuery,
      response: { 200: S.StationResponse },
      transform: gate('VIEW_DEVICES'),
      ...doc('Show a station'),
    })
    .put('/stations/:id', async (ctx) => ({ data: await updateStation(await scopeOf(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      query: S.VendorQuery,
      body: S.UpdateStationBody,
      response: { 200: S.StationResponse },
      transform: gate('EDIT_DEVICES'),
      ...doc('Update a station', '`category_ids` replaces the list as a whole; the location never changes.'),
    })
    .delete(
      '/stations/:id',
      async (ctx) => ({ status: 'success' as const, unbound_devices: await deleteStation(await scopeOf(deps, ctx), ctx.params.id) }),
      {
        params: S.IdParams,
        query: S.VendorQuery,
        response: { 200: S.DeleteStationResponse },
        transform: gate('EDIT_DEVICES'),
        ...doc('Delete a station', 'Its KDS devices are unbound; `unbound_devices` says how many. 409 `{message, reason}` while a kitchen printer prints for it (`station_has_printer`) or it has open orders (`station_has_open_orders`). Its finished tickets stay in the kitchen reports.'),
      },
    )
    .post('/:id/station', async (ctx) => ({ data: await bindDeviceStation(await scopeOf(deps, ctx), ctx.params.id, ctx.body.station_id) }), {
      params: S.IdParams,
      query: S.VendorQuery,
      body: S.BindStationBody,
      response: { 200: S.BindStationResponse },
      transform: gate('EDIT_DEVICES'),
      ...doc('Bind a KDS device to a station', '`station_id` null unbinds. Only a KDS device (422), only a station of the device\'s location (422).'),
    });
}
