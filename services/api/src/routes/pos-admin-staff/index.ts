import { Elysia } from 'elysia';
import { createStaffCredential } from '@pos/core/pos-admin/create-staff-credential';
import { deleteStaffCredential } from '@pos/core/pos-admin/delete-staff-credential';
import { listAssignableStaff } from '@pos/core/pos-admin/list-assignable-staff';
import { listStaffCredentials } from '@pos/core/pos-admin/list-staff-credentials';
import { resetStaffPin } from '@pos/core/pos-admin/reset-staff-pin';
import { updateStaffCredential } from '@pos/core/pos-admin/update-staff-credential';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { merchantGate, merchantWideGate, scopeOf, doc } from '../pos-admin/pos-admin-gates.ts';
import * as P from '../pos-admin/pos-admin.schemas.ts';
import * as S from './pos-admin-staff.schemas.ts';

/** Staff credentials of the register (MANAGE_POS_STAFF): list, assignable members, create, update, delete, reset PIN; the writes need every location too (a credential is merchant-wide). Auth, type:backoffice and admin-vendor-override on the group; the gates are in pos-admin-gates.ts. */
export function posAdminStaffRoutes(deps: ApiDeps) {
  const tags = ['Register administration: staff credentials'];
  return (
    new Elysia({ name: 'pos-admin-staff', prefix: '/back-office/pos' })
      .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
      .get('/staff-credentials', async (ctx) => ({ data: await listStaffCredentials(scopeOf(deps, ctx)) }), {
        query: P.VendorQuery,
        response: { 200: S.StaffCredentialList },
        transform: merchantGate('MANAGE_POS_STAFF'),
        ...doc(tags, 'List staff credentials', 'Live credentials by name: `{data:[{id, name, role, permissions, user_id, created_at}]}`. Never the PIN or its hash.'),
      })
      .get('/staff-credentials/assignable-staff', async (ctx) => ({ data: await listAssignableStaff(scopeOf(deps, ctx)) }), {
        query: P.VendorQuery,
        response: { 200: S.AssignableStaffList },
        transform: merchantGate('MANAGE_POS_STAFF'),
        ...doc(tags, 'Back-office members without a credential', '`{data:[{id, name, email}]}`: accepted members of the merchant holding no live credential.'),
      })
      .post(
        '/staff-credentials',
        async (ctx) => {
          const key = { pepper: deps.config.PIN_PEPPER, tenantDatabase: ctx.tenant.merchant.tenant_database };
          const data = await createStaffCredential(scopeOf(deps, ctx), key, ctx.body, await ctx.access());
          ctx.set.status = 201;
          return { data };
        },
        {
          body: S.CreateStaffCredentialBody,
          query: P.VendorQuery,
          response: { 201: S.StaffCredentialResponse },
          transform: merchantWideGate('MANAGE_POS_STAFF'),
          ...doc(
            tags,
            'Create a staff credential',
            'Body `{name, role, pin (4-8 digits), permissions (register permissions), user_id?}`. The PIN is stored only as an argon2id hash and a keyed fingerprint; a PIN held by a live credential of the merchant is 422 `pin` `This PIN is already in use.`; `user_id` must be a member without a live credential (422). Answers 201 `{data}` without the PIN.',
          ),
        },
      )
      .put('/staff-credentials/:credentialId', async (ctx) => ({ data: await updateStaffCredential(scopeOf(deps, ctx), ctx.params.credentialId, ctx.body, await ctx.access()) }), {
        params: S.CredentialParams,
        body: S.UpdateStaffCredentialBody,
        query: P.VendorQuery,
        response: { 200: S.StaffCredentialResponse },
        transform: merchantWideGate('MANAGE_POS_STAFF'),
        ...doc(tags, 'Update a staff credential', 'Any of `name`, `role`, `permissions`; the PIN changes only through reset-pin. 404 for an unknown or deleted credential.'),
      })
      .delete(
        '/staff-credentials/:credentialId',
        async (ctx) => {
          // Like pin-logout: each ended session's work-out event is queued with the deletion (the worker signs it).
          await deleteStaffCredential(scopeOf(deps, ctx), ctx.params.credentialId, await ctx.access());
          return { status: 'success' as const };
        },
        {
          params: S.CredentialParams,
          query: P.VendorQuery,
          response: { 200: P.Success },
          transform: merchantWideGate('MANAGE_POS_STAFF'),
          ...doc(tags, 'Delete a staff credential', 'Soft delete (`deleted_at`); the PIN is free again; every open staff session of the credential ends (its token answers 401) and its work-out event is queued for signing.'),
        },
      )
      .post(
        '/staff-credentials/:credentialId/reset-pin',
        async (ctx) => {
          const key = { pepper: deps.config.PIN_PEPPER, tenantDatabase: ctx.tenant.merchant.tenant_database };
          const r = await resetStaffPin(scopeOf(deps, ctx), key, ctx.params.credentialId, ctx.body?.pin, await ctx.access());
          return { data: r.credential, pin: r.pin };
        },
        {
          params: S.CredentialParams,
          body: S.ResetPinBody,
          query: P.VendorQuery,
          response: { 200: S.ResetPinResponse },
          transform: merchantWideGate('MANAGE_POS_STAFF'),
          ...doc(tags, 'Reset a staff PIN', 'Body `{pin?}`: the given PIN, or a random 6-digit one when absent. Answers `{data, pin}`: the new PIN, shown once. Same uniqueness rule as create (422 `pin`).'),
        },
      )
  );
}
