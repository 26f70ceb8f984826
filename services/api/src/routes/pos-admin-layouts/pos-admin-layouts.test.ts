import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { LAYOUT_LIMIT, LAYOUT_NAME_TAKEN, MAX_LAYOUTS_PER_LOCATION, TILE_CATEGORY_UNKNOWN, TILE_ITEM_NOT_SOLD, TILE_ITEM_UNKNOWN, TILE_TARGET } from '@pos/core/pos-admin/pos-layouts';
import { TILE_OUTSIDE, TILE_OVERLAPS } from '@pos/domain/pos-layouts/layout-grid';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { ISO, nothing, tdbOf, UUID_V7 } from '../pos-admin/pos-admin.test-support.ts';

/**
 * Register screen layouts (spec 2: `/back-office/pos/{locationId}/layouts`, MANAGE_POS_LAYOUTS): the
 * whole resource through the API. Gating (permission, location grant, first-party-pos, another
 * merchant) is in pos-admin/gating.test.ts with the other register-administration routes.
 */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let categoryId: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('pos-layouts');
  other = await api.seed('pos-layouts-other');
  owner = await api.ownerToken(m);
  const cat = await tdbOf(api, m).insertInto('categories').values({ id: Bun.randomUUIDv7(), name: 'Layout drinks', description: null, created_at: new Date(), updated_at: new Date() }).returning('id').executeTakeFirstOrThrow();
  categoryId = cat.id;
});
afterAll(() => api.close());

const loc0 = () => m.locations[0]!.id;
const loc1 = () => m.locations[1]!.id;
const call = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office/pos/${path}`, { token: owner, ...(body === undefined ? {} : { body }) });
const item = (i: number) => m.items[i]!.id;
const full = (t: Record<string, unknown>) => ({ width: 1, height: 1, item_id: null, category_id: null, label: null, color: null, ...t });

describe('screen layouts', () => {
  test('create, list, show, replace and delete; the first layout is the default and the flag moves', async () => {
    expect(await call('GET', `${loc0()}/layouts`)).toMatchObject({ status: 200, body: { data: [] } });

    const body = {
      name: ' Counter ',
      columns: 4,
      rows: 3,
      pages: [
        { name: 'Drinks', tiles: [{ row: 0, column: 0, width: 2, item_id: item(0), label: ' Coffee ', color: '#AA3300' }, { row: 0, column: 2, category_id: categoryId }] },
        { name: 'Food', tiles: [] },
      ],
    };
    const created = await call('POST', `${loc0()}/layouts`, body);
    expect(created.status).toBe(201);
    const first = created.body.data;
    expect(created.body).toEqual({
      data: {
        id: expect.stringMatching(UUID_V7),
        location_id: loc0(),
        name: 'Counter',
        is_default: true,
        columns: 4,
        rows: 3,
        pages: [
          { name: 'Drinks', tiles: [full({ row: 0, column: 0, width: 2, item_id: item(0), label: 'Coffee', color: '#AA3300' }), full({ row: 0, column: 2, category_id: categoryId })] },
          { name: 'Food', tiles: [] },
        ],
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    });

    const second = (await call('POST', `${loc0()}/layouts`, { name: 'Bar', columns: 2, rows: 2, pages: [{ name: 'All', tiles: [{ row: 1, column: 1, height: 1, item_id: item(1) }] }] })).body.data;
    expect(second.is_default).toBe(false);
    expect((await call('GET', `${loc0()}/layouts`)).body).toEqual({ data: [first, second] });
    expect((await call('GET', `${loc0()}/layouts/${second.id}`)).body).toEqual({ data: second });

    // Making the second the default takes the flag from the first; the whole layout is replaced.
    const replaced = await call('PUT', `${loc0()}/layouts/${second.id}`, { name: 'Bar', is_default: true, columns: 3, rows: 1, pages: [{ name: 'Only', tiles: [{ row: 0, column: 0, width: 3, item_id: item(2) }] }] });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toEqual({ ...second, is_default: true, columns: 3, rows: 1, pages: [{ name: 'Only', tiles: [full({ row: 0, column: 0, width: 3, item_id: item(2) })] }], updated_at: expect.stringMatching(ISO) });
    expect((await call('GET', `${loc0()}/layouts`)).body.data.map((l: { id: string; is_default: boolean }) => [l.id, l.is_default])).toEqual([
      [second.id, true],
      [first.id, false],
    ]);
    // `is_default` absent leaves the flag as it is.
    expect((await call('PUT', `${loc0()}/layouts/${second.id}`, { name: 'Bar 2', columns: 1, rows: 1, pages: [{ name: 'P', tiles: [] }] })).body.data).toMatchObject({ name: 'Bar 2', is_default: true });

    // Names are unique per location, whatever the case; another location may reuse one.
    expect(await call('POST', `${loc0()}/layouts`, { ...body, name: 'counter' })).toMatchObject({ status: 422, body: { errors: { name: [LAYOUT_NAME_TAKEN] } } });
    expect(await call('PUT', `${loc0()}/layouts/${second.id}`, { ...body, name: 'COUNTER' })).toMatchObject({ status: 422, body: { errors: { name: [LAYOUT_NAME_TAKEN] } } });
    const elsewhere = await call('POST', `${loc1()}/layouts`, { ...body, pages: [{ name: 'P', tiles: [] }] });
    expect(elsewhere.body.data).toMatchObject({ name: 'Counter', location_id: loc1(), is_default: true });

    // A layout is found only under its own location.
    const notFound = { status: 404, body: { message: 'Unable to locate the layout you requested.' } };
    expect(await call('GET', `${loc1()}/layouts/${first.id}`)).toMatchObject(notFound);
    expect(await call('PUT', `${loc1()}/layouts/${first.id}`, body)).toMatchObject(notFound);
    expect(await call('DELETE', `${loc1()}/layouts/${first.id}`)).toMatchObject(notFound);
    expect(await call('GET', `${loc0()}/layouts/not-a-uuid`)).toMatchObject(notFound);
    expect(await call('GET', `${loc0()}/layouts/${nothing()}`)).toMatchObject(notFound);

    expect(await call('DELETE', `${loc0()}/layouts/${second.id}`)).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await call('GET', `${loc0()}/layouts/${second.id}`)).toMatchObject(notFound);
    expect((await call('GET', `${loc0()}/layouts`)).body.data.map((l: { id: string; is_default: boolean }) => [l.id, l.is_default])).toEqual([[first.id, false]]);
    expect(await tdbOf(api, m).selectFrom('pos_layout_tiles').select('layout_id').where('layout_id', '=', second.id).execute()).toEqual([]);
  });

  test('every tile is checked at once: inside the grid, no shared cell, one known item or category; nothing is written', async () => {
    const before = (await call('GET', `${loc0()}/layouts`)).body;
    const foreignItem = other.items[0]!.id;
    const r = await call('POST', `${loc0()}/layouts`, {
      name: 'Broken',
      columns: 2,
      rows: 2,
      pages: [
        {
          name: 'P',
          tiles: [
            { row: 0, column: 0, item_id: item(0) },
            { row: 0, column: 1, width: 2, item_id: item(0) },
            { row: 0, column: 0, item_id: item(1) },
            { row: 1, column: 0 },
            { row: 1, column: 1, item_id: item(0), category_id: categoryId },
          ],
        },
        { name: 'Q', tiles: [{ row: 0, column: 0, item_id: foreignItem }, { row: 1, column: 1, category_id: nothing() }] },
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual({
      'pages.0.tiles.1': [TILE_OUTSIDE],
      'pages.0.tiles.2': [TILE_OVERLAPS(0)],
      'pages.0.tiles.3': [TILE_TARGET],
      'pages.0.tiles.4': [TILE_TARGET],
      'pages.1.tiles.0.item_id': [TILE_ITEM_UNKNOWN],
      'pages.1.tiles.1.category_id': [TILE_CATEGORY_UNKNOWN],
    });
    expect((await call('GET', `${loc0()}/layouts`)).body).toEqual(before);
  });

  test('an item the location\'s register does not sell (another location only, hidden, off the pos channel) is no tile: 422', async () => {
    const tdb = tdbOf(api, m);
    const mk = async (set: Record<string, unknown>) => {
      const id = Bun.randomUUIDv7();
      await tdb.insertInto('items').values({ id, name: `Tile ${id.slice(-6)}`, unit_price: 100, vat_rate: 6, created_at: new Date(), updated_at: new Date(), ...set } as never).execute();
      return id;
    };
    const [elsewhere, hidden, kioskOnly] = [await mk({ location_ids: [loc1()] }), await mk({ visible: false }), await mk({ channels: ['kiosk'] })];
    const r = await call('POST', `${loc0()}/layouts`, { name: 'Not sold here', columns: 3, rows: 1, pages: [{ name: 'P', tiles: [elsewhere, hidden, kioskOnly].map((item_id, column) => ({ row: 0, column, item_id })) }] });
    // Before: 201, and the register's tap on such a tile was refused ("not on the menu").
    expect(r).toMatchObject({ status: 422, body: { errors: Object.fromEntries([0, 1, 2].map((i) => [`pages.0.tiles.${i}.item_id`, [TILE_ITEM_NOT_SOLD]])) } });
    // At the location it is sold at, the same item is a tile.
    expect((await call('POST', `${loc1()}/layouts`, { name: 'Sold here', columns: 1, rows: 1, pages: [{ name: 'P', tiles: [{ row: 0, column: 0, item_id: elsewhere }] }] })).status).toBe(201);
  });

  test('bodies outside the schema are 422 with nothing written', async () => {
    const before = (await call('GET', `${loc0()}/layouts`)).body;
    const ok = { name: 'Shape', columns: 2, rows: 2, pages: [{ name: 'P', tiles: [{ row: 0, column: 0, item_id: item(0) }] }] };
    const bad: [string, unknown][] = [
      ['columns', { ...ok, columns: 0 }],
      ['rows', { ...ok, rows: 13 }],
      ['columns', { ...ok, columns: '2' }],
      ['pages', { ...ok, pages: [] }],
      ['pages', { ...ok, pages: Array.from({ length: 21 }, (_, i) => ({ name: `P${i}`, tiles: [] })) }],
      ['pages.0.tiles.0.color', { ...ok, pages: [{ name: 'P', tiles: [{ row: 0, column: 0, item_id: item(0), color: 'red' }] }] }],
      ['pages.0.tiles.0.item_id', { ...ok, pages: [{ name: 'P', tiles: [{ row: 0, column: 0, item_id: 'x' }] }] }],
      ['pages.0.tiles.0.row', { ...ok, pages: [{ name: 'P', tiles: [{ row: -1, column: 0, item_id: item(0) }] }] }],
      ['pages.0.name', { ...ok, pages: [{ name: ' ', tiles: [] }] }],
      ['name', { ...ok, name: '' }],
      ['surprise', { ...ok, surprise: 1 }],
    ];
    for (const [field, body] of bad) {
      const r = await call('POST', `${loc0()}/layouts`, body);
      expect({ field, status: r.status, fields: Object.keys(r.body.errors ?? {}) }).toEqual({ field, status: 422, fields: [field] });
    }
    expect((await call('GET', `${loc0()}/layouts`)).body).toEqual(before);
  });

  test('deleting an item or a category removes its tiles', async () => {
    const tdb = tdbOf(api, m);
    const doomedItem = (await tdb.insertInto('items').values({ ...(await tdb.selectFrom('items').selectAll().where('id', '=', item(0)).executeTakeFirstOrThrow()), id: Bun.randomUUIDv7(), name: 'Doomed' } as never).returning('id').executeTakeFirstOrThrow()).id;
    const doomedCategory = (await tdb.insertInto('categories').values({ id: Bun.randomUUIDv7(), name: 'Doomed', description: null, created_at: new Date(), updated_at: new Date() }).returning('id').executeTakeFirstOrThrow()).id;
    const made = await call('POST', `${loc1()}/layouts`, {
      name: 'Cascade',
      columns: 3,
      rows: 1,
      pages: [{ name: 'P', tiles: [{ row: 0, column: 0, item_id: doomedItem }, { row: 0, column: 1, category_id: doomedCategory }, { row: 0, column: 2, item_id: item(1) }] }],
    });
    expect(made.status).toBe(201);
    await tdb.deleteFrom('items').where('id', '=', doomedItem).execute();
    await tdb.deleteFrom('categories').where('id', '=', doomedCategory).execute();
    expect((await call('GET', `${loc1()}/layouts/${made.body.data.id}`)).body.data.pages).toEqual([{ name: 'P', tiles: [full({ row: 0, column: 2, item_id: item(1) })] }]);
  });

  test('concurrent writes: one default per location, one holder of a name', async () => {
    const loc = loc1();
    const defaults = await Promise.all(Array.from({ length: 6 }, (_, i) => call('POST', `${loc}/layouts`, { name: `Race ${i}`, is_default: true, columns: 1, rows: 1, pages: [{ name: 'P', tiles: [] }] })));
    expect(defaults.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const flagged = (await call('GET', `${loc}/layouts`)).body.data.filter((l: { is_default: boolean }) => l.is_default);
    expect(flagged.length).toBe(1);

    const same = await Promise.all(Array.from({ length: 6 }, () => call('POST', `${loc}/layouts`, { name: 'Same name', columns: 1, rows: 1, pages: [{ name: 'P', tiles: [] }] })));
    expect(same.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422]);
    for (const r of same.filter((x) => x.status === 422)) expect(r.body.errors).toEqual({ name: [LAYOUT_NAME_TAKEN] });
  });

  test('a location holds at most 20 layouts, also when the creates race: the rest are 422 with nothing written; a delete makes room', async () => {
    const loc = (await api.call('POST', '/api/back-office/settings/locations', { token: owner, body: { name: 'Layouts cap', timezone: 'Europe/Brussels', country: 'BE' } })).body.data.id as string;
    const body = (i: number) => ({ name: `Cap ${i}`, columns: 1, rows: 1, pages: [{ name: 'P', tiles: [] }] });
    for (let i = 0; i < MAX_LAYOUTS_PER_LOCATION - 3; i++) expect((await call('POST', `${loc}/layouts`, body(i))).status).toBe(201);
    const raced = await Promise.all(Array.from({ length: 6 }, (_, i) => call('POST', `${loc}/layouts`, body(100 + i))));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 201, 422, 422, 422]);
    for (const r of raced.filter((x) => x.status === 422)) expect(r.body).toEqual({ message: LAYOUT_LIMIT, reason: 'layout_limit' });
    const listed = (await call('GET', `${loc}/layouts`)).body.data as { id: string }[];
    expect(listed).toHaveLength(MAX_LAYOUTS_PER_LOCATION);
    expect((await call('DELETE', `${loc}/layouts/${listed.at(-1)!.id}`)).status).toBe(200);
    expect((await call('POST', `${loc}/layouts`, body(200))).status).toBe(201);
  });
});
