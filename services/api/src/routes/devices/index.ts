import { Elysia } from 'elysia';
import type { Access } from '@pos/core/auth/access';
import { ACTIVATION_CODE_PERMISSIONS, type BackofficeScope } from '@pos/core/devices/device-records';
import { listDevices } from '@pos/core/devices/list-devices';
import { createDevice } from '@pos/core/devices/create-device';
import { deviceFormOptions } from '@pos/core/devices/device-form-options';
import { listDeviceOptions } from '@pos/core/devices/list-device-options';
import { getDevice } from '@pos/core/devices/get-device';
import { updateDevice } from '@pos/core/devices/update-device';
import { deleteDevice } from '@pos/core/devices/delete-device';
import { regenerateActivationCode } from '@pos/core/devices/regenerate-activation-code';
import { sendActivationCode } from '@pos/core/devices/send-activation-code';
import { assignDeviceProfile } from '@pos/core/devices/assign-device-profile';
import { announceDeviceRevoked } from '@pos/core/devices/device-revoked';
import { setDevicePayment } from '@pos/core/devices/set-device-payment';
import { renameReader } from '@pos/core/devices/rename-reader';
import { sendRemoteCommand } from '@pos/core/devices/remote-control';
import { platformADeviceCode } from '@pos/core/devices/platform-a-device-code';
import { subscribeDevices } from '@pos/core/devices/subscribe-devices';
import { listDeviceProfiles } from '@pos/core/devices/list-device-profiles';
import { listDeviceProfileOptions } from '@pos/core/devices/list-device-profile-options';
import { createDeviceProfile } from '@pos/core/devices/create-device-profile';
import { getDeviceProfile } from '@pos/core/devices/get-device-profile';
import { updateDeviceProfile } from '@pos/core/devices/update-device-profile';
import { deleteDeviceProfile } from '@pos/core/devices/delete-device-profile';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { anyPermission, locationOwner, permission } from '../../plugins/guards.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import { sha256 } from '@pos/core/accounts/account-tokens';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import * as S from './devices.schemas.ts';
import { mailboxKey } from '@pos/core/shared/mailbox';

const doc = (tags: string[], summary: string, description?: string) => ({
  detail: { tags, summary, ...(description ? { description } : {}), security: [{ bearer: [] }] },
});

/** The use-case scope of a back-office request: bound merchant, caller and their access. */
async function scopeOf(deps: ApiDeps, ctx: { tenant: TenantContext; auth: { userId: string }; access: () => Promise<Access> }): Promise<BackofficeScope> {
  return { db: deps.db, tdb: ctx.tenant.db, merchant: ctx.tenant.merchant, userId: ctx.auth.userId, access: await ctx.access(), now: deps.clock.now() };
}

/**
 * Spec 1 "Devices and device profiles" (devices part), under `/back-office`: auth, type:backoffice,
 * admin-vendor-override, and the permission of the spec's table per route. Devices are scoped to the
 * caller's granted locations; another merchant's device id is a 404.
 */
export function deviceRoutes(deps: ApiDeps) {
  const tags = ['Devices'];
  return new Elysia({ name: 'devices', prefix: '/back-office/devices' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('', async (ctx) => listDevices(await scopeOf(deps, ctx), ctx.query), {
      query: S.DeviceListQuery,
      response: { 200: S.DeviceList },
      transform: [permission('VIEW_DEVICES')],
      ...doc(tags, 'List devices', 'Data table of live devices at locations in the caller\'s grant; optional `location_id`, `type`, `search`, `page`, `per_page` (max 100).'),
    })
    .post(
      '',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await createDevice(await scopeOf(deps, ctx), ctx.body) };
      },
      {
        body: S.CreateDeviceBody,
        response: { 201: S.DeviceResponse },
        transform: [permission('CREATE_DEVICES')],
        ...doc(
          tags,
          'Create a device',
          'Creates the device with a fresh activation code (in `data.activation_code`). A device of type pos or kds needs the first-party register marker (403 otherwise, spec 2 gating rule 5); the location must exist (404) and be in the caller\'s grant (403).',
        ),
      },
    )
    .post(
      '/subscribe/:locationId',
      async (ctx) => ({
        data: await subscribeDevices(
          await scopeOf(deps, ctx),
          { cardA: deps.payments.cardA, priceId: deps.payments.devicePriceId ?? null, redis: deps.redis, log: deps.log },
          ctx.params.locationId,
          ctx.body,
        ),
      }),
      {
        params: S.LocationParams,
        body: S.SubscribeDevicesBody,
        response: { 200: S.DeviceSubscriptionResponse },
        transform: [locationOwner(), permission('CREATE_DEVICES', 'locationId')],
        ...doc(
          tags,
          'Subscribe the location\'s kiosks and kitchen displays',
          'Body `{billing_profile_id, device_ids?}`. One card-a subscription billed to the billing profile\'s card-a customer at the configured device price (`CARD_A_DEVICE_PRICE_ID`), one unit per device, covering `device_ids` (kiosk and kds devices of the location) or every one not yet covered. The devices\' `subscription_active_until` follows at once; card-a webhooks keep it in step afterwards. 422 when the profile has no payment method, a device is not a kiosk/kds of the location or is already covered (by a serving subscription of any location, or claimed by another subscribe request under way), or card-a refuses; 503 when card-a or the price is not configured or card-a is unavailable.',
        ),
      },
    )
    .get('/new', async (ctx) => ({ data: await deviceFormOptions(await scopeOf(deps, ctx)) }), {
      response: { 200: S.DeviceForm },
      transform: [permission('CREATE_DEVICES')],
      ...doc(tags, 'Create-device form data', 'Granted location options, the device types this merchant may create, device profile options.'),
    })
    .get('/options', async (ctx) => ({ data: await listDeviceOptions(await scopeOf(deps, ctx), ctx.query) }), {
      query: S.DeviceOptionsQuery,
      response: { 200: S.DeviceOptions },
      ...doc(tags, 'Device options', 'Select options of live devices in the caller\'s grant. No permission of its own.'),
    })
    .get('/:id', async (ctx) => ({ data: await getDevice(await scopeOf(deps, ctx), ctx.params.id) }), {
      params: S.IdParams,
      response: { 200: S.DeviceResponse },
      transform: [permission('VIEW_DEVICES')],
      ...doc(tags, 'Show a device'),
    })
    .put('/:id', async (ctx) => ({ data: await updateDevice(await scopeOf(deps, ctx), ctx.params.id, ctx.body, { cardA: deps.payments.cardA }) }), {
      params: S.IdParams,
      body: S.UpdateDeviceBody,
      response: { 200: S.DeviceResponse },
      transform: [permission('EDIT_DEVICES')],
      ...doc(
        tags,
        'Update a device',
        'Rename, move to another granted location, rebind the profile, or bind a kiosk\'s payment terminals. The type never changes. A move is 409 `device_subscribing` while a subscribe request is billing the device at card-a. `card_b_terminal_id` (the card-b terminal) and `card_a_reader_id` (the card-a reader, `tmr_…`): kiosks only (422 on the field for another type), trimmed, 1-64 letters, digits or `_ . : -`; null unbinds. A terminal already bound to another live kiosk of the merchant or paired with a live register (`pair-terminal`) is 409. A new card-a reader is looked up at card-a when card-a is configured: 422 on the field when card-a has no such reader, 503 when card-a is unavailable. The kiosk\'s payments start on the bound terminal (`activate-payment` needs one); the device view answers them.',
      ),
    })
    .delete(
      '/:id',
      async (ctx) => {
        const scope = await scopeOf(deps, ctx);
        await deleteDevice(scope, ctx.params.id, { cardA: deps.payments.cardA, redis: deps.redis, log: deps.log });
        await announceDeviceRevoked(deps.redis, scope.merchant.tenant_database, ctx.params.id.toLowerCase(), deps.log);
        return { status: 'success' as const };
      },
      {
        params: S.IdParams,
        response: { 200: S.Success },
        transform: [permission('DELETE_DEVICES')],
        ...doc(tags, 'Delete a device', 'Soft delete; the device\'s tokens stop working and its activation code is cleared. 409 `device_subscribing` while a subscribe request is billing the device at card-a. A kiosk or kds a serving subscription bills has its unit taken off that card-a subscription first (the last unit cancels it at the end of the period); 503 `provider_error` when card-a cannot be updated, nothing deleted.'),
      },
    )
    .post('/:id/new-activation-code', async (ctx) => ({ data: await regenerateActivationCode(await scopeOf(deps, ctx), ctx.params.id) }), {
      params: S.IdParams,
      response: { 200: S.DeviceResponse },
      transform: [anyPermission(...ACTIVATION_CODE_PERMISSIONS)],
      ...doc(
        tags,
        'Replace the activation code',
        'A fresh code replaces the old one, which then answers 422 at activation. The spec names no permission; the code takes over the device, so the caller needs VIEW_DEVICES or CREATE_DEVICES at the device\'s location (403 otherwise, nothing changed).',
      ),
    })
    .post(
      '/:id/send-activation-code',
      async (ctx) => {
        const scope = await scopeOf(deps, ctx);
        await sendActivationCode(scope, ctx.params.id, ctx.body, (d) =>
          throttle(deps.redis, deps.env, [
            [THROTTLES.activationCodeRecipient, mailboxKey(d.to)],
            [THROTTLES.activationCodeMerchant, scope.merchant.id],
          ]),
        );
        return { status: 'success' as const };
      },
      {
        params: S.IdParams,
        body: S.SendActivationCodeBody,
        response: { 200: S.Success },
        transform: [anyPermission(...ACTIVATION_CODE_PERMISSIONS)],
        ...doc(
          tags,
          'Send the activation code',
          'Body `{email}` or `{phone}` (exactly one). A phone is sent in E.164: a national number is read in the country of the device\'s location; 422 on `phone` when it is no valid number. Throttled (429 `Too Many Attempts.`): 5 codes per recipient per 15 minutes, 30 per merchant an hour. Queues a `notification.send` job (template `device-activation-code`) through the outbox. 422 when the code has been used. Like new-activation-code, the caller needs VIEW_DEVICES or CREATE_DEVICES at the device\'s location (403 otherwise).',
        ),
      },
    )
    .post('/:id/remote-control', async (ctx) => ({ data: await sendRemoteCommand(await scopeOf(deps, ctx), deps.redis, ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.RemoteControlBody,
      response: { 200: S.RemoteControlResponse },
      ...doc(
        tags,
        'Send a remote command to the device',
        'Body `{command}`: `reload`, `restart`, `sync` or `identify`. Pushed on the real-time channel as `{type:"device.command", id, command, device_id, location_id, issued_at}` to the device\'s own socket (no subscription needed); not queued, so an offline device misses it (`online` says whether it was seen recently). Registers, kiosks and kitchen displays only (422 for a printer); 503 when the real-time channel cannot take it. No permission of its own; the device must be in the caller\'s grant.',
      ),
    })
    .post('/:id/platform-a-device-code', async (ctx) => ({ data: await platformADeviceCode(await scopeOf(deps, ctx), deps.payments.platformA, ctx.params.id) }), {
      params: S.IdParams,
      response: { 200: S.DeviceCodeResponse },
      ...doc(
        tags,
        'Pair a platform-a terminal with the kiosk',
        'Answers the pairing code to type on a platform-a terminal, made at platform-a for the location\'s platform-a location. Asking again answers the same code while it is `UNPAIRED`; once `PAIRED` the terminal becomes the kiosk\'s (`platform_a_device_id`); an `EXPIRED` code is replaced. Kiosks only; 422 when the location has no platform-a connection or platform-a refuses; 503 when platform-a is not configured or unavailable. No permission of its own; the device must be in the caller\'s grant.',
      ),
    })
    .post('/:id/activate-payment', async (ctx) => ({ data: await setDevicePayment(await scopeOf(deps, ctx), ctx.params.id, true) }), {
      params: S.IdParams,
      response: { 200: S.DeviceResponse },
      ...doc(
        tags,
        'Turn the kiosk\'s terminal payments on',
        'Kiosks only (422 otherwise); needs a terminal bound to the kiosk (422 `terminal_not_configured`). Repeating it changes nothing. No permission of its own; the device must be in the caller\'s grant.',
      ),
    })
    .post('/:id/deactivate-payment', async (ctx) => ({ data: await setDevicePayment(await scopeOf(deps, ctx), ctx.params.id, false) }), {
      params: S.IdParams,
      response: { 200: S.DeviceResponse },
      ...doc(
        tags,
        'Turn the kiosk\'s terminal payments off',
        'The kiosk\'s new payment starts answer 422 `payment_disabled` until activate-payment (a session already paid is still captured). Kiosks only. No permission of its own; the device must be in the caller\'s grant.',
      ),
    })
    .patch('/:id/reader/label', async (ctx) => ({ data: await renameReader(await scopeOf(deps, ctx), deps.payments.cardA, ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.ReaderLabelBody,
      response: { 200: S.ReaderLabelResponse },
      transform: [permission('EDIT_DEVICES')],
      ...doc(
        tags,
        'Rename the device\'s card-a terminal reader',
        'Body `{label}` (1-100 characters). Renames the reader at card-a; nothing is stored here. 422 when the device has no card-a reader or card-a refuses (its message); 503 when card-a is not configured or unavailable.',
      ),
    })
    .post('/:id/profile', async (ctx) => ({ data: await assignDeviceProfile(await scopeOf(deps, ctx), ctx.params.id, ctx.body.device_profile_id) }), {
      params: S.IdParams,
      body: S.DeviceProfileBody,
      response: { 200: S.DeviceResponse },
      transform: [permission('EDIT_DEVICES')],
      ...doc(tags, 'Bind or unbind a device profile', 'A profile fits only devices of its own type (422 otherwise); null unbinds.'),
    });
}

/** Spec 1 "Devices and device profiles" (profiles part), under `/back-office/device-profiles`. */
export function deviceProfileRoutes(deps: ApiDeps) {
  const tags = ['Device profiles'];
  return new Elysia({ name: 'device-profiles', prefix: '/back-office/device-profiles' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('', async ({ tenant, query }) => listDeviceProfiles(tenant.db, query), {
      query: S.DeviceProfileListQuery,
      response: { 200: S.DeviceProfileList },
      transform: [permission('VIEW_DEVICE_PROFILE')],
      ...doc(tags, 'List device profiles', 'Data table; optional `type`, `search`, `page`, `per_page`.'),
    })
    .post(
      '',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await createDeviceProfile(await scopeOf(deps, ctx), ctx.body) };
      },
      {
        body: S.CreateDeviceProfileBody,
        response: { 201: S.DeviceProfileResponse },
        transform: [permission('CREATE_DEVICE_PROFILE')],
        ...doc(tags, 'Create a device profile', 'Fields: name, type (pos, kiosk or kds), settings (object, at most 16 KiB).'),
      },
    )
    .get('/options', async ({ tenant, query }) => ({ data: await listDeviceProfileOptions(tenant.db, query) }), {
      query: S.DeviceProfileOptionsQuery,
      response: { 200: S.DeviceProfileOptions },
      ...doc(tags, 'Device profile options', 'Ungated: no permission of its own. Optional `type`.'),
    })
    .get('/:id', async ({ tenant, params }) => ({ data: await getDeviceProfile(tenant.db, params.id) }), {
      params: S.IdParams,
      response: { 200: S.DeviceProfileResponse },
      transform: [permission('VIEW_DEVICE_PROFILE')],
      ...doc(tags, 'Show a device profile'),
    })
    .put('/:id', async (ctx) => ({ data: await updateDeviceProfile(await scopeOf(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.UpdateDeviceProfileBody,
      response: { 200: S.DeviceProfileResponse },
      transform: [permission('EDIT_DEVICE_PROFILE')],
      ...doc(tags, 'Update a device profile', '`settings` replaces the object as a whole. The type cannot change while devices use the profile (422). 403 while a device using it is outside the caller\'s location grant.'),
    })
    .delete(
      '/:id',
      async (ctx) => {
        const unbound = await deleteDeviceProfile(await scopeOf(deps, ctx), ctx.params.id);
        return { status: 'success' as const, unbound_devices: unbound };
      },
      {
        params: S.IdParams,
        response: { 200: S.DeleteProfileResponse },
        transform: [permission('DELETE_DEVICE_PROFILE')],
        ...doc(tags, 'Delete a device profile', 'Devices using the profile are unbound (they keep working without a profile); `unbound_devices` says how many. 403 while a device using it is outside the caller\'s location grant.'),
      },
    );
}
