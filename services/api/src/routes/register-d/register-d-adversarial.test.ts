import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startRegisterDSimulator, type RegisterDSimulator } from '@pos/providers/register-d/register-d-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * register-d administration probed as a hostile transport and a careful merchant would: what the
 * transport answers is stored as we can hold it, and a refused connect leaves nothing linked.
 */
let sim: RegisterDSimulator;
/** A site's link code at the transport (what its owner would copy from the vendor's back office). */
const codeOf = (site: string) => [...sim.sites.values()].find((s) => s.id === site)?.linkCode ?? 'LINK-UNKNOWN';
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let loc: string;
const TOKEN = 'register-d-adversarial-token';
const base = (vendor = 'vendor-a', location = loc) => `/api/back-office/register-d/${vendor}/${location}`;

beforeAll(async () => {
  sim = startRegisterDSimulator({ apiToken: TOKEN, vendors: ['vendor-a'] });
  api = await createTestApi({ env: { REGISTER_D_API_URL: sim.url, REGISTER_D_API_TOKEN: TOKEN, REGISTER_D_VENDORS: 'vendor-a' } });
  m = await api.seed('rdd-adversarial');
  owner = await api.ownerToken(m);
  loc = m.locations[0]!.id;
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
});

describe('register-d connect: what the transport answers', () => {
  test('a site name with control characters is stored without them; the connect succeeds', async () => {
    sim.addSite('vendor-a', 'rd-nul', 'Till\u0000 one\u0007');
    const r = await api.call('POST', base(), { token: owner, body: { site_id: 'rd-nul', link_code: codeOf('rd-nul') } });
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { connected: true, site_id: 'rd-nul', site_name: 'Till one' } } });
  });
});

describe("register-d connect: another business's site", () => {
  test("a site id without its owner's link code (missing or wrong) is a 422 on link_code: nothing linked at the transport, nothing written here", async () => {
    // One transport token reaches every site: the site id alone proves nothing (orders and menus would go to someone else's till).
    const rival = sim.addSite('vendor-a', `rd-rival-${Bun.randomUUIDv7()}`, 'Rival till');
    const loc2 = m.locations[1]!.id;
    for (const [body, message] of [
      [{ site_id: rival.id }, 'The link code field is required.'],
      [{ site_id: rival.id, link_code: 'LINK-GUESS' }, 'The link code is not valid for this register-d site.'],
    ] as const) {
      const r = await api.call('POST', base('vendor-a', loc2), { token: owner, body });
      expect(r).toMatchObject({ status: 422, body: { errors: { link_code: [message] } } });
    }
    expect(rival).toMatchObject({ linkedRef: null, menuPushes: 0 });
    expect(await api.deps.db.selectFrom('integration_connections').select('id').where('external_ref', '=', rival.id).execute()).toEqual([]);
    expect((await api.call('GET', base('vendor-a', loc2), { token: owner })).body.data).toMatchObject({ connected: false, site_id: null });
    // With the owner's code the site connects.
    expect(await api.call('POST', base('vendor-a', loc2), { token: owner, body: { site_id: rival.id, link_code: rival.linkCode } })).toMatchObject({ status: 200, body: { data: { connected: true, site_id: rival.id } } });
    expect(rival.linkedRef).toBe(loc2);
  });
});
