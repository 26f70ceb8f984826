import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

/**
 * Catalog structure after a prober's pass (spec 1 "Items, categories, modifiers, variants, display
 * groups", "Offers"; decisions "Catalog structure after a prober's pass"): what a deleted item or
 * category leaves behind in offers and kitchen stations.
 */
let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let owner: string;
const call = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const loc0 = () => m.locations[0]!.id;
let seq = 0;
const newCategory = async () => (await call('POST', '/categories', { name: `Adv category ${++seq}` })).body.data.id as string;
const newItem = async (category_id: string | null = null) => (await call('POST', '/items', { name: `Adv item ${++seq}`, unit_price: 100, vat_rate: 21, category_id })).body.data.id as string;
const newOffer = async (item_ids: string[], category_ids: string[] = []) =>
  (await call('POST', '/offers', { name: `Adv offer ${++seq}`, rule: { kind: 'percentage', percent: 10 }, item_ids, category_ids })).body.data as { id: string; name: string };
const offerRow = (id: string) => tdb.selectFrom('offers').select(['item_ids', 'category_ids']).where('id', '=', id).executeTakeFirstOrThrow();
const exists = async (table: 'items' | 'categories', id: string) => !!(await tdb.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst());
/** The offer as GET answers it, sent back unchanged by PUT: what a back office does when a merchant saves the form. */
const resave = async (id: string) => {
  const { id: _id, status: _s, created_at: _c, updated_at: _u, ...body } = (await call('GET', `/offers/${id}`)).body.data;
  return call('PUT', `/offers/${id}`, body);
};

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('catalog-adv');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

describe('a deleted item or category and the offers that name it', () => {
  test('a deleted item leaves the offer\'s item_ids; the offer reads back and saves again (it was a 422 on item_ids.0)', async () => {
    const [gone, kept] = [await newItem(), await newItem()];
    const offer = await newOffer([gone, kept]);
    expect(await call('DELETE', `/items/${gone}`)).toMatchObject({ status: 200, body: { status: 'success' } });
    expect((await call('GET', `/offers/${offer.id}`)).body.data).toMatchObject({ item_ids: [kept], category_ids: [] });
    const saved = await resave(offer.id);
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ item_ids: [kept], category_ids: [] });
  });

  test('a deleted category leaves the offer\'s category_ids; its items stay', async () => {
    const [cat, other] = [await newCategory(), await newCategory()];
    const offer = await newOffer([], [cat, other]);
    expect((await call('DELETE', `/categories/${cat}`)).status).toBe(200);
    expect(await offerRow(offer.id)).toEqual({ item_ids: [], category_ids: [other] });
    expect((await resave(offer.id)).status).toBe(200);
  });

  test('deleting an offer\'s only target is 409 (the emptied offer would discount every item), nothing changed', async () => {
    const item = await newItem();
    const offer = await newOffer([item]);
    expect(await call('DELETE', `/items/${item}`)).toEqual(
      expect.objectContaining({ status: 409, body: { message: `The offer "${offer.name}" applies to this item only. Change or delete the offer first.`, reason: 'item_in_offer' } }),
    );
    expect(await exists('items', item)).toBe(true);
    expect(await offerRow(offer.id)).toEqual({ item_ids: [item], category_ids: [] });

    const cat = await newCategory();
    const byCat = await newOffer([], [cat]);
    expect(await call('DELETE', `/categories/${cat}`)).toEqual(
      expect.objectContaining({ status: 409, body: { message: `The offer "${byCat.name}" applies to this category only. Change or delete the offer first.`, reason: 'category_in_offer' } }),
    );
    expect(await exists('categories', cat)).toBe(true);

    // Archived offers too: unarchiving one would bring back an offer on every item.
    expect((await call('POST', `/offers/archive/${offer.id}`)).status).toBe(200);
    expect((await call('DELETE', `/items/${item}`)).status).toBe(409);
    // Once the offer no longer needs it, the item goes.
    expect((await call('DELETE', `/offers/${offer.id}`)).status).toBe(200);
    expect((await call('DELETE', `/items/${item}`)).status).toBe(200);
  });

  test('an offer naming a deleted item and a deleted category of that item loses both, in either order', async () => {
    const cat = await newCategory();
    const [item, kept] = [await newItem(cat), await newItem()];
    const offer = await newOffer([item, kept], [cat]);
    expect((await call('DELETE', `/categories/${cat}`)).status).toBe(200);
    expect((await call('DELETE', `/items/${item}`)).status).toBe(200);
    expect(await offerRow(offer.id)).toEqual({ item_ids: [kept], category_ids: [] });
  });

  test('an offer written with an item while the item is deleted: one of them wins whole, never a stale id', async () => {
    for (let round = 0; round < 4; round++) {
      const [item, kept] = [await newItem(), await newItem()];
      const [created, deleted] = await Promise.all([
        call('POST', '/offers', { name: `Race ${round}`, rule: { kind: 'percentage', percent: 5 }, item_ids: [item, kept] }),
        call('DELETE', `/items/${item}`),
      ]);
      expect(deleted.status).toBe(200);
      if (created.status === 201) expect(await offerRow(created.body.data.id)).toEqual({ item_ids: [kept], category_ids: [] });
      else expect(created).toMatchObject({ status: 422, body: { errors: { 'item_ids.0': ['The selected item is invalid.'] } } });
    }
  });
});

describe('a deleted category and the kitchen stations that serve it', () => {
  const station = (category_ids: string[]) => call('POST', '/devices/stations', { location_id: loc0(), name: `Adv station ${++seq}`, category_ids });

  test('the category leaves the station\'s list; the station reads back and saves again (it was a 404 on the stale id)', async () => {
    const [gone, kept] = [await newCategory(), await newCategory()];
    const st = (await station([gone, kept])).body.data.id;
    expect((await call('DELETE', `/categories/${gone}`)).status).toBe(200);
    const shown = await call('GET', `/devices/stations/${st}`);
    expect(shown.body.data.category_ids).toEqual([kept]);
    const saved = await call('PUT', `/devices/stations/${st}`, { category_ids: shown.body.data.category_ids });
    expect(saved.status).toBe(200);
    expect(saved.body.data.category_ids).toEqual([kept]);
  });

  test('a station saved with a category while it is deleted: the station never keeps the deleted id', async () => {
    for (let round = 0; round < 4; round++) {
      const [cat, kept] = [await newCategory(), await newCategory()];
      const st = (await station([kept])).body.data.id;
      const [saved, deleted] = await Promise.all([call('PUT', `/devices/stations/${st}`, { category_ids: [cat, kept] }), call('DELETE', `/categories/${cat}`)]);
      expect(deleted.status).toBe(200);
      expect([200, 404]).toContain(saved.status);
      const row = await tdb.selectFrom('kitchen_stations').select('category_ids').where('id', '=', st).executeTakeFirstOrThrow();
      expect(row.category_ids).toEqual([kept]);
    }
  });
});

describe('ids that earlier deletions left behind', () => {
  test('migration 2026-11-30-301 takes them out of offers and stations, except from an offer they would empty', async () => {
    const { up } = await import('@pos/db/migrations/tenant/2026-11-30-301-forget-deleted-targets');
    const [kept, cat] = [await newItem(), await newCategory()];
    const [staleItem, staleCat] = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
    const mixed = await newOffer([kept], [cat]);
    const onlyStale = await newOffer([kept]);
    await tdb.updateTable('offers').set({ item_ids: [kept, staleItem], category_ids: [staleCat, cat] }).where('id', '=', mixed.id).execute();
    await tdb.updateTable('offers').set({ item_ids: [staleItem], category_ids: [] }).where('id', '=', onlyStale.id).execute();
    const st = (await call('POST', '/devices/stations', { location_id: loc0(), name: `Adv station ${++seq}`, category_ids: [cat] })).body.data.id;
    await tdb.updateTable('kitchen_stations').set({ category_ids: [staleCat, cat] }).where('id', '=', st).execute();
    await up(tdb as never);
    expect(await offerRow(mixed.id)).toEqual({ item_ids: [kept], category_ids: [cat] });
    expect(await offerRow(onlyStale.id)).toEqual({ item_ids: [staleItem], category_ids: [] });
    expect((await tdb.selectFrom('kitchen_stations').select('category_ids').where('id', '=', st).executeTakeFirstOrThrow()).category_ids).toEqual([cat]);
    expect((await resave(mixed.id)).status).toBe(200);
  });
});

describe('modifier groups that could never be satisfied', () => {
  const count = async () => Number((await tdb.selectFrom('modifier_groups').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const refusal = { status: 422, body: { message: 'The min select must be 0 when the group has no modifiers.', errors: { min_select: ['The min select must be 0 when the group has no modifiers.'] } } };

  test('a group requiring a selection with no modifiers is a 422 on min_select, nothing written (it was stored, and no item using it could be ordered)', async () => {
    const before = await count();
    expect(await call('POST', '/modifier-groups', { name: 'Empty required', min_select: 1, max_select: 1, modifiers: [] })).toMatchObject(refusal);
    expect(await count()).toBe(before);
    expect((await call('POST', '/modifier-groups', { name: 'Empty optional', min_select: 0, max_select: 1, modifiers: [] })).status).toBe(201);
  });

  test('an update emptying a required group, or requiring a selection of an empty one, is the same 422 and changes nothing', async () => {
    const g = (await call('POST', '/modifier-groups', { name: 'Sauce adv', min_select: 1, max_select: 2, modifiers: [{ name: 'Mayo', price: 50 }] })).body.data;
    expect(await call('PUT', `/modifier-groups/${g.id}`, { modifiers: [] })).toMatchObject(refusal);
    expect((await call('GET', `/modifier-groups/${g.id}`)).body.data.modifiers.map((x: { name: string }) => x.name)).toEqual(['Mayo']);
    expect((await call('PUT', `/modifier-groups/${g.id}`, { min_select: 0, modifiers: [] })).status).toBe(200);
    expect(await call('PUT', `/modifier-groups/${g.id}`, { min_select: 1 })).toMatchObject(refusal);
    expect((await call('PUT', `/modifier-groups/${g.id}`, { min_select: 1, modifiers: [{ name: 'Ketchup', price: 0 }] })).body.data).toMatchObject({ min_select: 1, modifiers: [{ name: 'Ketchup' }] });
  });
});

describe('names within one group', () => {
  test('two variants of one name (any case, spaces trimmed) are a 422 on variants.name.N, nothing written; the same name in another group is fine', async () => {
    const item = await newItem();
    const groups = async () => Number((await tdb.selectFrom('variant_groups').select((eb) => eb.fn.countAll().as('n')).where('item_id', '=', item).executeTakeFirstOrThrow()).n);
    expect(await call('POST', '/variant-groups', { item_id: item, name: 'Size', variants: [{ name: 'Large', unit_price: 400 }, { name: ' large ', unit_price: 300 }] })).toMatchObject({
      status: 422,
      body: { errors: { 'variants.name.1': ['The variants.name.1 field has a duplicate value.'] } },
    });
    expect(await groups()).toBe(0);
    const g = (await call('POST', '/variant-groups', { item_id: item, name: 'Size', variants: [{ name: 'Small', unit_price: 300 }, { name: 'Large', unit_price: 400 }] })).body.data;
    expect((await call('PUT', `/variant-groups/${g.id}`, { variants: [{ id: g.variants[0].id, name: 'Large', unit_price: 300 }, { id: g.variants[1].id, name: 'Large', unit_price: 400 }] })).status).toBe(422);
    expect((await call('GET', `/variant-groups/${g.id}`)).body.data.variants.map((v: { name: string }) => v.name)).toEqual(['Small', 'Large']);
  });

  test('two modifiers of one name in a group are a 422 on modifiers.name.N, nothing written', async () => {
    const before = Number((await tdb.selectFrom('modifier_groups').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(await call('POST', '/modifier-groups', { name: 'Dup sauce', min_select: 0, max_select: 2, modifiers: [{ name: 'Mayo', price: 50 }, { name: 'MAYO', price: 0 }] })).toMatchObject({
      status: 422,
      body: { errors: { 'modifiers.name.1': ['The modifiers.name.1 field has a duplicate value.'] } },
    });
    expect(Number((await tdb.selectFrom('modifier_groups').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(before);
    const g = (await call('POST', '/modifier-groups', { name: 'Dup sauce', min_select: 0, max_select: 2, modifiers: [{ name: 'Mayo', price: 50 }] })).body.data;
    expect((await call('PUT', `/modifier-groups/${g.id}`, { modifiers: [{ id: g.modifiers[0].id, name: 'Mayo', price: 50 }, { name: 'mayo', price: 10 }] })).status).toBe(422);
    expect((await call('GET', `/modifier-groups/${g.id}`)).body.data.modifiers).toHaveLength(1);
  });
});

describe('items a basket line could never order', () => {
  const TOO_MANY = 'An item has at most 20 variant groups: a basket line names one variant of each.';
  const OVER = 'The modifier groups of an item may ask for at most 50 choices together: a basket line carries no more.';

  test('a 21st variant group of an item is a 422 on item_id, nothing written (a line names at most 20)', async () => {
    const item = await newItem();
    for (let i = 0; i < 20; i++) expect((await call('POST', '/variant-groups', { item_id: item, name: `G${i}`, variants: [{ name: 'One', unit_price: 100 }] })).status).toBe(201);
    // Before: 201, and no basket could then name a variant of every group (the item unsellable).
    expect(await call('POST', '/variant-groups', { item_id: item, name: 'G20', variants: [{ name: 'One', unit_price: 100 }] })).toMatchObject({ status: 422, body: { errors: { item_id: [TOO_MANY] } } });
    expect(Number((await tdb.selectFrom('variant_groups').select((eb) => eb.fn.countAll().as('n')).where('item_id', '=', item).executeTakeFirstOrThrow()).n)).toBe(20);
  });

  test('modifier groups whose minimums add up past 50 on one item: the item write and the group edit are 422, nothing written', async () => {
    const mods = Array.from({ length: 40 }, (_, i) => ({ name: `M${i}`, price: 10 }));
    const a = (await call('POST', '/modifier-groups', { name: `Big A ${++seq}`, min_select: 30, max_select: 40, modifiers: mods })).body.data.id as string;
    const b = (await call('POST', '/modifier-groups', { name: `Big B ${++seq}`, min_select: 20, max_select: 40, modifiers: mods })).body.data.id as string;
    const c = (await call('POST', '/modifier-groups', { name: `Big C ${++seq}`, min_select: 30, max_select: 40, modifiers: mods })).body.data.id as string;
    const item = await newItem();
    const links = () => tdb.selectFrom('item_modifier_groups').select('modifier_group_id').where('item_id', '=', item).execute();
    // 30 + 30: more than a line carries. Before: 200, the item unsellable on every customer channel.
    expect(await call('PUT', `/items/${item}`, { modifier_group_ids: [a, c] })).toMatchObject({ status: 422, body: { errors: { modifier_group_ids: [OVER] } } });
    expect(await links()).toEqual([]);
    expect((await call('PUT', `/items/${item}`, { modifier_group_ids: [a, b] })).status).toBe(200);
    // Raising one of them past it from the group's side is refused the same way.
    expect(await call('PUT', `/modifier-groups/${b}`, { min_select: 21 })).toMatchObject({ status: 422, body: { errors: { min_select: [OVER] } } });
    expect((await tdb.selectFrom('modifier_groups').select('min_select').where('id', '=', b).executeTakeFirstOrThrow()).min_select).toBe(20);
  });
});

// Spec 1 section 5: permissions are scoped to the granted locations. Deleting a category changes the
// offers, kitchen stations and items naming it, so it needs each of them within the caller's grant,
// as their own writes do (docs/decisions.md, "A category is deleted only within the grant").
describe('a deleted category and the caller\'s location grant', () => {
  const FORBIDDEN = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
  const loc1 = () => m.locations[1]!.id;
  const offerAt = async (location_ids: string[] | null, category_ids: string[]) =>
    (await call('POST', '/offers', { name: `Grant offer ${++seq}`, rule: { kind: 'percentage', percent: 10 }, item_ids: [], category_ids, location_ids })).body.data.id as string;
  const stationAt = async (location_id: string, category_ids: string[]) => (await call('POST', '/devices/stations', { location_id, name: `Grant station ${++seq}`, category_ids })).body.data.id as string;
  const itemAt = async (location_ids: string[] | null, category_id: string) =>
    (await call('POST', '/items', { name: `Grant item ${++seq}`, unit_price: 100, vat_rate: 21, category_id, location_ids })).body.data.id as string;
  const stationCategories = async (id: string) => (await tdb.selectFrom('kitchen_stations').select('category_ids').where('id', '=', id).executeTakeFirstOrThrow()).category_ids;
  const itemCategory = async (id: string) => (await tdb.selectFrom('items').select('category_id').where('id', '=', id).executeTakeFirstOrThrow()).category_id;

  test('DELETE_CATEGORIES at loc1: refused while a loc0 offer, station or item names the category (nothing changed); within the grant it goes', async () => {
    const member = await limitedUserToken(api, m, ['DELETE_CATEGORIES'], [loc1()]);
    const del = async (id: string) => {
      const r = await api.call('DELETE', `/api/back-office/categories/${id}`, { token: member });
      return { status: r.status, body: r.body };
    };
    const other = await newCategory();

    const byOffer = await newCategory();
    const offer = await offerAt([loc0()], [byOffer, other]);
    expect(await del(byOffer)).toEqual(FORBIDDEN);
    expect(await offerRow(offer)).toEqual({ item_ids: [], category_ids: [byOffer, other] });
    expect(await exists('categories', byOffer)).toBe(true);
    const everywhere = await newCategory();
    await offerAt(null, [everywhere, other]);
    expect(await del(everywhere)).toEqual(FORBIDDEN);

    const byStation = await newCategory();
    const station = await stationAt(loc0(), [byStation, other]);
    expect(await del(byStation)).toEqual(FORBIDDEN);
    expect((await stationCategories(station)).sort()).toEqual([byStation, other].sort());

    const byItem = await newCategory();
    const item = await itemAt([loc0()], byItem);
    expect(await del(byItem)).toEqual(FORBIDDEN);
    expect(await itemCategory(item)).toBe(byItem);
    const byItemEverywhere = await newCategory();
    const itemEverywhere = await itemAt(null, byItemEverywhere);
    expect(await del(byItemEverywhere)).toEqual(FORBIDDEN);
    expect(await itemCategory(itemEverywhere)).toBe(byItemEverywhere);

    // Only loc1's offer, station and item: the member's to delete, and each loses the category.
    const mine = await newCategory();
    const [o1, s1, i1] = [await offerAt([loc1()], [mine, other]), await stationAt(loc1(), [mine, other]), await itemAt([loc1()], mine)];
    expect(await del(mine)).toEqual({ status: 200, body: { status: 'success' } });
    expect(await offerRow(o1)).toEqual({ item_ids: [], category_ids: [other] });
    expect(await stationCategories(s1)).toEqual([other]);
    expect(await itemCategory(i1)).toBeNull();
    expect(await exists('categories', mine)).toBe(false);
  });

  test('DELETE_ITEMS at loc1: a loc1 item a loc0 offer names is not deleted (the offer would narrow); named by a loc1 offer only, it goes', async () => {
    const member = await limitedUserToken(api, m, ['DELETE_ITEMS'], [loc1()]);
    const cat = await newCategory();
    const item = await itemAt([loc1()], cat);
    const spare = await itemAt([loc1()], cat);
    const offer = (await call('POST', '/offers', { name: `Grant offer ${++seq}`, rule: { kind: 'percentage', percent: 10 }, item_ids: [item, spare], category_ids: [], location_ids: [loc0()] })).body.data.id as string;
    const r = await api.call('DELETE', `/api/back-office/items/${item}`, { token: member });
    expect({ status: r.status, body: r.body }).toEqual(FORBIDDEN);
    expect(await offerRow(offer)).toEqual({ item_ids: [item, spare], category_ids: [] });
    expect(await exists('items', item)).toBe(true);

    const own = (await call('POST', '/offers', { name: `Grant offer ${++seq}`, rule: { kind: 'percentage', percent: 10 }, item_ids: [spare, item], category_ids: [], location_ids: [loc1()] })).body.data.id as string;
    await call('PUT', `/offers/${offer}`, { item_ids: [item], category_ids: [cat] });
    const ok = await api.call('DELETE', `/api/back-office/items/${spare}`, { token: member });
    expect(ok.status).toBe(200);
    expect(await offerRow(own)).toEqual({ item_ids: [item], category_ids: [] });
  });
});
