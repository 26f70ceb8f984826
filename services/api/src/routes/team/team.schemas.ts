import { t } from 'elysia';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';

/** `admin-vendor-override`: an internal admin or the merchant's reseller rebinds the tenant. */
export const VendorQuery = t.Object(vendorIdField());

// Path ids are plain strings: an id that is not a UUID is answered 404 like any unknown id.
export const RoleParams = t.Object({ roleId: PathId() });
export const UserParams = t.Object({ userId: PathId() });

export const Option = t.Object({ value: t.String(), label: t.String() });
export const OptionList = t.Object({ data: t.Array(Option) });

export const PermissionList = t.Object({
  data: t.Array(t.Object({ group: t.String(), permissions: t.Array(Option) })),
});

export const Role = t.Object({
  id: t.String(),
  name: t.String(),
  is_owner: t.Boolean(),
  /** The owner role lists the whole catalogue (it holds every permission). */
  permissions: t.Array(t.String()),
  users_count: Int(),
  created_at: t.String(),
});
export const RoleList = t.Object({ data: t.Array(Role) });
export const RoleResponse = t.Object({ data: Role });
export const RoleWriteResponse = t.Object({ status: t.Literal('success'), data: Role });

export const RoleBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100, error: 'The name field is required and may not be longer than 100 characters.' }),
    permissions: t.Array(t.String({ maxLength: 100 }), { maxItems: 200, description: 'back-office permission slugs (see permission-list)' }),
  },
  { additionalProperties: false },
);

export const Member = t.Object({
  id: t.String(),
  name: t.String(),
  email: t.String(),
  status: t.Union([t.Literal('invited'), t.Literal('active')]),
  is_owner: t.Boolean(),
  all_locations: t.Boolean(),
  roles: t.Array(t.Object({ id: t.String(), name: t.String() })),
  location_ids: t.Array(t.String()),
  invitation_expires_at: t.Nullable(t.String()),
  joined_at: t.String(),
});
export const MemberList = t.Object({ data: t.Array(Member) });
export const MemberWriteResponse = t.Object({ status: t.Literal('success'), data: Member });

const Email = t.String({ format: 'email', maxLength: 255, error: 'The email field must be a valid email address.' });
const Name = t.String({ minLength: 1, maxLength: 255, error: 'The name field is required and may not be longer than 255 characters.' });
const RoleIds = t.Array(t.String({ maxLength: 64 }), { maxItems: 50, description: 'role ids of this merchant (never the owner role)' });
const LocationIds = t.Array(t.String({ maxLength: 64 }), { maxItems: 500, description: 'location ids of this merchant' });

export const InviteBody = t.Object({ email: Email, name: Name, role_ids: RoleIds, location_ids: LocationIds }, { additionalProperties: false });
export const InviteGlobalBody = t.Object({ email: Email, name: Name, role_ids: RoleIds }, { additionalProperties: false });
export const AssignRolesBody = t.Object({ role_ids: RoleIds }, { additionalProperties: false });
export const LocationsBody = t.Object(
  {
    location_ids: LocationIds,
    all_locations: t.Optional(t.Boolean({ description: 'global user: every location, including future ones; absent keeps the current value' })),
  },
  { additionalProperties: false },
);
export const UpdateMemberBody = t.Object({ name: Name }, { additionalProperties: false });

export const Success = t.Object({ status: t.Literal('success') });
