import { sql } from 'kysely';
import type { TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import type { RegisterPermission } from '@pos/domain/permissions';
import type { Access } from '../auth/access.ts';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { acceptedMemberships } from '../auth/auth-records.ts';
import {
  guardPinUnique,
  MEMBER_HAS_CREDENTIAL,
  normalisePermissions,
  pinInUse,
  pinSecrets,
  pinTaken,
  presentCredential,
  requireOwnerReach,
  type PinKey,
  type StaffCredentialView,
} from './staff-credential-records.ts';

export interface CreateStaffCredentialInput {
  name: string;
  role: string;
  /** 4 to 8 digits (checked by the route schema). */
  pin: string;
  permissions: RegisterPermission[];
  /** The back-office member this credential belongs to, if any. */
  user_id?: string | null;
}

/**
 * Serialises writes that link a member to a credential (there is no unique index on `user_id`:
 * a deleted credential keeps its link), so two concurrent creates cannot both link one member.
 */
export async function lockMemberLink(tx: TenantTx, userId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`staff_credentials.user_id:${userId}`}, 0))`.execute(tx);
}

/** 404 unless the user is a member of the merchant; 422 `user_id` when that member holds a live credential (other than `exceptId`). */
export async function requireLinkableMember(scope: PosAdminScope, tx: TenantTx, userId: string, exceptId?: string): Promise<void> {
  // A member whose invitation is still pending is not a member yet (as the assignable-staff list says).
  const member = await acceptedMemberships(scope.db).select('memberships.user_id').where('memberships.merchant_id', '=', scope.merchant.id).where('memberships.user_id', '=', userId).executeTakeFirst();
  // Another merchant's (or no) user: not found, like any foreign id, so a stranger learns nothing of it.
  if (!member) throw errors.notFound('user');
  await lockMemberLink(tx, userId);
  let q = tx.selectFrom('staff_credentials').select('id').where('user_id', '=', userId).where('deleted_at', 'is', null);
  if (exceptId) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw errors.field('user_id', MEMBER_HAS_CREDENTIAL);
}

/**
 * `POST /back-office/pos/staff-credentials` (MANAGE_POS_STAFF). Stores the PIN only as its argon2id
 * hash and keyed fingerprint; a PIN held by another live credential of the merchant is 422 `pin`
 * `This PIN is already in use.` (pre-checked, and the unique index decides under concurrency).
 * The answer never carries the PIN: the operator chose it. A credential linked to an owner is
 * created only by a caller holding every permission (403 otherwise, `requireOwnerReach`).
 */
export async function createStaffCredential(scope: PosAdminScope, key: PinKey, input: CreateStaffCredentialInput, access: Access): Promise<StaffCredentialView> {
  // Linking a credential to the owner is the owner's (or an internal admin's) to do.
  await requireOwnerReach(scope.db, scope.tdb, scope.merchant.id, access, input.user_id ?? null);
  const secrets = await pinSecrets(key, input.pin); // argon2 outside the transaction
  const row = await guardPinUnique(() =>
    inTenantTx(scope.tdb, async (tx) => {
      if (await pinTaken(tx, secrets.pin_fingerprint)) throw pinInUse();
      if (input.user_id) await requireLinkableMember(scope, tx, input.user_id);
      const created = await tx
        .insertInto('staff_credentials')
        .values({
          id: Bun.randomUUIDv7(),
          name: input.name.trim(),
          role: input.role.trim(),
          ...secrets,
          permissions: normalisePermissions(input.permissions),
          user_id: input.user_id ?? null,
          created_at: scope.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await logActivity(tx, { userId: scope.userId, action: 'created', subject: 'staff_credential', subjectId: created.id, properties: { name: created.name, role: created.role } });
      return created;
    }),
  );
  return presentCredential(row);
}
