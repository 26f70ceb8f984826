import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startRegisterDSimulator, type RegisterDSimulator } from '@pos/providers/register-d/register-d-simulator';
import type { TestApi } from '../../testing/harness.ts';
import { rivalMerchants, type RivalMerchants } from '../../testing/rival-merchants.ts';

// Requests connecting register-d sites at once (decisions: "Connecting a marketplace store concurrently").
let sim: RegisterDSimulator;
/** A site's link code at the transport (what its owner would copy from the vendor's back office). */
const codeOf = (site: string) => [...sim.sites.values()].find((s) => s.id === site)?.linkCode ?? 'LINK-UNKNOWN';
let rivals: RivalMerchants;
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let tokA: string;
let tokB: string;
const ROUNDS = 4;
const url = (vendor: string, location: string) => `/api/back-office/register-d/${vendor}/${location}`;
const TAKEN = { status: 409, body: { message: 'This register-d site is already connected elsewhere.', reason: 'integration_taken' } };

beforeAll(async () => {
  sim = startRegisterDSimulator({ apiToken: 'rd-race-token', vendors: ['vendor-a', 'vendor-b'] });
  for (let i = 0; i < ROUNDS; i++) {
    for (const s of [`shared-${i}`, `pair-${i}a`, `pair-${i}b`, `third-${i}`]) sim.addSite('vendor-a', s, s);
    sim.addSite('vendor-b', `other-${i}`, `other-${i}`);
  }
  rivals = await rivalMerchants({ REGISTER_D_API_URL: sim.url, REGISTER_D_API_TOKEN: 'rd-race-token', REGISTER_D_VENDORS: 'vendor-a,vendor-b' }, 'rd-race', [() => sim.stop()]);
  ({ api, a, b, tokA, tokB } = rivals);
}, 60_000);
afterAll(() => rivals.close());

const activeAt = (merchantId: string, location: string) =>
  api.deps.db.selectFrom('integration_connections').select(['provider', 'external_ref']).where('merchant_id', '=', merchantId).where('location_id', '=', location).where('provider', 'like', 'register-d:%').where('status', '=', 'active').execute();

describe('register-d: connecting sites at once', () => {
  test('two merchants take one site: one 200 and one 409 integration_taken; no row points at another merchant\'s location', async () => {
    const outcomes: number[][] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const [ra, rb] = await Promise.all([
        api.call('POST', url('vendor-a', a.locations[0]!.id), { token: tokA, body: { site_id: `shared-${i}`, link_code: codeOf(`shared-${i}`) } }),
        api.call('POST', url('vendor-a', b.locations[0]!.id), { token: tokB, body: { site_id: `shared-${i}`, link_code: codeOf(`shared-${i}`) } }),
      ]);
      outcomes.push([ra.status, rb.status].sort());
      expect(ra.status === 409 ? ra : rb).toMatchObject(TAKEN);
      // Free both locations for the next round (the winner is disconnected).
      for (const [m, tok] of [[a, tokA], [b, tokB]] as const) {
        if ((await activeAt(m.merchant.id, m.locations[0]!.id)).length) expect((await api.call('DELETE', url('vendor-a', m.locations[0]!.id), { token: tok })).status).toBe(200);
      }
    }
    expect(await rivals.crossed('register-d:vendor-a')).toEqual([]);
    expect(outcomes).toEqual(Array.from({ length: ROUNDS }, () => [200, 409]));
  });

  test('one location, two sites of one vendor at once: one active site; the other request is integration_busy or ran after', async () => {
    const loc = a.locations[1]!.id;
    const counts: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const answers = await Promise.all([
        api.call('POST', url('vendor-a', loc), { token: tokA, body: { site_id: `pair-${i}a`, link_code: codeOf(`pair-${i}a`) } }),
        api.call('POST', url('vendor-a', loc), { token: tokA, body: { site_id: `pair-${i}b`, link_code: codeOf(`pair-${i}b`) } }),
      ]);
      for (const r of answers) if (r.status !== 200) expect(r).toMatchObject({ status: 409, body: { message: 'Another register-d site is being connected to this location; try again.', reason: 'integration_busy' } });
      expect(answers.some((r) => r.status === 200)).toBe(true);
      const rows = await activeAt(a.merchant.id, loc);
      counts.push(rows.length);
      const shown = await api.call('GET', url('vendor-a', loc), { token: tokA });
      expect(shown.body).toMatchObject({ data: { connected: true, site_id: rows[0]?.external_ref } });
    }
    expect(counts).toEqual(Array.from({ length: ROUNDS }, () => 1));
  });

  test('one location, two vendors at once: one vendor active; the other is told so (busy or already connected)', async () => {
    const [m, tok, loc] = [b, tokB, b.locations[1]!.id];
    const counts: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const answers = await Promise.all([
        api.call('POST', url('vendor-a', loc), { token: tok, body: { site_id: `third-${i}`, link_code: codeOf(`third-${i}`) } }),
        api.call('POST', url('vendor-b', loc), { token: tok, body: { site_id: `other-${i}`, link_code: codeOf(`other-${i}`) } }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const loser = answers.find((r) => r.status === 409)!;
      expect(['integration_busy', 'integration_taken']).toContain((loser.body as { reason: string }).reason);
      const rows = await activeAt(m.merchant.id, loc);
      counts.push(rows.length);
      const winner = answers[0]!.status === 200 ? 'vendor-a' : 'vendor-b';
      expect((await api.call('DELETE', url(winner, loc), { token: tok })).status).toBe(200);
    }
    expect(counts).toEqual(Array.from({ length: ROUNDS }, () => 1));
  });

  test('a disconnect while another vendor is being connected to the location is 409 integration_busy; the site stays connected', async () => {
    const loc = a.locations[0]!.id;
    sim.addSite('vendor-a', 'held-site', 'held-site');
    expect((await api.call('POST', url('vendor-a', loc), { token: tokA, body: { site_id: 'held-site', link_code: codeOf('held-site') } })).status).toBe(200);
    // vendor-b's connect to this location is under way (the register-d group's claim holds the location).
    const connecting = { provider: 'register-d', external_ref: 'register-d:vendor-b/other-0', merchant_id: a.merchant.id, location_id: loc, claimed_until: new Date(Date.now() + 60_000) };
    await api.deps.db.insertInto('integration_connect_claims').values(connecting).execute();
    try {
      expect(await api.call('DELETE', url('vendor-a', loc), { token: tokA })).toMatchObject({ status: 409, body: { reason: 'integration_busy' } });
      expect(await activeAt(a.merchant.id, loc)).toEqual([{ provider: 'register-d:vendor-a', external_ref: 'held-site' }]);
    } finally {
      await api.deps.db.deleteFrom('integration_connect_claims').where('external_ref', '=', connecting.external_ref).execute();
    }
    expect((await api.call('DELETE', url('vendor-a', loc), { token: tokA })).status).toBe(200);
    expect(await activeAt(a.merchant.id, loc)).toEqual([]);
    expect(await api.deps.db.selectFrom('integration_connect_claims').select('external_ref').where('merchant_id', '=', a.merchant.id).execute()).toEqual([]);
  });
});
