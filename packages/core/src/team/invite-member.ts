import { errors, type FieldErrors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { requireAllLocations, requireGrantedLocations, type Access } from '../auth/access.ts';
import { hashSecret, randomSecret } from '../security/passwords.ts';
import { enqueueInvitationEmail, unmailedInvitationHash } from './invitation-mail.ts';
import {
  INVITATION_TTL_MS,
  addError,
  checkLocationIds,
  checkRoleIds,
  inTeamTransaction,
  loadMember,
  requireAssignableRoles,
  throwIfInvalid,
  type CentralTx,
  type MemberView,
  type TeamScope,
} from './team-scope.ts';

export interface InviteMemberInput {
  email: string;
  name: string;
  role_ids: readonly string[];
  /** Ignored for a global member (`allLocations`). */
  location_ids?: readonly string[];
  /** A "global user": every location, including future ones. */
  allLocations?: boolean;
}

export const ALREADY_MEMBER = 'This user is already a member of this team.';
export { INVITATION_TEMPLATE } from './invitation-mail.ts';

/**
 * Called with the recipient before an invitation mail is queued (the route's per-address cap: a team
 * invitation goes to any address the inviter types, under the merchant's name); throws to refuse.
 */
export type InvitationMailLimit = (email: string) => Promise<void>;

/**
 * `POST /team/users` and `POST /team/users/global`: invites a person to the merchant.
 *
 * An existing account (by e-mail) only gains the membership, under the name the inviter typed (the
 * answer is the same whether the account existed or not: nothing of it is revealed); otherwise an unverified account is
 * created whose password hash is of a random secret nobody knows (unusable until the invitation is
 * accepted). Roles, location grants and the `all_locations` flag are written on the tenant side,
 * an invitation (7 days, only its SHA-256 stored) centrally, and the e-mail goes through the outbox
 * in the same transaction: a `team.invitation-mail` job naming the invitation, whose worker issues the
 * token as it sends the mail (the token is never stored in clear). Logs `invited user`. Someone already in the merchant is 422 on `email`.
 *
 * The inviter (`grantor`, the acting user's access) grants only within their own grant: a global
 * member needs an inviter holding every location, a location outside the inviter's grant is refused,
 * and so is a role holding a permission the inviter lacks (`requireAssignableRoles`); all 403 `Unauthorized: Insufficient permissions`, before anything is written.
 * Once the input is valid, `limitMail` (the per-address cap of invitation mails) is asked, also before anything is written.
 */
export async function inviteMember(
  scope: TeamScope,
  grantor: Access,
  input: InviteMemberInput,
  limitMail: InvitationMailLimit = async () => {},
): Promise<MemberView> {
  const email = input.email.trim().toLowerCase();
  const name = input.name.trim();
  const allLocations = input.allLocations ?? false;
  if (allLocations) requireAllLocations(grantor);
  const unusableHash = await hashSecret(randomSecret(32));

  const userId = await inTeamTransaction(scope, async (central, tx) => {
    const errs: FieldErrors = {};
    if (!name) addError(errs, 'name', 'The name field is required.');
    const existing = await central.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
    if (existing && (await isMember(central, scope.merchant.id, existing.id))) addError(errs, 'email', ALREADY_MEMBER);
    const roleIds = await checkRoleIds(tx, input.role_ids, errs);
    const locationIds = allLocations ? [] : await checkLocationIds(tx, input.location_ids ?? [], errs);
    requireGrantedLocations(grantor, locationIds);
    await requireAssignableRoles(tx, grantor, roleIds);
    throwIfInvalid(errs);
    await limitMail(email);

    const id = existing?.id ?? (await createInvitedUser(central, { email, name, passwordHash: unusableHash }));
    const joined = await central
      .insertInto('memberships')
      .values({ user_id: id, merchant_id: scope.merchant.id, is_owner: false, display_name: name })
      .onConflict((oc) => oc.columns(['user_id', 'merchant_id']).doNothing())
      .returning('user_id')
      .executeTakeFirst();
    if (!joined) throw errors.field('email', ALREADY_MEMBER);

    // Clean slate on the tenant side (rows of an earlier membership never survive a removal, but be sure).
    await tx.deleteFrom('user_roles').where('user_id', '=', id).execute();
    await tx.deleteFrom('user_locations').where('user_id', '=', id).execute();
    if (roleIds.length) await tx.insertInto('user_roles').values(roleIds.map((role_id) => ({ user_id: id, role_id }))).execute();
    if (locationIds.length) await tx.insertInto('user_locations').values(locationIds.map((location_id) => ({ user_id: id, location_id }))).execute();
    await tx
      .insertInto('member_settings')
      .values({ user_id: id, all_locations: allLocations, created_at: scope.now, updated_at: scope.now })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ all_locations: allLocations, updated_at: scope.now }))
      .execute();

    // No link works until the worker mails one (`issueInvitationMail`).
    const tokenHash = unmailedInvitationHash();
    const expiresAt = new Date(scope.now.getTime() + INVITATION_TTL_MS);
    const invitation = await central
      .insertInto('invitations')
      .values({ id: Bun.randomUUIDv7(), merchant_id: scope.merchant.id, user_id: id, invited_by: scope.userId, token_hash: tokenHash, expires_at: expiresAt, created_at: scope.now, updated_at: scope.now })
      .onConflict((oc) =>
        oc.columns(['merchant_id', 'user_id']).doUpdateSet({ token_hash: tokenHash, expires_at: expiresAt, accepted_at: null, invited_by: scope.userId, updated_at: scope.now }),
      )
      .returning('id')
      .executeTakeFirstOrThrow();
    await enqueueInvitationEmail(central, invitation.id);
    await logActivity(tx, {
      userId: scope.userId,
      action: 'invited',
      subject: 'user',
      subjectId: id,
      properties: { email, name, role_ids: roleIds, location_ids: locationIds, all_locations: allLocations, existing_account: !!existing },
    });
    return id;
  });
  return loadMember(scope.db, scope.tdb, scope.merchant.id, userId);
}

async function isMember(central: CentralTx, merchantId: string, userId: string): Promise<boolean> {
  const m = await central.selectFrom('memberships').select('user_id').where('merchant_id', '=', merchantId).where('user_id', '=', userId).executeTakeFirst();
  return !!m;
}

async function createInvitedUser(central: CentralTx, u: { email: string; name: string; passwordHash: string }): Promise<string> {
  const inserted = await central
    .insertInto('users')
    .values({ id: Bun.randomUUIDv7(), email: u.email, name: u.name, password_hash: u.passwordHash, business_info: JSON.stringify({}), email_verified_at: null })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return inserted.id;
  // Created concurrently by someone else: use that account.
  const row = await central.selectFrom('users').select('id').where('email', '=', u.email).executeTakeFirstOrThrow();
  return row.id;
}
