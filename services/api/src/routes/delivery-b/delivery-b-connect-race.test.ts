import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startDeliveryBSimulator, type DeliveryBSimulator } from '@pos/providers/delivery-b/delivery-b-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let sim: DeliveryBSimulator;
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let tokA: string;
let tokB: string;
const STORES = ['race-1', 'race-2', 'race-3', 'race-4', 'race-5'];

beforeAll(async () => {
  sim = startDeliveryBSimulator({ apiToken: 'probe-db-token' });
  for (const s of STORES) sim.addStore(s, s);
  api = await createTestApi({ env: { DELIVERY_B_API_URL: sim.url, DELIVERY_B_API_TOKEN: 'probe-db-token' } });
  a = await api.seed('probe-db-race-a');
  b = await api.seed('probe-db-race-b');
  tokA = await api.ownerToken(a);
  tokB = await api.ownerToken(b);
}, 60_000);
afterAll(async () => {
  await api.deps.db.deleteFrom('integration_connections').where('merchant_id', 'in', [a.merchant.id, b.merchant.id]).execute();
  await api.close();
  await sim.stop();
});

describe('delivery-b: two merchants connect the same marketplace store at once', () => {
  test('one 200 and one 409 integration_taken; the connection never points at another merchant\'s location', async () => {
    const outcomes: number[][] = [];
    for (const store of STORES) {
      const [ra, rb] = await Promise.all([
        api.call('POST', `/api/back-office/delivery-b/${a.locations[0]!.id}`, { token: tokA, body: { store_id: store } }),
        api.call('POST', `/api/back-office/delivery-b/${b.locations[0]!.id}`, { token: tokB, body: { store_id: store } }),
      ]);
      outcomes.push([ra.status, rb.status].sort());
      const loser = ra.status === 409 ? ra : rb;
      expect(loser).toMatchObject({ status: 409, body: { message: 'This delivery-b store is already connected elsewhere.', reason: 'integration_taken' } });
    }
    const rows = await api.deps.db.selectFrom('integration_connections').select(['external_ref', 'merchant_id', 'location_id']).where('provider', '=', 'delivery-b').where('external_ref', 'in', STORES).execute();
    const locOf = new Map([[a.merchant.id, a.locations.map((l) => l.id)], [b.merchant.id, b.locations.map((l) => l.id)]]);
    // Tenant integrity: a connection's location is one of its own merchant's locations.
    const crossed = rows.filter((r) => !locOf.get(r.merchant_id)!.includes(r.location_id!));
    expect(crossed).toEqual([]);
    // Exactly one merchant wins each store; the other is told so.
    expect(outcomes).toEqual(STORES.map(() => [200, 409]));
  });
});
