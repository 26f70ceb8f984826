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
import { listDeviceProfiles } from '@pos/core/devices/list-device-profiles';
import { listDeviceProfileOptions } from '@pos/core/devices/list-device-profile-options';
import { createDeviceProfile } from '@pos/core/devices/create-device-profile';
import { getDeviceProfile } from '@pos/core/devices/get-device-profile';
import { updateDeviceProfile } from '@pos/core/devices/update-device-profile';
import { deleteDeviceProfile } from '@pos/core/devices/delete-device-profile';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { anyPermission, permission } from '../../plugins/guards.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import * as S from './devices.schemas.ts';

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
    .put('/:id', async (ctx) => ({ data: await updateDevice(await scopeOf(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.UpdateDeviceBody,
      response: { 200: S.DeviceResponse },
      transform: [permission('EDIT_DEVICES')],
      ...doc(tags, 'Update a device', 'Rename, move to another granted location, or rebind the profile. The type never changes.'),
    })
    .delete(
      '/:id',
      async (ctx) => {
        await deleteDevice(await scopeOf(deps, ctx), ctx.params.id);
        return { status: 'success' as const };
      },
      {
        params: S.IdParams,
        response: { 200: S.Success },
        transform: [permission('DELETE_DEVICES')],
        ...doc(tags, 'Delete a device', 'Soft delete; the device\'s tokens stop working and its activation code is cleared.'),
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
        await sendActivationCode(await scopeOf(deps, ctx), ctx.params.id, ctx.body);
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
          'Body `{email}` or `{phone}` (exactly one). Queues a `notification.send` job (template `device-activation-code`) through the outbox. 422 when the code has been used. Like new-activation-code, the caller needs VIEW_DEVICES or CREATE_DEVICES at the device\'s location (403 otherwise).',
        ),
      },
    )
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
