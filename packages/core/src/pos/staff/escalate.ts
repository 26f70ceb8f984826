import { AppError, errors } from '@pos/kernel';
import { staffMayAct, type RegisterPermission } from '@pos/domain/permissions';
import type { TenantContext } from '../../auth/tenant-context.ts';
import { APPROVAL_TTL_SECONDS, issueApproval } from './approvals.ts';
import { findStaffByPin, type RegisterDevice } from './pin-login.ts';
import type { RegisterStaffDeps } from './register-hooks.ts';

export const MANAGER_PIN_UNKNOWN = 'The manager PIN is not recognised.';

/** Whether `e` is escalation's refusal of an unknown PIN (a wrong guess, counted like a wrong PIN at sign-in). */
export function isUnknownManagerPin(e: unknown): boolean {
  return e instanceof AppError && e.errors?.['manager_pin']?.includes(MANAGER_PIN_UNKNOWN) === true;
}

export interface Escalation {
  readonly approvalToken: string;
  readonly permission: RegisterPermission;
  /** Seconds the approval lives. */
  readonly expiresIn: number;
}

/**
 * `POST /pos/staff/escalate`: a manager's PIN approves one permission on this device for 120 s, once.
 * An unknown PIN is 422 `manager_pin`; an approver who does not hold the permission (nor
 * `approve_as_manager`) is 403: one's own PIN gives nothing one lacks (CONTRACTS 5).
 */
export async function escalate(
  deps: Pick<RegisterStaffDeps, 'redis' | 'log' | 'config'>,
  tenant: TenantContext,
  device: RegisterDevice,
  input: { managerPin: string; permission: RegisterPermission; requestedBy: string },
): Promise<Escalation> {
  const approver = await findStaffByPin(tenant.db, deps.config.PIN_PEPPER, tenant.merchant.tenant_database, input.managerPin);
  if (!approver) throw errors.field('manager_pin', MANAGER_PIN_UNKNOWN);
  if (!staffMayAct(approver.permissions, input.permission)) throw errors.insufficientPermissions();
  const approvalToken = await issueApproval(deps.redis, { permission: input.permission, device_id: device.id, approver_staff_id: approver.id });
  deps.log.info('pos approval issued', { permission: input.permission, device_id: device.id, approver: approver.id, requested_by: input.requestedBy });
  return { approvalToken, permission: input.permission, expiresIn: APPROVAL_TTL_SECONDS };
}
