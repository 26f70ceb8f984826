import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { TestApi } from './harness.ts';

/**
 * A billing profile of `m` (created through the API with `token`) for card-a customer `customer`,
 * with one live provider subscription and its local record at `locationId` (the first location by
 * default), as the card-a events would have written it.
 */
export async function subscribedBillingProfile(api: TestApi, m: DemoSeedResult, token: string, customer: string, locationId: string = m.locations[0]!.id) {
  const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  const profile = (await api.call('POST', '/api/back-office/settings/billing-profiles', { token, body: { name: `Billing ${customer}` } })).body.data.id as string;
  await tdb.updateTable('billing_profiles').set({ card_a_customer_id: customer }).where('id', '=', profile).execute();
  const s = await api.deps.payments.cardA!.createSubscription({ customer, price: 'price_kiosk', paymentMethod: 'pm_card', metadata: {}, idempotencyKey: crypto.randomUUID() });
  const local = Bun.randomUUIDv7();
  const now = new Date();
  await tdb
    .insertInto('billing_subscriptions')
    .values({
      id: local,
      provider_subscription_id: s.id,
      customer_id: customer,
      location_id: locationId,
      price_id: 'price_kiosk',
      device_ids: JSON.stringify([]),
      status: 'active',
      current_period_end: new Date(s.current_period_end * 1000),
      cancel_reason: null,
      canceled_at: null,
      payment_method_id: 'pm_card',
      mandate_id: null,
      recovered_by: null,
      event_created: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { profile, local, provider: s.id };
}
