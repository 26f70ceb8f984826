import type { TenantDb } from '@pos/db';
import { AppError, errors } from '@pos/kernel';
import { pinFingerprint, verifySecret } from '../../security/passwords.ts';
import type { TenantContext } from '../../auth/tenant-context.ts';
import { openStaffSession, type StaffRecord } from './staff-session.ts';
import type { RegisterStaffDeps } from './register-hooks.ts';

export const WRONG_PIN = 'The PIN is not recognised.';

/** Finds the live credential for a PIN within the merchant (keyed fingerprint, then argon2id verify). */
export async function findStaffByPin(tdb: TenantDb, pepper: string, tenantDatabase: string, pin: string): Promise<StaffRecord | null> {
  const staff = await tdb
    .selectFrom('staff_credentials')
    .selectAll()
    .where('pin_fingerprint', '=', pinFingerprint(pepper, tenantDatabase, pin))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!staff || !(await verifySecret(pin, staff.pin_hash))) return null;
  return staff;
}

/** True for the refusal of a PIN no live credential holds (what a failure-counting throttle counts). */
export function isWrongPin(e: unknown, field = 'pin'): boolean {
  return e instanceof AppError && e.errors?.[field]?.includes(WRONG_PIN) === true;
}

export async function requireStaffByPin(tdb: TenantDb, pepper: string, tenantDatabase: string, pin: string, field = 'pin'): Promise<StaffRecord> {
  const staff = await findStaffByPin(tdb, pepper, tenantDatabase, pin);
  if (!staff) throw errors.field(field, WRONG_PIN);
  return staff;
}

/** A register device as the staff use cases see it. */
export interface RegisterDevice {
  readonly id: string;
  readonly location_id: string;
}

export interface PinLoginResult {
  /** The opaque staff token, shown once (only its hash is stored). */
  readonly token: string;
  readonly staff: StaffRecord;
  readonly expiresAt: Date;
}

/**
 * `POST /pos/staff/pin-login`: the credential holding the PIN (422 `pin` otherwise) opens a 12-hour
 * staff session on the device; its work-in event is queued with it (the worker signs it).
 */
export async function pinLogin(deps: RegisterStaffDeps, tenant: TenantContext, device: RegisterDevice, pin: string): Promise<PinLoginResult> {
  const staff = await requireStaffByPin(tenant.db, deps.config.PIN_PEPPER, tenant.merchant.tenant_database, pin);
  const session = await openStaffSession(tenant.db, { staffId: staff.id, deviceId: device.id, locationId: device.location_id, now: deps.clock.now() });
  return { token: session.token, staff, expiresAt: session.expiresAt };
}
