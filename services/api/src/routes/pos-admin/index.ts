import { Elysia } from 'elysia';
import type { PosAdminScope } from '@pos/core/pos-admin/pos-admin-scope';
import { listStaffCredentials } from '@pos/core/pos-admin/list-staff-credentials';
import { listAssignableStaff } from '@pos/core/pos-admin/list-assignable-staff';
import { createStaffCredential } from '@pos/core/pos-admin/create-staff-credential';
import { updateStaffCredential } from '@pos/core/pos-admin/update-staff-credential';
import { deleteStaffCredential } from '@pos/core/pos-admin/delete-staff-credential';
import { resetStaffPin } from '@pos/core/pos-admin/reset-staff-pin';
import { listRegisters } from '@pos/core/pos-admin/list-registers';
import { createRegister } from '@pos/core/pos-admin/create-register';
import { updateRegister } from '@pos/core/pos-admin/update-register';
import { retireRegister } from '@pos/core/pos-admin/retire-register';
import { pairTerminal } from '@pos/core/pos-admin/pair-terminal';
import { unpairTerminal } from '@pos/core/pos-admin/unpair-terminal';
import { relabelTerminal } from '@pos/core/pos-admin/relabel-terminal';
import { listDrawers } from '@pos/core/pos-admin/list-drawers';
import { createDrawer } from '@pos/core/pos-admin/create-drawer';
import { renameDrawer } from '@pos/core/pos-admin/rename-drawer';
import { retireDrawer } from '@pos/core/pos-admin/retire-drawer';
import { listFdmDevices } from '@pos/core/pos-admin/list-fdm-devices';
import { enrolFdmDevice } from '@pos/core/pos-admin/enrol-fdm-device';
import { retireFdmDevice } from '@pos/core/pos-admin/retire-fdm-device';
import { listBusinessDays } from '@pos/core/pos-admin/list-business-days';
import { getBusinessDay } from '@pos/core/pos-admin/get-business-day';
import { exportFiscalEvents } from '@pos/core/pos-admin/export-fiscal-events';
import { fiscalLocations } from '@pos/core/reports/fiscal-locations';
import type { ApiDeps } from '../../context.ts';
import type { TenantContext } from '../../middleware/tenant.ts';
import { secured } from '../../plugins/secured.ts';
import { locationOwner, permission } from '../../plugins/guards.ts';
import { firstPartyPos } from '../../plugins/first-party-pos.ts';
import * as S from './pos-admin.schemas.ts';

const doc = (tags: string[], summary: string, description?: string) => ({
  detail: { tags, summary, ...(description ? { description } : {}), security: [{ bearer: [] }] },
});

const scopeOf = (deps: ApiDeps, ctx: { tenant: TenantContext; auth: { userId: string } }): PosAdminScope => ({
  db: deps.db,
  tdb: ctx.tenant.db,
  merchant: ctx.tenant.merchant,
  userId: ctx.auth.userId,
  now: deps.clock.now(),
});

/*
 * The gates run as `transform` hooks, right after `secured(...)` resolved the caller and the merchant
 * and BEFORE body and query validation: a merchant without the marker, another merchant's location
 * or a missing permission is refused as such (403/404), never answered with a 422 that would tell
 * the caller its body would have been accepted.
 */
/** Merchant-level groups: `first-party-pos`, then the route's permission. */
const merchantGate = (slug: string) => [firstPartyPos(), permission(slug)];
/** `/pos/{locationId}` group: `first-party-pos`, `location-owner` (404 for another merchant's location), then the permission scoped to the caller's location grant (403 outside it). */
const locationGate = (slug: string) => [firstPartyPos(), locationOwner(), permission(slug, 'locationId')];

/**
 * Spec 2 "Back-office routes for the first-party register", under `/back-office/pos`: auth,
 * type:backoffice and `admin-vendor-override` on the whole file (`vendor_id` rebinds the merchant for
 * an internal admin or the merchant's reseller); `first-party-pos` on every route (403 for a merchant
 * without the marker; `POST /pos/select-provider` lives in routes/pos-provider and is not gated);
 * `location-owner` on `/pos/{locationId}/...`; the permission of the spec's table per route, except
 * `GET /pos/fiscal-locations`, whose VIEW_POS_REPORTS check runs in the service.
 */
export function posAdminRoutes(deps: ApiDeps) {
  const staffTags = ['Register administration: staff credentials'];
  const configTags = ['Register administration: registers, drawers, fiscal devices'];
  const reportTags = ['Register administration: business days and fiscal journal'];
  return (
    new Elysia({ name: 'pos-admin', prefix: '/back-office/pos' })
      .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))

      // ---- staff credentials (MANAGE_POS_STAFF) ---------------------------------------------------
      .get('/staff-credentials', async (ctx) => ({ data: await listStaffCredentials(scopeOf(deps, ctx)) }), {
        query: S.VendorQuery,
        response: { 200: S.StaffCredentialList },
        transform: merchantGate('MANAGE_POS_STAFF'),
        ...doc(staffTags, 'List staff credentials', 'Live credentials by name: `{data:[{id, name, role, permissions, user_id, created_at}]}`. Never the PIN or its hash.'),
      })
      .get('/staff-credentials/assignable-staff', async (ctx) => ({ data: await listAssignableStaff(scopeOf(deps, ctx)) }), {
        query: S.VendorQuery,
        response: { 200: S.AssignableStaffList },
        transform: merchantGate('MANAGE_POS_STAFF'),
        ...doc(staffTags, 'Back-office members without a credential', '`{data:[{id, name, email}]}`: accepted members of the merchant holding no live credential.'),
      })
      .post(
        '/staff-credentials',
        async (ctx) => {
          const key = { pepper: deps.config.PIN_PEPPER, tenantDatabase: ctx.tenant.merchant.tenant_database };
          const data = await createStaffCredential(scopeOf(deps, ctx), key, ctx.body);
          ctx.set.status = 201;
          return { data };
        },
        {
          body: S.CreateStaffCredentialBody,
          query: S.VendorQuery,
          response: { 201: S.StaffCredentialResponse },
          transform: merchantGate('MANAGE_POS_STAFF'),
          ...doc(
            staffTags,
            'Create a staff credential',
            'Body `{name, role, pin (4-8 digits), permissions (register permissions), user_id?}`. The PIN is stored only as an argon2id hash and a keyed fingerprint; a PIN held by a live credential of the merchant is 422 `pin` `This PIN is already in use.`; `user_id` must be a member without a live credential (422). Answers 201 `{data}` without the PIN.',
          ),
        },
      )
      .put('/staff-credentials/:credentialId', async (ctx) => ({ data: await updateStaffCredential(scopeOf(deps, ctx), ctx.params.credentialId, ctx.body) }), {
        params: S.CredentialParams,
        body: S.UpdateStaffCredentialBody,
        query: S.VendorQuery,
        response: { 200: S.StaffCredentialResponse },
        transform: merchantGate('MANAGE_POS_STAFF'),
        ...doc(staffTags, 'Update a staff credential', 'Any of `name`, `role`, `permissions`; the PIN changes only through reset-pin. 404 for an unknown or deleted credential.'),
      })
      .delete(
        '/staff-credentials/:credentialId',
        async (ctx) => {
          // Like pin-logout: each ended session's work-out event is queued with the deletion (the worker signs it).
          await deleteStaffCredential(scopeOf(deps, ctx), ctx.params.credentialId);
          return { status: 'success' as const };
        },
        {
          params: S.CredentialParams,
          query: S.VendorQuery,
          response: { 200: S.Success },
          transform: merchantGate('MANAGE_POS_STAFF'),
          ...doc(staffTags, 'Delete a staff credential', 'Soft delete (`deleted_at`); the PIN is free again; every open staff session of the credential ends (its token answers 401) and its work-out event is queued for signing.'),
        },
      )
      .post(
        '/staff-credentials/:credentialId/reset-pin',
        async (ctx) => {
          const key = { pepper: deps.config.PIN_PEPPER, tenantDatabase: ctx.tenant.merchant.tenant_database };
          const r = await resetStaffPin(scopeOf(deps, ctx), key, ctx.params.credentialId, ctx.body?.pin);
          return { data: r.credential, pin: r.pin };
        },
        {
          params: S.CredentialParams,
          body: S.ResetPinBody,
          query: S.VendorQuery,
          response: { 200: S.ResetPinResponse },
          transform: merchantGate('MANAGE_POS_STAFF'),
          ...doc(staffTags, 'Reset a staff PIN', 'Body `{pin?}`: the given PIN, or a random 6-digit one when absent. Answers `{data, pin}`: the new PIN, shown once. Same uniqueness rule as create (422 `pin`).'),
        },
      )

      // ---- fiscal locations (service-level VIEW_POS_REPORTS) --------------------------------------
      .get('/fiscal-locations', async (ctx) => ({ fiscal_locations: await fiscalLocations({ tdb: ctx.tenant.db, access: await ctx.access(), now: deps.clock.now() }) }), {
        query: S.VendorQuery,
        response: { 200: S.FiscalLocationsResponse },
        transform: [firstPartyPos()],
        ...doc(
          reportTags,
          'Fiscal status per location',
          '`{fiscal_locations:{<locationId>:{regime, mandated, signing, has_fiscal_history}}}` for every location of the merchant in the caller\'s grant; always an object (`{}` when none). 403 without VIEW_POS_REPORTS (checked by the service).',
        ),
      })

      // ---- registers ------------------------------------------------------------------------------
      .get('/:locationId/registers', async (ctx) => ({ data: await listRegisters(scopeOf(deps, ctx), ctx.params.locationId, { includeRetired: ctx.query.include_retired }) }), {
        params: S.LocationParams,
        query: S.IncludeRetiredQuery,
        response: { 200: S.RegisterList },
        transform: locationGate('VIEW_POS_CONFIGURATION'),
        ...doc(configTags, 'List registers', 'Live registers of the location (retired ones too with `include_retired=true`).'),
      })
      .post(
        '/:locationId/registers',
        async (ctx) => {
          const data = await createRegister(scopeOf(deps, ctx), ctx.params.locationId, ctx.body);
          ctx.set.status = 201;
          return { data };
        },
        {
          params: S.LocationParams,
          body: S.CreateRegisterBody,
          query: S.VendorQuery,
          response: { 201: S.RegisterResponse },
          transform: locationGate('MANAGE_POS_CONFIGURATION'),
          ...doc(configTags, 'Create a register', 'Body `{name, device_id?, drawer_id?}`: a live POS device of the location not held by another live register, a live drawer of the location (422 otherwise).'),
        },
      )
      .put('/:locationId/registers/:registerId', async (ctx) => ({ data: await updateRegister(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.registerId, ctx.body) }), {
        params: S.RegisterParams,
        body: S.UpdateRegisterBody,
        query: S.VendorQuery,
        response: { 200: S.RegisterResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(configTags, 'Update a register', 'Any of `name`, `device_id`, `drawer_id` (null unbinds). 409 for a retired register.'),
      })
      .post('/:locationId/registers/:registerId/retire', async (ctx) => ({ data: await retireRegister(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.registerId) }), {
        params: S.RegisterParams,
        query: S.VendorQuery,
        response: { 200: S.RegisterResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(configTags, 'Retire a register', 'Sets `retired_at` (idempotent).'),
      })
      .post(
        '/:locationId/registers/:registerId/pair-terminal',
        async (ctx) => ({ data: await pairTerminal(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.registerId, ctx.body) }),
        {
          params: S.RegisterParams,
          body: S.PairTerminalBody,
          query: S.VendorQuery,
          response: { 200: S.RegisterResponse },
          transform: locationGate('MANAGE_POS_CONFIGURATION'),
          ...doc(configTags, 'Pair a card terminal', 'Body `{provider (card-a, card-b, platform-a), terminal_id, label?}`, stored in `terminal` with `paired_at`. 409 when the terminal is paired with another live register.'),
        },
      )
      .delete('/:locationId/registers/:registerId/terminal', async (ctx) => ({ data: await unpairTerminal(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.registerId) }), {
        params: S.RegisterParams,
        query: S.VendorQuery,
        response: { 200: S.RegisterResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(configTags, 'Unpair the card terminal', '`terminal` becomes null (idempotent).'),
      })
      .patch(
        '/:locationId/registers/:registerId/terminal/label',
        async (ctx) => ({ data: await relabelTerminal(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.registerId, ctx.body.label) }),
        {
          params: S.RegisterParams,
          body: S.TerminalLabelBody,
          query: S.VendorQuery,
          response: { 200: S.RegisterResponse },
          transform: locationGate('MANAGE_POS_CONFIGURATION'),
          ...doc(configTags, 'Rename the paired terminal', 'Body `{label}` (null clears it). 404 `terminal` when none is paired.'),
        },
      )

      // ---- drawers --------------------------------------------------------------------------------
      .get('/:locationId/drawers', async (ctx) => ({ data: await listDrawers(scopeOf(deps, ctx), ctx.params.locationId, { includeRetired: ctx.query.include_retired }) }), {
        params: S.LocationParams,
        query: S.IncludeRetiredQuery,
        response: { 200: S.DrawerList },
        transform: locationGate('VIEW_POS_CONFIGURATION'),
        ...doc(configTags, 'List drawers', 'Live drawers of the location (retired ones too with `include_retired=true`), each with its frozen `fiscal_identity`.'),
      })
      .post(
        '/:locationId/drawers',
        async (ctx) => {
          const data = await createDrawer(scopeOf(deps, ctx), ctx.params.locationId, ctx.body);
          ctx.set.status = 201;
          return { data };
        },
        {
          params: S.LocationParams,
          body: S.CreateDrawerBody,
          query: S.VendorQuery,
          response: { 201: S.DrawerResponse },
          transform: locationGate('MANAGE_POS_CONFIGURATION'),
          ...doc(configTags, 'Create a drawer', 'Body `{name, kind (physical, virtual)}`; `fiscal_identity` `{drawerId, drawerName}` is frozen now.'),
        },
      )
      .put('/:locationId/drawers/:drawerId', async (ctx) => ({ data: await renameDrawer(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.drawerId, ctx.body.name) }), {
        params: S.DrawerParams,
        body: S.RenameDrawerBody,
        query: S.VendorQuery,
        response: { 200: S.DrawerResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(configTags, 'Rename a drawer', 'Body `{name}`: changes `name`, never `fiscal_identity`. 409 for a retired drawer.'),
      })
      .post('/:locationId/drawers/:drawerId/retire', async (ctx) => ({ data: await retireDrawer(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.drawerId) }), {
        params: S.DrawerParams,
        query: S.VendorQuery,
        response: { 200: S.DrawerResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(configTags, 'Retire a drawer', 'Sets `retired_at` and unbinds it from live registers; 409 (reason `till_not_closed`) while a till on it is not closed.'),
      })

      // ---- fiscal data modules ----------------------------------------------------------------------
      .get('/:locationId/fdm-devices', async (ctx) => ({ data: await listFdmDevices(scopeOf(deps, ctx), ctx.params.locationId) }), {
        params: S.LocationParams,
        query: S.VendorQuery,
        response: { 200: S.FdmDeviceList },
        transform: locationGate('VIEW_POS_CONFIGURATION'),
        ...doc(configTags, 'List fiscal data module enrolments', 'Active first, then retired ones (they stay listed).'),
      })
      .post(
        '/:locationId/fdm-devices',
        async (ctx) => {
          const data = await enrolFdmDevice(scopeOf(deps, ctx), deps.fiscal, ctx.params.locationId, ctx.body);
          ctx.set.status = 201;
          return { data };
        },
        {
          params: S.LocationParams,
          body: S.EnrolFdmDeviceBody,
          query: S.VendorQuery,
          response: { 201: S.FdmDeviceResponse },
          transform: locationGate('MANAGE_POS_CONFIGURATION'),
          ...doc(configTags, 'Enrol a fiscal data module', 'Body `{fdm_id, mode (software, remote)}`, regime `gks`. 409 while the location has an active enrolment or when the fdm id is already enrolled; 422 `mode` for a remote module that is not configured.'),
        },
      )
      .put('/:locationId/fdm-devices/:fdmDeviceId', async (ctx) => ({ data: await retireFdmDevice(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.fdmDeviceId) }), {
        params: S.FdmDeviceParams,
        body: S.UpdateFdmDeviceBody,
        query: S.VendorQuery,
        response: { 200: S.FdmDeviceResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(configTags, 'Retire a fiscal data module enrolment', 'Body `{status:"retired"}`: sets `retired_at` (idempotent); the journal and the fiscal history stay.'),
      })

      // ---- business days and the fiscal journal (VIEW_POS_REPORTS) ------------------------------------
      .get('/:locationId/business-days', async (ctx) => listBusinessDays(scopeOf(deps, ctx), ctx.params.locationId, ctx.query), {
        params: S.LocationParams,
        query: S.PagingQuery,
        response: { 200: S.BusinessDayList },
        transform: locationGate('VIEW_POS_REPORTS'),
        ...doc(reportTags, 'List business days', 'Data table, newest business date first: `{data:[{id, business_date, status, z_report_no, opened_at, closed_at}], total, page, per_page}`.'),
      })
      .get(
        '/:locationId/business-days/:businessDayId',
        async (ctx) => ({ data: await getBusinessDay(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.businessDayId) }),
        {
          params: S.BusinessDayParams,
          query: S.VendorQuery,
          response: { 200: S.BusinessDayResponse },
          transform: locationGate('VIEW_POS_REPORTS'),
          ...doc(reportTags, 'Z-report detail', 'The day, its stored `z_report` JSON verbatim (decimal major units; null while open), the day\'s `sales_by_tender` rows and `refunds` `{count, amount}` in cents.'),
        },
      )
      .get(
        '/:locationId/fiscal-events',
        async (ctx) => ({ data: await exportFiscalEvents(scopeOf(deps, ctx), deps.fiscal, ctx.params.locationId, ctx.query) }),
        {
          params: S.LocationParams,
          query: S.FiscalEventsQuery,
          response: { 200: S.FiscalEventsResponse },
          transform: locationGate('VIEW_POS_REPORTS'),
          ...doc(
            reportTags,
            'Fiscal journal export',
            '`{data:[{fdm_id, mode, status, entries, verification}]}` per fiscal device the location ever had; entries in the optional local-date window `from`..`to` (inclusive); `verification` covers the device\'s whole journal (chain, results, head, and software-mode signatures).',
          ),
        },
      )
  );
}
