import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { subscribedBillingProfile } from '../../testing/billing-subscriptions.ts';
import { makeMember } from '../team/team.test-support.ts';

/**
 * An attacker's pass over billing subscriptions (spec 1 "Settings"; permissions are scoped to the
 * granted locations, section 5): a subscription pays for one location's devices.
 */
let api: TestApi;
let cardA: CardASimulator;
let m: DemoSeedResult;
let owner: string;
const SECRET = 'sk_test_billing_adv';
const P = '/api/back-office/settings/billing-profiles';
const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);

const subscribed = (customer: string, locationId: string) => subscribedBillingProfile(api, m, owner, customer, locationId);

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: SECRET });
  api = await createTestApi({ env: { CARD_A_SECRET_KEY: SECRET, CARD_A_BASE_URL: cardA.url } });
  m = await api.seed('bsub-adv');
  owner = await api.ownerToken(m);
}, 60_000);
afterAll(async () => {
  await api.close();
  await cardA.stop();
});

describe('billing subscriptions, adversarial', () => {
  test('a member granted another location cannot cancel, reactivate or retry a location\'s subscription: 403, nothing sent to card-a; within the grant they can', async () => {
    const [loc0, loc1] = [m.locations[0]!.id, m.locations[1]!.id];
    const centre = await subscribed('cus_adv_centre', loc0);
    const station = await subscribed('cus_adv_station', loc1);
    const member = await makeMember(api, m, ['VIEW_BILLING_PROFILES', 'EDIT_BILLING_PROFILES'], { locationIds: [loc1] });
    for (const action of ['cancel', 'reactivate', 'retry-payment']) {
      const r = await api.call('POST', `${P}/${centre.profile}/subscriptions/${centre.local}/${action}`, { token: member.token });
      expect([action, r.status, r.body]).toEqual([action, 403, { message: 'Unauthorized: Insufficient permissions' }]);
    }
    expect(cardA.billing.subscription(centre.provider)).toMatchObject({ status: 'active', cancel_at_period_end: false });
    expect(await tdb().selectFrom('billing_subscriptions').select(['status', 'cancel_at_period_end']).where('id', '=', centre.local).executeTakeFirstOrThrow()).toEqual({ status: 'active', cancel_at_period_end: false });

    const own = await api.call('POST', `${P}/${station.profile}/subscriptions/${station.local}/cancel`, { token: member.token });
    expect(own).toMatchObject({ status: 200, body: { data: { id: station.local, cancel_at_period_end: true } } });
    expect(cardA.billing.subscription(station.provider)!.cancel_at_period_end).toBe(true);
    // The owner reaches every location.
    expect(await api.call('POST', `${P}/${centre.profile}/subscriptions/${centre.local}/cancel`, { token: owner })).toMatchObject({ status: 200, body: { data: { cancel_at_period_end: true } } });
  });
});
