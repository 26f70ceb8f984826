import { bindTenant } from '@pos/db';
import { isUuid } from '@pos/domain/ids';
import type { WebhookDeps } from './card-b-webhook.ts';
import type { WebhookLogStatus } from './webhook-log.ts';
import { obj, str, type Obj } from './payload.ts';

/**
 * card-a connected accounts (a payment profile's, docs/decisions.md, "Issue 18 item 5 — payment profiles", provider choice): an
 * `account.updated` event records whether the account can take charges, which decides whether the
 * profile reports in-person provider card-a. The account carries the merchant in its metadata (set
 * when the profile created it); the profile is the one holding the account id.
 */

export interface AccountTarget {
  readonly merchantId: string;
  readonly tenantDatabase: string;
}

export async function connectedAccountTarget(deps: WebhookDeps, account: Obj): Promise<AccountTarget | null> {
  const merchantId = str(obj(account.metadata).merchant_id);
  if (!merchantId || !isUuid(merchantId) || !str(account.id)) return null;
  const m = await deps.db.selectFrom('merchants').select(['id', 'tenant_database']).where('id', '=', merchantId).executeTakeFirst();
  return m ? { merchantId: m.id, tenantDatabase: m.tenant_database } : null;
}

/**
 * Records the account's `charges_enabled` on the profile holding it. The account is read again at the
 * provider when one is configured, so events delivered out of order still leave its current state.
 */
export async function syncConnectedAccount(deps: WebhookDeps, target: AccountTarget, account: Obj): Promise<WebhookLogStatus> {
  const id = str(account.id)!;
  const current = deps.providers.cardA ? await deps.providers.cardA.retrieveAccount(id) : null;
  const enabled = current ? current.charges_enabled === true : account.charges_enabled === true;
  const r = await bindTenant(deps.db, target.tenantDatabase)
    .updateTable('payment_profiles')
    .set({ card_a_charges_enabled: enabled, updated_at: deps.now() })
    .where('card_a_account_id', '=', id)
    .where('card_a_charges_enabled', '!=', enabled)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0 ? 'processed' : 'ignored';
}

/**
 * The connected account a `capability.updated` or `person.*` event is about: the object's `account`
 * (a capability's, a person's), else the envelope's (an event of a connected account carries it).
 */
export const accountOfEvent = (object: Obj, envelopeAccount: string | null): string | null => str(object.account) ?? envelopeAccount;

/**
 * `capability.updated`, `person.created`, `person.updated` (spec 3: connected account updated,
 * connected-account person changed): a capability or a person's verification decides whether the
 * account can take charges, so the profile holding the account is refreshed as on `account.updated`.
 * Their objects say nothing of `charges_enabled`, so the account must be read at card-a: without a
 * card-a client the event is stored failed (replayable).
 */
export async function refreshConnectedAccount(deps: WebhookDeps, target: AccountTarget, accountId: string): Promise<WebhookLogStatus> {
  if (!deps.providers.cardA) throw new Error('card_a_not_configured');
  return syncConnectedAccount(deps, target, { id: accountId });
}
