import { bindTenant } from '@pos/db';
import type { WebhookDeps } from './card-b-webhook.ts';
import type { WebhookMerchant } from './tenant-resolution.ts';
import type { WebhookLogStatus } from './webhook-log.ts';

/**
 * card-b account events (spec 3 "Card-b events"; PROTOCOLS.md "card-b"): 8193 ACCOUNT_CONNECTED and
 * 8194 ACCOUNT_VERIFICATION_STATUS_CHANGED name the merchant's card-b account in
 * `EventData.ConnectedAccountId` (8194 adds `Verified`). The payment profile holding that account (one
 * per account) records when it was connected and whether it is verified, which the back office shows
 * with the profile. Each write is idempotent: a replay, or an older event delivered late, changes nothing.
 */
export const CARD_B_ACCOUNT_CONNECTED = 8193;
export const CARD_B_ACCOUNT_VERIFICATION = 8194;

type Data = Record<string, unknown>;

/** When card-b says the event happened (envelope `Created`, ISO 8601), else `fallback`. */
export function cardBEventTime(body: Data, fallback: Date): Date {
  const at = typeof body.Created === 'string' ? new Date(body.Created) : null;
  return at && Number.isFinite(at.getTime()) ? at : fallback;
}

export async function applyCardBAccountEvent(deps: WebhookDeps, owner: WebhookMerchant, eventTypeId: number, accountId: string, data: Data, at: Date): Promise<WebhookLogStatus> {
  const tdb = bindTenant(deps.db, owner.tenantDatabase);
  const facts = { account_id: accountId, merchant_id: owner.merchantId, event_type_id: eventTypeId };
  if (eventTypeId === CARD_B_ACCOUNT_CONNECTED) {
    // The first connection is the one kept; the column is cleared when the profile takes another account.
    const r = await tdb
      .updateTable('payment_profiles')
      .set({ card_b_connected_at: at, updated_at: deps.now() })
      .where('card_b_account_id', '=', accountId)
      .where('card_b_connected_at', 'is', null)
      .executeTakeFirst();
    const changed = Number(r.numUpdatedRows) > 0;
    deps.log.info(changed ? 'card-b account connected' : 'card-b account already connected', facts);
    return changed ? 'processed' : 'ignored';
  }
  if (typeof data.Verified !== 'boolean') {
    deps.log.warn('card-b verification event without Verified', facts);
    throw new Error('verification_unreadable');
  }
  const r = await tdb
    .updateTable('payment_profiles')
    .set({ card_b_verified: data.Verified, card_b_verification_at: at, updated_at: deps.now() })
    .where('card_b_account_id', '=', accountId)
    .where((eb) => eb.or([eb('card_b_verification_at', 'is', null), eb('card_b_verification_at', '<', at)]))
    .executeTakeFirst();
  const changed = Number(r.numUpdatedRows) > 0;
  deps.log.info(changed ? 'card-b account verification changed' : 'card-b account verification event not newer than the one applied', { ...facts, verified: data.Verified });
  return changed ? 'processed' : 'ignored';
}
