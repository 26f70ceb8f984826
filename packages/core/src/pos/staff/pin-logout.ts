import type { TenantContext } from '../../auth/tenant-context.ts';
import type { RegisterDevice } from './pin-login.ts';
import type { RegisterStaffDeps } from './register-hooks.ts';
import { endStaffSession, type StaffSession } from './staff-session.ts';

/** `POST /pos/staff/pin-logout`: ends the staff session (its token answers 401 from then on), then signs its work-out event. */
export async function pinLogout(deps: Pick<RegisterStaffDeps, 'clock' | 'registerHooks'>, tenant: TenantContext, device: RegisterDevice, session: StaffSession): Promise<void> {
  await endStaffSession(tenant.db, session.sessionId, deps.clock.now());
  await deps.registerHooks.staffSignedOut?.(tenant.db, { staffId: session.staff.id, deviceId: device.id, locationId: device.location_id, sessionId: session.sessionId });
}
