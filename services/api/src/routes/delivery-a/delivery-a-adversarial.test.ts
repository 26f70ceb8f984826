/**
 * A prober's pass on delivery-a administration: a catalog larger than one menu push may carry.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startDeliveryASimulator, type DeliveryASimulator } from '@pos/providers/delivery-a/delivery-a-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let sim: DeliveryASimulator;
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
  expect((await api.call('POST', base(), { token: owner, body: { store_id: 'da-adv-store' } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
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
