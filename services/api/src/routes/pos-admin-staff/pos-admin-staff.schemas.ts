import { t } from 'elysia';
import { PathId, Pin as PinOf } from '../shared.schemas.ts';
import { REGISTER_PERMISSIONS } from '@pos/domain/permissions';
import { Iso, Text, Uuid } from '../pos-admin/pos-admin.schemas.ts';

/** Schemas of the register's staff credentials (`/back-office/pos/staff-credentials`). */
export const CredentialParams = t.Object({ credentialId: PathId() });

/** A register PIN: 4 to 8 digits. */
const Pin = PinOf('The pin must be 4 to 8 digits.');
const RegisterPermission = t.UnionEnum(REGISTER_PERMISSIONS, { error: `Each permission must be one of: ${REGISTER_PERMISSIONS.join(', ')}.` });
const Permissions = t.Array(RegisterPermission, { maxItems: 64 });

/** A credential as the back office sees it: never the PIN, its hash or its fingerprint. */
export const StaffCredential = t.Object({
  id: t.String(),
  name: t.String(),
  role: t.String(),
  permissions: t.Array(t.String()),
  user_id: t.Nullable(t.String()),
  created_at: Iso,
});
export const StaffCredentialResponse = t.Object({ data: StaffCredential });
export const StaffCredentialList = t.Object({ data: t.Array(StaffCredential) });
export const AssignableStaffList = t.Object({ data: t.Array(t.Object({ id: t.String(), name: t.String(), email: t.String() })) });

export const CreateStaffCredentialBody = t.Object(
  {
    name: Text('name', 120),
    role: Text('role', 60),
    pin: Pin,
    permissions: Permissions,
    user_id: t.Optional(t.Nullable(Uuid('user id'))),
  },
  { additionalProperties: false },
);

export const UpdateStaffCredentialBody = t.Object(
  { name: t.Optional(Text('name', 120)), role: t.Optional(Text('role', 60)), permissions: t.Optional(Permissions) },
  { additionalProperties: false },
);

/** `pin` absent (or no body): the server draws a random 6-digit PIN. */
export const ResetPinBody = t.Optional(t.Object({ pin: t.Optional(Pin) }, { additionalProperties: false }));
/** The new PIN is answered once, here; it is stored only hashed. */
export const ResetPinResponse = t.Object({ data: StaffCredential, pin: t.String() });
