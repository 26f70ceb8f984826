import type { TenantContext } from '../../auth/tenant-context.ts';
import type { RegisterDevice } from './pin-login.ts';
import type { RegisterStaffDeps } from './register-hooks.ts';
import { endStaffSession, type StaffSession } from './staff-session.ts';

/** `POST /pos/staff/pin-logout`: ends the staff session (its token answers 401 from then on) and queues its work-out event (the worker signs it). */
export async function pinLogout(deps: Pick<RegisterStaffDeps, 'clock'>, tenant: TenantContext, device: RegisterDevice, session: StaffSession): Promise<void> {
  await endStaffSession(tenant.db, session.sessionId, deps.clock.now());
}
