import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startGeocodingSimulator, type GeocodingSimulator } from '@pos/providers/geocoding/geocoding-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let downApi: TestApi;
let a: DemoSeedResult;
let owner: string;
let sim: GeocodingSimulator;
const P = '/api/back-office/settings/locations/address-suggestions';
const KEY = 'geo-test-key-0123';

beforeAll(async () => {
  sim = startGeocodingSimulator({ apiKey: KEY });
  api = await createTestApi({ env: { GEOCODING_BASE_URL: sim.url, GEOCODING_API_KEY: KEY } });
  a = await api.seed('addr-a');
  owner = await api.ownerToken(a);
  // The same platform with a wrong key: the provider refuses every call.
  downApi = await createTestApi({ env: { GEOCODING_BASE_URL: sim.url, GEOCODING_API_KEY: 'wrong-key-0123456' } });
}, 60_000);
afterAll(async () => {
  await api.close();
  await downApi.close();
  await sim.stop();
});

test('suggestions come from the geocoding service, filtered by country', async () => {
  const r = await api.call('GET', `${P}?query=${encodeURIComponent('grote markt')}`, { token: owner });
  expect(r.status).toBe(200);
  expect(r.body).toEqual({
    data: [{ label: 'Grote Markt 1, 1000 Brussel, BE', address: 'Grote Markt 1', postal_code: '1000', city: 'Brussel', country: 'BE', latitude: 50.8467, longitude: 4.3525 }],
    available: true,
  });
  expect(sim.requests.at(-1)).toBe('GET /v1/autocomplete?q=grote+markt&limit=5');
  const nl = await api.call('GET', `${P}?query=damrak&country=NL`, { token: owner });
  expect(nl.body.data.map((s: { city: string }) => s.city)).toEqual(['Amsterdam']);
  expect((await api.call('GET', `${P}?query=damrak&country=BE`, { token: owner })).body).toEqual({ data: [], available: true });
  expect((await api.call('GET', `${P}?query=nowhere%20street`, { token: owner })).body).toEqual({ data: [], available: true });
});

test('a service that refuses gives no suggestions, not an error; input is checked', async () => {
  const b = await downApi.seed('addr-b');
  const tok = await downApi.ownerToken(b);
  const r = await downApi.call('GET', `${P}?query=grote`, { token: tok });
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ data: [], available: false });
  expect((await api.call('GET', `${P}?query=gr`, { token: owner })).status).toBe(422);
  expect((await api.call('GET', `${P}?query=grote&country=BEL`, { token: owner })).status).toBe(422);
  expect((await api.call('GET', `${P}?query=grote`)).status).toBe(401);
});
