import { t } from 'elysia';
import { REGISTER_PERMISSIONS } from '@pos/domain/permissions';
import { Pin, Int } from '../shared.schemas.ts';

export const PinLoginBody = t.Object({ pin: Pin('The pin field must be 4 to 8 digits.') });

export const Staff = t.Object({ id: t.String(), name: t.String(), role: t.String() });

export const PinLoginResponse = t.Object({
  staff_token: t.String(),
  staff: Staff,
  pos_permissions: t.Array(t.String()),
  expires_at: t.String(),
});

export const EscalateBody = t.Object({
  manager_pin: Pin('The manager pin field must be 4 to 8 digits.'),
  permission: t.Union(
    REGISTER_PERMISSIONS.map((p) => t.Literal(p)),
    { error: `The selected permission is invalid. Accepted: ${REGISTER_PERMISSIONS.join(', ')}.` },
  ),
});

export const EscalateResponse = t.Object({ approval_token: t.String(), permission: t.String(), expires_in: Int() });
