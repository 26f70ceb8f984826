import { afterAll, beforeAll, describe, test } from 'bun:test';
import { startDeliveryBSimulator, type DeliveryBSimulator } from '@pos/providers/delivery-b/delivery-b-simulator';
import { connectTestDeliveryBAccount } from '@pos/core/integrations/delivery-b-account.test-support';
import { expectOneWinnerPerStore, rivalMerchants, type RivalMerchants } from '../../testing/rival-merchants.ts';

let sim: DeliveryBSimulator;
let r: RivalMerchants;
const STORES = ['race-1', 'race-2', 'race-3', 'race-4', 'race-5'];
const TOKEN_KEY = 'ce'.repeat(32);

beforeAll(async () => {
  sim = startDeliveryBSimulator({ apiToken: 'probe-db-token' });
  for (const s of STORES) sim.addStore(s, s);
  r = await rivalMerchants({ DELIVERY_B_API_URL: sim.url, DELIVERY_B_API_TOKEN: 'probe-db-token', INTEGRATION_TOKEN_KEY: TOKEN_KEY }, 'probe-db-race', [() => sim.stop()]);
  // Both merchants' delivery-b accounts list the stores (one account reached by both), so both may try each.
  for (const m of [r.a, r.b]) await connectTestDeliveryBAccount(r.api.deps.db, sim, { merchantId: m.merchant.id, tokenKeyHex: TOKEN_KEY, account: 'race-account', externalRef: `race-account-${m.merchant.id}`, stores: STORES });
}, 60_000);
afterAll(() => r.close());

describe('delivery-b: two merchants connect the same marketplace store at once', () => {
  test('one 200 and one 409 integration_taken; the connection never points at another merchant\'s location', async () => {
    await expectOneWinnerPerStore(r, {
      provider: 'delivery-b',
      stores: STORES,
      takenMessage: 'This delivery-b store is already connected elsewhere.',
      connect: (m, token, store) => r.api.call('POST', `/api/back-office/delivery-b/${m.locations[0]!.id}`, { token, body: { store_id: store } }),
    });
  });
});
