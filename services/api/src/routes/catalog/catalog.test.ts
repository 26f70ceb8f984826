import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { sortedStatuses } from '../../testing/at-once.ts';

let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let tdb: TenantDb;
let owner: string;

const call = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const n = async (table: 'modifier_groups' | 'modifiers' | 'categories' | 'variant_groups' | 'tax_rates') => Number((await tdb.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('catalog');
  other = await api.seed('catalog-other');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

describe('categories', () => {
  test('CRUD, unique names, datatable and options', async () => {
    const r = await call('POST', '/categories', { name: 'Desserts', description: 'Sweet', position: 5 });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({ id: expect.any(String), name: 'Desserts', description: 'Sweet', position: 5, items_count: 0, created_at: expect.any(String), updated_at: expect.any(String) });
    expect(await call('POST', '/categories', { name: 'desserts' })).toMatchObject({ status: 422, body: { errors: { name: ['The name has already been taken.'] } } });
    const table = await call('GET', '/categories/datatable?sort=name');
    expect(table.body.data.map((c: { name: string; items_count: number }) => `${c.name}:${c.items_count}`)).toEqual(['Desserts:0', 'Drinks:3', 'Food:3']);
    expect(table.body.total).toBe(3);
    expect((await call('GET', '/categories/options')).body.data.map((o: { label: string }) => o.label)).toEqual(['Drinks', 'Food', 'Desserts']);
    expect((await call('PUT', `/categories/${r.body.data.id}`, { name: 'Puddings' })).body.data.name).toBe('Puddings');
    expect((await call('DELETE', `/categories/${r.body.data.id}`)).body).toEqual({ status: 'success' });
    expect(await call('GET', `/categories/${r.body.data.id}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the category you requested.' } });
  });

  test('a rename is carried to the items; deleting a category keeps its items', async () => {
    const food = (await tdb.selectFrom('categories').select('id').where('name', '=', 'Food').executeTakeFirstOrThrow()).id;
    await call('PUT', `/categories/${food}`, { name: 'Kitchen' });
    const croissant = m.items.find((i) => i.name === 'Croissant')!.id;
    expect((await tdb.selectFrom('items').select('category').where('id', '=', croissant).executeTakeFirstOrThrow()).category).toBe('Kitchen');
    expect((await call('GET', `/items/${croissant}`)).body.data.category).toEqual({ id: food, name: 'Kitchen' });
  });
});

describe('modifier groups', () => {
  test('create with ordered modifiers; min above max is a 422 on min_select and nothing is written', async () => {
    const before = [await n('modifier_groups'), await n('modifiers')];
    expect(await call('POST', '/modifier-groups', { name: 'Sauce', min_select: 3, max_select: 2, modifiers: [{ name: 'Mayo', price: 50 }] })).toMatchObject({
      status: 422,
      body: { errors: { min_select: ['The min select may not be greater than the max select.'] } },
    });
    expect((await call('POST', '/modifier-groups', { name: 'Sauce', min_select: 0, max_select: 1, modifiers: [{ name: 'Mayo', price: -5 }] })).body.errors).toHaveProperty(['modifiers.0.price']);
    expect([await n('modifier_groups'), await n('modifiers')]).toEqual(before);

    const r = await call('POST', '/modifier-groups', { name: 'Sauce', min_select: 0, max_select: 2, modifiers: [{ name: 'Mayo', price: 50 }, { name: 'Ketchup', price: 0 }] });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.any(String),
      name: 'Sauce',
      min_select: 0,
      max_select: 2,
      position: 0,
      modifiers: [
        { id: expect.any(String), name: 'Mayo', price: 50, position: 0 },
        { id: expect.any(String), name: 'Ketchup', price: 0, position: 1 },
      ],
      items_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = r.body.data.id;
    const mayo = r.body.data.modifiers[0].id;
    // Update: min against the stored max, modifiers replaced (an id keeps one), a foreign modifier id refused.
    expect((await call('PUT', `/modifier-groups/${id}`, { min_select: 3 })).status).toBe(422);
    const u = await call('PUT', `/modifier-groups/${id}`, { modifiers: [{ name: 'Andalouse', price: 60 }, { id: mayo, name: 'Mayonnaise', price: 55 }] });
    expect(u.body.data.modifiers.map((x: { id: string; name: string; price: number }) => [x.id === mayo, x.name, x.price])).toEqual([
      [false, 'Andalouse', 60],
      [true, 'Mayonnaise', 55],
    ]);
    expect((await call('PUT', `/modifier-groups/${id}`, { modifiers: [{ id: crypto.randomUUID(), name: 'X', price: 1 }] })).body.errors).toEqual({ 'modifiers.0.id': ['The selected modifiers.0.id is invalid.'] });
    expect((await call('GET', '/modifiers')).body.data.map((x: { name: string; modifier_group: string }) => `${x.modifier_group}/${x.name}`)).toEqual(['Sauce/Andalouse', 'Sauce/Mayonnaise']);
  });

  test('reorder puts the listed groups first; an unknown or foreign id is a 422', async () => {
    const a = (await call('POST', '/modifier-groups', { name: 'Size', min_select: 1, max_select: 1, modifiers: [{ name: 'Small', price: 0 }] })).body.data.id;
    const b = (await call('POST', '/modifier-groups', { name: 'Extras', min_select: 0, max_select: 5, modifiers: [] })).body.data.id;
    const r = await call('PUT', '/modifier-groups/reorder', { ids: [b, a] });
    expect(r.body.data.map((g: { name: string; position: number }) => `${g.position}:${g.name}`)).toEqual(['0:Extras', '1:Size', '2:Sauce']);
    const foreign = await bindTenant(api.deps.db, other.merchant.tenant_database).selectFrom('locations').select('id').executeTakeFirstOrThrow();
    expect((await call('PUT', '/modifier-groups/reorder', { ids: [a, foreign.id] })).body.errors).toEqual({ 'ids.1': ['The selected modifier group is invalid.'] });
    expect((await call('GET', '/modifier-groups')).body.data.map((g: { name: string }) => g.name)).toEqual(['Extras', 'Size', 'Sauce']);
    expect((await call('GET', '/modifier-groups/options')).body.data.map((g: { label: string }) => g.label)).toEqual(['Extras', 'Size', 'Sauce']);
    expect((await call('DELETE', `/modifier-groups/${b}`)).body).toEqual({ status: 'success' });
    expect((await call('GET', `/modifier-groups/${b}`)).status).toBe(404);
  });

  test('an item\'s modifier groups reach the register bootstrap', async () => {
    const g = (await call('POST', '/modifier-groups', { name: 'Milk', min_select: 0, max_select: 1, modifiers: [{ name: 'Oat milk', price: 40 }] })).body.data;
    const espresso = m.items.find((i) => i.name === 'Espresso')!.id;
    expect((await call('PUT', `/items/${espresso}`, { modifier_group_ids: [g.id] })).body.data.modifier_group_ids).toEqual([g.id]);
    const pos = await api.deviceToken(m, 'pos');
    const b = await api.call('GET', '/api/pos/bootstrap', { token: pos, deviceKey: true });
    const it = b.body.display_groups[0].items.find((i: { id: string }) => i.id === espresso);
    expect(it.modifiers).toEqual([{ id: g.id, name: 'Milk', min_select: 0, max_select: 1, modifiers: [{ id: g.modifiers[0].id, name: 'Oat milk', price: 40 }] }]);
  });
});

describe('variant groups', () => {
  test('CRUD; an item of another merchant is a 422 on item_id', async () => {
    const beer = m.items.find((i) => i.name === 'Belgian beer')!.id;
    expect(await call('POST', '/variant-groups', { item_id: other.items[0]!.id, name: 'Size', variants: [{ name: '25 cl', unit_price: 450 }] })).toMatchObject({
      status: 422,
      body: { errors: { item_id: ['The selected item id is invalid.'] } },
    });
    expect(await n('variant_groups')).toBe(0);
    const r = await call('POST', '/variant-groups', { item_id: beer, name: 'Size', variants: [{ name: '25 cl', unit_price: 450 }, { name: '50 cl', unit_price: 800 }] });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.any(String),
      item_id: beer,
      name: 'Size',
      variants: [
        { id: expect.any(String), name: '25 cl', unit_price: 450, position: 0 },
        { id: expect.any(String), name: '50 cl', unit_price: 800, position: 1 },
      ],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = r.body.data.id;
    expect((await call('GET', `/items/${beer}`)).body.data.variant_groups).toEqual([{ id, name: 'Size' }]);
    expect((await call('PUT', `/variant-groups/${id}`, { variants: [{ name: '33 cl', unit_price: 550 }] })).body.data.variants.map((v: { name: string }) => v.name)).toEqual(['33 cl']);
    expect((await call('PUT', `/variant-groups/${id}`, { variants: [] })).status).toBe(422);
    expect((await call('GET', `/variant-groups/${id}`)).body.data.name).toBe('Size');
    expect((await call('DELETE', `/variant-groups/${id}`)).body).toEqual({ status: 'success' });
    expect(await call('GET', `/variant-groups/${id}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the variant group you requested.' } });
  });
});

describe('tax rates', () => {
  test('options: stored rates then the defaults of the merchant\'s countries', async () => {
    const r = await call('GET', '/tax-rate-options');
    expect(r.body.data.map((o: { value: number; label: string }) => `${o.value}:${o.label}`)).toEqual(['21:VAT 21%', '12:VAT 12%', '6:VAT 6%', '0:VAT 0%']);
  });

  test('custom rates: create, unique, used by items, read-only defaults', async () => {
    expect(await call('POST', '/tax-rates', { name: 'Special', rate: 101 })).toMatchObject({ status: 422 });
    const r = await call('POST', '/tax-rates', { name: 'Special 9%', rate: 9 });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({ id: expect.any(String), name: 'Special 9%', rate: 9, country: 'BE', is_custom: true, created_at: expect.any(String) });
    expect((await call('POST', '/tax-rates', { name: 'Again', rate: 9 })).body.errors).toEqual({ rate: ['A custom tax rate with this rate already exists.'] });
    // An item may now carry 9 %; the rate cannot then be removed.
    const it = await call('POST', '/items', { name: 'Nine', unit_price: 100, vat_rate: 9, category_id: null });
    expect(it.status).toBe(201);
    expect(await call('DELETE', `/tax-rates/${r.body.data.id}`)).toMatchObject({ status: 409, body: { reason: 'tax_rate_in_use' } });
    expect(await call('PUT', `/tax-rates/${r.body.data.id}`, { rate: 8 })).toMatchObject({ status: 409, body: { reason: 'tax_rate_in_use' } });
    expect((await call('PUT', `/tax-rates/${r.body.data.id}`, { name: 'Nine' })).body.data.name).toBe('Nine');
    const seeded = (await tdb.selectFrom('tax_rates').select('id').where('is_custom', '=', false).executeTakeFirstOrThrow()).id;
    expect(await call('PUT', `/tax-rates/${seeded}`, { name: 'X' })).toMatchObject({ status: 409, body: { reason: 'tax_rate_not_custom', message: 'Only custom tax rates can be changed or deleted.' } });
    expect(await call('DELETE', `/tax-rates/${seeded}`)).toMatchObject({ status: 409, body: { reason: 'tax_rate_not_custom' } });
    const table = await call('GET', '/tax-rates/datatable?is_custom=true');
    expect(table.body).toEqual({ data: [expect.objectContaining({ name: 'Nine', rate: 9 })], total: 1, page: 1, per_page: 25 });
    expect((await call('GET', '/tax-rates/datatable?sort=-rate&per_page=2')).body.data.map((x: { rate: number }) => x.rate)).toEqual([21, 12]);
    await call('DELETE', `/items/${it.body.data.id}`);
    expect((await call('DELETE', `/tax-rates/${r.body.data.id}`)).body).toEqual({ status: 'success' });
    expect(await n('tax_rates')).toBe(4);
  });
});

describe('requests at once', () => {
  const NAME_TAKEN = { message: 'The name has already been taken.', errors: { name: ['The name has already been taken.'] } };
  const RATE_TAKEN = { message: 'A custom tax rate with this rate already exists.', errors: { rate: ['A custom tax rate with this rate already exists.'] } };
  test('two categories of one name created at once, or two renamed to one name: 201/200 and 422 on name, as one after the other', async () => {
    for (let round = 0; round < 4; round++) {
      const rs = await Promise.all([call('POST', '/categories', { name: `Twin ${round}` }), call('POST', '/categories', { name: `twin ${round}` })]);
      expect(sortedStatuses(rs)).toEqual([201, 422]);
      expect(rs.find((r) => r.status === 422)!.body).toEqual(NAME_TAKEN);
      const a = (await call('POST', '/categories', { name: `Left ${round}` })).body.data.id;
      const b = (await call('POST', '/categories', { name: `Right ${round}` })).body.data.id;
      const us = await Promise.all([call('PUT', `/categories/${a}`, { name: `Same ${round}` }), call('PUT', `/categories/${b}`, { name: `SAME ${round}` })]);
      expect(sortedStatuses(us)).toEqual([200, 422]);
      expect(us.find((r) => r.status === 422)!.body).toEqual(NAME_TAKEN);
    }
  });

  test('two custom tax rates of one percentage created at once: one row, the other request 422 on rate', async () => {
    for (const rate of [3, 4, 5]) {
      const rs = await Promise.all([call('POST', '/tax-rates', { name: `A${rate}`, rate }), call('POST', '/tax-rates', { name: `B${rate}`, rate })]);
      expect(sortedStatuses(rs)).toEqual([201, 422]);
      expect(rs.find((r) => r.status === 422)!.body).toEqual(RATE_TAKEN);
      const rows = await tdb.selectFrom('tax_rates').select('id').where('rate', '=', rate).where('is_custom', '=', true).execute();
      expect(rows).toEqual([{ id: rs.find((r) => r.status === 201)!.body.data.id }]);
    }
    // A rate changed at once to the same percentage: the same.
    const x = (await call('POST', '/tax-rates', { name: 'X', rate: 14 })).body.data.id;
    const y = (await call('POST', '/tax-rates', { name: 'Y', rate: 15 })).body.data.id;
    const us = await Promise.all([call('PUT', `/tax-rates/${x}`, { rate: 16 }), call('PUT', `/tax-rates/${y}`, { rate: 16 })]);
    expect(sortedStatuses(us)).toEqual([200, 422]);
    expect(us.find((r) => r.status === 422)!.body).toEqual(RATE_TAKEN);
  });

  test('a custom rate deleted while an item is created with it: the item is refused (422 on vat_rate) or the delete is (409 tax_rate_in_use)', async () => {
    for (let round = 0; round < 8; round++) {
      const rate = 30 + round;
      const tr = (await call('POST', '/tax-rates', { name: `R${rate}`, rate })).body.data.id;
      const [c, d] = await Promise.all([call('POST', '/items', { name: `Taxed ${rate}`, unit_price: 100, vat_rate: rate, category_id: null }), call('DELETE', `/tax-rates/${tr}`)]);
      if (c.status === 201) {
        expect([d.status, d.body]).toEqual([409, { message: 'Items use this tax rate; move them to another rate first.', reason: 'tax_rate_in_use' }]);
        await call('DELETE', `/items/${c.body.data.id}`);
      } else {
        expect([c.status, c.body, d.status]).toEqual([422, { message: "The selected vat rate is not one of the merchant's tax rates.", errors: { vat_rate: ["The selected vat rate is not one of the merchant's tax rates."] } }, 200]);
      }
    }
  });

  test('an item created with a category, or a modifier group, deleted at the same moment: 201, or the 422 of an unknown id; never a 500', async () => {
    for (let round = 0; round < 8; round++) {
      const cat = (await call('POST', '/categories', { name: `Fleeting ${round}` })).body.data.id;
      const [i, d] = await Promise.all([call('POST', '/items', { name: `With category ${round}`, unit_price: 100, vat_rate: 21, category_id: cat }), Bun.sleep(round % 3).then(() => call('DELETE', `/categories/${cat}`))]);
      expect(d.status).toBe(200);
      if (i.status === 201) {
        // Deleted after the item: the item keeps existing without a category, its stored name cleared too.
        expect(await tdb.selectFrom('items').select(['category_id', 'category']).where('id', '=', i.body.data.id).executeTakeFirstOrThrow()).toEqual({ category_id: null, category: null });
      } else expect([i.status, i.body.errors]).toEqual([422, { category_id: ['The selected category id is invalid.'] }]);

      const g = (await call('POST', '/modifier-groups', { name: `Fleeting ${round}`, min_select: 0, max_select: 1, modifiers: [{ name: 'x', price: 1 }] })).body.data.id;
      const [j, e] = await Promise.all([call('POST', '/items', { name: `With group ${round}`, unit_price: 100, vat_rate: 21, category_id: null, modifier_group_ids: [g] }), Bun.sleep(round % 3).then(() => call('DELETE', `/modifier-groups/${g}`))]);
      expect(e.status).toBe(200);
      if (j.status === 201) expect((await call('GET', `/items/${j.body.data.id}`)).body.data.modifier_group_ids).toEqual([]);
      else expect([j.status, j.body.errors]).toEqual([422, { 'modifier_group_ids.0': ['The selected modifier group is invalid.'] }]);
    }
  });

  test('a variant group created for an item deleted at the same moment: 201, or 422 on item_id; an update racing its deletion: 200 or 404; never a 500', async () => {
    for (let round = 0; round < 8; round++) {
      const it = (await call('POST', '/items', { name: `Sized ${round}`, unit_price: 100, vat_rate: 21, category_id: null })).body.data.id;
      const [v, d] = await Promise.all([call('POST', '/variant-groups', { item_id: it, name: 'Size', variants: [{ name: 'S', unit_price: 1 }] }), Bun.sleep(round % 3).then(() => call('DELETE', `/items/${it}`))]);
      expect(d.status).toBe(200);
      if (v.status !== 201) expect([v.status, v.body.errors]).toEqual([422, { item_id: ['The selected item id is invalid.'] }]);

      const g = (await call('POST', '/variant-groups', { item_id: m.items.find((x) => x.name === 'Belgian beer')!.id, name: `Size ${round}`, variants: [{ name: 'S', unit_price: 1 }] })).body.data.id;
      const [u, e] = await Promise.all([call('PUT', `/variant-groups/${g}`, { variants: [{ name: 'L', unit_price: 2 }] }), Bun.sleep(round % 3).then(() => call('DELETE', `/variant-groups/${g}`))]);
      expect(e.status).toBe(200);
      if (u.status !== 200) expect([u.status, u.body]).toEqual([404, { message: 'Unable to locate the variant group you requested.' }]);
    }
  });

  test('a variant group update naming one variant twice is a 422, as for modifiers; nothing is written', async () => {
    const beer = m.items.find((i) => i.name === 'Belgian beer')!.id;
    const g = (await call('POST', '/variant-groups', { item_id: beer, name: 'Glass', variants: [{ name: '25 cl', unit_price: 450 }] })).body.data;
    const v = g.variants[0].id;
    expect(await call('PUT', `/variant-groups/${g.id}`, { variants: [{ id: v, name: 'Small', unit_price: 400 }, { id: v, name: 'Big', unit_price: 900 }] })).toMatchObject({
      status: 422,
      body: { errors: { 'variants.id.1': ['The variants.id.1 field has a duplicate value.'] } },
    });
    expect((await call('GET', `/variant-groups/${g.id}`)).body.data.variants).toEqual([{ id: v, name: '25 cl', unit_price: 450, position: 0 }]);
    // The modifier groups' equivalent, for comparison.
    const mg = (await call('POST', '/modifier-groups', { name: 'Dup', min_select: 0, max_select: 2, modifiers: [{ name: 'a', price: 1 }] })).body.data;
    const mid = mg.modifiers[0].id;
    expect((await call('PUT', `/modifier-groups/${mg.id}`, { modifiers: [{ id: mid, name: 'a', price: 1 }, { id: mid, name: 'b', price: 2 }] })).body.errors).toEqual({ 'modifiers.id.1': ['The modifiers.id.1 field has a duplicate value.'] });
  });
});
