import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { atOnce, sortedStatuses } from '../../testing/at-once.ts';

let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let tdb: TenantDb;
let owner: string;

const call = (method: string, path: string, body?: unknown, token = owner) => api.call(method, `/api/back-office${path}`, { token, body });
const item = (name: string) => m.items.find((i) => i.name === name)!.id;
const entries = async () => (await tdb.selectFrom('inventory_history').select('id').execute()).length;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('inventories');
  other = await api.seed('inventories-other');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

describe('inventories', () => {
  const loc = () => m.locations[0]!.id;
  test('movements move the stock; the overview and history show it', async () => {
    const r = await call('POST', '/inventories', { item_id: item('Croissant'), location_id: loc(), type: 'restock', quantity: 24, note: 'Morning delivery' });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      entry: { id: expect.any(String), item_id: item('Croissant'), location_id: loc(), type: 'restock', quantity_change: 24, quantity_after: 24, note: 'Morning delivery', user_id: expect.any(String), created_at: expect.any(String) },
      quantity: 24,
    });
    expect((await call('POST', '/inventories', { item_id: item('Croissant'), location_id: loc(), type: 'sale', quantity: 5 })).body.data.quantity).toBe(19);
    expect((await call('POST', '/inventories', { item_id: item('Croissant'), location_id: loc(), type: 'count', quantity: 17 })).body.data.entry).toMatchObject({ quantity_change: -2, quantity_after: 17 });
    const o = await call('GET', `/inventories?item_id=${item('Croissant')}&location_id=${loc()}`);
    expect(o.body.data).toEqual([{ item_id: item('Croissant'), item_name: 'Croissant', location_id: loc(), location_name: m.locations[0]!.name, quantity: 17, allow_negative_stock: false, updated_at: expect.any(String) }]);
    expect(o.body.history.map((h: { type: string; quantity_change: number }) => `${h.type}:${h.quantity_change}`)).toEqual(['count:-2', 'sale:-5', 'restock:24']);
    expect((await call('GET', '/inventories?search=croiss')).body.total).toBe(1);
  });

  test('stock never goes below zero unless the item allows it; nothing is written', async () => {
    const before = await entries();
    const r = await call('POST', '/inventories', { item_id: item('Croissant'), location_id: loc(), type: 'waste', quantity: 18 });
    expect(r).toMatchObject({ status: 422, body: { reason: 'insufficient_stock', errors: { quantity: ['Not enough stock: this item may not go below zero.'] } } });
    expect(await entries()).toBe(before);
    expect((await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', item('Croissant')).executeTakeFirstOrThrow()).quantity).toBe(17);
    await call('PUT', `/items/${item('Croissant')}`, { allow_negative_stock: true });
    expect((await call('POST', '/inventories', { item_id: item('Croissant'), location_id: loc(), type: 'sale', quantity: 18 })).body.data.quantity).toBe(-1);
    await call('PUT', `/items/${item('Croissant')}`, { allow_negative_stock: false });
    // Below zero with negative stock off: what raises it is accepted (before: 422), what lowers it is not.
    expect((await call('POST', '/inventories', { item_id: item('Croissant'), location_id: loc(), type: 'adjustment', quantity: -2 })).status).toBe(422);
    const restock = await call('POST', '/inventories', { item_id: item('Croissant'), location_id: loc(), type: 'restock', quantity: 1 });
    expect([restock.status, restock.body.data?.quantity]).toEqual([201, 0]);
    expect((await call('POST', '/inventories', { item_id: item('Croissant'), location_id: loc(), type: 'adjustment', quantity: -1 })).status).toBe(422);
  });

  test('deleting entries takes their change back out; foreign or unknown ids are a 422', async () => {
    const espresso = item('Espresso');
    const a = (await call('POST', '/inventories', { item_id: espresso, location_id: loc(), type: 'restock', quantity: 10 })).body.data.entry.id;
    const b = (await call('POST', '/inventories', { item_id: espresso, location_id: loc(), type: 'sale', quantity: 4 })).body.data.entry.id;
    // Removing the restock alone would leave -4: refused, nothing removed.
    expect(await call('DELETE', '/inventories', { ids: [a] })).toMatchObject({ status: 422, body: { reason: 'insufficient_stock' } });
    expect((await call('DELETE', '/inventories', { ids: [b, crypto.randomUUID()] })).body.errors).toEqual({ 'ids.1': ['The selected inventory history entry is invalid.'] });
    expect((await call('DELETE', '/inventories', { ids: [b] })).body).toEqual({ status: 'success', deleted: 1 });
    expect((await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', espresso).executeTakeFirstOrThrow()).quantity).toBe(10);
    expect((await call('DELETE', '/inventories', { ids: [a] })).body.deleted).toBe(1);
    expect((await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', espresso).executeTakeFirstOrThrow()).quantity).toBe(0);
  });

  test('the same entry deleted by two requests at once is taken out of the stock once; the later request answers as for an unknown id', async () => {
    const espresso = item('Espresso');
    const level = async () => (await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', espresso).where('location_id', '=', loc()).executeTakeFirstOrThrow()).quantity;
    for (let round = 0; round < 4; round++) {
      await call('POST', '/inventories', { item_id: espresso, location_id: loc(), type: 'restock', quantity: 10 });
      const base = await level();
      const e = (await call('POST', '/inventories', { item_id: espresso, location_id: loc(), type: 'restock', quantity: 5 })).body.data.entry.id;
      const rs = await atOnce(2, () => call('DELETE', '/inventories', { ids: [e] }));
      expect(sortedStatuses(rs)).toEqual([200, 422]);
      expect(rs.find((r) => r.status === 200)!.body).toEqual({ status: 'success', deleted: 1 });
      expect(rs.find((r) => r.status === 422)!.body).toEqual({ message: 'The selected inventory history entry is invalid.', errors: { 'ids.0': ['The selected inventory history entry is invalid.'] } });
      expect(await level()).toBe(base);
    }
  });

  test('another merchant\'s item or location is a 422; a location outside the grant is a 403', async () => {
    expect((await call('POST', '/inventories', { item_id: other.items[0]!.id, location_id: loc(), type: 'restock', quantity: 1 })).body.errors).toEqual({ item_id: ['The selected item id is invalid.'] });
    expect((await call('POST', '/inventories', { item_id: item('Espresso'), location_id: other.locations[0]!.id, type: 'restock', quantity: 1 })).body.errors).toEqual({ location_id: ['The selected location id is invalid.'] });
    expect((await call('POST', '/inventories', { item_id: item('Espresso'), location_id: loc(), type: 'restock', quantity: 1.5 })).status).toBe(422);
    const limited = await limitedUserToken(api, m, [], [m.locations[1]!.id]);
    expect(await call('POST', '/inventories', { item_id: item('Espresso'), location_id: loc(), type: 'restock', quantity: 1 }, limited)).toMatchObject({ status: 403 });
    expect((await call('GET', '/inventories', undefined, limited)).body.total).toBe(0);
    // A member granted the location gets its history whatever the id's case (before: null for an upper-case id).
    const granted = await limitedUserToken(api, m, [], [loc()]);
    const upper = await call('GET', `/inventories?item_id=${item('Croissant')}&location_id=${loc().toUpperCase()}`, undefined, granted);
    expect([upper.status, Array.isArray(upper.body.history)]).toEqual([200, true]);
  });

  test('restock, sale and waste take a positive quantity (a negative one is 422, never flipped), a JSON number (a string is 422); adjustment is signed', async () => {
    const some = m.items.find((i) => !['Croissant', 'Espresso'].includes(i.name))!.id;
    const level = async () => (await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', some).where('location_id', '=', loc()).executeTakeFirstOrThrow()).quantity;
    expect((await call('POST', '/inventories', { item_id: some, location_id: loc(), type: 'restock', quantity: 10 })).status).toBe(201);
    const before = await entries();
    for (const type of ['restock', 'sale', 'waste']) {
      for (const quantity of [-5, 0]) {
        expect(await call('POST', '/inventories', { item_id: some, location_id: loc(), type, quantity })).toMatchObject({ status: 422, body: { errors: { quantity: ['The quantity field must be at least 1.'] } } });
      }
    }
    // A number given as a string is refused, never converted ("0x10" is not 16, "5" not 5).
    for (const quantity of ['0x10', '1e3', '5']) {
      expect(await call('POST', '/inventories', { item_id: some, location_id: loc(), type: 'restock', quantity })).toMatchObject({ status: 422, body: { errors: { quantity: ['The quantity field is invalid: expected integer.'] } } });
    }
    expect(await entries()).toBe(before);
    expect(await level()).toBe(10);
    expect((await call('POST', '/inventories', { item_id: some, location_id: loc(), type: 'adjustment', quantity: -3 })).body.data).toMatchObject({ entry: { quantity_change: -3, quantity_after: 7 }, quantity: 7 });
  });
});
