import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startRegisterDSimulator, type RegisterDSimulator } from '@pos/providers/register-d/register-d-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * register-d administration probed as a hostile transport and a careful merchant would: what the
 * transport answers is stored as we can hold it, and a refused connect leaves nothing linked.
 */
let sim: RegisterDSimulator;
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
    const r = await api.call('POST', base(), { token: owner, body: { site_id: 'rd-nul' } });
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { connected: true, site_id: 'rd-nul', site_name: 'Till one' } } });
  });
});
