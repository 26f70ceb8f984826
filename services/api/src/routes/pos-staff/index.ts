import { Elysia, t } from 'elysia';
import { isWrongPin, pinLogin } from '@pos/core/pos/staff/pin-login';
import { pinLogout } from '@pos/core/pos/staff/pin-logout';
import { escalate, isUnknownManagerPin } from '@pos/core/pos/staff/escalate';
import type { ApiDeps } from '../../context.ts';
import { posDevice, posStaff } from '../../plugins/pos-secured.ts';
import { THROTTLES, countFailures, throttle } from '../../middleware/throttle.ts';
import * as S from './pos-staff.schemas.ts';

const tags = ['Register: staff'];
const security = [{ bearer: [] }];

/** `POST /pos/staff/pin-login` (device level): opens a 12-hour staff session. */
export function posPinLoginRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'pos-pin-login' })
    .use(posDevice(deps))
    .post(
      '/pos/staff/pin-login',
      async ({ body, device, tenant }) => {
        await throttle(deps.redis, deps.env, [[THROTTLES.posPin, device.id]]);
        const { token, staff, expiresAt } = await countFailures(deps.redis, deps.env, THROTTLES.posPinFailures, device.id, isWrongPin, () => pinLogin(deps, tenant, device, body.pin));
        return {
          staff_token: token,
          staff: { id: staff.id, name: staff.name, role: staff.role },
          pos_permissions: [...staff.permissions],
          expires_at: expiresAt.toISOString(),
        };
      },
      { body: S.PinLoginBody, response: { 200: S.PinLoginResponse }, detail: { tags, summary: 'Sign a staff member in with their PIN (throttle pos-pin); queues its work-in event for signing', security } },
    );
}

/** Staff routes: pin-logout and escalate. */
export function posStaffRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'pos-staff-routes' })
    .use(posStaff(deps))
    .post(
      '/pos/staff/pin-logout',
      async ({ staff, device, tenant }) => {
        await pinLogout(deps, tenant, device, staff);
        return { status: 'success' as const };
      },
      { response: { 200: t.Object({ status: t.Literal('success') }) }, detail: { tags, summary: 'End the staff session; queues its work-out event for signing', security } },
    )
    .post(
      '/pos/staff/escalate',
      async ({ body, device, tenant, staff }) => {
        await throttle(deps.redis, deps.env, [[THROTTLES.posEscalate, device.id]]);
        // A PIN is guessed here as at sign-in: unknown PINs count against the same per-device bound.
        const e = await countFailures(deps.redis, deps.env, THROTTLES.posPinFailures, device.id, isUnknownManagerPin, () =>
          escalate(deps, tenant, device, { managerPin: body.manager_pin, permission: body.permission, requestedBy: staff.staff.id }),
        );
        return { approval_token: e.approvalToken, permission: e.permission, expires_in: e.expiresIn };
      },
      { body: S.EscalateBody, response: { 200: S.EscalateResponse }, detail: { tags, summary: 'Manager approval for one permission: 120 s, this device, one use (throttle pos-escalate; an unknown PIN counts as a wrong PIN at pin-login: 30 an hour per device)', security } },
    );
}
