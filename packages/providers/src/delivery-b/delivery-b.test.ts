import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DeliveryBClient } from './delivery-b-client.ts';
import { startDeliveryBSimulator, type DeliveryBSimulator } from './delivery-b-simulator.ts';
import { providerError } from '../shared/provider-test-support.ts';

let sim: DeliveryBSimulator;
let client: DeliveryBClient;

beforeAll(() => {
  sim = startDeliveryBSimulator({ apiToken: 'tok-b-1' });
  sim.addStore('store-1', 'Central');
  client = new DeliveryBClient({ baseUrl: sim.url, apiToken: 'tok-b-1' });
});
afterAll(() => sim.stop());


describe('delivery-b client against the simulator over HTTP', () => {
  test('list, store, enable, menu, status, prep time, fulfillment, disable', async () => {
    expect(await client.listStores()).toEqual([{ id: 'store-1', name: 'Central' }]);
    expect(await client.getStore('store-1')).toEqual({ id: 'store-1', name: 'Central', integration_enabled: false, integrator_store_id: null, status: 'offline', prep_time_minutes: 15, fulfillment: { delivery: true, pickup: false } });
    expect(await providerError(client.pushMenu('store-1', []))).toMatchObject({ kind: 'http', status: 409, code: 'integration_disabled' });
    expect(await providerError(client.setStatus('store-1', 'online'))).toMatchObject({ kind: 'http', status: 409, code: 'integration_disabled' });
    expect((await client.enableIntegration('store-1', 'loc-1')).integrator_store_id).toBe('loc-1');
    expect(await providerError(client.menu('store-1'))).toMatchObject({ kind: 'http', status: 409, code: 'menu_missing' });
    expect(await client.pushMenu('store-1', [{ id: 'i1', name: 'Soup', price: 450, available: false }])).toBe(1);
    expect(await client.menu('store-1')).toEqual([{ id: 'i1', name: 'Soup', price: 450, available: false }]);
    expect(await client.setStatus('store-1', 'online')).toBe('online');
    expect(await client.setPrepTime('store-1', 30)).toBe(30);
    expect(await client.setFulfillment('store-1', { delivery: false, pickup: true })).toEqual({ delivery: false, pickup: true });
    expect(await providerError(client.setFulfillment('store-1', { delivery: false, pickup: false }))).toMatchObject({ kind: 'http', status: 409, code: 'no_fulfillment', message: 'delivery-b: At least one fulfillment mode must stay on' });
    expect(await providerError(client.setPrepTime('store-1', 999))).toMatchObject({ kind: 'http', status: 400, code: 'invalid_prep_time' });
    await client.disableIntegration('store-1');
    expect(sim.stores.get('store-1')).toMatchObject({ integrationEnabled: false, status: 'online', prepTimeMinutes: 30 });
  });

  test('unknown store is a 404, a wrong token a 401, an unreachable API a network error', async () => {
    expect(await providerError(client.getStore('nope'))).toMatchObject({ kind: 'http', status: 404, code: 'store_not_found' });
    expect(await providerError(new DeliveryBClient({ baseUrl: sim.url, apiToken: 'wrong' }).listStores())).toMatchObject({ kind: 'http', status: 401, code: 'unauthorized' });
    expect((await providerError(new DeliveryBClient({ baseUrl: 'http://127.0.0.1:9', apiToken: 'tok-b-1', timeoutMs: 2000 }).listStores())).kind).toBe('network');
  });
});
