import { Elysia } from 'elysia';
import { enrolFdmDevice } from '@pos/core/pos-admin/enrol-fdm-device';
import { listFdmDevices } from '@pos/core/pos-admin/list-fdm-devices';
import { retireFdmDevice } from '@pos/core/pos-admin/retire-fdm-device';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { locationGate, scopeOf, doc } from '../pos-admin/pos-admin-gates.ts';
import * as P from '../pos-admin/pos-admin.schemas.ts';
import * as S from './pos-admin-fdm-devices.schemas.ts';

/** A location's fiscal data module enrolments (VIEW_POS_CONFIGURATION to read, MANAGE_POS_CONFIGURATION to write). Auth, type:backoffice and admin-vendor-override on the group; the gates are in pos-admin-gates.ts. */
export function posAdminFdmDeviceRoutes(deps: ApiDeps) {
  const tags = ['Register administration: registers, drawers, fiscal devices'];
  return (
    new Elysia({ name: 'pos-admin-fdm-devices', prefix: '/back-office/pos' })
      .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
      .get('/:locationId/fdm-devices', async (ctx) => ({ data: await listFdmDevices(scopeOf(deps, ctx), ctx.params.locationId) }), {
        params: P.LocationParams,
        query: P.VendorQuery,
        response: { 200: S.FdmDeviceList },
        transform: locationGate('VIEW_POS_CONFIGURATION'),
        ...doc(tags, 'List fiscal data module enrolments', 'Active first, then retired ones (they stay listed).'),
      })
      .post(
        '/:locationId/fdm-devices',
        async (ctx) => {
          const data = await enrolFdmDevice(scopeOf(deps, ctx), deps.fiscal, ctx.params.locationId, ctx.body);
          ctx.set.status = 201;
          return { data };
        },
        {
          params: P.LocationParams,
          body: S.EnrolFdmDeviceBody,
          query: P.VendorQuery,
          response: { 201: S.FdmDeviceResponse },
          transform: locationGate('MANAGE_POS_CONFIGURATION'),
          ...doc(tags, 'Enrol a fiscal data module', 'Body `{fdm_id, mode (software, remote)}`, regime `gks`. 409 while the location has an active enrolment or when the fdm id is already enrolled; 422 `mode` for a remote module that is not configured.'),
        },
      )
      .put('/:locationId/fdm-devices/:fdmDeviceId', async (ctx) => ({ data: await retireFdmDevice(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.fdmDeviceId) }), {
        params: S.FdmDeviceParams,
        body: S.UpdateFdmDeviceBody,
        query: P.VendorQuery,
        response: { 200: S.FdmDeviceResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(tags, 'Retire a fiscal data module enrolment', 'Body `{status:"retired"}`: sets `retired_at` (idempotent); the journal and the fiscal history stay.'),
      })
  );
}
