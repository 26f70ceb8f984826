import { Elysia } from 'elysia';
import {
  findLocation,
  inHouseChannels,
  onlineChannels,
  onlineOrderingView,
  readSettings,
  snoozeOnlineOrdering,
  writeSettings,
  type ChannelKind,
  type SettingsByKind,
} from '@pos/core/online-ordering/channel-settings';
import { syncListing } from '@pos/core/online-ordering/restaurant-suggestions';
import { centralIn, type TenantDb } from '@pos/db';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { locationGrant, locationOwner, permission } from '../../plugins/guards.ts';
import * as S from './channel-settings.schemas.ts';

const doc = (summary: string, description?: string) => ({
  detail: { tags: ['Channel settings'], summary, ...(description ? { description } : {}), security: [{ bearer: [] }] },
});

/**
 * `location-owner` first (another merchant's location is a 404), then the route's permission on that
 * location; a route without one (spec "-") still needs the location in the caller's grant.
 */
const gate = (slug?: string) => (slug ? [locationOwner(), permission(slug, 'locationId')] : [locationOwner(), locationGrant()]);

async function plain<K extends Exclude<ChannelKind, 'online_ordering'>>(tdb: TenantDb, locationId: string, kind: K): Promise<{ data: { location_id: string } & SettingsByKind[K] }> {
  const loc = await findLocation(tdb, locationId);
  return { data: { location_id: loc.id, ...(await readSettings(tdb, loc.id, kind)).settings } };
}

/**
 * Back-office channel settings of a location (spec 1 "Online ordering and table QR ordering"): online
 * ordering (hours, preparation, capacity, snooze), online, in-house and QR ordering settings, and the
 * channel lists. Under `/back-office` like every back-office path (spec 1 conventions); this also
 * keeps `GET /online-ordering/{locationId}` apart from the public `GET /online-ordering/{slug}`.
 */
export function channelSettingsRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'channel-settings', prefix: '/back-office' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get(
      '/online-ordering/:locationId',
      async (ctx) => {
        const loc = await findLocation(ctx.tenant.db, ctx.params.locationId);
        return { data: onlineOrderingView(loc, await readSettings(ctx.tenant.db, loc.id, 'online_ordering'), deps.clock.now()) };
      },
      { params: S.LocationParams, query: S.VendorQuery, response: { 200: S.OnlineOrderingResponse }, transform: gate('VIEW_ONLINE_ORDERING'), ...doc('Online ordering settings of a location') },
    )
    .put(
      '/online-ordering/:locationId',
      async (ctx) => {
        const now = deps.clock.now();
        let loc!: Awaited<ReturnType<typeof findLocation>>;
        // Restaurant suggestions list the location while online ordering is on: written in the settings'
        // transaction, the location share-locked, so a status change or rename at the same moment is never
        // overwritten by what this request read before it.
        const saved = await writeSettings(ctx.tenant.db, ctx.params.locationId, 'online_ordering', ctx.body as never, now, async (tx, l, s) => {
          loc = l;
          await syncListing(centralIn(tx), ctx.tenant.merchant, l, s.settings, now);
        });
        return { data: onlineOrderingView(loc, saved, now) };
      },
      {
        params: S.LocationParams,
        query: S.VendorQuery,
        body: S.OnlineOrderingBody,
        response: { 200: S.OnlineOrderingResponse },
        transform: gate('EDIT_ONLINE_ORDERING'),
        ...doc('Update the online ordering settings', 'Fields sent replace the stored ones; `opening_hours` replaces the list as a whole.'),
      },
    )
    .post(
      '/online-ordering/:locationId/snooze',
      async (ctx) => {
        const now = deps.clock.now();
        const saved = await snoozeOnlineOrdering(ctx.tenant.db, ctx.params.locationId, ctx.body.minutes, now);
        return { data: onlineOrderingView(await findLocation(ctx.tenant.db, ctx.params.locationId), saved, now) };
      },
      {
        params: S.LocationParams,
        query: S.VendorQuery,
        body: S.SnoozeBody,
        response: { 200: S.OnlineOrderingResponse },
        transform: gate('EDIT_ONLINE_ORDERING'),
        ...doc('Snooze online ordering', 'No timeslot starts before the snooze ends and the storefront shows the location closed; `minutes: 0` lifts it.'),
      },
    )
    .get('/online-settings/:locationId', async (ctx) => plain(ctx.tenant.db, ctx.params.locationId, 'online'), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.OnlineSettingsResponse },
      transform: gate(),
      ...doc('Online settings of a location'),
    })
    .put(
      '/online-settings/:locationId',
      async (ctx) => {
        await writeSettings(ctx.tenant.db, ctx.params.locationId, 'online', ctx.body as never, deps.clock.now());
        return plain(ctx.tenant.db, ctx.params.locationId, 'online');
      },
      { params: S.LocationParams, query: S.VendorQuery, body: S.OnlineSettingsBody, response: { 200: S.OnlineSettingsResponse }, transform: gate(), ...doc('Update the online settings') },
    )
    .get('/in-house-settings/:locationId', async (ctx) => plain(ctx.tenant.db, ctx.params.locationId, 'in_house'), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.InHouseResponse },
      transform: gate('VIEW_SALES_CHANNEL'),
      ...doc('In-house settings of a location'),
    })
    .put(
      '/in-house-settings/:locationId',
      async (ctx) => {
        await writeSettings(ctx.tenant.db, ctx.params.locationId, 'in_house', ctx.body as never, deps.clock.now());
        return plain(ctx.tenant.db, ctx.params.locationId, 'in_house');
      },
      { params: S.LocationParams, query: S.VendorQuery, body: S.InHouseBody, response: { 200: S.InHouseResponse }, transform: gate('EDIT_IN_HOUSE_CHANNEL'), ...doc('Update the in-house settings') },
    )
    .get('/qr-ordering/:locationId', async (ctx) => plain(ctx.tenant.db, ctx.params.locationId, 'qr_ordering'), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.QrOrderingResponse },
      transform: gate(),
      ...doc('QR ordering configuration of a location'),
    })
    .put(
      '/qr-ordering/:locationId',
      async (ctx) => {
        await writeSettings(ctx.tenant.db, ctx.params.locationId, 'qr_ordering', ctx.body as never, deps.clock.now());
        return plain(ctx.tenant.db, ctx.params.locationId, 'qr_ordering');
      },
      { params: S.LocationParams, query: S.VendorQuery, body: S.QrOrderingBody, response: { 200: S.QrOrderingResponse }, transform: gate(), ...doc('Update the QR ordering configuration') },
    )
    .get('/in-house-channels/:locationId', async (ctx) => ({ data: await inHouseChannels(ctx.tenant.db, ctx.params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.ChannelsResponse },
      transform: gate(),
      ...doc('In-house ordering channels', '`pos` and `kiosk` are enabled by a live device of that type at the location, `qr_ordering` by its setting.'),
    })
    .get('/online-channels/:locationId', async (ctx) => ({ data: await onlineChannels(ctx.tenant.db, ctx.params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.ChannelsResponse },
      transform: gate(),
      ...doc('Online ordering channels', '`pickup` and `delivery`, both off while online ordering is disabled.'),
    });
}
