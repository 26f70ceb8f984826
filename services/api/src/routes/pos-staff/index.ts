import { Elysia, t } from 'elysia';
import { errors } from '@pos/kernel';
import { staffMayAct } from '@pos/domain/permissions';
import { endStaffSession, openStaffSession } from '@pos/core/pos/staff/staff-session';
import { findStaffByPin, requireStaffByPin } from '@pos/core/pos/staff/pin-login';
import { APPROVAL_TTL_SECONDS, issueApproval } from '@pos/core/pos/staff/approvals';
import type { ApiDeps } from '../../context.ts';
import { posDevice, posStaff } from '../../plugins/pos-secured.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
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
        const staff = await requireStaffByPin(tenant.db, deps.config.PIN_PEPPER, tenant.merchant.tenant_database, body.pin);
        const now = deps.clock.now();
        const session = await openStaffSession(tenant.db, { staffId: staff.id, deviceId: device.id, locationId: device.location_id, now });
        return {
          staff_token: session.token,
          staff: { id: staff.id, name: staff.name, role: staff.role },
          pos_permissions: [...staff.permissions],
          expires_at: session.expiresAt.toISOString(),
        };
      },
      { body: S.PinLoginBody, response: { 200: S.PinLoginResponse }, detail: { tags, summary: 'Sign a staff member in with their PIN (throttle pos-pin); queues its work-in event (the worker signs it)', security } },
    );
}

/** Staff routes: pin-logout and escalate. */
export function posStaffRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'pos-staff-routes' })
    .use(posStaff(deps))
    .post(
      '/pos/staff/pin-logout',
      async ({ staff, tenant }) => {
        await endStaffSession(tenant.db, staff.sessionId, deps.clock.now());
        return { status: 'success' as const };
      },
      { response: { 200: t.Object({ status: t.Literal('success') }) }, detail: { tags, summary: 'End the staff session; queues its work-out event (the worker signs it)', security } },
    )
    .post(
      '/pos/staff/escalate',
      async ({ body, device, tenant, staff }) => {
        await throttle(deps.redis, deps.env, [[THROTTLES.posEscalate, device.id]]);
        const approver = await findStaffByPin(tenant.db, deps.config.PIN_PEPPER, tenant.merchant.tenant_database, body.manager_pin);
        if (!approver) throw errors.field('manager_pin', 'The manager PIN is not recognised.');
        // CONTRACTS 5: the approver must hold the permission (or approve_as_manager); one's own PIN gives nothing one lacks.
        if (!staffMayAct(approver.permissions, body.permission)) throw errors.insufficientPermissions();
        const approval_token = await issueApproval(deps.redis, { permission: body.permission, device_id: device.id, approver_staff_id: approver.id });
        deps.log.info('pos approval issued', { permission: body.permission, device_id: device.id, approver: approver.id, requested_by: staff.staff.id });
        return { approval_token, permission: body.permission, expires_in: APPROVAL_TTL_SECONDS };
      },
      { body: S.EscalateBody, response: { 200: S.EscalateResponse }, detail: { tags, summary: 'Manager approval for one permission: 120 s, this device, one use (throttle pos-escalate)', security } },
    );
}
