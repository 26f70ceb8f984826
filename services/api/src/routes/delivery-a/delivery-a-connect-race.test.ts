import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startDeliveryASimulator, type DeliveryASimulator } from '@pos/providers/delivery-a/delivery-a-simulator';
import type { TestApi } from '../../testing/harness.ts';
import { expectOneWinnerPerStore, rivalMerchants, type RivalMerchants } from '../../testing/rival-merchants.ts';

let sim: DeliveryASimulator;
/** The store's link code at delivery-a (what its owner would copy from delivery-a's portal). */
const linkOf = (store: string | undefined) => sim.stores.get(store ?? '')?.linkCode ?? 'LINK-UNKNOWN';
let r: RivalMerchants;
let api: TestApi;
const STORES = ['race-1', 'race-2', 'race-3', 'race-4', 'race-5'];
const PAIRS = [['pair-1a', 'pair-1b'], ['pair-2a', 'pair-2b'], ['pair-3a', 'pair-3b']];

beforeAll(async () => {
  sim = startDeliveryASimulator({ apiToken: 'probe-da-token' });
  for (const s of [...STORES, ...PAIRS.flat()]) sim.addStore(s, s);
  r = await rivalMerchants({ DELIVERY_A_API_URL: sim.url, DELIVERY_A_API_TOKEN: 'probe-da-token' }, 'probe-da-race', [() => sim.stop()]);
  api = r.api;
}, 60_000);
afterAll(() => r.close());

describe('delivery-a: two merchants connect the same marketplace store at once', () => {
  test('one 200 and one 409 integration_taken; the connection never points at another merchant\'s location', async () => {
    await expectOneWinnerPerStore(r, {
      provider: 'delivery-a',
      stores: STORES,
      takenMessage: 'This delivery-a store is already connected elsewhere.',
      connect: (m, token, store) => api.call('POST', `/api/back-office/delivery-a/${m.locations[0]!.id}`, { token, body: { store_id: store, link_code: linkOf(store) } }),
    });
  });

  test('one location, two stores at once: the location ends with ONE active store (decisions: "one store per location")', async () => {
    const counts: number[] = [];
    for (const [s1, s2] of PAIRS) {
      const loc = r.a.locations[1]!.id;
      const answers = await Promise.all([
        api.call('POST', `/api/back-office/delivery-a/${loc}`, { token: r.tokA, body: { store_id: s1, link_code: linkOf(s1) } }),
        api.call('POST', `/api/back-office/delivery-a/${loc}`, { token: r.tokA, body: { store_id: s2, link_code: linkOf(s2) } }),
      ]);
      const rows = await api.deps.db.selectFrom('integration_connections').select('external_ref').where('provider', '=', 'delivery-a').where('merchant_id', '=', r.a.merchant.id).where('location_id', '=', loc).where('status', '=', 'active').execute();
      counts.push(rows.length);
      // Either both ran one after the other (the later store wins) or one was told to try again.
      for (const r of answers) if (r.status !== 200) expect(r).toMatchObject({ status: 409, body: { reason: 'integration_busy' } });
      const shown = await api.call('GET', `/api/back-office/delivery-a/${loc}`, { token: r.tokA });
      expect(shown.body).toMatchObject({ data: { enabled: true, store_id: rows[0]?.external_ref } });
    }
    expect(counts).toEqual(PAIRS.map(() => 1));
  });

  test('a claim held by a request in flight refuses; a refused connect leaves none; a crashed one expires', async () => {
    const loc = r.a.locations[0]!.id;
    const claims = () => api.deps.db.selectFrom('integration_connect_claims').select(['external_ref', 'location_id']).where('merchant_id', 'in', [r.a.merchant.id, r.b.merchant.id]).execute();
    // An unknown store at delivery-a: 422, and no claim is left behind.
    expect((await api.call('POST', `/api/back-office/delivery-a/${loc}`, { token: r.tokA, body: { store_id: 'no-such-store', link_code: linkOf('no-such-store') } })).status).toBe(422);
    expect(await claims()).toEqual([]);
    sim.addStore('claim-1', 'claim-1');
    // Merchant B is connecting claim-1 right now (its claim committed, the provider call under way).
    const live = { provider: 'delivery-a', external_ref: 'claim-1', merchant_id: r.b.merchant.id, location_id: r.b.locations[1]!.id, claimed_until: new Date(Date.now() + 60_000) };
    await api.deps.db.insertInto('integration_connect_claims').values(live).execute();
    expect(await api.call('POST', `/api/back-office/delivery-a/${loc}`, { token: r.tokA, body: { store_id: 'claim-1', link_code: linkOf('claim-1') } })).toMatchObject({ status: 409, body: { message: 'This delivery-a store is already connected elsewhere.', reason: 'integration_taken' } });
    // The same claim, its request crashed long ago: taken over.
    await api.deps.db.updateTable('integration_connect_claims').set({ claimed_until: new Date(Date.now() - 1000) }).where('external_ref', '=', 'claim-1').execute();
    expect((await api.call('POST', `/api/back-office/delivery-a/${loc}`, { token: r.tokA, body: { store_id: 'claim-1', link_code: linkOf('claim-1') } })).status).toBe(200);
    expect(await claims()).toEqual([]);
  });

  test('a disable waits for no connect: 409 integration_busy while one is in flight, and a connect is refused during a disable', async () => {
    const loc = r.a.locations[2]?.id ?? r.a.locations[0]!.id;
    sim.addStore('disable-1', 'disable-1');
    sim.addStore('disable-2', 'disable-2');
    expect((await api.call('POST', `/api/back-office/delivery-a/${loc}`, { token: r.tokA, body: { store_id: 'disable-1', link_code: linkOf('disable-1') } })).status).toBe(200);
    // A connect of disable-2 to this location is under way (its claim committed, the provider call running).
    const connecting = { provider: 'delivery-a', external_ref: 'disable-2', merchant_id: r.a.merchant.id, location_id: loc, claimed_until: new Date(Date.now() + 60_000) };
    await api.deps.db.insertInto('integration_connect_claims').values(connecting).execute();
    const busy = await api.call('DELETE', `/api/back-office/delivery-a/${loc}`, { token: r.tokA });
    expect({ status: busy.status, body: busy.body }).toEqual({ status: 409, body: { message: 'Another delivery-a store is being connected to this location; try again.', reason: 'integration_busy' } });
    // This test's stores (stores the location let go earlier stay, disabled).
    const active = () => api.deps.db.selectFrom('integration_connections').select(['external_ref', 'status']).where('provider', '=', 'delivery-a').where('merchant_id', '=', r.a.merchant.id).where('location_id', '=', loc).where('external_ref', 'in', ['disable-1', 'disable-2']).execute();
    expect(await active()).toEqual([{ external_ref: 'disable-1', status: 'active' }]);
    await api.deps.db.deleteFrom('integration_connect_claims').where('external_ref', '=', 'disable-2').execute();
    // A disable under way (its location claim held): a connect to the location waits its turn.
    const disabling = { provider: 'delivery-a', external_ref: `disconnecting:${loc}`, merchant_id: r.a.merchant.id, location_id: loc, claimed_until: new Date(Date.now() + 60_000) };
    await api.deps.db.insertInto('integration_connect_claims').values(disabling).execute();
    expect(await api.call('POST', `/api/back-office/delivery-a/${loc}`, { token: r.tokA, body: { store_id: 'disable-2', link_code: linkOf('disable-2') } })).toMatchObject({ status: 409, body: { reason: 'integration_busy' } });
    await api.deps.db.deleteFrom('integration_connect_claims').where('external_ref', '=', `disconnecting:${loc}`).execute();
    // Nothing in flight: the disable runs and leaves no claim behind.
    const done = await api.call('DELETE', `/api/back-office/delivery-a/${loc}`, { token: r.tokA });
    expect(done.status).toBe(200);
    expect(await active()).toEqual([{ external_ref: 'disable-1', status: 'disabled' }]);
    expect(await api.deps.db.selectFrom('integration_connect_claims').select('external_ref').where('merchant_id', '=', r.a.merchant.id).execute()).toEqual([]);
  });

  test('a connect and a disable of one location at once end consistent: the answers agree with the stored state', async () => {
    const loc = r.a.locations[0]!.id;
    for (const store of ['both-1', 'both-2', 'both-3']) {
      sim.addStore(store, store);
      const [c, d] = await Promise.all([
        api.call('POST', `/api/back-office/delivery-a/${loc}`, { token: r.tokA, body: { store_id: store, link_code: linkOf(store) } }),
        api.call('DELETE', `/api/back-office/delivery-a/${loc}`, { token: r.tokA }),
      ]);
      for (const r of [c, d]) expect([200, 404, 409, 422]).toContain(r.status);
      const shown = (await api.call('GET', `/api/back-office/delivery-a/${loc}`, { token: r.tokA })).body.data;
      // Serialised: the last to finish decides, and it said so.
      if (c.status === 200 && d.status !== 200) expect(shown).toMatchObject({ enabled: true, store_id: store });
      if (d.status === 200 && c.status !== 200) expect(shown.enabled).toBe(false);
      expect(await api.deps.db.selectFrom('integration_connect_claims').select('external_ref').where('merchant_id', '=', r.a.merchant.id).execute()).toEqual([]);
    }
  });
});
