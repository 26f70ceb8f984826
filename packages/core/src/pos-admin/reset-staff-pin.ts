import { randomDigits } from '../security/passwords.ts';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import type { Access } from '../auth/access.ts';
import { findLiveCredential, guardPinUnique, pinInUse, pinSecrets, pinTaken, presentCredential, requireOwnerReach, type PinKey, type StaffCredentialView } from './staff-credential-records.ts';

/** Length of a server-generated PIN (within the 4-8 digits a PIN may have). */
export const GENERATED_PIN_DIGITS = 6;
/** Fresh random PINs tried before giving up (a collision needs ~10^6 live credentials to matter). */
const GENERATE_ATTEMPTS = 10;

/**
 * `POST /back-office/pos/staff-credentials/{credentialId}/reset-pin` (MANAGE_POS_STAFF): replaces the
 * PIN with the one given, or with a random 6-digit PIN from a CSPRNG when none is given, and answers
 * the new PIN once (it is stored only hashed). A given PIN held by another live credential is 422
 * `pin` `This PIN is already in use.`; a generated one that collides is drawn again. Re-using the
 * credential's own current PIN is allowed. Open staff sessions stay open.
 */
export async function resetStaffPin(scope: PosAdminScope, key: PinKey, id: string, pin: string | undefined, access: Access): Promise<{ credential: StaffCredentialView; pin: string }> {
  const current = await findLiveCredential(scope.tdb, id);
  // The owner's PIN is the owner's: another member resetting it could sign in as the owner.
  await requireOwnerReach(scope.db, scope.tdb, scope.merchant.id, access, current.user_id);
  for (let attempt = 1; ; attempt++) {
    const candidate = pin ?? randomDigits(GENERATED_PIN_DIGITS);
    const secrets = await pinSecrets(key, candidate);
    try {
      const row = await guardPinUnique(() =>
        inTenantTx(scope.tdb, async (tx) => {
          await findLiveCredential(tx, id, { lock: true });
          if (await pinTaken(tx, secrets.pin_fingerprint, id)) throw pinInUse();
          const updated = await tx.updateTable('staff_credentials').set(secrets).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
          await logActivity(tx, { userId: scope.userId, action: 'reset_pin', subject: 'staff_credential', subjectId: id, properties: { generated: pin === undefined } });
          return updated;
        }),
      );
      return { credential: presentCredential(row), pin: candidate };
    } catch (e) {
      const collided = (e as { errors?: Record<string, unknown> })?.errors?.pin !== undefined;
      if (pin !== undefined || !collided || attempt >= GENERATE_ATTEMPTS) throw e;
    }
  }
}
