import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startGeocodingSimulator, type GeocodingSimulator } from '@pos/providers/geocoding';
import { GEOCODING_NOT_CONFIGURED, GEOCODING_UNAVAILABLE } from '@pos/core/online-ordering/address-lookup';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// Address suggestions and reverse geocoding through the geocoding client and its simulator (a real HTTP server).
let sim: GeocodingSimulator;
let api: TestApi;
let bare: TestApi;
let wrongKey: TestApi;
const KEY = 'geo-test-key-123';

beforeAll(async () => {
  sim = startGeocodingSimulator({ apiKey: KEY });
  api = await createTestApi({ env: { GEOCODING_BASE_URL: sim.url, GEOCODING_API_KEY: KEY } });
  bare = await createTestApi();
  wrongKey = await createTestApi({ env: { GEOCODING_BASE_URL: sim.url, GEOCODING_API_KEY: 'not-the-key' } });
}, 60_000);
afterAll(async () => {
  await api.close();
  await bare.close();
  await wrongKey.close();
  await sim.stop();
});

describe('GET /online-ordering/address-suggestions', () => {
  test('matches every word, accent-insensitive, in the country asked', async () => {
    const r = await api.call('GET', '/api/online-ordering/address-suggestions?q=grote%20brussel');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [{ id: 'adr_grote_markt_1', label: 'Grote Markt 1, 1000 Brussel, BE', street: 'Grote Markt 1', postal_code: '1000', city: 'Brussel', country: 'BE', lat: 50.8467, lng: 4.3525 }],
    });
    expect((await api.call('GET', '/api/online-ordering/address-suggestions?q=liege')).body.data.map((x: { id: string }) => x.id)).toEqual(['adr_place_saint_lambert_1']);
    expect((await api.call('GET', '/api/online-ordering/address-suggestions?q=1000&country=nl')).body.data).toEqual([]);
    expect(sim.requests.at(-1)).toBe('GET /v1/autocomplete?q=1000&limit=5&country=nl');
  });

  test('fewer than 3 characters answer none without asking the provider; bad input is 422', async () => {
    const before = sim.requests.length;
    expect((await api.call('GET', '/api/online-ordering/address-suggestions?q=gr')).body).toEqual({ data: [] });
    expect(sim.requests.length).toBe(before);
    expect((await api.call('GET', '/api/online-ordering/address-suggestions')).status).toBe(422);
    expect((await api.call('GET', `/api/online-ordering/address-suggestions?q=${'x'.repeat(201)}`)).status).toBe(422);
    expect((await api.call('GET', '/api/online-ordering/address-suggestions?q=meir&country=BEL')).body.errors).toEqual({ country: ['The country field must be a two-letter country code.'] });
  });

  test('not configured or refused by the provider: 503 with a plain message', async () => {
    expect(await bare.call('GET', '/api/online-ordering/address-suggestions?q=meir')).toMatchObject({ status: 503, body: { message: GEOCODING_NOT_CONFIGURED } });
    expect(await wrongKey.call('GET', '/api/online-ordering/address-suggestions?q=meir')).toMatchObject({ status: 503, body: { message: GEOCODING_UNAVAILABLE } });
  });
});

describe('GET /online-ordering/coordinates-to-address', () => {
  test('the nearest address within 1 km, else null', async () => {
    const r = await api.call('GET', '/api/online-ordering/coordinates-to-address?lat=51.2185&lng=4.4049');
    expect(r.body.data).toMatchObject({ id: 'adr_meir_50', city: 'Antwerpen' });
    expect((await api.call('GET', '/api/online-ordering/coordinates-to-address?lat=0&lng=0')).body).toEqual({ data: null });
    expect((await api.call('GET', '/api/online-ordering/coordinates-to-address?lat=91&lng=0')).status).toBe(422);
    expect((await api.call('GET', '/api/online-ordering/coordinates-to-address?lat=abc&lng=0')).status).toBe(422);
    expect((await bare.call('GET', '/api/online-ordering/coordinates-to-address?lat=51&lng=4')).status).toBe(503);
  });
});
