import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant } from '@pos/db';
import type { TestApi } from '../../testing/harness.ts';
import { openRegisterSession, registerCalls, type RegisterSession } from '../../testing/register-session.ts';

let session: RegisterSession;
let api: TestApi;
let m: DemoSeedResult;
let device: string;
let cashier: string;
let manager: string;

const STALE = 'The order was changed on another register. Reload it and try again.';
const NOT_FOUND = { message: 'Unable to locate the order you requested.' };
const FORBIDDEN = { message: 'Unauthorized: Insufficient permissions' };

beforeAll(async () => {
  session = await openRegisterSession('orders');
  ({ api, m, device, cashier, manager } = session);
});
afterAll(() => api.close());

const uuid = () => crypto.randomUUID();
const { item, pinOf, line, put, post, get, escalate, create } = registerCalls(() => session);

describe('PUT /pos/orders/{clientUuid}', () => {
  test('creates at version 1 (expected_version absent or 0), then updates with the version seen', async () => {
    const id = uuid();
    const first = line('Espresso', 2);
    const r = await put(id, { expected_version: 0, order_profile: { behavior: 'dine_in' }, table_number: '12B', lines: [first] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      client_uuid: id,
      version: 1,
      state: 'OPEN',
      fired: false,
      order_profile: { behavior: 'dine_in' },
      table_number: '12B',
      lines: [{ uuid: first.uuid, item_id: first.item_id, name: 'Espresso', qty: 2, unit_price: 280, price_source: 'catalog', modifiers: [], line_total: 560 }],
      totals: { subtotal: 560, discount: 0, vat: 97, total: 560, by_vat_rate: [{ rate: 21, net: 463, vat: 97, gross: 560 }] },
      tender: {},
      fiscal: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(r.body.transaction_id).toBeUndefined();

    const second = line('Croissant');
    const u = await put(id, { expected_version: 1, order_profile: { behavior: 'take_away' }, lines: [first, second] });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ version: 2, state: 'OPEN', order_profile: { behavior: 'take_away' }, table_number: null, totals: { total: 780 } });
    expect(u.body.lines.map((l: { name: string }) => l.name)).toEqual(['Espresso', 'Croissant']);
    expect(u.body.created_at).toBe(r.body.created_at);

    const shown = await get(`/api/pos/orders/${id}`);
    expect(shown).toMatchObject({ status: 200, body: u.body });
    // Absent expected_version on an existing order reads as 0: stale.
    expect((await put(id, { lines: [first] })).body).toEqual({ message: STALE, reason: 'stale_version', current_version: 2 });
  });

  test('a stale expected_version is 409 {message, reason, current_version}; a new order with a version is stale at 0', async () => {
    const id = await create([line('Espresso')]);
    expect((await put(id, { expected_version: 1, lines: [line('Espresso', 3)] })).status).toBe(200);
    const stale = await put(id, { expected_version: 1, lines: [line('Croissant')] });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({ message: STALE, reason: 'stale_version', current_version: 2 });
    const fresh = await put(uuid(), { expected_version: 4, lines: [line('Espresso')] });
    expect(fresh.status).toBe(409);
    expect(fresh.body).toEqual({ message: STALE, reason: 'stale_version', current_version: 0 });
    // Nothing was written by the stale request.
    expect((await get(`/api/pos/orders/${id}`)).body).toMatchObject({ version: 2, lines: [{ name: 'Espresso', qty: 3 }] });
  });

  test('two writers with the same expected_version: one 200, one 409 stale_version', async () => {
    const id = await create([line('Espresso')]);
    const results = await Promise.all([put(id, { expected_version: 1, lines: [line('Croissant')] }), put(id, { expected_version: 1, lines: [line('Belgian beer')] })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const lost = results.find((r) => r.status === 409)!;
    expect(lost.body).toEqual({ message: STALE, reason: 'stale_version', current_version: 2 });
    expect((await get(`/api/pos/orders/${id}`)).body.version).toBe(2);

    const created = uuid();
    const both = await Promise.all([put(created, { lines: [line('Espresso')] }), put(created, { lines: [line('Croissant')] })]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(both.find((r) => r.status === 409)!.body).toEqual({ message: STALE, reason: 'stale_version', current_version: 1 });
  });

  test('totals are the server\'s, exact in cents: 6 % and 21 %, pct and amount discounts, modifiers, catalog prices', async () => {
    const espresso = line('Espresso', 3, { unit_price: 1, modifiers: [{ name: 'Extra shot', price: 50 }], discount: { type: 'pct', value: 10 } });
    const croissant = line('Croissant', 2, { discount: { type: 'amount', value: 25 } });
    // A modifier without an id is free text priced as sent (a price on it is a manual price: the manager holds apply_discount).
    const fries = line('Fries with mayonnaise', 1, { modifiers: [{ name: 'Extra mayo', price: 30, qty: 2 }] });
    const beer = line('Belgian beer', 1, { unit_price: 500, price_source: 'open_price' });
    const r = await put(uuid(), { lines: [espresso, croissant, fries, beer] }, manager);
    expect(r.status).toBe(200);
    // espresso: unit 280 + 50 = 330, 10 % = 33 per unit -> 3 x 297 = 891 (catalog price, not the 1 sent)
    // croissant: 220 - 25 = 195 -> 2 x 195 = 390; fries: 395 + 2 x 30 = 455; beer: open price 500 kept
    expect(r.body.lines.map((l: { unit_price: number; line_total: number }) => [l.unit_price, l.line_total])).toEqual([
      [280, 891],
      [220, 390],
      [395, 455],
      [500, 500],
    ]);
    expect(r.body.lines[0]).toMatchObject({ modifiers: [{ name: 'Extra shot', price: 50 }], discount: { type: 'pct', value: 10 } });
    expect(r.body.lines[2].modifiers).toEqual([{ name: 'Extra mayo', price: 30, qty: 2 }]);
    expect(r.body.lines[3]).toMatchObject({ price_source: 'open_price', name: 'Belgian beer' });
    expect(r.body.lines[3].discount).toBeUndefined();
    // 21 %: 891 + 500 = 1391 -> net round(1391 / 1.21) = 1150, vat 241; 6 %: 390 + 455 = 845 -> net 797, vat 48
    expect(r.body.totals).toEqual({
      subtotal: 990 + 440 + 455 + 500,
      discount: 99 + 50,
      vat: 289,
      total: 2236,
      by_vat_rate: [
        { rate: 21, net: 1150, vat: 241, gross: 1391 },
        { rate: 6, net: 797, vat: 48, gross: 845 },
      ],
    });
  });

  test('clientUuid and line uuids must be UUID v4; lines are validated with dot paths; unknown items are refused', async () => {
    const notV4 = await put('0190f3a4-5b6c-7d8e-9fa0-b1c2d3e4f506', { lines: [line('Espresso')] });
    expect(notV4.status).toBe(422);
    expect(notV4.body.errors).toEqual({ clientUuid: ['The clientUuid must be a valid UUID v4.'] });
    expect((await put('not-a-uuid', { lines: [] })).body.errors).toEqual({ clientUuid: ['The clientUuid must be a valid UUID v4.'] });

    const dup = line('Espresso');
    const bad = await put(uuid(), { lines: [{ ...line('Espresso'), uuid: '0190f3a4-5b6c-7d8e-9fa0-b1c2d3e4f506' }, dup, { ...line('Croissant'), uuid: dup.uuid, qty: 0 }] });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      message: 'The lines.0.uuid field must be a valid UUID v4. (and 2 more errors)',
      errors: {
        'lines.0.uuid': ['The lines.0.uuid field must be a valid UUID v4.'],
        'lines.2.uuid': ['The lines.2.uuid field has a duplicate value.'],
        'lines.2.qty': ['The lines.2.qty field must be between 1 and 999.'],
      },
    });
    const discount = await put(uuid(), { lines: [line('Espresso', 1, { discount: { type: 'pct', value: 150 } })] });
    expect(discount.body.errors).toEqual({ 'lines.0.discount.value': ['The lines.0.discount.value field must be between 1 and 100.'] });

    const unknown = await put(uuid(), { lines: [line('Espresso'), { ...line('Espresso'), item_id: uuid() }, { ...line('Espresso'), item_id: 'nope' }] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({
      'lines.1.item_id': ['The selected lines.1.item_id is invalid.'],
      'lines.2.item_id': ['The selected lines.2.item_id is invalid.'],
    });
    const shape = await put(uuid(), { expected_version: -1, lines: 'x' });
    expect(shape.status).toBe(422);
    expect(Object.keys(shape.body.errors).sort()).toEqual(['expected_version', 'lines']);
  });

  test('the document the server returned can be sent back: server-owned keys are ignored, other unknown keys are 422', async () => {
    const id = uuid();
    const created = await put(id, { lines: [line('Espresso', 2)], table_number: '4' });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body)).toEqual(expect.arrayContaining(['client_uuid', 'version', 'state', 'fired', 'totals', 'tender', 'fiscal', 'created_at', 'updated_at']));
    // Sent back as received, with server-owned values that lie: they are ignored, never applied.
    const lying = { ...created.body, expected_version: created.body.version, state: 'SETTLED', fired: true, version: 99, totals: { total: 1 }, tender: { change: 5 }, fiscal: { short_signature: 'X' }, client_uuid: uuid(), transaction_id: uuid() };
    const echoed = await put(id, lying);
    expect(echoed.status).toBe(200);
    expect(echoed.body).toMatchObject({ client_uuid: id, version: 2, state: 'OPEN', fired: false, table_number: '4', totals: created.body.totals, tender: {}, fiscal: {} });
    expect(echoed.body.lines).toEqual(created.body.lines);
    expect(echoed.body.transaction_id).toBeUndefined();

    const unknown = await put(id, { expected_version: 2, lines: [line('Espresso')], colour: 'red' });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(['colour']);
  });

  test('emptying an unfired order voids it (200, bare resource); emptying a fired one is 409 order_fired', async () => {
    const id = await create([line('Espresso')]);
    const voided = await put(id, { expected_version: 1, lines: [] });
    expect(voided.status).toBe(200);
    expect(voided.body).toMatchObject({ client_uuid: id, version: 2, state: 'VOIDED', lines: [], totals: { subtotal: 0, discount: 0, vat: 0, total: 0, by_vat_rate: [] } });
    // A voided order is final.
    const again = await put(id, { expected_version: 2, lines: [line('Espresso')] });
    expect(again).toMatchObject({ status: 409, body: { reason: 'not_open', message: 'This order is voided and can no longer be changed.' } });

    const fired = await create([line('Croissant')]);
    expect((await post(`/api/pos/orders/${fired}/fire`)).status).toBe(200);
    const refused = await put(fired, { expected_version: 2, lines: [] }, manager);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: 'This order has been sent to the kitchen and cannot be emptied — void it instead.', reason: 'order_fired' });
    expect((await get(`/api/pos/orders/${fired}`)).body).toMatchObject({ state: 'OPEN', fired: true, version: 2 });
  });

  test('a manual price needs apply_discount like a discount: a cashier cannot sell a 2.80 espresso for a cent', async () => {
    const cheap = line('Espresso', 1, { unit_price: 1, price_source: 'manual' });
    const id = uuid();
    expect(await put(id, { lines: [cheap] })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect((await get(`/api/pos/orders/${id}`)).status).toBe(404);
    // A catalog line is priced from the catalog, whatever was sent: no permission needed.
    const catalog = await put(uuid(), { lines: [line('Espresso', 1, { unit_price: 1 })] });
    expect(catalog.status).toBe(200);
    expect(catalog.body.lines[0].unit_price).toBe(280);
    // A manual price equal to the catalog's is no price change.
    expect((await put(uuid(), { lines: [line('Espresso', 1, { price_source: 'manual' })] })).status).toBe(200);
    // With an approval token for apply_discount the cashier may; the unchanged line needs no new approval.
    const approved = await put(id, { lines: [cheap], approval_token: await escalate('apply_discount') });
    expect(approved.status).toBe(200);
    expect(approved.body.lines[0]).toMatchObject({ unit_price: 1, price_source: 'manual', line_total: 1 });
    expect((await put(id, { expected_version: 1, lines: [cheap, line('Croissant')] })).status).toBe(200);
    // Changing the manual price again needs the permission again.
    expect(await put(id, { expected_version: 2, lines: [{ ...cheap, unit_price: 2 }, line('Croissant')] })).toMatchObject({ status: 403, body: FORBIDDEN });
    // The manager holds apply_discount.
    expect((await put(uuid(), { lines: [cheap] }, manager)).status).toBe(200);
  });

  test('a catalog line takes its modifiers\' prices and names from the catalog; elsewhere a modifier priced away from it needs apply_discount', async () => {
    const owner = await api.ownerToken(m);
    const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
    const g = (await bo('POST', '/modifier-groups', { name: 'Milk', min_select: 0, max_select: 1, modifiers: [{ name: 'Oat milk', price: 50 }] })).body.data;
    const oat = g.modifiers[0].id as string;
    const latte = (await bo('POST', '/items', { name: 'Latte', unit_price: 280, vat_rate: 21, category_id: null, modifier_group_ids: [g.id] })).body.data;
    const at = (extra: Record<string, unknown>) => ({ uuid: uuid(), item_id: latte.id, qty: 1, unit_price: 280, price_source: 'catalog', modifiers: [], ...extra });

    // The cashier (no apply_discount) sends the catalog modifier at 0 on a catalog line: priced from the catalog.
    const cheap = await put(uuid(), { lines: [at({ modifiers: [{ id: oat.toUpperCase(), name: 'Oat', price: 0 }] })] });
    expect(cheap.status).toBe(200);
    expect(cheap.body.lines[0]).toMatchObject({ unit_price: 280, line_total: 330, modifiers: [{ id: oat, name: 'Oat milk', price: 50 }] });
    expect(cheap.body.totals.total).toBe(330);

    // On a line of another price source the price sent is kept, and a price other than the catalog's is a manual price.
    const manualLine = at({ price_source: 'manual', modifiers: [{ id: oat, name: 'Oat milk', price: 0 }] });
    const id = uuid();
    expect(await put(id, { lines: [manualLine] })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect((await put(uuid(), { lines: [{ ...manualLine, modifiers: [{ id: oat, price: 50 }] }] })).status).toBe(200);
    const approved = await put(id, { lines: [manualLine], approval_token: await escalate('apply_discount') });
    expect(approved.status).toBe(200);
    expect(approved.body.lines[0]).toMatchObject({ line_total: 280, modifiers: [{ id: oat, name: 'Oat milk', price: 0 }] });
    // Re-sending the approved line needs no new approval; another price does.
    expect((await put(id, { expected_version: 1, lines: [manualLine] })).status).toBe(200);
    expect(await put(id, { expected_version: 2, lines: [{ ...manualLine, modifiers: [{ id: oat, price: 10 }] }] })).toMatchObject({ status: 403, body: FORBIDDEN });
    // The approval was for one free oat milk: listing it twice, or at qty 2, is more of it (nothing written).
    const free = { id: oat, name: 'Oat milk', price: 0 };
    expect(await put(id, { expected_version: 2, lines: [{ ...manualLine, modifiers: [free, free] }] })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await put(id, { expected_version: 2, lines: [{ ...manualLine, modifiers: [{ ...free, qty: 2 }] }] })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect((await get(`/api/pos/orders/${id}`)).body).toMatchObject({ version: 2, lines: [{ modifiers: [free] }] });

    // A free modifier (no id) is priced as sent: free of charge needs nothing, a price needs apply_discount.
    expect((await put(uuid(), { lines: [at({ modifiers: [{ name: 'No foam', price: 0 }] })] })).status).toBe(200);
    expect(await put(uuid(), { lines: [at({ modifiers: [{ name: 'Gold leaf', price: 100 }] })] })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect((await put(uuid(), { lines: [at({ modifiers: [{ name: 'Gold leaf', price: 100 }] })] }, manager)).body.lines[0].line_total).toBe(380);

    // A modifier id that is not one of the item's modifiers is refused on the field.
    const unknown = await put(uuid(), { lines: [at({ modifiers: [{ id: 'mayo', price: 0 }] }), line('Espresso', 1, { modifiers: [{ id: oat, price: 50 }] })] }, manager);
    expect(unknown).toMatchObject({
      status: 422,
      body: {
        errors: {
          'lines.0.modifiers.0.id': ['The selected lines.0.modifiers.0.id is not a modifier of this item.'],
          'lines.1.modifiers.0.id': ['The selected lines.1.modifiers.0.id is not a modifier of this item.'],
        },
      },
    });
  });

  test('a catalog line of an item the register does not sell (hidden, not on the pos channel, another location) is a 422 on item_id', async () => {
    const owner = await api.ownerToken(m);
    const create = async (extra: Record<string, unknown>) =>
      (await api.call('POST', '/api/back-office/items', { token: owner, body: { name: 'Unsold', unit_price: 500, vat_rate: 21, category_id: null, ...extra } })).body.data.id as string;
    const hidden = await create({ visible: false });
    const kioskOnly = await create({ channels: ['kiosk'] });
    const elsewhere = await create({ location_ids: [m.locations[1]!.id] });
    const here = await create({ location_ids: [m.locations[0]!.id], channels: ['pos'] });
    const at = (itemId: string, extra: Record<string, unknown> = {}) => ({ uuid: uuid(), item_id: itemId, qty: 1, unit_price: 500, price_source: 'catalog', modifiers: [], ...extra });
    const id = uuid();
    const r = await put(id, { lines: [at(hidden), at(kioskOnly), at(elsewhere), at(here)] });
    expect(r).toMatchObject({
      status: 422,
      body: {
        message: 'The selected lines.0.item_id is not on the menu. (and 2 more errors)',
        errors: {
          'lines.0.item_id': ['The selected lines.0.item_id is not on the menu.'],
          'lines.1.item_id': ['The selected lines.1.item_id is not on the menu.'],
          'lines.2.item_id': ['The selected lines.2.item_id is not on the menu.'],
        },
      },
    });
    expect(Object.keys(r.body.errors)).toHaveLength(3);
    expect((await get(`/api/pos/orders/${id}`)).status).toBe(404);
    expect((await put(uuid(), { lines: [at(here)] })).status).toBe(200);
    // A line not priced from the catalog (an open price) is not a catalog sale: it stays allowed.
    expect((await put(uuid(), { lines: [at(hidden, { price_source: 'open_price' })] })).status).toBe(200);
  });

  test('an item taken off the menu after it was ordered: its line sent back as written is kept, the tab still takes new lines; a changed line of it is a new sale, refused', async () => {
    const owner = await api.ownerToken(m);
    const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
    const g = (await bo('POST', '/modifier-groups', { name: 'Syrup', min_select: 0, max_select: 1, modifiers: [{ name: 'Vanilla', price: 40 }] })).body.data;
    const mocha = (await bo('POST', '/items', { name: 'Mocha', unit_price: 350, vat_rate: 21, category_id: null, modifier_group_ids: [g.id] })).body.data;
    const gone = (await bo('POST', '/items', { name: 'Scone', unit_price: 220, vat_rate: 6, category_id: null })).body.data;
    const sent = { uuid: uuid(), item_id: mocha.id, qty: 1, unit_price: 350, price_source: 'catalog', modifiers: [{ id: g.modifiers[0].id, price: 40 }] };
    const scone = { uuid: uuid(), item_id: gone.id, qty: 2, unit_price: 220, price_source: 'catalog', modifiers: [] };
    const id = uuid();
    const first = await put(id, { lines: [sent, scone] });
    expect(first.status).toBe(200);
    expect((await post(`/api/pos/orders/${id}/fire`)).status).toBe(200);
    const asWritten = first.body.lines as Record<string, unknown>[];
    // 86'd mid-service: hidden; the other item deleted from the catalog.
    expect((await bo('PUT', `/items/${mocha.id}`, { visible: false })).status).toBe(200);
    expect((await bo('DELETE', `/items/${gone.id}`)).status).toBe(200);
    // Before: 422 "not on the menu" / "invalid" on the lines the order already held; the only way on was a manager removing fired lines.
    const more = await put(id, { expected_version: 2, lines: [...asWritten, line('Croissant')] });
    expect([more.status, more.body.lines?.map((l: { name: string; line_total: number }) => [l.name, l.line_total])]).toEqual([200, [['Mocha', 390], ['Scone', 440], ['Croissant', 220]]]);
    expect(more.body.totals.total).toBe(1050);
    // One more Mocha of the hidden item is a new sale of it: refused, nothing written.
    const again = await put(id, { expected_version: 3, lines: [{ ...asWritten[0], qty: 2 }, asWritten[1], more.body.lines[2]] });
    expect([again.status, again.body.errors]).toEqual([422, { 'lines.0.item_id': ['The selected lines.0.item_id is not on the menu.'] }]);
    const deletedMore = await put(id, { expected_version: 3, lines: [asWritten[0], { ...asWritten[1], qty: 3 }, more.body.lines[2]] });
    expect([deletedMore.status, deletedMore.body.errors]).toEqual([422, { 'lines.1.item_id': ['The selected lines.1.item_id is invalid.'] }]);
    // A new order of the hidden item is refused as before.
    expect((await put(uuid(), { lines: [{ ...sent, uuid: uuid() }] })).status).toBe(422);
    const settled = await post(`/api/pos/orders/${id}/settle`, cashier, { amount_tendered: 2000 });
    expect([settled.status, settled.body.state, settled.body.totals.total]).toEqual([200, 'SETTLED', 1050]);
  });

  test('a catalog modifier at the catalog\'s bounds (price over 1,000.00, a 255-character name) sells, reads and settles', async () => {
    const owner = await api.ownerToken(m);
    const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
    const longName = `Caviar ${'x'.repeat(248)}`;
    const g = (await bo('POST', '/modifier-groups', { name: 'Caviar', min_select: 0, max_select: 1, modifiers: [{ name: longName, price: 150_000 }] })).body.data;
    const blini = (await bo('POST', '/items', { name: 'Blini', unit_price: 900, vat_rate: 21, category_id: null, modifier_group_ids: [g.id] })).body.data;
    const caviar = g.modifiers[0].id as string;
    const id = uuid();
    // Before: the order was stored, then its answer failed the response schema (price at most 100000, name 120): a 422 the register read as "not written".
    const r = await put(id, { lines: [{ uuid: uuid(), item_id: blini.id, qty: 1, unit_price: 900, price_source: 'catalog', modifiers: [{ id: caviar, price: 150_000 }] }] }, manager);
    expect([r.status, r.body.lines?.[0]?.modifiers, r.body.totals?.total]).toEqual([200, [{ id: caviar, name: longName, price: 150_000 }], 150_900]);
    expect((await get(`/api/pos/orders/${id}`)).status).toBe(200);
    const settled = await post(`/api/pos/orders/${id}/settle`, manager, { amount_tendered: 200_000 });
    expect([settled.status, settled.body.state, settled.body.tender]).toEqual([200, 'SETTLED', { amount_tendered: 200_000, change: 49_100 }]);
    expect((await get('/api/pos/orders?state=settled&per_page=100')).status).toBe(200);
  });

  test('prices, quantities, modifier amounts and text have upper bounds: 422 on the field, never a 500', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ unit_price: 10_000_000_000, price_source: 'manual' }, 'lines.0.unit_price', 'The lines.0.unit_price field must be between 0 and 10000000.'],
      [{ modifiers: [{ name: 'Gold leaf', price: 10_000_000_000 }] }, 'lines.0.modifiers.0.price', 'The lines.0.modifiers.0.price field must be between 0 and 10000000.'],
      [{ modifiers: [{ name: 'x', price: 1, qty: 1000 }] }, 'lines.0.modifiers.0.qty', 'The lines.0.modifiers.0.qty field must be between 1 and 999.'],
      [{ modifiers: Array.from({ length: 51 }, () => ({ price: 0 })) }, 'lines.0.modifiers', 'The lines.0.modifiers field must have at most 50 items.'],
      [{ modifiers: [{ name: 'n'.repeat(256), price: 0 }] }, 'lines.0.modifiers.0.name', 'The lines.0.modifiers.0.name field must be at most 255 characters.'],
      [{ discount: { type: 'amount', value: 10_000_000_000 } }, 'lines.0.discount.value', 'The lines.0.discount.value field must be between 1 and 1000000.'],
      [{ price_source: 'p'.repeat(41) }, 'lines.0.price_source', 'The lines.0.price_source field must be at most 40 characters.'],
      [{ qty: 10_000_000_000 }, 'lines.0.qty', 'The lines.0.qty field must be between 1 and 999.'],
    ];
    for (const [extra, field, message] of cases) {
      const r = await put(uuid(), { lines: [line('Espresso', 1, extra)] }, manager);
      expect({ status: r.status, errors: r.body.errors }).toEqual({ status: 422, errors: { [field]: [message] } });
    }
    // Each bound alone is fine, but an order may not add up to more than 1,000,000.00.
    const big = Array.from({ length: 2 }, () => line('Espresso', 999, { unit_price: 1_000_000, price_source: 'manual' }));
    const r = await put(uuid(), { lines: big }, manager);
    expect({ status: r.status, body: r.body }).toEqual({
      status: 422,
      body: { message: 'The order total may not exceed 100000000 cents.', errors: { lines: ['The order total may not exceed 100000000 cents.'] } },
    });
    // Far past it (a rate's gross times 10,000 beyond safe integers, each field still within its bound): the same 422, not a 500.
    for (const lines of [
      Array.from({ length: 100 }, () => line('Espresso', 999, { unit_price: 10_000_000, price_source: 'manual' })),
      [line('Espresso', 999, { unit_price: 10_000_000, price_source: 'manual', modifiers: Array.from({ length: 50 }, () => ({ name: 'Gold', price: 10_000_000, qty: 999 })) })],
    ]) {
      const far = await put(uuid(), { lines }, manager);
      expect([far.status, far.body.errors]).toEqual([422, { lines: ['The order total may not exceed 100000000 cents.'] }]);
    }
  });

  test('a cashier needs apply_discount: 403, then an approval token from escalate passes once', async () => {
    const id = await create([line('Espresso')]);
    const discounted = (extra: Record<string, unknown> = {}) => ({ expected_version: 1, lines: [line('Espresso', 1, { discount: { type: 'amount', value: 30 } })], ...extra });
    const denied = await put(id, discounted());
    expect(denied).toMatchObject({ status: 403, body: FORBIDDEN });
    // A token for another permission does not help, and is not consumed.
    const voidToken = await escalate('void_order');
    expect((await put(id, discounted({ approval_token: voidToken }))).status).toBe(403);

    const token = await escalate('apply_discount');
    const ok = await put(id, discounted({ approval_token: token }));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ version: 2, totals: { discount: 30, total: 250 } });
    // Used once: a second discount change with the same token is refused.
    const reuse = await put(id, { expected_version: 2, lines: [line('Espresso', 1, { discount: { type: 'amount', value: 40 } })], approval_token: token });
    expect(reuse).toMatchObject({ status: 403, body: FORBIDDEN });
    // Keeping the stored discount unchanged needs nothing; more units of it is a new discount.
    expect(await put(id, { expected_version: 2, lines: [{ ...ok.body.lines[0], qty: 2 }] })).toMatchObject({ status: 403, body: FORBIDDEN });
    const keep = await put(id, { expected_version: 2, lines: [ok.body.lines[0], line('Croissant')] });
    expect(keep).toMatchObject({ status: 200, body: { version: 3, totals: { total: 470 } } });
    // The void token is still usable for what it approves.
    expect((await post(`/api/pos/orders/${id}/void`, cashier, { approval_token: voidToken })).body.state).toBe('VOIDED');
  });

  test('an approved discount or open price covers that line only: another item or more units needs apply_discount again', async () => {
    // A 100 % discount approved on one croissant, turned by the cashier into 50 spaghetti.
    const free = line('Croissant', 1, { discount: { type: 'pct', value: 100 } });
    const a = await create([free], manager);
    const spaghetti = item('Spaghetti bolognese');
    const swapped = await put(a, { expected_version: 1, lines: [{ ...free, item_id: spaghetti.id, unit_price: spaghetti.unit_price }] });
    expect(swapped).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await put(a, { expected_version: 1, lines: [{ ...free, qty: 50 }] })).toMatchObject({ status: 403, body: FORBIDDEN });
    // An amount discount x999.
    const off = line('Belgian beer', 2, { discount: { type: 'amount', value: 450 } });
    const b = await create([off], manager);
    expect(await put(b, { expected_version: 1, lines: [{ ...off, qty: 999 }] })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await put(b, { expected_version: 1, lines: [{ ...off, qty: 1 }] })).toMatchObject({ status: 200, body: { version: 2 } });
    // An open price of 0.01 x999.
    const cent = line('Espresso', 1, { unit_price: 1, price_source: 'open_price' });
    const c = await create([cent], manager);
    expect(await put(c, { expected_version: 1, lines: [{ ...cent, qty: 999 }] })).toMatchObject({ status: 403, body: FORBIDDEN });
    // With an approval for it, the cashier may.
    const more = await put(c, { expected_version: 1, lines: [{ ...cent, qty: 999 }], approval_token: await escalate('apply_discount') });
    expect(more).toMatchObject({ status: 200, body: { version: 2, totals: { total: 999 } } });
  });

  test('removing or lowering a line of a fired order needs remove_fired_line; adding does not', async () => {
    const a = line('Espresso', 2);
    const b = line('Croissant', 1);
    const id = await create([a, b]);
    expect((await post(`/api/pos/orders/${id}/fire`)).body).toMatchObject({ fired: true, version: 2 });
    const added = await put(id, { expected_version: 2, lines: [a, b, line('Belgian beer')] });
    expect(added).toMatchObject({ status: 200, body: { version: 3 } });
    const lines = added.body.lines;

    expect(await put(id, { expected_version: 3, lines: [{ ...lines[0], qty: 1 }, lines[1], lines[2]] })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await put(id, { expected_version: 3, lines: [lines[0], lines[2]] })).toMatchObject({ status: 403, body: FORBIDDEN });
    const token = await escalate('remove_fired_line');
    const removed = await put(id, { expected_version: 3, lines: [{ ...lines[0], qty: 1 }, lines[2]], approval_token: token });
    expect(removed).toMatchObject({ status: 200, body: { version: 4, fired: true, totals: { total: 280 + 450 } } });
    // The manager holds it.
    expect((await put(id, { expected_version: 4, lines: [lines[2]] }, manager)).status).toBe(200);
  });

  test('a fired line losing its paid modifier is lowered: remove_fired_line', async () => {
    const shot = line('Espresso', 1, { modifiers: [{ name: 'Extra shot', price: 150 }] });
    const id = await create([shot], manager);
    expect((await post(`/api/pos/orders/${id}/fire`)).body).toMatchObject({ fired: true, version: 2 });
    expect(await put(id, { expected_version: 2, lines: [{ ...shot, modifiers: [] }] })).toMatchObject({ status: 403, body: FORBIDDEN });
    // Re-sent as it is: nothing to approve.
    expect((await put(id, { expected_version: 2, lines: [shot] })).status).toBe(200);
    const lowered = await put(id, { expected_version: 3, lines: [{ ...shot, modifiers: [] }], approval_token: await escalate('remove_fired_line') });
    expect(lowered).toMatchObject({ status: 200, body: { version: 4, totals: { total: 280 } } });
  });

  test('an order of another location or another merchant is a 404', async () => {
    const id = await create([line('Espresso')]);
    // A register on location [1] of the same merchant.
    const otherDevice = Bun.randomUUIDv7();
    await api.deps.db.insertInto('device_registry').values({ id: otherDevice, merchant_id: m.merchant.id, type: 'pos', activation_code: null }).execute();
    await bindTenant(api.deps.db, m.merchant.tenant_database)
      .insertInto('devices')
      .values({ id: otherDevice, location_id: m.locations[1]!.id, type: 'pos', name: 'POS station', network_info: JSON.stringify({}) })
      .execute();
    const reg = await api.deps.db.selectFrom('device_registry').select('token_version').where('id', '=', otherDevice).executeTakeFirstOrThrow();
    const stationToken = await api.deps.tokens.sign({ type: 'pos', sub: otherDevice, merchant_id: m.merchant.id, tenant_database: m.merchant.tenant_database, ver: reg.token_version });
    const stationStaff = await api.staffLogin(m, 'manager', stationToken);
    expect(await get(`/api/pos/orders/${id}`, stationStaff, stationToken)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await put(id, { expected_version: 1, lines: [line('Croissant')] }, stationStaff, stationToken)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await post(`/api/pos/orders/${id}/fire`, stationStaff, undefined, stationToken)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await post(`/api/pos/orders/${id}/void`, stationStaff, undefined, stationToken)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await post(`/api/pos/orders/${id}/settle`, stationStaff, { amount_tendered: 500 }, stationToken)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect((await get('/api/pos/orders?state=open', stationStaff, stationToken)).body).toEqual({ data: [], total: 0 });

    const other = await api.seed('orders-other');
    const otherToken = await api.deviceToken(other, 'pos', 0);
    const otherStaff = await api.staffLogin(other, 'manager', otherToken);
    expect(await get(`/api/pos/orders/${id}`, otherStaff, otherToken)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await post(`/api/pos/orders/${id}/fire`, otherStaff, undefined, otherToken)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await get(`/api/pos/orders/${uuid()}`)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await get('/api/pos/orders/not-a-uuid')).toMatchObject({ status: 404, body: NOT_FOUND });
  });

  test('needs a staff session', async () => {
    const r = await api.call('PUT', `/api/pos/orders/${uuid()}`, { token: device, deviceKey: true, body: { lines: [] } });
    expect(r).toMatchObject({ status: 401, body: { message: 'Invalid POS staff token' } });
  });
});

describe('fire and void', () => {
  test('fire sets fired and bumps the version; an empty or final order is refused', async () => {
    const id = await create([line('Espresso')]);
    const fired = await post(`/api/pos/orders/${id}/fire`);
    expect(fired.status).toBe(200);
    expect(fired.body).toMatchObject({ client_uuid: id, state: 'OPEN', fired: true, version: 2 });
    // Firing again (lines added since) stays OPEN and bumps the version.
    expect((await post(`/api/pos/orders/${id}/fire`)).body).toMatchObject({ fired: true, version: 3 });

    const empty = await create([]);
    expect((await get(`/api/pos/orders/${empty}`)).body).toMatchObject({ state: 'OPEN', version: 1, lines: [] });
    expect(await post(`/api/pos/orders/${empty}/fire`)).toMatchObject({ status: 409, body: { reason: 'empty_order', message: 'An order without lines cannot be sent to the kitchen.' } });
    expect(await post(`/api/pos/orders/${uuid()}/fire`)).toMatchObject({ status: 404, body: NOT_FOUND });
  });

  test('fire sends the lines not sent yet to the kitchen: a ticket per fire on the station serving them (issue 14)', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const first = line('Espresso', 2);
    const id = uuid();
    expect((await put(id, { lines: [first], table_number: '12' })).status).toBe(200);
    const tickets = () => tdb.selectFrom('kitchen_tickets').selectAll().where('source', '=', 'pos_order').where('source_id', '=', id).orderBy('fire_no').execute();
    const linesOf = (ticketId: string) => tdb.selectFrom('kitchen_ticket_lines').select(['name', 'qty', 'line_ref']).where('ticket_id', '=', ticketId).orderBy('position').execute();
    expect(await tickets()).toEqual([]);
    await post(`/api/pos/orders/${id}/fire`);
    let t = await tickets();
    expect(t.map((k) => [k.station_id, k.fire_no, k.order_no, k.status])).toEqual([[m.kds.station_id, 2, '12', 'Queued']]);
    expect(await linesOf(t[0]!.id)).toEqual([{ name: 'Espresso', qty: 2, line_ref: first.uuid }]);
    // A line added since: the next fire sends only it.
    const second = line('Croissant');
    expect((await put(id, { lines: [first, second], table_number: '12', expected_version: 2 })).status).toBe(200);
    await post(`/api/pos/orders/${id}/fire`);
    t = await tickets();
    expect(t.map((k) => k.fire_no)).toEqual([2, 4]);
    expect(await linesOf(t[1]!.id)).toEqual([{ name: 'Croissant', qty: 1, line_ref: second.uuid }]);
    // Nothing new: firing again makes no ticket.
    await post(`/api/pos/orders/${id}/fire`);
    expect((await tickets()).length).toBe(2);
  });

  test('a fired line whose qty goes from 1 to 3 sends the 2 extra at the next fire; lowering or removing a fired line sends VOID lines', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const tickets = () => tdb.selectFrom('kitchen_tickets').selectAll().where('source', '=', 'pos_order').where('source_id', '=', id).orderBy('fire_no').execute();
    const linesOf = (ticketId: string) => tdb.selectFrom('kitchen_ticket_lines').select(['position', 'name', 'qty', 'line_ref']).where('ticket_id', '=', ticketId).orderBy('position').execute();
    const a = line('Espresso', 1);
    const b = line('Croissant', 2);
    const id = uuid();
    expect((await put(id, { lines: [a, b], table_number: 'T9' })).status).toBe(200);
    expect((await post(`/api/pos/orders/${id}/fire`)).body).toMatchObject({ version: 2 });
    const raised = await put(id, { lines: [{ ...a, qty: 3 }, b], table_number: 'T9', expected_version: 2 });
    expect(raised).toMatchObject({ status: 200, body: { version: 3 } });
    expect((await post(`/api/pos/orders/${id}/fire`)).body).toMatchObject({ version: 4 });
    let t = await tickets();
    expect(t.map((k) => [k.station_id, k.fire_no])).toEqual([[m.kds.station_id, 2], [m.kds.station_id, 4]]);
    expect(await linesOf(t[1]!.id)).toEqual([{ position: 0, name: 'Espresso', qty: 2, line_ref: a.uuid }]);
    // Lowered to 2 and the croissants taken off (remove_fired_line): the kitchen is told what not to make.
    const lowered = await put(id, { lines: [{ ...a, qty: 2 }], table_number: 'T9', expected_version: 4, approval_token: await escalate('remove_fired_line') });
    expect(lowered).toMatchObject({ status: 200, body: { version: 5 } });
    expect((await post(`/api/pos/orders/${id}/fire`)).body).toMatchObject({ version: 6 });
    t = await tickets();
    expect(t.map((k) => k.fire_no)).toEqual([2, 4, 6]);
    expect(await linesOf(t[2]!.id)).toEqual([
      { position: 0, name: 'VOID Espresso', qty: -1, line_ref: a.uuid },
      { position: 1, name: 'VOID Croissant', qty: -2, line_ref: b.uuid },
    ]);
    // What the kitchen was told adds up to the order: 2 espressos, no croissant. Firing again sends nothing.
    await post(`/api/pos/orders/${id}/fire`);
    expect((await tickets()).length).toBe(3);
  });

  test('voiding a fired order sends VOID lines for everything fired (one last fire, a created event); an unfired void sends nothing', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const tickets = (id: string) => tdb.selectFrom('kitchen_tickets').selectAll().where('source', '=', 'pos_order').where('source_id', '=', id).orderBy('fire_no').execute();
    const linesOf = (ticketId: string) => tdb.selectFrom('kitchen_ticket_lines').select(['position', 'name', 'qty', 'line_ref']).where('ticket_id', '=', ticketId).orderBy('position').execute();
    const eventsOf = (ticketId: string) => tdb.selectFrom('kitchen_events').select(['action', 'station_id']).where('ticket_id', '=', ticketId).orderBy('seq').execute();
    const a = line('Espresso', 2);
    const b = line('Croissant', 1);
    const id = uuid();
    expect((await put(id, { lines: [a, b], table_number: 'V1' })).status).toBe(200);
    expect((await post(`/api/pos/orders/${id}/fire`)).body).toMatchObject({ version: 2 });
    // A line added after the fire and never fired: the kitchen never heard of it, so nothing is voided for it.
    const c = line('Espresso', 1);
    expect((await put(id, { lines: [a, b, c], table_number: 'V1', expected_version: 2 })).status).toBe(200);
    expect(await post(`/api/pos/orders/${id}/void`, manager, { reason: 'Walked out' })).toMatchObject({ status: 200, body: { state: 'VOIDED', version: 4 } });
    const t = await tickets(id);
    expect(t.map((k) => [k.station_id, k.fire_no, k.order_no, k.status])).toEqual([
      [m.kds.station_id, 2, 'V1', 'Queued'],
      [m.kds.station_id, 4, 'V1', 'Queued'],
    ]);
    expect(await linesOf(t[1]!.id)).toEqual([
      { position: 0, name: 'VOID Espresso', qty: -2, line_ref: a.uuid },
      { position: 1, name: 'VOID Croissant', qty: -1, line_ref: b.uuid },
    ]);
    expect(await eventsOf(t[1]!.id)).toEqual([{ action: 'created', station_id: m.kds.station_id }]);
    // The screen's list shows the void ticket beside the first one.
    const kds = await api.deviceToken(m, 'kds');
    const listed = await api.call('GET', '/api/kds/orders', { token: kds, deviceKey: true });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain('VOID Croissant');

    const unfired = await create([line('Espresso')]);
    expect((await post(`/api/pos/orders/${unfired}/void`, manager)).status).toBe(200);
    expect(await tickets(unfired)).toEqual([]);
  });

  test('a VOID goes to the station the fired line went to, though its item was deleted, its category deleted or the item moved since the fire', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const owner = await api.ownerToken(m);
    const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
    const food = (await tdb.selectFrom('categories').select('id').where('name', '=', 'Food').executeTakeFirstOrThrow()).id;
    const changes: Record<string, (item: string, category: string) => Promise<{ status: number }>> = {
      'item deleted': (item) => bo('DELETE', `/items/${item}`),
      'category deleted': (_, category) => bo('DELETE', `/categories/${category}`),
      'item moved': (item) => bo('PUT', `/items/${item}`, { category_id: food }),
    };
    /** Per ticket line of the order: station name, fire, line name and qty. */
    const routed = (id: string) =>
      tdb
        .selectFrom('kitchen_ticket_lines as l')
        .innerJoin('kitchen_tickets as t', 't.id', 'l.ticket_id')
        .innerJoin('kitchen_stations as s', 's.id', 't.station_id')
        .select(['s.name as station', 't.fire_no', 'l.name', 'l.qty'])
        .where('t.source', '=', 'pos_order')
        .where('t.source_id', '=', id)
        .orderBy('t.fire_no')
        .orderBy('s.name')
        .orderBy('l.position')
        .execute();
    const got: unknown[] = [];
    const want: unknown[] = [];
    let n = 0;
    for (const [change, apply] of Object.entries(changes)) {
      for (const ending of ['remove and fire', 'void order'] as const) {
        n++;
        // A "Cocktails" category served only by a "Bar" station; the seeded Kitchen serves Drinks and Food and is no fallback.
        const category = await bo('POST', '/categories', { name: `Cocktails ${n}` });
        expect(category.status).toBe(201);
        const mojito = await bo('POST', '/items', { name: 'Mojito', unit_price: 900, vat_rate: 21, category_id: category.body.data.id });
        expect(mojito.status).toBe(201);
        const bar = await bo('POST', '/devices/stations', { location_id: m.devices[0]!.location_id, name: `Bar ${n}`, category_ids: [category.body.data.id] });
        expect(bar.status).toBe(201);
        const cocktail = { uuid: uuid(), item_id: mojito.body.data.id, qty: 1, unit_price: 900, price_source: 'catalog', modifiers: [] };
        const espresso = line('Espresso', 1);
        const id = uuid();
        expect((await put(id, { lines: [cocktail, espresso], table_number: `B${n}` })).status).toBe(200);
        expect((await post(`/api/pos/orders/${id}/fire`)).body).toMatchObject({ version: 2 });
        expect((await apply(mojito.body.data.id, category.body.data.id)).status).toBe(200);
        const fired = [
          { station: `Bar ${n}`, fire_no: 2, name: 'Mojito', qty: 1 },
          { station: 'Kitchen', fire_no: 2, name: 'Espresso', qty: 1 },
        ];
        if (ending === 'remove and fire') {
          // The manager holds remove_fired_line (no escalation: the file's approvals are rate-limited).
          const removed = await put(id, { lines: [espresso], table_number: `B${n}`, expected_version: 2 }, manager);
          expect(removed).toMatchObject({ status: 200, body: { version: 3 } });
          expect((await post(`/api/pos/orders/${id}/fire`)).body).toMatchObject({ version: 4 });
          got.push([change, ending, await routed(id)]);
          want.push([change, ending, [...fired, { station: `Bar ${n}`, fire_no: 4, name: 'VOID Mojito', qty: -1 }]]);
        } else {
          expect(await post(`/api/pos/orders/${id}/void`, manager)).toMatchObject({ status: 200, body: { state: 'VOIDED', version: 3 } });
          got.push([change, ending, await routed(id)]);
          want.push([change, ending, [...fired, { station: `Bar ${n}`, fire_no: 3, name: 'VOID Mojito', qty: -1 }, { station: 'Kitchen', fire_no: 3, name: 'VOID Espresso', qty: -1 }]]);
        }
      }
    }
    // Before: the VOID Mojito went nowhere (item or category gone, no fallback) or to the Kitchen (item moved to Food).
    expect(got).toEqual(want);
  });

  test('void takes an optional reason and records it in the activity log', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const id = await create([line('Espresso')]);
    const voided = await post(`/api/pos/orders/${id}/void`, manager, { reason: 'Customer left' });
    expect(voided).toMatchObject({ status: 200, body: { state: 'VOIDED' } });
    const logged = await tdb.selectFrom('activity_logs').selectAll().where('subject', '=', 'pos_order').where('subject_id', '=', id).execute();
    expect(logged.map((l) => [l.action, l.properties])).toEqual([['voided', { reason: 'Customer left', staff_id: expect.any(String), device_id: m.devices[0]!.id }]]);

    const bare = await create([line('Espresso')]);
    expect((await post(`/api/pos/orders/${bare}/void`, manager)).status).toBe(200);
    const none = await tdb.selectFrom('activity_logs').select('properties').where('subject_id', '=', bare).executeTakeFirstOrThrow();
    expect(none.properties).toMatchObject({ reason: null });

    const tooLong = await create([line('Espresso')]);
    const refused = await post(`/api/pos/orders/${tooLong}/void`, manager, { reason: 'x'.repeat(501) });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['reason']);
    expect((await post(`/api/pos/orders/${tooLong}/void`, manager, { reason: 'ok', colour: 'red' })).status).toBe(422);
  });

  test('void needs void_order: the cashier gets 403, the manager voids; a voided order cannot be fired or voided again', async () => {
    const id = await create([line('Espresso')]);
    expect(await post(`/api/pos/orders/${id}/void`)).toMatchObject({ status: 403, body: FORBIDDEN });
    const voided = await post(`/api/pos/orders/${id}/void`, manager);
    expect(voided.status).toBe(200);
    expect(voided.body).toMatchObject({ client_uuid: id, state: 'VOIDED', version: 2, lines: [{ name: 'Espresso' }] });
    expect(await post(`/api/pos/orders/${id}/void`, manager)).toMatchObject({ status: 409, body: { reason: 'not_open', message: 'This order is voided and can no longer be changed.' } });
    expect(await post(`/api/pos/orders/${id}/fire`, manager)).toMatchObject({ status: 409, body: { reason: 'not_open' } });
  });
});

describe('GET /pos/orders', () => {
  test('lists by state with paging as {data, total}; state is required and closed', async () => {
    const own = await api.seed('orders-list');
    const token = await api.deviceToken(own, 'pos', 0);
    const staff = await api.staffLogin(own, 'manager', token);
    const it = own.items[0]!;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = uuid();
      ids.push(id);
      const r = await put(id, { lines: [{ uuid: uuid(), item_id: it.id, qty: 1, unit_price: it.unit_price, price_source: 'catalog' }] }, staff, token);
      expect(r.status).toBe(200);
    }
    expect((await post(`/api/pos/orders/${ids[0]}/void`, staff, undefined, token)).status).toBe(200);
    const extra = uuid();
    expect((await put(extra, { lines: [{ uuid: uuid(), item_id: it.id, qty: 1, unit_price: it.unit_price, price_source: 'catalog' }] }, staff, token)).status).toBe(200);

    const page1 = await get('/api/pos/orders?state=open&per_page=2', staff, token);
    expect(page1.status).toBe(200);
    expect(page1.body.total).toBe(3);
    expect(page1.body.data.map((o: { client_uuid: string }) => o.client_uuid)).toEqual([extra, ids[2]]);
    const page2 = await get('/api/pos/orders?state=open&per_page=2&page=2', staff, token);
    expect(page2.body).toEqual({ data: [expect.objectContaining({ client_uuid: ids[1], state: 'OPEN' })], total: 3 });
    expect((await get('/api/pos/orders?state=settling', staff, token)).body).toEqual({ data: [], total: 0 });
    expect((await get('/api/pos/orders?state=settled', staff, token)).body).toEqual({ data: [], total: 0 });

    expect(await get('/api/pos/orders', staff, token)).toMatchObject({ status: 422, body: { errors: { state: ['The state field is required.'] } } });
    const invalid = await get('/api/pos/orders?state=voided', staff, token);
    expect(invalid).toMatchObject({ status: 422, body: { message: 'The selected state is invalid. Accepted: open, settling, settled.', errors: { state: ['The selected state is invalid. Accepted: open, settling, settled.'] } } });
    expect((await get('/api/pos/orders?state=OPEN', staff, token)).status).toBe(422);
    expect((await get('/api/pos/orders?state=open&per_page=500', staff, token)).status).toBe(422);
  });
});
