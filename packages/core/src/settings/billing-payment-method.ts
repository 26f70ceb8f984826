import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import type { CardAClient } from '@pos/providers/card-a/card-a-client';
import { logActivity } from '../activity/log-activity.ts';
import { requireGrantedLocations, type Access } from '../auth/access.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { providerObjectOnce } from './provider-object-once.ts';
import { atProvider, client } from './billing-subscriptions.ts';
import { findBillingProfile, showBillingProfile, type BillingProfileView } from './billing-profiles.ts';
import { ENDED_SUBSCRIPTION_STATUSES } from './location-references.ts';

export interface BillingPaymentMethodView {
  id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

/**
 * The customer's default card pays every subscription of the profile (device subscriptions are created
 * with no method of their own), so changing it is 403 `Unauthorized: Insufficient permissions` unless
 * each location those subscriptions pay for is in the caller's grant, as cancelling one of them is
 * (spec 1 section 5: permissions are scoped to the granted locations). An ended subscription bills
 * nothing; a profile with no customer yet pays for no location.
 */
async function requireBillingProfileReach(tdb: TenantDb, access: Access, customerId: string | null): Promise<void> {
  if (access.allLocations || !customerId) return;
  const paid = await tdb
    .selectFrom('billing_subscriptions')
    .select('location_id')
    .distinct()
    .where('customer_id', '=', customerId)
    .where('status', 'not in', [...ENDED_SUBSCRIPTION_STATUSES])
    .execute();
  requireGrantedLocations(access, paid.map((s) => s.location_id));
}

/**
 * `POST /billing-profiles/{id}` (EDIT_BILLING_PROFILES, "attach payment method"): the card the
 * merchant entered in the provider's element becomes the default payment method of the profile's
 * card-a customer, which is created on the first attach (once: `providerObjectOnce`, with no transaction
 * open across the provider call). Subscriptions then bill that method. Within the caller's grant over
 * the locations it pays for (`requireBillingProfileReach`), checked before any provider call.
 */
export async function attachBillingPaymentMethod(
  tdb: TenantDb,
  cardA: CardAClient | null,
  deps: { readonly redis: Redis; readonly log: Logger },
  input: { userId: string; access: Access; merchantId: string; profileId: string; paymentMethod: string; email?: string | null },
): Promise<BillingProfileView & { payment_method: BillingPaymentMethodView }> {
  const profile = await findBillingProfile(tdb, input.profileId);
  await requireBillingProfileReach(tdb, input.access, profile.card_a_customer_id);
  const provider = client(cardA);
  // The customer is stored before the card is attached: a refused card leaves no customer behind unrecorded.
  const request = { name: profile.name, email: input.email, metadata: { merchant_id: input.merchantId, billing_profile_id: profile.id } };
  const customer = await providerObjectOnce(deps, {
    lockName: `billing_customer_${profile.id}`,
    stored: async () => (await findBillingProfile(tdb, profile.id)).card_a_customer_id,
    request,
    create: async (idempotencyKey) => (await atProvider(() => provider.createCustomer({ ...request, idempotencyKey }))).id,
    store: (id) =>
      inTenantTx(tdb, async (tx) => {
        const row = await findBillingProfile(tx, profile.id, true);
        if (row.card_a_customer_id) return row.card_a_customer_id;
        await tx.updateTable('billing_profiles').set({ card_a_customer_id: id, updated_at: new Date() }).where('id', '=', profile.id).execute();
        return id;
      }),
  });
  const pm = await atProvider(() => provider.attachPaymentMethod(input.paymentMethod, customer));
  await atProvider(() => provider.setDefaultPaymentMethod(customer, pm.id));
  await logActivity(tdb, { userId: input.userId, action: 'payment_method_attached', subject: 'billing_profile', subjectId: input.profileId, properties: { brand: pm.card.brand, last4: pm.card.last4 } });
  return { ...(await showBillingProfile(tdb, input.profileId)), payment_method: { id: pm.id, brand: pm.card.brand, last4: pm.card.last4, exp_month: pm.card.exp_month, exp_year: pm.card.exp_year } };
}
