import { withWriteRetry, type CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { hashSecret } from '../security/passwords.ts';
import { hashInvitationToken as hashToken } from './team-scope.ts';

const INVALID = 'This invitation is invalid or has expired.';

async function findOpen(db: CentralDb, token: string, now: Date) {
  return db
    .selectFrom('invitations')
    .innerJoin('users', 'users.id', 'invitations.user_id')
    .innerJoin('merchants', 'merchants.id', 'invitations.merchant_id')
    .select(['invitations.id', 'invitations.expires_at', 'users.id as user_id', 'users.email', 'users.name', 'users.email_verified_at', 'merchants.id as merchant_id', 'merchants.name as merchant_name', 'merchants.tenant_database'])
    .where('invitations.token_hash', '=', hashToken(token))
    .where('invitations.accepted_at', 'is', null)
    .where('invitations.expires_at', '>', now)
    .executeTakeFirst();
}

/** `GET /back-office/join-merchant`: what an open invitation is for; an unknown, used or expired token is 404. */
export async function invitationDetails(db: CentralDb, token: string, now: Date) {
  const inv = await findOpen(db, token, now);
  if (!inv) throw errors.notFound('invitation');
  return {
    merchant_name: inv.merchant_name,
    email: inv.email,
    name: inv.name,
    expires_at: inv.expires_at.toISOString(),
    // A brand-new account has no password anyone knows yet: accepting sets one.
    requires_password: inv.email_verified_at === null,
  };
}

/**
 * `POST /back-office/join-merchant`: accepts the invitation once. A new account chooses its password
 * here and its email counts as verified (the token reached that inbox). Returns who joined where.
 */
export async function acceptInvitation(db: CentralDb, input: { token: string; password?: string; name?: string }, now: Date) {
  return withWriteRetry(() => db.transaction().execute(async (tx) => {
    const inv = await findOpen(tx as unknown as CentralDb, input.token, now);
    if (!inv) throw errors.field('token', INVALID);
    const taken = await tx.updateTable('invitations').set({ accepted_at: now, updated_at: now } as never).where('id', '=', inv.id).where('accepted_at', 'is', null).executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) throw errors.field('token', INVALID);
    if (inv.email_verified_at === null) {
      if (!input.password || input.password.length < 8) throw errors.field('password', 'The password field must be at least 8 characters.');
      await tx
        .updateTable('users')
        .set({ password_hash: await hashSecret(input.password), email_verified_at: now, name: input.name?.trim() || inv.name, active_merchant_id: inv.merchant_id })
        .where('id', '=', inv.user_id)
        .execute();
    }
    return { user_id: inv.user_id, merchant_id: inv.merchant_id, tenant_database: inv.tenant_database, email: inv.email };
  }));
}
