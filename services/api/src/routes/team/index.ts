import { Elysia } from 'elysia';
import type { BackofficePrincipal } from '@pos/core/auth/principal';
import type { TeamScope } from '@pos/core/team/team-scope';
import { listPermissions } from '@pos/core/team/list-permissions';
import { listRoleOptions } from '@pos/core/team/list-role-options';
import { listRoles } from '@pos/core/team/list-roles';
import { getRole } from '@pos/core/team/get-role';
import { createRole } from '@pos/core/team/create-role';
import { updateRole } from '@pos/core/team/update-role';
import { deleteRole } from '@pos/core/team/delete-role';
import { listMembers } from '@pos/core/team/list-members';
import { inviteMember } from '@pos/core/team/invite-member';
import { resendInvitation } from '@pos/core/team/resend-invitation';
import { assignRoles } from '@pos/core/team/assign-roles';
import { setMemberLocations } from '@pos/core/team/set-member-locations';
import { updateMember } from '@pos/core/team/update-member';
import { removeMember } from '@pos/core/team/remove-member';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import { sha256 } from '@pos/core/accounts/account-tokens';
import { permission } from '../../plugins/guards.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import * as S from './team.schemas.ts';
import { mailboxKey } from '@pos/core/shared/mailbox';

const tags = ['Team'];
const doc = (summary: string, perm: string | null, description?: string) => ({
  detail: {
    tags,
    summary,
    description: [`Permission: ${perm ?? '- (none)'}.`, description].filter(Boolean).join(' '),
    security: [{ bearer: [] }],
  },
});

/**
 * Settings > team (spec 1 "Settings", prefix `/back-office/settings/team`): roles, members,
 * invitations and global users. auth, type:backoffice, check-user-activity, admin-vendor-override;
 * each route gated by exactly the spec's permission slug. Every write appends an activity-log entry
 * in its transaction.
 */
export function teamRoutes(deps: ApiDeps) {
  const scope = (c: { auth: BackofficePrincipal; tenant: TenantContext }): TeamScope => ({ db: deps.db, tdb: c.tenant.db, merchant: c.tenant.merchant, userId: c.auth.userId, now: deps.clock.now() });
  // At most 5 invitation mails per address per 15 minutes, whoever sends them (429, nothing written).
  const limitMail = (email: string) => throttle(deps.redis, deps.env, [[THROTTLES.invitationRecipient, mailboxKey(email)]]);
  return (
    new Elysia({ name: 'team', prefix: '/back-office/settings/team' })
      .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
      .get('/permission-list', () => ({ data: listPermissions() }), {
        query: S.VendorQuery,
        response: { 200: S.PermissionList },
        ...doc('Back-office permission catalogue, grouped', null),
      })
      // Roles
      .get('/roles/options', async ({ tenant }) => ({ data: await listRoleOptions(tenant.db) }), {
        query: S.VendorQuery,
        response: { 200: S.OptionList },
        ...doc('Roles that can be assigned (select options)', null, 'The owner role is not listed: it is never assigned through these routes.'),
      })
      .get('/roles', async ({ tenant }) => ({ data: await listRoles(tenant.db) }), {
        query: S.VendorQuery,
        transform: permission('VIEW_ROLES'),
        response: { 200: S.RoleList },
        ...doc('Roles with their member counts', 'VIEW_ROLES'),
      })
      .get('/roles/:roleId', async ({ tenant, params }) => ({ data: await getRole(tenant.db, params.roleId) }), {
        params: S.RoleParams,
        query: S.VendorQuery,
        transform: permission('VIEW_ROLES'),
        response: { 200: S.RoleResponse },
        ...doc('One role', 'VIEW_ROLES'),
      })
      .post('/roles', async (c) => ({ status: 'success' as const, data: await createRole(scope(c), await c.access(), c.body) }), {
        body: S.RoleBody,
        query: S.VendorQuery,
        transform: permission('CREATE_ROLES'),
        response: { 200: S.RoleWriteResponse },
        ...doc('Create a role', 'CREATE_ROLES', 'Name unique within the merchant (422 on `name`); each permission must be in the catalogue (422 on `permissions.N`). The role holds only permissions the caller holds (else 403).'),
      })
      .put('/roles/:roleId', async (c) => ({ status: 'success' as const, data: await updateRole(scope(c), await c.access(), c.params.roleId, c.body) }), {
        params: S.RoleParams,
        body: S.RoleBody,
        query: S.VendorQuery,
        transform: permission('EDIT_ROLES'),
        response: { 200: S.RoleWriteResponse },
        ...doc('Replace a role\'s name and permissions', 'EDIT_ROLES', 'The owner role cannot be edited (409). The caller adds or removes only permissions they hold, and changes the permissions of a role only when every member holding it is within their location grant (else 403).'),
      })
      .delete(
        '/roles/:roleId',
        async (c) => {
          await deleteRole(scope(c), c.params.roleId);
          return { status: 'success' as const };
        },
        {
          params: S.RoleParams,
          query: S.VendorQuery,
          transform: permission('DELETE_ROLES'),
          response: { 200: S.Success },
          ...doc('Delete a role', 'DELETE_ROLES', 'The owner role cannot be deleted, and a role still held by members is refused (409, reason `role_in_use`): reassign them first.'),
        },
      )
      // Global users (every location, including future ones). Static segments win over `:userId`.
      .get('/users/global', async ({ tenant }) => ({ data: await listMembers(deps.db, tenant.db, tenant.merchant.id, { globalOnly: true }) }), {
        query: S.VendorQuery,
        transform: permission('VIEW_USERS'),
        response: { 200: S.MemberList },
        ...doc('Global users: members with access to every location', 'VIEW_USERS'),
      })
      .post('/users/global', async (c) => ({ status: 'success' as const, data: await inviteMember(scope(c), await c.access(), { ...c.body, allLocations: true }, limitMail) }), {
        body: S.InviteGlobalBody,
        query: S.VendorQuery,
        transform: permission('CREATE_USERS'),
        response: { 200: S.MemberWriteResponse },
        ...doc('Invite a global user', 'CREATE_USERS', 'Like POST /users, with access to every location instead of a list: only a caller holding every location may invite one (else 403).'),
      })
      .put('/users/global/:userId', async (c) => ({ status: 'success' as const, data: await updateMember(scope(c), await c.access(), c.params.userId, c.body, { globalOnly: true }) }), {
        params: S.UserParams,
        body: S.UpdateMemberBody,
        query: S.VendorQuery,
        transform: permission('EDIT_USERS'),
        response: { 200: S.MemberWriteResponse },
        ...doc('Rename a global user', 'EDIT_USERS', 'A member who is not a global user is 404 here; only a caller holding every location may rename one (else 403).'),
      })
      .delete(
        '/users/global/:userId',
        async (c) => {
          await removeMember(scope(c), await c.access(), c.params.userId, { globalOnly: true });
          return { status: 'success' as const };
        },
        {
          params: S.UserParams,
          query: S.VendorQuery,
          transform: permission('DELETE_USERS'),
          response: { 200: S.Success },
          ...doc('Remove a global user from the merchant', 'DELETE_USERS', 'A member who is not a global user is 404 here; yourself and the owner are 409; only a caller holding every location may remove one (else 403).'),
        },
      )
      // Members
      .get('/users', async ({ tenant }) => ({ data: await listMembers(deps.db, tenant.db, tenant.merchant.id) }), {
        query: S.VendorQuery,
        transform: permission('VIEW_USERS'),
        response: { 200: S.MemberList },
        ...doc('Members of the merchant', 'VIEW_USERS'),
      })
      .post('/users', async (c) => ({ status: 'success' as const, data: await inviteMember(scope(c), await c.access(), c.body, limitMail) }), {
        body: S.InviteBody,
        query: S.VendorQuery,
        transform: permission('CREATE_USERS'),
        response: { 200: S.MemberWriteResponse },
        ...doc(
          'Invite a member',
          'CREATE_USERS',
          'An existing account (by e-mail) gains the membership; otherwise an unverified account is created. An invitation valid 7 days is e-mailed (template `team-invitation`). Someone already in the merchant is 422 on `email`. Only locations within the caller\'s grant and roles whose permissions the caller holds (else 403). At most 5 invitation mails per address per 15 minutes, whoever invites (429 `Too Many Attempts.`, nothing written).',
        ),
      })
      .post('/users/:userId/resend-invitation', async (c) => ({ status: 'success' as const, data: await resendInvitation(scope(c), c.params.userId, limitMail) }), {
        params: S.UserParams,
        query: S.VendorQuery,
        transform: permission('CREATE_USERS'),
        response: { 200: S.MemberWriteResponse },
        ...doc('Resend the invitation', 'CREATE_USERS', 'Only before it is accepted (else 409); the previous link stops working. At most 5 invitation mails per address per 15 minutes, invitations and resends of every merchant together (429 `Too Many Attempts.`, nothing written).'),
      })
      .put('/users/:userId/roles', async (c) => ({ status: 'success' as const, data: await assignRoles(scope(c), await c.access(), c.params.userId, c.body) }), {
        params: S.UserParams,
        body: S.AssignRolesBody,
        query: S.VendorQuery,
        transform: permission('ASSIGN_ROLES'),
        response: { 200: S.MemberWriteResponse },
        ...doc('Replace a member\'s roles', 'ASSIGN_ROLES', 'Every id must be a role of this merchant (422 on `role_ids.N`); the owner role is never granted or removed here. The caller gives or takes away only roles whose permissions they all hold, and only for a member whose location grant is within their own (a global member needs a caller holding every location); else 403.'),
      })
      .put('/users/:userId/locations', async (c) => ({ status: 'success' as const, data: await setMemberLocations(scope(c), await c.access(), c.params.userId, c.body) }), {
        params: S.UserParams,
        body: S.LocationsBody,
        query: S.VendorQuery,
        transform: permission('EDIT_USER_LOCATION_ACCESS'),
        response: { 200: S.MemberWriteResponse },
        ...doc('Replace a member\'s location access', 'EDIT_USER_LOCATION_ACCESS', 'Every id must be a location of this merchant (422 on `location_ids.N`); `all_locations` makes the member a global user. A caller changes access only within their own location grant: adding or removing a location outside it, or switching `all_locations`, needs a caller holding every location (else 403).'),
      })
      .put('/users/:userId', async (c) => ({ status: 'success' as const, data: await updateMember(scope(c), await c.access(), c.params.userId, c.body) }), {
        params: S.UserParams,
        body: S.UpdateMemberBody,
        query: S.VendorQuery,
        transform: permission('EDIT_USERS'),
        response: { 200: S.MemberWriteResponse },
        ...doc('Rename a member', 'EDIT_USERS', 'Only a member whose location grant is within the caller\'s (a global member or the owner needs a caller holding every location); else 403.'),
      })
      .delete(
        '/users/:userId',
        async (c) => {
          await removeMember(scope(c), await c.access(), c.params.userId);
          return { status: 'success' as const };
        },
        {
          params: S.UserParams,
          query: S.VendorQuery,
          transform: permission('DELETE_USERS'),
          response: { 200: S.Success },
          ...doc('Remove a member from the merchant', 'DELETE_USERS', 'Removes the membership, invitation, roles and location grants; yourself and the owner are 409. Only a member whose location grant is within the caller\'s (a global member needs a caller holding every location); else 403.'),
        },
      )
  );
}
