import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { pinFingerprint, verifySecret } from '../../security/passwords.ts';
import type { StaffRecord } from './staff-session.ts';

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

export async function requireStaffByPin(tdb: TenantDb, pepper: string, tenantDatabase: string, pin: string, field = 'pin'): Promise<StaffRecord> {
  const staff = await findStaffByPin(tdb, pepper, tenantDatabase, pin);
  if (!staff) throw errors.field(field, WRONG_PIN);
  return staff;
}
