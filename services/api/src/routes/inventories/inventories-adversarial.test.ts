import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/** An attacker's and a careless user's pass over inventories (spec 1 "Content, inventories, tax rates"). */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let tdb: TenantDb;
let owner: string;
const call = (method: string, path: string, body?: unknown, token = owner) => api.call(method, `/api/back-office${path}`, { token, body });
const stock = (itemId: string, locationId: string) =>
  tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', itemId).where('location_id', '=', locationId).executeTakeFirst();
const history = () => tdb.selectFrom('inventory_history').select(['id', 'quantity_change']).orderBy('id').execute();

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('inv-adv');
  other = await api.seed('inv-adv-other');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
}, 60_000);
afterAll(() => api.close());

describe('inventories, adversarial', () => {
  test('taking back counts that would push the stock past its bound (or PostgreSQL\'s integer) is a 422 on ids, nothing removed (it was stored, then a 500)', async () => {
    const item = m.items[0]!.id;
    const loc = m.locations[0]!.id;
    // What 1,000 restocks of 1,000,000 and a count to 0, twice over, then 1,000 more restocks leave behind
    // (each movement within its bounds); written straight away rather than sent 3,000 times.
    const at = new Date();
    const counts = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
    await tdb.insertInto('inventory_levels').values({ item_id: item, location_id: loc, quantity: 1_000_000_000 }).execute();
    await tdb
      .insertInto('inventory_history')
      .values(counts.map((id) => ({ id, item_id: item, location_id: loc, type: 'count' as const, quantity_change: -1_000_000_000, quantity_after: 0, note: null, user_id: null, created_at: at })))
      .execute();
    const before = await history();
    for (const ids of [[counts[0]!], counts]) {
      const r = await call('DELETE', '/inventories', { ids });
      expect(r).toMatchObject({ status: 422, body: { errors: { ids: ['The stock would be out of range.'] } } });
    }
    expect(await history()).toEqual(before);
    expect(await stock(item, loc)).toEqual({ quantity: 1_000_000_000 });
    // A movement past the bound is the same refusal on its quantity.
    expect(await call('POST', '/inventories', { item_id: item, location_id: loc, type: 'restock', quantity: 1 })).toMatchObject({ status: 422, body: { errors: { quantity: ['The stock would be out of range.'] } } });
  });

  test('bad quantities, another merchant\'s item or location, a location outside the grant: 4xx and nothing written', async () => {
    const item = m.items[1]!.id;
    const [loc0, loc1] = [m.locations[0]!.id, m.locations[1]!.id];
    const before = await history();
    for (const [body, field] of [
      [{ item_id: item, location_id: loc0, type: 'restock', quantity: 1.5 }, 'quantity'],
      [{ item_id: item, location_id: loc0, type: 'restock', quantity: '5' }, 'quantity'],
      [{ item_id: item, location_id: loc0, type: 'restock', quantity: 0 }, 'quantity'],
      [{ item_id: item, location_id: loc0, type: 'waste', quantity: -3 }, 'quantity'],
      [{ item_id: item, location_id: loc0, type: 'count', quantity: -1 }, 'quantity'],
      [{ item_id: item, location_id: loc0, type: 'restock', quantity: 1_000_001 }, 'quantity'],
      [{ item_id: item, location_id: loc0, type: 'steal', quantity: 1 }, 'type'],
      [{ item_id: other.items[0]!.id, location_id: loc0, type: 'restock', quantity: 1 }, 'item_id'],
      [{ item_id: item, location_id: other.locations[0]!.id, type: 'restock', quantity: 1 }, 'location_id'],
    ] as const) {
      const r = await call('POST', '/inventories', body);
      expect([field, r.status]).toEqual([field, 422]);
      expect(Object.keys(r.body.errors)).toEqual([field]);
    }
    const member = await makeMember(api, m, [], { locationIds: [loc1] });
    expect(await call('POST', '/inventories', { item_id: item, location_id: loc0, type: 'restock', quantity: 5 }, member.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await history()).toEqual(before);
  });
});
