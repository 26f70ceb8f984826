import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startDeliveryBSimulator, type DeliveryBSimulator } from '@pos/providers/delivery-b/delivery-b-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/** A tester's pass over delivery-b administration: what one merchant learns of, or does to, another's store. */
let sim: DeliveryBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;
const mine = () => `/api/back-office/delivery-b/${m.locations[0]!.id}`;
const theirs = () => `/api/back-office/delivery-b/${other.locations[0]!.id}`;

beforeAll(async () => {
  sim = startDeliveryBSimulator({ apiToken: 'delivery-b-adv-token' });
  sim.addStore('adv-store-1', 'Our corner');
  sim.addStore('adv-store-2', 'Rival bistro');
  sim.addStore('adv-store-3', 'Rival bistro annex');
  api = await createTestApi({ env: { DELIVERY_B_API_URL: sim.url, DELIVERY_B_API_TOKEN: 'delivery-b-adv-token' } });
  m = await api.seed('dbb-adv');
  other = await api.seed('dbb-adv-rival');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
});

describe('delivery-b: another merchant\'s stores', () => {
  test("the store list leaves out stores connected to another merchant (their names and ids are theirs; they cannot be selected anyway)", async () => {
    expect((await api.call('POST', theirs(), { token: otherOwner, body: { store_id: 'adv-store-2' } })).status).toBe(200);
    // A disabled connection keeps its store for that merchant (a 409 for anyone else).
    const theirs1 = `/api/back-office/delivery-b/${other.locations[1]!.id}`;
    expect((await api.call('POST', theirs1, { token: otherOwner, body: { store_id: 'adv-store-3' } })).status).toBe(200);
    expect((await api.call('DELETE', theirs1, { token: otherOwner })).status).toBe(200);
    expect((await api.call('POST', mine(), { token: owner, body: { store_id: 'adv-store-3' } })).status).toBe(409);
    const list = await api.call('GET', `${mine()}/store-list`, { token: owner });
    expect({ status: list.status, body: list.body }).toEqual({ status: 200, body: { data: [{ id: 'adv-store-1', name: 'Our corner', selected: false }] } });
    // The rival still sees its own, the disabled one included (it may connect it again).
    expect((await api.call('GET', `${theirs()}/store-list`, { token: otherOwner })).body).toEqual({
      data: [
        { id: 'adv-store-1', name: 'Our corner', selected: false },
        { id: 'adv-store-2', name: 'Rival bistro', selected: true },
        { id: 'adv-store-3', name: 'Rival bistro annex', selected: false },
      ],
    });
  });
});
