/**
 * A prober's pass on delivery-a administration: a catalog larger than one menu push may carry.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startDeliveryASimulator, type DeliveryASimulator } from '@pos/providers/delivery-a/delivery-a-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let sim: DeliveryASimulator;
/** The store's link code at delivery-a (what its owner would copy from delivery-a's portal). */
const linkOf = (store: string) => sim.stores.get(store)?.linkCode ?? 'LINK-UNKNOWN';
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let loc: string;
const base = () => `/api/back-office/delivery-a/${loc}`;

beforeAll(async () => {
  sim = startDeliveryASimulator({ apiToken: 'delivery-a-adv-token' });
  sim.addStore('da-adv-store', 'Centre');
  api = await createTestApi({ env: { DELIVERY_A_API_URL: sim.url, DELIVERY_A_API_TOKEN: 'delivery-a-adv-token' } });
  m = await api.seed('da-adv');
  owner = await api.ownerToken(m);
  loc = m.locations[0]!.id;
  expect((await api.call('POST', base(), { token: owner, body: { store_id: 'da-adv-store', link_code: linkOf('da-adv-store') } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
});

describe('delivery-a settings, adversarial', () => {
  test('prep time outside 0-240, fractional or a string is a 422 on prep_time_minutes; settings unchanged', async () => {
    const before = (await api.call('GET', base(), { token: owner })).body.data.settings;
    for (const prep of [241, -1, 1.5, '20', null, 1e12]) {
      const r = await api.call('PUT', base(), { token: owner, body: { prep_time_minutes: prep } });
      expect(`${JSON.stringify(prep)} ${r.status} ${Object.keys(r.body.errors ?? {})}`).toBe(`${JSON.stringify(prep)} 422 prep_time_minutes`);
    }
    expect((await api.call('GET', base(), { token: owner })).body.data.settings).toEqual(before);
    expect((await api.call('PUT', base(), { token: owner, body: { prep_time_minutes: 240 } })).body.data.settings.prep_time_minutes).toBe(240);
  });

  test('site status outside OPEN, CLOSED, READY_TO_OPEN (case included) is a 422; an unknown settings field too', async () => {
    for (const status of ['open', 'PAUSED', '', 1]) expect((await api.call('PUT', `${base()}/site-status`, { token: owner, body: { status } })).status).toBe(422);
    expect((await api.call('PUT', base(), { token: owner, body: { store_id: 'da-other' } })).status).toBe(422);
  });

  test("another merchant's location: every route 404, nothing pushed", async () => {
    const other = await api.seed('da-adv-other');
    const otherOwner = await api.ownerToken(other);
    const pushes = sim.stores.get('da-adv-store')!.menuPushes;
    for (const [method, path] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/sync-menu'], ['POST', '/sync-availability'], ['GET', '/logs'], ['GET', '/site-status']] as const) {
      const r = await api.call(method, `${base()}${path}`, { token: otherOwner, ...(method === 'PUT' ? { body: { prep_time_minutes: 5 } } : {}) });
      expect(`${method} ${path} ${r.status}`).toBe(`${method} ${path} 404`);
    }
    expect(sim.stores.get('da-adv-store')!.menuPushes).toBe(pushes);
    expect((await api.call('GET', base(), { token: owner })).body.data.enabled).toBe(true);
  });
});

describe('delivery-a menu sync, adversarial', () => {
  test('a catalog beyond what one push carries is refused with a 422, not pushed cut short as a success', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const template = await tdb.selectFrom('items').selectAll().where('id', '=', m.items[0]!.id).executeTakeFirstOrThrow();
    const rows = Array.from({ length: 5001 }, (_, n) => ({ ...template, id: Bun.randomUUIDv7(), name: `Bulk ${String(n).padStart(5, '0')}`, visible: true, channels: ['delivery'], location_ids: null }));
    for (let i = 0; i < rows.length; i += 500) await tdb.insertInto('items').values(rows.slice(i, i + 500) as never).execute();
    const pushesBefore = sim.stores.get('da-adv-store')!.menuPushes;

    const r = await api.call('POST', `${base()}/sync-menu`, { token: owner });
    expect(r).toMatchObject({ status: 422, body: { errors: { menu: ['The delivery menu has more than 5000 items; a marketplace menu takes at most 5000.'] } } });
    expect(sim.stores.get('da-adv-store')!.menuPushes).toBe(pushesBefore);
    const a = await api.call('POST', `${base()}/sync-availability`, { token: owner });
    expect(a.status).toBe(422);
  }, 60_000);
});

describe("delivery-a: another business's store", () => {
  test("a store id typed in without its owner's link code (missing or wrong) is a 422 on link_code: nothing written here, the store's integration at delivery-a untouched", async () => {
    // One API token reaches every store at delivery-a: the store id alone (on its menu page, its receipts) proves nothing.
    const rival = sim.addStore(`da-rival-${Bun.randomUUIDv7()}`, 'Rival Kitchen');
    const loc2 = m.locations[1]!.id;
    const before = (await api.call('GET', `/api/back-office/delivery-a/${loc2}`, { token: owner })).body;
    for (const [body, message] of [
      [{ store_id: rival.id }, 'The link code field is required.'],
      [{ store_id: rival.id, link_code: 'LINK-GUESS' }, 'The link code is not valid for this delivery-a store.'],
    ] as const) {
      const r = await api.call('POST', `/api/back-office/delivery-a/${loc2}`, { token: owner, body });
      expect(r).toMatchObject({ status: 422, body: { errors: { link_code: [message] } } });
    }
    expect(await api.deps.db.selectFrom('integration_connections').selectAll().where('provider', '=', 'delivery-a').where('external_ref', '=', rival.id).execute()).toEqual([]);
    expect((await api.call('GET', `/api/back-office/delivery-a/${loc2}`, { token: owner })).body).toEqual(before);
    expect(rival).toMatchObject({ integrationEnabled: false, integratorRef: null, menuPushes: 0 });
    // With the owner's code the store connects.
    expect(await api.call('POST', `/api/back-office/delivery-a/${loc2}`, { token: owner, body: { store_id: rival.id, link_code: rival.linkCode } })).toMatchObject({ status: 200, body: { data: { enabled: true, store_id: rival.id } } });
    expect(rival).toMatchObject({ integrationEnabled: true, integratorRef: loc2 });
  });
});
