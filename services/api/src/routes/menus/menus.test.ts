import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { atOnce, sortedStatuses } from '../../testing/at-once.ts';
import { whileWriting } from '../../testing/while-writing.ts';

let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let tdb: TenantDb;
let owner: string;
let pos: string;
let seededMenu: string;

const call = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const item = (name: string) => m.items.find((i) => i.name === name)!.id;
const bootstrapGroups = async () => {
  const r = await api.call('GET', '/api/pos/bootstrap', { token: pos, deviceKey: true });
  return (r.body.display_groups as { name: string; items: { name: string; unit_price: number }[] }[]).map((g) => ({ name: g.name, items: g.items.map((i) => `${i.name}:${i.unit_price}`) }));
};

async function newMenu(name: string): Promise<string> {
  const r = await call('POST', '/menus', { name, location_id: m.locations[0]!.id });
  expect(r.status).toBe(201);
  return r.body.data.id;
}
async function newGroup(menuId: string, name: string, parent_id?: string | null): Promise<string> {
  const r = await call('POST', '/display-groups', { menu_id: menuId, name, ...(parent_id !== undefined ? { parent_id } : {}) });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('menus');
  other = await api.seed('menus-other');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
  pos = await api.deviceToken(m, 'pos');
  seededMenu = (await tdb.selectFrom('menus').select('id').executeTakeFirstOrThrow()).id;
});
afterAll(() => api.close());

describe('menus', () => {
  test('POST /menus creates a draft of a location; GET /menus and /menu-options list it', async () => {
    const r = await call('POST', '/menus', { name: 'Lunch', location_id: m.locations[0]!.id, channels: ['pos', 'kiosk'] });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.any(String),
      name: 'Lunch',
      location_id: m.locations[0]!.id,
      location: { id: m.locations[0]!.id, name: m.locations[0]!.name },
      status: 'draft',
      channels: ['pos', 'kiosk'],
      has_draft: false,
      published_at: null,
      display_groups_count: 0,
      items_count: 0,
      display_groups: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const list = await call('GET', '/menus?status=draft');
    expect(list.body.data.map((x: { name: string }) => x.name)).toContain('Lunch');
    const opts = await call('GET', '/menu-options');
    expect(opts.body.data).toContainEqual({ value: r.body.data.id, label: 'Lunch', status: 'draft', location_id: m.locations[0]!.id });
  });

  test('a location of another merchant is a 422 on location_id and nothing is written', async () => {
    const before = await tdb.selectFrom('menus').select('id').execute();
    const r = await call('POST', '/menus', { name: 'X', location_id: other.locations[0]!.id });
    expect(r).toMatchObject({ status: 422, body: { errors: { location_id: ['The selected location id is invalid.'] } } });
    expect((await tdb.selectFrom('menus').select('id').execute()).length).toBe(before.length);
  });

  test('refused transitions carry a stable reason', async () => {
    const id = await newMenu('Empty');
    expect(await call('POST', `/menus/publish/${id}`)).toMatchObject({ status: 422, body: { reason: 'menu_empty', message: 'A menu without items cannot be published.' } });
    // Items the location's channels would not show (sold only elsewhere, hidden) are no items either.
    // Before: published, the location's menu replaced by an empty one (every kiosk quote refused).
    const elsewhere = await call('POST', '/items', { name: 'Sold elsewhere', unit_price: 300, vat_rate: 6, category_id: null, location_ids: [m.locations[1]!.id] });
    expect(elsewhere.status).toBe(201);
    const hidden = await call('POST', '/items', { name: 'Hidden here', unit_price: 300, vat_rate: 6, category_id: null, visible: false });
    expect(hidden.status).toBe(201);
    const g = await newGroup(id, 'G');
    await call('POST', `/menus/display-group-items/${id}`, { groups: [{ id: g, item_ids: [elsewhere.body.data.id, hidden.body.data.id] }] });
    const before = await tdb.selectFrom('published_catalogs').select(['menu_id', 'version']).where('location_id', '=', m.locations[0]!.id).executeTakeFirstOrThrow();
    expect(await call('POST', `/menus/publish/${id}`)).toMatchObject({ status: 422, body: { reason: 'menu_empty', message: 'A menu without items cannot be published.' } });
    expect(await tdb.selectFrom('published_catalogs').select(['menu_id', 'version']).where('location_id', '=', m.locations[0]!.id).executeTakeFirstOrThrow()).toEqual(before);
    await call('POST', `/menus/display-group-items/${id}`, { groups: [{ id: g, item_ids: [] }] });
    for (const x of [elsewhere, hidden]) expect((await call('DELETE', `/items/${x.body.data.id}`)).status).toBeLessThan(300);
    expect(await call('POST', `/menus/draft/${id}`)).toMatchObject({ status: 409, body: { reason: 'menu_already_draft' } });
    expect(await call('POST', `/menus/display-group-items/${id}/discard`)).toMatchObject({ status: 409, body: { reason: 'menu_no_draft' } });
    expect((await call('POST', `/menus/archive/${id}`)).body.data.status).toBe('archived');
    expect(await call('POST', `/menus/archive/${id}`)).toMatchObject({ status: 409, body: { reason: 'menu_already_archived' } });
    expect(await call('POST', `/menus/publish/${id}`)).toMatchObject({ status: 409, body: { reason: 'menu_archived' } });
    expect(await call('PUT', `/menus/${id}`, { name: 'Renamed' })).toMatchObject({ status: 409, body: { reason: 'menu_archived' } });
    expect(await call('POST', '/display-groups', { menu_id: id, name: 'G' })).toMatchObject({ status: 409, body: { reason: 'menu_archived' } });
    expect((await call('POST', `/menus/draft/${id}`)).body.data.status).toBe('draft');
    expect((await call('DELETE', `/menus/${id}`)).body).toEqual({ status: 'success' });
    expect(await call('DELETE', `/menus/${seededMenu}`)).toMatchObject({ status: 409, body: { reason: 'menu_published', message: 'A published menu cannot be deleted. Archive it or move it back to draft first.' } });
  });
});

describe('display groups', () => {
  test('nesting, and a cycle or a group of another menu or merchant is a 422 on parent_id', async () => {
    const menuId = await newMenu('Nested');
    const a = await newGroup(menuId, 'A');
    const b = await newGroup(menuId, 'B', a);
    const c = await newGroup(menuId, 'C', b);
    expect(await call('PUT', `/display-groups/${a}`, { parent_id: c })).toMatchObject({
      status: 422,
      body: { errors: { parent_id: ['A display group cannot be placed inside itself or one of its own groups.'] } },
    });
    expect((await call('PUT', `/display-groups/${a}`, { parent_id: a })).status).toBe(422);
    const elsewhere = await newGroup(await newMenu('Elsewhere'), 'E');
    expect((await call('PUT', `/display-groups/${c}`, { parent_id: elsewhere })).body.errors).toEqual({ parent_id: ['The selected parent id is not a display group of this menu.'] });
    const foreign = (await bindTenant(api.deps.db, other.merchant.tenant_database).selectFrom('display_groups').select('id').executeTakeFirstOrThrow()).id;
    expect((await call('PUT', `/display-groups/${c}`, { parent_id: foreign })).status).toBe(422);
    expect((await call('POST', '/display-groups', { menu_id: (await bindTenant(api.deps.db, other.merchant.tenant_database).selectFrom('menus').select('id').executeTakeFirstOrThrow()).id, name: 'X' })).body.errors).toEqual({
      menu_id: ['The selected menu id is invalid.'],
    });
    expect((await tdb.selectFrom('display_groups').select('parent_id').where('id', '=', a).executeTakeFirstOrThrow()).parent_id).toBeNull();
    const list = await call('GET', `/display-groups?menu_id=${menuId}`);
    expect(list.body.data.map((g: { name: string }) => g.name)).toEqual(['A', 'B', 'C']);
    expect((await call('DELETE', `/menus/display-groups/${a}`)).body).toEqual({ status: 'success' });
    expect((await call('GET', `/display-groups?menu_id=${menuId}`)).body.data).toEqual([]);
  });
});

describe('editing, drafts and publishing', () => {
  test('save, save as draft, discard, publish: the register sees the published whole', async () => {
    const menuId = await newMenu('Evening');
    const mains = await newGroup(menuId, 'Mains');
    const drinks = await newGroup(menuId, 'Drinks');
    const saved = await call('POST', `/menus/display-group-items/${menuId}`, { groups: [{ id: mains, item_ids: [item('Spaghetti bolognese'), item('Croissant')] }] });
    expect(saved.status).toBe(200);
    expect(saved.body.data.display_groups.map((g: { name: string; item_ids: string[] }) => [g.name, g.item_ids])).toEqual([
      ['Mains', [item('Spaghetti bolognese'), item('Croissant')]],
      ['Drinks', []],
    ]);
    expect(saved.body.data.draft).toBeNull();

    const drafted = await call('POST', `/menus/display-group-items/${menuId}/draft`, { groups: [{ id: drinks, item_ids: [item('Belgian beer')] }] });
    expect(drafted.body.data.draft.map((g: { item_ids: string[] }) => g.item_ids.length)).toEqual([2, 1]);
    expect(drafted.body.data.display_groups.map((g: { item_ids: string[] }) => g.item_ids.length)).toEqual([2, 0]);
    const discarded = await call('POST', `/menus/display-group-items/${menuId}/discard`);
    expect(discarded.body.data.draft).toBeNull();
    await call('POST', `/menus/display-group-items/${menuId}/draft`, { groups: [{ id: drinks, item_ids: [item('Belgian beer')] }] });

    // The register still sees the seeded menu until the publish commits.
    expect((await bootstrapGroups()).map((g) => g.name)).toEqual(['Drinks', 'Food']);
    const published = await call('POST', `/menus/publish/${menuId}`);
    expect(published.status).toBe(200);
    expect(published.body.data).toMatchObject({ status: 'published', has_draft: false, items_count: 3, published_at: expect.any(String) });
    expect(await bootstrapGroups()).toEqual([
      { name: 'Mains', items: ['Spaghetti bolognese:1450', 'Croissant:220'] },
      { name: 'Drinks', items: ['Belgian beer:450'] },
    ]);
    // One published menu per location: the seeded one went back to draft.
    expect((await call('GET', `/menus/${seededMenu}`)).body.data.status).toBe('draft');

    // Saving items of a published menu is live; so is moving one.
    await call('POST', `/menus/display-group-items/${menuId}`, { groups: [{ id: drinks, item_ids: [item('Belgian beer'), item('Espresso')] }] });
    expect((await bootstrapGroups())[1]).toEqual({ name: 'Drinks', items: ['Belgian beer:450', 'Espresso:280'] });
    const moved = await call('POST', `/menus/move-item-to-other-group/${item('Espresso')}`, { from_display_group_id: drinks, to_display_group_id: mains, position: 0 });
    expect(moved.body.data).toMatchObject({ id: mains, item_ids: [item('Espresso'), item('Spaghetti bolognese'), item('Croissant')] });
    expect((await bootstrapGroups())[0]!.items[0]).toBe('Espresso:280');

    // Adding to groups appends and keeps the current group.
    const added = await call('POST', `/menus/add-item-to-groups/${item('Espresso')}`, { display_group_ids: [drinks, mains] });
    // Espresso was already in the seeded menu's Drinks group too: it stays there.
    const seededDrinks = (await tdb.selectFrom('display_groups').select('id').where('menu_id', '=', seededMenu).where('name', '=', 'Drinks').executeTakeFirstOrThrow()).id;
    expect(added.body.data.display_group_ids.sort()).toEqual([mains, drinks, seededDrinks].sort());
    expect((await bootstrapGroups())[1]).toEqual({ name: 'Drinks', items: ['Belgian beer:450', 'Espresso:280'] });

    // Withdrawing it empties the register's menu.
    expect((await call('POST', `/menus/draft/${menuId}`)).body.data.status).toBe('draft');
    expect(await bootstrapGroups()).toEqual([]);
    expect((await call('POST', `/menus/publish/${seededMenu}`)).status).toBe(200);
    expect((await bootstrapGroups()).map((g) => g.name)).toEqual(['Drinks', 'Food']);
  });

  test('bad structure input is a 422 on its field and nothing is written', async () => {
    const menuId = await newMenu('Strict');
    const g = await newGroup(menuId, 'G');
    const foreignGroup = (await bindTenant(api.deps.db, other.merchant.tenant_database).selectFrom('display_groups').select('id').executeTakeFirstOrThrow()).id;
    expect((await call('POST', `/menus/display-group-items/${menuId}`, { groups: [{ id: foreignGroup, item_ids: [] }] })).body.errors).toEqual({
      'groups.0.id': ['The selected groups.0.id is not a display group of this menu.'],
    });
    const r = await call('POST', `/menus/display-group-items/${menuId}`, { groups: [{ id: g, item_ids: [item('Croissant'), other.items[0]!.id] }] });
    expect(r.body.errors).toEqual({ 'groups.0.item_ids.1': ['The selected item is invalid.'] });
    expect(await tdb.selectFrom('display_group_items').select('item_id').where('display_group_id', '=', g).execute()).toEqual([]);
    expect((await call('POST', `/menus/add-item-to-groups/${item('Croissant')}`, { display_group_ids: [g, foreignGroup] })).body.errors).toEqual({ 'display_group_ids.1': ['The selected display group is invalid.'] });
    expect(await tdb.selectFrom('display_group_items').select('item_id').where('display_group_id', '=', g).execute()).toEqual([]);
    expect((await call('POST', `/menus/add-item-to-groups/${crypto.randomUUID()}`, { display_group_ids: [g] })).status).toBe(404);
    expect((await call('POST', `/menus/move-item-to-other-group/${item('Croissant')}`, { from_display_group_id: g, to_display_group_id: g })).body.errors).toEqual({ from_display_group_id: ['The item is not in this display group.'] });
  });

  test('duplicate copies groups and items as a draft', async () => {
    const r = await call('POST', `/menus/duplicate/${seededMenu}`);
    expect(r.body.data).toMatchObject({ name: 'All day (copy)', status: 'draft', display_groups_count: 2, items_count: 6 });
    expect(r.body.data.display_groups.map((g: { name: string; item_ids: string[] }) => [g.name, g.item_ids.length])).toEqual([
      ['Drinks', 3],
      ['Food', 3],
    ]);
  });

  test('a publish is atomic for readers: each bootstrap shows the old or the new menu, never a mix', async () => {
    const menuId = await newMenu('Atomic');
    const g1 = await newGroup(menuId, 'One');
    const g2 = await newGroup(menuId, 'Two');
    await call('POST', `/menus/display-group-items/${menuId}`, { groups: [{ id: g1, item_ids: [item('Espresso')] }, { id: g2, item_ids: [item('Croissant')] }] });
    const before = JSON.stringify(await bootstrapGroups());
    const reads: Promise<string>[] = [];
    const publishing = call('POST', `/menus/publish/${menuId}`);
    for (let i = 0; i < 30; i++) reads.push(bootstrapGroups().then((x) => JSON.stringify(x)));
    expect((await publishing).status).toBe(200);
    const after = JSON.stringify(await bootstrapGroups());
    expect(after).toBe(JSON.stringify([{ name: 'One', items: ['Espresso:280'] }, { name: 'Two', items: ['Croissant:220'] }]));
    for (const seen of await Promise.all(reads)) expect([before, after]).toContain(seen);
  });

  test('an item edit racing a publish never puts the old menu back', async () => {
    const a = await newMenu('Race A');
    const b = await newMenu('Race B');
    for (const id of [a, b]) {
      const g = await newGroup(id, 'G');
      await call('POST', `/menus/display-group-items/${id}`, { groups: [{ id: g, item_ids: [item('Croissant')] }] });
    }
    await call('POST', `/menus/publish/${a}`);
    for (let round = 0; round < 5; round++) {
      const target = round % 2 === 0 ? b : a;
      await Promise.all([call('POST', `/menus/publish/${target}`), call('PUT', `/items/${item('Croissant')}`, { unit_price: 220 + round }), call('PUT', `/items/${item('Croissant')}`, { name: 'Croissant' })]);
      const row = await tdb.selectFrom('published_catalogs').select(['menu_id', 'payload']).where('location_id', '=', m.locations[0]!.id).executeTakeFirstOrThrow();
      expect(row.menu_id).toBe(target);
      expect((row.payload as { menu_id: string }).menu_id).toBe(target);
    }
    await call('PUT', `/items/${item('Croissant')}`, { unit_price: 220 });
    await call('POST', `/menus/publish/${seededMenu}`);
  });
});

describe('a publish and an edit of an item only the published menu shows', () => {
  test('the edit in flight commits first and the publish compiles its new price (before: the old one stayed on the channels)', async () => {
    const published = await newMenu('Shown now');
    const g0 = await newGroup(published, 'G');
    await call('POST', `/menus/display-group-items/${published}`, { groups: [{ id: g0, item_ids: [item('Espresso')] }] });
    expect((await call('POST', `/menus/publish/${published}`)).status).toBe(200);
    const next = await newMenu('Shown next');
    const g1 = await newGroup(next, 'G');
    await call('POST', `/menus/display-group-items/${next}`, { groups: [{ id: g1, item_ids: [item('Croissant')] }] });
    // An item write in flight: its row changed and locked, not committed yet.
    const publishing = await whileWriting(tdb, async (tx) => {
      await tx.updateTable('items').set({ unit_price: 333 }).where('id', '=', item('Croissant')).execute();
    }, () => call('POST', `/menus/publish/${next}`));
    expect(publishing.status).toBe(200);
    expect(await bootstrapGroups()).toEqual([{ name: 'G', items: ['Croissant:333'] }]);
    await tdb.updateTable('items').set({ unit_price: 220 }).where('id', '=', item('Croissant')).execute();
    expect((await call('POST', `/menus/publish/${seededMenu}`)).status).toBe(200);
  });
});

describe('a publish and an edit of a modifier group of an item only the published menu shows', () => {
  test('the group edit in flight commits first and the publish compiles its new modifier price', async () => {
    const group = await call('POST', '/modifier-groups', { name: 'Syrup race', min_select: 0, max_select: 1, modifiers: [{ name: 'Vanilla', price: 40 }] });
    expect(group.status).toBe(201);
    const vanilla = group.body.data.modifiers[0].id as string;
    expect((await call('PUT', `/items/${item('Croissant')}`, { modifier_group_ids: [group.body.data.id] })).status).toBe(200);
    const next = await newMenu('Shown with syrup');
    const g1 = await newGroup(next, 'G');
    await call('POST', `/menus/display-group-items/${next}`, { groups: [{ id: g1, item_ids: [item('Croissant')] }] });
    // A modifier group write in flight (as PUT /modifier-groups/{id} does it: the group row first).
    const publishing = await whileWriting(tdb, async (tx) => {
      await tx.updateTable('modifier_groups').set({ name: 'Syrup race' }).where('id', '=', group.body.data.id).execute();
      await tx.updateTable('modifiers').set({ price: 75 }).where('id', '=', vanilla).execute();
    }, () => call('POST', `/menus/publish/${next}`));
    expect(publishing.status).toBe(200);
    const row = await tdb.selectFrom('published_catalogs').select('payload').where('location_id', '=', m.locations[0]!.id).executeTakeFirstOrThrow();
    const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as { display_groups: { items: { modifier_groups: { modifiers: { id: string; name: string; price: number }[] }[] }[] }[] };
    expect(payload.display_groups[0]!.items[0]!.modifier_groups[0]!.modifiers).toEqual([{ id: vanilla, name: 'Vanilla', price: 75 }]);
    expect((await call('PUT', `/items/${item('Croissant')}`, { modifier_group_ids: [] })).status).toBe(200);
    expect((await call('POST', `/menus/publish/${seededMenu}`)).status).toBe(200);
  });
});

describe('a live menu save adding an item while its modifier group is edited', () => {
  test('the group edit in flight commits first and the save compiles its new modifier price (add-item-to-groups and display-group-items)', async () => {
    const published = await newMenu('Live with syrup');
    const g = await newGroup(published, 'G');
    await call('POST', `/menus/display-group-items/${published}`, { groups: [{ id: g, item_ids: [item('Espresso')] }] });
    expect((await call('POST', `/menus/publish/${published}`)).status).toBe(200);
    const priceOf = async () => {
      const row = await tdb.selectFrom('published_catalogs').select('payload').where('location_id', '=', m.locations[0]!.id).executeTakeFirstOrThrow();
      const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as { display_groups: { items: { name: string; modifier_groups: { modifiers: { price: number }[] }[] }[] }[] };
      return payload.display_groups.flatMap((x) => x.items).find((i) => i.name === 'Croissant')?.modifier_groups[0]?.modifiers[0]?.price;
    };
    for (const [round, add] of [
      [0, () => call('POST', `/menus/add-item-to-groups/${item('Croissant')}`, { display_group_ids: [g] })],
      [1, () => call('POST', `/menus/display-group-items/${published}`, { groups: [{ id: g, item_ids: [item('Espresso'), item('Croissant')] }] })],
    ] as const) {
      const group = await call('POST', '/modifier-groups', { name: `Live syrup ${round}`, min_select: 0, max_select: 1, modifiers: [{ name: 'Vanilla', price: 40 }] });
      const vanilla = group.body.data.modifiers[0].id as string;
      expect((await call('PUT', `/items/${item('Croissant')}`, { modifier_group_ids: [group.body.data.id] })).status).toBe(200);
      const saved = await whileWriting(tdb, async (tx) => {
        await tx.updateTable('modifier_groups').set({ name: `Live syrup ${round}` }).where('id', '=', group.body.data.id).execute();
        await tx.updateTable('modifiers').set({ price: 75 }).where('id', '=', vanilla).execute();
      }, add);
      expect(saved.status).toBe(200);
      // Before: 40, the old price, on the channels until some later write recompiled the catalog.
      expect(await priceOf()).toBe(75);
      await call('POST', `/menus/display-group-items/${published}`, { groups: [{ id: g, item_ids: [item('Espresso')] }] });
    }
    expect((await call('PUT', `/items/${item('Croissant')}`, { modifier_group_ids: [] })).status).toBe(200);
    expect((await call('POST', `/menus/publish/${seededMenu}`)).status).toBe(200);
  });
});

describe('publishes and modifier group edits at once', () => {
  test('no deadlock, and the channels end with the last price of the modifier', async () => {
    const group = await call('POST', '/modifier-groups', { name: 'Milk race', min_select: 0, max_select: 1, modifiers: [{ name: 'Oat', price: 30 }] });
    const oat = group.body.data.modifiers[0].id as string;
    expect((await call('PUT', `/items/${item('Croissant')}`, { modifier_group_ids: [group.body.data.id] })).status).toBe(200);
    const menus = [await newMenu('Milk A'), await newMenu('Milk B')];
    for (const menu of menus) await call('POST', `/menus/display-group-items/${menu}`, { groups: [{ id: await newGroup(menu, 'G'), item_ids: [item('Croissant')] }] });
    for (let round = 0; round < 6; round++) {
      const statuses = await Promise.all([
        call('POST', `/menus/publish/${menus[round % 2]}`).then((r) => r.status),
        call('PUT', `/modifier-groups/${group.body.data.id}`, { modifiers: [{ id: oat, name: 'Oat', price: 31 + round }] }).then((r) => r.status),
      ]);
      expect(statuses).toEqual([200, 200]);
      const row = await tdb.selectFrom('published_catalogs').select('payload').where('location_id', '=', m.locations[0]!.id).executeTakeFirstOrThrow();
      const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as { display_groups: { items: { modifier_groups: { modifiers: { price: number }[] }[] }[] }[] };
      expect(payload.display_groups[0]!.items[0]!.modifier_groups[0]!.modifiers[0]!.price).toBe(31 + round);
    }
    expect((await call('PUT', `/items/${item('Croissant')}`, { modifier_group_ids: [] })).status).toBe(200);
    expect((await call('POST', `/menus/publish/${seededMenu}`)).status).toBe(200);
  });
});

describe('requests at once on one menu', () => {
  const MENU_PUBLISHED = { message: 'A published menu cannot be deleted. Archive it or move it back to draft first.', reason: 'menu_published' };

  test('a menu published and deleted at once: the publish wins (delete 409 menu_published) or the delete does (publish 404, nothing on the channels)', async () => {
    const kiosk = await api.deviceToken(m, 'kiosk');
    const quote = () => api.call('POST', '/api/kiosk/pricing/quote', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: item('Croissant'), qty: 1 }] } });
    // Only the raced menu can put the croissant on the kiosk.
    expect((await call('POST', `/menus/draft/${seededMenu}`)).status).toBe(200);
    const outcomes = new Set<string>();
    for (let round = 0; round < 8; round++) {
      const id = await newMenu(`Raced ${round}`);
      const g = await newGroup(id, 'G');
      await call('POST', `/menus/display-group-items/${id}`, { groups: [{ id: g, item_ids: [item('Croissant')] }] });
      const [p, d] = await Promise.all([call('POST', `/menus/publish/${id}`), Bun.sleep(round % 4).then(() => call('DELETE', `/menus/${id}`))]);
      const row = await tdb.selectFrom('published_catalogs').select(['menu_id', 'payload']).where('location_id', '=', m.locations[0]!.id).executeTakeFirstOrThrow();
      if (d.status === 200) {
        expect([p.status, p.body]).toEqual([404, { message: 'Unable to locate the menu you requested.' }]);
        expect(d.body).toEqual({ status: 'success' });
        expect(row).toEqual({ menu_id: null, payload: null });
        expect((await quote()).status).toBe(422);
        outcomes.add('deleted');
      } else {
        expect([p.status, p.body.data.status, d.status, d.body]).toEqual([200, 'published', 409, MENU_PUBLISHED]);
        expect(row.menu_id).toBe(id);
        expect((await quote()).status).toBe(200);
        expect((await call('POST', `/menus/draft/${id}`)).status).toBe(200);
        outcomes.add('published');
      }
    }
    expect(outcomes.size).toBeGreaterThan(0);
    expect((await call('POST', `/menus/publish/${seededMenu}`)).status).toBe(200);
  });

  test('publishing a draft that names an item deleted since drops that item; a draft left without items is 422 menu_empty', async () => {
    const menuId = await newMenu('Draft with a deleted item');
    const g = await newGroup(menuId, 'G');
    const doomed = (await call('POST', '/items', { name: 'Doomed', unit_price: 100, vat_rate: 21, category_id: null })).body.data.id;
    expect((await call('POST', `/menus/display-group-items/${menuId}/draft`, { groups: [{ id: g, item_ids: [item('Croissant'), doomed] }] })).status).toBe(200);
    expect((await call('DELETE', `/items/${doomed}`)).status).toBe(200);
    const p = await call('POST', `/menus/publish/${menuId}`);
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({ status: 'published', has_draft: false, items_count: 1 });
    expect(p.body.data.display_groups.map((x: { item_ids: string[] }) => x.item_ids)).toEqual([[item('Croissant')]]);
    expect((await call('POST', `/menus/publish/${seededMenu}`)).status).toBe(200);

    const empty = await newMenu('Draft of deleted items only');
    const g2 = await newGroup(empty, 'G');
    const gone = (await call('POST', '/items', { name: 'Gone', unit_price: 100, vat_rate: 21, category_id: null })).body.data.id;
    await call('POST', `/menus/display-group-items/${empty}/draft`, { groups: [{ id: g2, item_ids: [gone] }] });
    await call('DELETE', `/items/${gone}`);
    expect(await call('POST', `/menus/publish/${empty}`)).toMatchObject({ status: 422, body: { message: 'A menu without items cannot be published.', reason: 'menu_empty' } });
    expect((await call('GET', `/menus/${empty}`)).body.data).toMatchObject({ status: 'draft', has_draft: true });
  });

  test('the same group items saved twice at once: both 200, the list sent once', async () => {
    const menuId = await newMenu('Saved twice');
    const g = await newGroup(menuId, 'G');
    for (let round = 0; round < 4; round++) {
      const body = { groups: [{ id: g, item_ids: [item('Croissant'), item('Espresso')] }] };
      const rs = await atOnce(2, () => call('POST', `/menus/display-group-items/${menuId}`, body));
      expect(sortedStatuses(rs)).toEqual([200, 200]);
      for (const r of rs) expect(r.body.data.display_groups).toEqual([{ id: g, name: 'G', position: 0, parent_id: null, item_ids: [item('Croissant'), item('Espresso')] }]);
    }
  });

  test('two draft saves at once for different groups: the draft keeps both', async () => {
    const menuId = await newMenu('Drafted twice');
    const a = await newGroup(menuId, 'A');
    const b = await newGroup(menuId, 'B');
    for (let round = 0; round < 3; round++) {
      await call('POST', `/menus/display-group-items/${menuId}/discard`);
      const rs = await Promise.all([
        call('POST', `/menus/display-group-items/${menuId}/draft`, { groups: [{ id: a, item_ids: [item('Croissant')] }] }),
        call('POST', `/menus/display-group-items/${menuId}/draft`, { groups: [{ id: b, item_ids: [item('Espresso')] }] }),
      ]);
      expect(sortedStatuses(rs)).toEqual([200, 200]);
      const after = await call('GET', `/menus/display-group-items/${menuId}`);
      expect(after.body.data.draft.map((x: { name: string; item_ids: string[] }) => [x.name, x.item_ids])).toEqual([
        ['A', [item('Croissant')]],
        ['B', [item('Espresso')]],
      ]);
    }
  });

  test('an item added to the same group twice at once: both 200, the group holds it once', async () => {
    for (let round = 0; round < 4; round++) {
      const menuId = await newMenu(`Added twice ${round}`);
      const g = await newGroup(menuId, 'G');
      const rs = await atOnce(2, () => call('POST', `/menus/add-item-to-groups/${item('Croissant')}`, { display_group_ids: [g] }));
      expect(sortedStatuses(rs)).toEqual([200, 200]);
      for (const r of rs) expect(r.body.data.display_group_ids).toContain(g);
      expect(await tdb.selectFrom('display_group_items').select(['item_id', 'position']).where('display_group_id', '=', g).execute()).toEqual([{ item_id: item('Croissant'), position: 0 }]);
    }
  });
});
