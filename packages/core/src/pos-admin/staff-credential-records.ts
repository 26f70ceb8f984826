import type { Selectable } from 'kysely';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import type { RegisterPermission } from '@pos/domain/permissions';
import { hashSecret, pinFingerprint } from '../security/passwords.ts';
import { iso, notFound } from './pos-admin-scope.ts';
import { isUuid } from '@pos/domain/ids';
import { isUniqueViolation, type CentralDb } from '@pos/db';
import { holdsEveryPermission, type Access } from '../auth/access.ts';

/**
 * Staff credentials: the register's PIN sign-in records (`staff_credentials`). The PIN is stored
 * twice, never in clear: an argon2id hash (verification) and a keyed HMAC fingerprint (pepper from
 * configuration, tenant in the message) that finds the credential at PIN login and makes a PIN
 * unique among the merchant's LIVE credentials (partial unique index `staff_credentials_pin_unique`
 * on `pin_fingerprint where deleted_at is null`). Neither ever leaves these use cases.
 */

export type StaffCredentialRow = Selectable<TenantTables['staff_credentials']>;

/** The back-office view of a credential: never the PIN, its hash or its fingerprint. */
export interface StaffCredentialView {
  id: string;
  name: string;
  role: string;
  permissions: string[];
  user_id: string | null;
  created_at: string;
}

export const PIN_IN_USE = 'This PIN is already in use.';
export const MEMBER_HAS_CREDENTIAL = 'This member already has a register credential.';
const PIN_INDEX = 'staff_credentials_pin_unique';

/** What hashing a PIN needs: the configured pepper and the tenant (`tenant_database`) it is unique in. */
export interface PinKey {
  readonly pepper: string;
  readonly tenantDatabase: string;
}

export function presentCredential(r: StaffCredentialRow): StaffCredentialView {
  return { id: r.id, name: r.name, role: r.role, permissions: [...r.permissions], user_id: r.user_id, created_at: iso(r.created_at) };
}

/** Register permissions as stored: each once, in the catalogue's order of first mention. */
export function normalisePermissions(permissions: readonly RegisterPermission[]): string[] {
  return [...new Set(permissions)];
}

/** A live (not deleted) credential of the bound merchant, or 404. */
export async function findLiveCredential(tdb: TenantDb | TenantTx, id: string, opts: { lock?: boolean } = {}): Promise<StaffCredentialRow> {
  if (!isUuid(id)) throw notFound('staff credential');
  let q = tdb.selectFrom('staff_credentials').selectAll().where('id', '=', id).where('deleted_at', 'is', null);
  if (opts.lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('staff credential');
  return row;
}

/** The hash and the fingerprint of a PIN. */
export async function pinSecrets(key: PinKey, pin: string): Promise<{ pin_hash: string; pin_fingerprint: string }> {
  return { pin_hash: await hashSecret(pin), pin_fingerprint: pinFingerprint(key.pepper, key.tenantDatabase, pin) };
}

/** True when a live credential (other than `exceptId`) already uses the fingerprint. */
export async function pinTaken(tdb: TenantDb | TenantTx, fingerprint: string, exceptId?: string): Promise<boolean> {
  let q = tdb.selectFrom('staff_credentials').select('id').where('pin_fingerprint', '=', fingerprint).where('deleted_at', 'is', null);
  if (exceptId) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** The 422 of a PIN already held by a live credential. */
export const pinInUse = () => errors.field('pin', PIN_IN_USE);

/**
 * Runs a write that stores a fingerprint; the unique index is the final word under concurrency, so
 * its violation becomes the same 422 as the pre-check.
 */
export async function guardPinUnique<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (isUniqueViolation(e, PIN_INDEX)) throw pinInUse();
    throw e;
  }
}

/**
 * 403 `Unauthorized: Insufficient permissions` when `userId` (a credential's linked member) is an owner
 * of the merchant (the owner role, or the owning membership) and the caller does not hold every
 * permission (the owner, an internal admin through `vendor_id`). The owner is out of reach of other
 * members on the team routes; here a member holding MANAGE_POS_STAFF could otherwise reset the owner's
 * PIN, or link a credential of their own to the owner, and sign in at the register as the owner.
 */
export async function requireOwnerReach(db: CentralDb, tdb: TenantDb | TenantTx, merchantId: string, access: Access, userId: string | null): Promise<void> {
  if (userId === null || holdsEveryPermission(access)) return;
  const role = await tdb
    .selectFrom('user_roles')
    .innerJoin('roles', 'roles.id', 'user_roles.role_id')
    .select('roles.id')
    .where('user_roles.user_id', '=', userId)
    .where('roles.is_owner', '=', true)
    .executeTakeFirst();
  const membership = role ? undefined : await db.selectFrom('memberships').select('user_id').where('merchant_id', '=', merchantId).where('user_id', '=', userId).where('is_owner', '=', true).executeTakeFirst();
  if (role || membership) throw errors.insufficientPermissions();
}
