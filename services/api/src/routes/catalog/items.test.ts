import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let tdb: TenantDb;
let owner: string;
let drinks: string;

const call = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const count = async (table: 'items' | 'item_modifier_groups') => Number((await tdb.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('items');
  other = await api.seed('items-other');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
  drinks = (await tdb.selectFrom('categories').select('id').where('name', '=', 'Drinks').executeTakeFirstOrThrow()).id;
});
afterAll(() => api.close());

describe('items CRUD', () => {
  let id: string;
  test('POST /items creates an item and answers it whole', async () => {
    const r = await call('POST', '/items', { name: 'Iced tea', unit_price: 350, vat_rate: 6, category_id: drinks, allergens: ['milk'], dietary: ['vegan'], channels: ['pos', 'kiosk'], sku: 'IT-1' });
    expect(r.status).toBe(201);
    id = r.body.data.id;
    expect(r.body).toEqual({
      data: {
        id: expect.any(String),
        name: 'Iced tea',
        description: null,
        sku: 'IT-1',
        unit_price: 350,
        vat_rate: 6,
        category_id: drinks,
        category: { id: drinks, name: 'Drinks' },
        allergens: ['milk'],
        dietary: ['vegan'],
        channels: ['pos', 'kiosk'],
        location_ids: null,
        visible: true,
        allow_negative_stock: false,
        image_content_id: null,
        modifier_group_ids: [],
        variant_groups: [],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect((await call('GET', `/items/${id}`)).body).toEqual(r.body);
  });

  test('PUT /items/{id} is partial; DELETE removes it', async () => {
    const r = await call('PUT', `/items/${id}`, { unit_price: 375, category_id: null });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: 'Iced tea', unit_price: 375, category_id: null, category: null, sku: 'IT-1' });
    expect((await call('DELETE', `/items/${id}`)).body).toEqual({ status: 'success' });
    expect(await call('GET', `/items/${id}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the item you requested.' } });
  });

  test('unknown, malformed and foreign ids are 404', async () => {
    for (const bad of [crypto.randomUUID(), 'not-a-uuid', other.items[0]!.id]) {
      expect(await call('GET', `/items/${bad}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the item you requested.' } });
      expect((await call('PUT', `/items/${bad}`, { unit_price: 1 })).status).toBe(404);
    }
  });
});

describe('bad input is a 422 on the field and nothing is written', () => {
  const base = { name: 'Bad', unit_price: 100, vat_rate: 21, category_id: null };
  const cases: [string, Record<string, unknown>, string][] = [
    ['a price below zero', { unit_price: -1 }, 'unit_price'],
    ['a fractional price', { unit_price: 1.5 }, 'unit_price'],
    ['a VAT rate the merchant does not have', { vat_rate: 7 }, 'vat_rate'],
    ['a category that does not exist', { category_id: crypto.randomUUID() }, 'category_id'],
    ['an unknown allergen', { allergens: ['gluten', 'plutonium'] }, 'allergens.1'],
    ['an unknown dietary tag', { dietary: ['carnivore'] }, 'dietary.0'],
    ['an unknown channel', { channels: ['fax'] }, 'channels.0'],
    ['a modifier group that does not exist', { modifier_group_ids: [crypto.randomUUID()] }, 'modifier_group_ids.0'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a NUL byte', { description: 'a\u0000b' }, 'description'],
    ['an unknown key', { colour: 'red' }, 'colour'],
  ];
  for (const [label, patch, field] of cases) {
    test(label, async () => {
      const before = await count('items');
      const r = await call('POST', '/items', { ...base, ...patch });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toContain(field);
      expect(await count('items')).toBe(before);
    });
  }

  test('another merchant\'s category, location or modifier group is a 422 on the field', async () => {
    const otherDb = bindTenant(api.deps.db, other.merchant.tenant_database);
    const cat = (await otherDb.selectFrom('categories').select('id').executeTakeFirstOrThrow()).id;
    expect((await call('POST', '/items', { ...base, category_id: cat })).body.errors).toEqual({ category_id: ['The selected category id is invalid.'] });
    expect((await call('POST', '/items', { ...base, location_ids: [m.locations[0]!.id, other.locations[0]!.id] })).body.errors).toEqual({ 'location_ids.1': ['The selected location is invalid.'] });
  });

  test('an update that fails leaves the item as it was, modifier links included', async () => {
    const item = m.items[0]!;
    const links = await count('item_modifier_groups');
    const r = await call('PUT', `/items/${item.id}`, { unit_price: 999, modifier_group_ids: [crypto.randomUUID()] });
    expect(r.status).toBe(422);
    expect((await tdb.selectFrom('items').select('unit_price').where('id', '=', item.id).executeTakeFirstOrThrow()).unit_price).toBe(item.unit_price);
    expect(await count('item_modifier_groups')).toBe(links);
  });
});

describe('GET /items/datatable and /items/options', () => {
  test('page, per_page, search, sort and filters', async () => {
    const r = await call('GET', '/items/datatable?per_page=2&sort=-unit_price');
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(6);
    expect(r.body.page).toBe(1);
    expect(r.body.per_page).toBe(2);
    expect(r.body.data.map((i: { name: string }) => i.name)).toEqual(['Spaghetti bolognese', 'Belgian beer']);
    const p2 = await call('GET', '/items/datatable?per_page=2&page=2&sort=-unit_price');
    expect(p2.body.data.map((i: { name: string }) => i.name)).toEqual(['Fries with mayonnaise', 'Sparkling water']);
    const s = await call('GET', '/items/datatable?search=BEER');
    expect(s.body.data.map((i: { name: string }) => i.name)).toEqual(['Belgian beer']);
    const f = await call('GET', `/items/datatable?category_id=${drinks}&sort=name`);
    expect(f.body.data.map((i: { name: string }) => i.name)).toEqual(['Belgian beer', 'Espresso', 'Sparkling water']);
    const pct = await call('GET', '/items/datatable?search=%25');
    expect(pct.status, pct.text).toBe(200);
    expect(pct.body.total).toBe(0);
    expect((await call('GET', '/items/datatable?per_page=101')).status).toBe(422);
  });

  test('options are value/label/unit_price by name', async () => {
    const r = await call('GET', '/items/options?search=ess');
    expect(r.body).toEqual({
      data: [
        { value: m.items.find((i) => i.name === 'Espresso')!.id, label: 'Espresso', unit_price: 280 },
      ],
    });
  });
});

describe('an item edit is live on the register', () => {
  test('a new price shows in the next bootstrap (published catalog rewritten, cache moved on)', async () => {
    const pos = await api.deviceToken(m, 'pos');
    const espresso = m.items.find((i) => i.name === 'Espresso')!;
    const price = async () => {
      const b = await api.call('GET', '/api/pos/bootstrap', { token: pos, deviceKey: true });
      return b.body.display_groups.flatMap((g: { items: { id: string; unit_price: number }[] }) => g.items).find((i: { id: string }) => i.id === espresso.id)?.unit_price;
    };
    expect(await price()).toBe(280);
    await call('PUT', `/items/${espresso.id}`, { unit_price: 300 });
    expect(await price()).toBe(300);
    await call('PUT', `/items/${espresso.id}`, { channels: ['kiosk'] });
    expect(await price()).toBeUndefined();
    await call('PUT', `/items/${espresso.id}`, { channels: ['pos', 'kiosk'], unit_price: 280 });
    expect(await price()).toBe(280);
  });
});

describe('item writes follow the location grant (as offers and menus)', () => {
  const FORBIDDEN = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
  const ALL = ['VIEW_ITEMS', 'CREATE_ITEMS', 'EDIT_ITEMS', 'DELETE_ITEMS', 'CREATE_VARIANT_GROUPS', 'EDIT_VARIANT_GROUPS', 'DELETE_VARIANT_GROUPS'];
  const as = (token: string, method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token, body });
  const priceOf = async (id: string) => (await tdb.selectFrom('items').select('unit_price').where('id', '=', id).executeTakeFirstOrThrow()).unit_price;

  test('a member granted only location 1 cannot reprice, move or delete an item sold at location 0, nor one sold everywhere', async () => {
    const [l0, l1] = [m.locations[0]!.id, m.locations[1]!.id];
    const atL0 = (await call('POST', '/items', { name: 'Only at 0', unit_price: 400, vat_rate: 21, category_id: null, location_ids: [l0] })).body.data.id;
    const everywhere = (await call('POST', '/items', { name: 'Everywhere', unit_price: 400, vat_rate: 21, category_id: null })).body.data.id;
    const member = await makeMember(api, m, ALL, { locationIds: [l1] });
    for (const id of [atL0, everywhere]) {
      expect(await as(member.token, 'PUT', `/items/${id}`, { unit_price: 1 })).toMatchObject(FORBIDDEN);
      expect(await as(member.token, 'PUT', `/items/${id}`, { location_ids: [l1] })).toMatchObject(FORBIDDEN);
      expect(await as(member.token, 'DELETE', `/items/${id}`)).toMatchObject(FORBIDDEN);
      expect(await priceOf(id)).toBe(400);
    }
    // The item's own location set is checked too: an item of location 1 cannot be moved to location 0 or to every location.
    const atL1 = (await as(member.token, 'POST', '/items', { name: 'Only at 1', unit_price: 400, vat_rate: 21, category_id: null, location_ids: [l1] })).body.data.id;
    expect(await as(member.token, 'PUT', `/items/${atL1}`, { location_ids: [l0, l1] })).toMatchObject(FORBIDDEN);
    expect(await as(member.token, 'PUT', `/items/${atL1}`, { location_ids: null })).toMatchObject(FORBIDDEN);
    expect(await as(member.token, 'PUT', `/items/${atL1}`, { unit_price: 450 })).toMatchObject({ status: 200, body: { data: { unit_price: 450, location_ids: [l1] } } });
    expect((await as(member.token, 'DELETE', `/items/${atL1}`)).status).toBe(200);
  });

  test('a member granted only location 1 cannot create an item for location 0, nor one for every location', async () => {
    const [l0, l1] = [m.locations[0]!.id, m.locations[1]!.id];
    const member = await makeMember(api, m, ['CREATE_ITEMS'], { locationIds: [l1] });
    const before = await count('items');
    const body = { name: 'Sneaky', unit_price: 1, vat_rate: 21, category_id: null };
    expect(await as(member.token, 'POST', '/items', { ...body, location_ids: [l0] })).toMatchObject(FORBIDDEN);
    expect(await as(member.token, 'POST', '/items', body)).toMatchObject(FORBIDDEN);
    expect(await count('items')).toBe(before);
    // An unknown location is still the 422 on its field.
    expect((await as(member.token, 'POST', '/items', { ...body, location_ids: [crypto.randomUUID()] })).body.errors).toEqual({ 'location_ids.0': ['The selected location is invalid.'] });
    // A member holding every location (global user) may create one for every location.
    const global = await makeMember(api, m, ['CREATE_ITEMS'], { locationIds: [], allLocations: true });
    expect((await as(global.token, 'POST', '/items', body)).status).toBe(201);
  });

  test("variant groups are written only within their item's locations", async () => {
    const [l0, l1] = [m.locations[0]!.id, m.locations[1]!.id];
    const atL0 = (await call('POST', '/items', { name: 'Sized at 0', unit_price: 400, vat_rate: 21, category_id: null, location_ids: [l0] })).body.data.id;
    const g = (await call('POST', '/variant-groups', { item_id: atL0, name: 'Size', variants: [{ name: 'S', unit_price: 300 }] })).body.data;
    const member = await makeMember(api, m, ALL, { locationIds: [l1] });
    expect(await as(member.token, 'POST', '/variant-groups', { item_id: atL0, name: 'Cheap', variants: [{ name: 'X', unit_price: 1 }] })).toMatchObject(FORBIDDEN);
    expect(await as(member.token, 'PUT', `/variant-groups/${g.id}`, { variants: [{ id: g.variants[0].id, name: 'S', unit_price: 1 }] })).toMatchObject(FORBIDDEN);
    expect(await as(member.token, 'DELETE', `/variant-groups/${g.id}`)).toMatchObject(FORBIDDEN);
    expect((await call('GET', `/variant-groups/${g.id}`)).body.data.variants).toEqual([{ id: g.variants[0].id, name: 'S', unit_price: 300, position: 0 }]);
    expect(await tdb.selectFrom('variant_groups').select('id').where('item_id', '=', atL0).execute()).toHaveLength(1);
  });

  test('modifier groups are changed or deleted only within the locations of the items using them', async () => {
    const [l0, l1] = [m.locations[0]!.id, m.locations[1]!.id];
    const group = async (name: string) => (await call('POST', '/modifier-groups', { name, min_select: 0, max_select: 1, modifiers: [{ name: 'Extra shot', price: 80 }] })).body.data;
    const [atL0Group, atL1Group, unused] = [await group('Used at 0'), await group('Used at 1'), await group('Unused')];
    await call('POST', '/items', { name: 'Latte at 0', unit_price: 400, vat_rate: 21, category_id: null, location_ids: [l0], modifier_group_ids: [atL0Group.id] });
    await call('POST', '/items', { name: 'Latte at 1', unit_price: 400, vat_rate: 21, category_id: null, location_ids: [l1], modifier_group_ids: [atL1Group.id] });
    const member = await makeMember(api, m, ['VIEW_MODIFIER_GROUPS', 'EDIT_MODIFIER_GROUPS', 'DELETE_MODIFIER_GROUPS'], { locationIds: [l1] });
    const free = { modifiers: [{ id: atL0Group.modifiers[0].id, name: 'Extra shot', price: 0 }] };
    expect(await as(member.token, 'PUT', `/modifier-groups/${atL0Group.id}`, free)).toMatchObject(FORBIDDEN);
    expect(await as(member.token, 'DELETE', `/modifier-groups/${atL0Group.id}`)).toMatchObject(FORBIDDEN);
    expect((await call('GET', `/modifier-groups/${atL0Group.id}`)).body.data.modifiers).toEqual([{ id: atL0Group.modifiers[0].id, name: 'Extra shot', price: 80, position: 0 }]);
    // Groups used only within the grant, or by no item, stay the member's to change.
    expect(await as(member.token, 'PUT', `/modifier-groups/${atL1Group.id}`, { modifiers: [{ id: atL1Group.modifiers[0].id, name: 'Extra shot', price: 90 }] })).toMatchObject({ status: 200, body: { data: { modifiers: [{ price: 90 }] } } });
    expect((await as(member.token, 'DELETE', `/modifier-groups/${unused.id}`)).status).toBe(200);
  });
});
