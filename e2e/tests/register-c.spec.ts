import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';

/**
 * Issue 17 item 4: register-c through the running stack. The back office starts the connect flow, the
 * OAuth simulator's consent screen sends the browser back to the API's callback (the code exchanged
 * there, the tokens stored encrypted), and the register-c API simulator accepts the stored token (it
 * asks the OAuth simulator: another process). Then a location is mapped, the relay reads answer in
 * our shape (cents) and the mapping's catalog sync runs.
 */
test('register-c: connect through OAuth, test, map a location, relay reads, sync', async ({ request }) => {
  const seed = loadSeed();
  const location = seed.locations[0]!.id;
  const { token } = await (await request.post('/api/login', { data: seed.backoffice })).json();
  const owner = { authorization: `Bearer ${token}` };
  const base = '/api/back-office/register-c';
  const account = `e2e-rc-${Date.now().toString(36)}`;

  // Not connected yet: the reads are a 404 on the integration.
  expect((await request.get(`${base}/test`, { headers: owner })).status()).toBe(404);

  const started = await request.post(`${base}/oauth`, { headers: owner });
  expect(started.status()).toBe(200);
  const { authorize_url } = (await started.json()).data as { authorize_url: string };
  // The consent screen (always consenting in the simulator) redirects to our callback with a code and the state.
  const consent = await request.get(`${authorize_url}&account_id=${account}`, { maxRedirects: 0 });
  expect(consent.status()).toBe(302);
  const back = new URL(consent.headers()['location']!);
  expect(back.pathname).toBe('/api/register-c/callback');
  const callback = await request.get(`${back.pathname}${back.search}`);
  expect(callback.status()).toBe(200);
  expect((await callback.json()).data).toMatchObject({ provider: 'register-c', location_id: null });
  // The state is single-use.
  expect((await request.get(`${back.pathname}${back.search}`)).status()).toBe(400);

  expect(await (await request.get(`${base}/test`, { headers: owner })).json()).toEqual({ data: { ok: true, account_id: account, businesses: 1, locations: 1 } });
  const businesses = (await (await request.get(`${base}/financial/businesses`, { headers: owner })).json()).data as { locations: { id: string }[] }[];
  const registerCLocation = businesses[0]!.locations[0]!.id;

  // Reads of a location need its mapping.
  expect((await request.get(`${base}/items?location_id=${location}`, { headers: owner })).status()).toBe(404);
  const mapped = await request.put(`${base}/mappings/${location}`, { headers: owner, data: { register_c_location_id: registerCLocation } });
  expect(mapped.status()).toBe(200);
  expect((await mapped.json()).data).toMatchObject({ upvendo_location_id: location, register_c_location_id: registerCLocation, status: 'active' });

  const items = (await (await request.get(`${base}/items?location_id=${location}`, { headers: owner })).json()).data as { sku: string; name: string; price_cents: number }[];
  expect(items.length).toBeGreaterThan(0);
  for (const i of items) expect(Number.isInteger(i.price_cents)).toBe(true);

  const synced = await request.post(`${base}/mappings/${location}/sync`, { headers: owner });
  expect(synced.status()).toBe(200);
  expect((await synced.json()).status).toBe('success');

  // Leave the merchant as the other suites expect it: no register integration.
  expect((await request.post(`${base}/disable`, { headers: owner })).status()).toBe(200);
});
