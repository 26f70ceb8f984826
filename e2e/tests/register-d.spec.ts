import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { E2E, E2E_REGISTER_D_SITES, registerDSimUrl } from '../support/stack-env.ts';

/**
 * Issue 17 item 4: a register-d vendor at a location, through the running stack. The back office
 * connects the location to the vendor's site at the transport (the register-d simulator, a separate
 * process), tests the round trip, pushes the location's menu, and disconnects; the transport's own
 * view of the site shows each step.
 */
test('register-d: connect a site, test it, push the menu, disconnect', async ({ request }) => {
  const seed = loadSeed();
  const location = seed.locations[0]!.id;
  const [vendor, site] = E2E_REGISTER_D_SITES[0].split(':') as [string, string];
  const { token } = await (await request.post('/api/login', { data: seed.backoffice })).json();
  const owner = { authorization: `Bearer ${token}` };
  const base = `/api/back-office/register-d/${vendor}/${location}`;
  const transport = { authorization: `Bearer ${E2E.env.REGISTER_D_API_TOKEN}` };
  const siteAtTransport = async () => (await request.get(registerDSimUrl(`/v1/vendors/${vendor}/sites/${site}`), { headers: transport })).json();

  const before = await request.get(base, { headers: owner });
  expect(before.status()).toBe(200);
  expect((await before.json()).data).toMatchObject({ provider: vendor, connected: false, status: 'disconnected', site_id: null, sync_time: null });
  expect((await before.json()).data.sync_timezone).toEqual(expect.any(String));
  // An unknown site is the caller's mistake; nothing is connected.
  const unknown = await request.post(base, { headers: owner, data: { site_id: 'no-such-site', link_code: 'LINK-no-such-site' } });
  expect(unknown.status()).toBe(422);
  expect((await unknown.json()).errors).toEqual({ site_id: ['The site could not be found at register-d.'] });
  // A vendor word the platform does not serve is a 404.
  expect((await request.get(`/api/back-office/register-d/vendor-zz/${location}`, { headers: owner })).status()).toBe(404);

  const connected = await request.post(base, { headers: owner, data: { site_id: site, link_code: `LINK-${site}`, sync_time: '04:30' } });
  expect(connected.status()).toBe(200);
  expect((await connected.json()).data).toMatchObject({ connected: true, status: 'active', site_id: site, sync_time: '04:30', enable_auto_sync: true });
  expect(await siteAtTransport()).toMatchObject({ id: site, linked_ref: location });

  const tested = await request.get(`${base}/test`, { headers: owner });
  expect(await tested.json()).toEqual({ data: { ok: true, site_id: site, message: 'The site answered through register-d.' } });

  const pushed = await request.post(`${base}/sync-menu`, { headers: owner });
  expect(pushed.status()).toBe(200);
  const counts = (await pushed.json()) as { status: string; items: number };
  expect(counts.status).toBe('success');
  expect(counts.items).toBeGreaterThan(0);
  expect((await siteAtTransport()).menu_items).toBe(counts.items);

  const gone = await request.delete(base, { headers: owner });
  expect(gone.status()).toBe(200);
  expect((await gone.json()).data).toMatchObject({ connected: false, status: 'disabled', site_id: site });
  expect((await siteAtTransport()).linked_ref).toBeNull();
  expect((await request.get(`${base}/test`, { headers: owner })).status()).toBe(404);
});
