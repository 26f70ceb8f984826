import { Elysia } from 'elysia';
import type { StaffSession } from '@pos/core/pos/staff/staff-session';
import { authenticateStaff } from '@pos/core/pos/staff/authenticate-staff';
import { StaffAuthorizer } from '@pos/core/pos/staff/approvals';
import type { RegisterActor } from '@pos/core/pos/register-actor';
import type { ApiDeps } from '../context.ts';
import { resolveSecured, type SecuredContext } from './secured.ts';

export type PosDeviceContext = SecuredContext<'pos'> & { device: NonNullable<SecuredContext<'pos'>['device']> };
export type PosStaffContext = PosDeviceContext & {
  staff: StaffSession;
  /** The register scope of every register use case: this device, its location, this staff member. */
  actor: RegisterActor;
  /** Register permissions for this request; reads `approval_token` from the body when one is needed. */
  authorizer: (approvalToken: string | undefined) => StaffAuthorizer;
};

/** Device-level register routes: `auth`, `device-key`, `type:pos`, `tenant:pos` (spec 2 section 4). */
export async function resolvePosDevice(deps: ApiDeps, ctx: { headers: Record<string, string | undefined>; query: Record<string, unknown> }): Promise<PosDeviceContext> {
  const base = await resolveSecured(deps, { types: ['pos'], deviceKey: true }, ctx);
  return base as PosDeviceContext;
}

export function posDevice(deps: ApiDeps) {
  return new Elysia().derive({ as: 'scoped' }, ({ headers, query }) => resolvePosDevice(deps, { headers, query }));
}

/** Staff routes add `X-Pos-Staff-Token` (401 `Invalid POS staff token` when missing, ended or expired). */
export function posStaff(deps: ApiDeps) {
  return new Elysia().derive({ as: 'scoped' }, async ({ headers, query }): Promise<PosStaffContext> => {
    const base = await resolvePosDevice(deps, { headers, query });
    const staff = await authenticateStaff(deps, base.tenant, base.device.id, headers['x-pos-staff-token']);
    return {
      ...base,
      staff,
      actor: { deviceId: base.device.id, locationId: base.device.location_id, staffId: staff.staff.id },
      authorizer: (approvalToken) => new StaffAuthorizer(deps.redis, staff.staff.permissions, base.device.id, approvalToken),
    };
  });
}
