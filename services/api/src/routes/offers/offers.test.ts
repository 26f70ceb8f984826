import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { ManualClock } from '@pos/kernel';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { atOnce, sortedStatuses } from '../../testing/at-once.ts';
import { makeMember } from '../team/team.test-support.ts';

let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let tdb: TenantDb;
let owner: string;
let kiosk: string;
// Monday 23 November 2026, 12:00 in Brussels.
const NOW = new Date('2026-11-23T11:00:00Z');

const call = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const quote = (lines: unknown[]) => api.call('POST', '/api/kiosk/pricing/quote', { token: kiosk, deviceKey: true, body: { lines } });
const item = (name: string) => m.items.find((i) => i.name === name)!.id;

beforeAll(async () => {
  api = await createTestApi({ clock: new ManualClock(NOW) });
  m = await api.seed('offers');
  other = await api.seed('offers-other');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
  kiosk = await api.deviceToken(m, 'kiosk');
});
afterAll(() => api.close());

describe('offers', () => {
  test('create (inactive), read, states with reasons, update, delete', async () => {
    const r = await call('POST', '/offers', { name: 'Coffee deal', rule: { kind: 'percentage', percent: 10 }, item_ids: [item('Espresso')], channels: ['kiosk'], min_basket: 0 });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.any(String),
      name: 'Coffee deal',
      description: null,
      status: 'inactive',
      rule: { kind: 'percentage', percent: 10 },
      item_ids: [item('Espresso')],
      category_ids: [],
      min_basket: 0,
      channels: ['kiosk'],
      location_ids: null,
      schedule: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = r.body.data.id;
    expect(await call('POST', `/offers/deactivate/${id}`)).toMatchObject({ status: 409, body: { reason: 'offer_already_inactive' } });
    expect((await call('POST', `/offers/activate/${id}`)).body.data.status).toBe('active');
    expect(await call('POST', `/offers/activate/${id}`)).toMatchObject({ status: 409, body: { reason: 'offer_already_active' } });
    expect(await call('DELETE', `/offers/${id}`)).toMatchObject({ status: 409, body: { reason: 'offer_active' } });
    expect((await call('POST', `/offers/archive/${id}`)).body.data.status).toBe('archived');
    expect(await call('PUT', `/offers/${id}`, { name: 'X' })).toMatchObject({ status: 409, body: { reason: 'offer_archived', message: 'This offer is archived. Unarchive it first.' } });
    expect(await call('POST', `/offers/activate/${id}`)).toMatchObject({ status: 409, body: { reason: 'offer_archived' } });
    expect((await call('POST', `/offers/unarchive/${id}`)).body.data.status).toBe('inactive');
    expect(await call('POST', `/offers/unarchive/${id}`)).toMatchObject({ status: 409, body: { reason: 'offer_not_archived' } });
    expect((await call('PUT', `/offers/${id}`, { rule: { kind: 'amount', amount: 50 }, schedule: { days: [1, 2], start: '11:00', end: '14:00' } })).body.data).toMatchObject({
      rule: { kind: 'amount', amount: 50 },
      schedule: { days: [1, 2], start: '11:00', end: '14:00' },
    });
    expect((await call('GET', '/offers?status=inactive')).body.data.map((o: { id: string }) => o.id)).toContain(id);
    expect((await call('DELETE', `/offers/${id}`)).body).toEqual({ status: 'success' });
    expect(await call('GET', `/offers/${id}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the offer you requested.' } });
  });

  test('bad rules and foreign ids are 422 on the field; nothing is written', async () => {
    const count = async () => (await tdb.selectFrom('offers').select('id').execute()).length;
    const before = await count();
    for (const [body, field] of [
      [{ name: 'X', rule: { kind: 'percentage', percent: 0 }, item_ids: [] }, 'rule'],
      [{ name: 'X', rule: { kind: 'percentage', percent: 10 }, item_ids: [other.items[0]!.id] }, 'item_ids.0'],
      [{ name: 'X', rule: { kind: 'amount', amount: 10 }, item_ids: [], location_ids: [other.locations[0]!.id] }, 'location_ids.0'],
      [{ name: 'X', rule: { kind: 'amount', amount: 10 }, item_ids: [], schedule: { days: [8], start: '10:00', end: '11:00' } }, 'schedule'],
      [{ name: 'X', rule: { kind: 'amount', amount: 10 }, item_ids: [], schedule: { days: [1], start: '25:00', end: '11:00' } }, 'schedule'],
      [{ name: 'X', rule: { kind: 'amount', amount: 10 }, item_ids: [], min_basket: -1 }, 'min_basket'],
    ] as const) {
      const r = await call('POST', '/offers', body);
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toContain(field);
    }
    expect(await count()).toBe(before);
  });

  test('a number given as a string is 422 on its field, never converted ("0x10" is not 16); nothing is written', async () => {
    const count = async () => (await tdb.selectFrom('offers').select('id').execute()).length;
    const before = await count();
    const hex = await call('POST', '/offers', { name: 'Hex', rule: { kind: 'percentage', percent: 5 }, item_ids: [], min_basket: '0x10' });
    expect(hex).toMatchObject({ status: 422, body: { errors: { min_basket: ['The min_basket field is invalid: expected integer.'] } } });
    const exp = await call('POST', '/offers', { name: 'Exp', rule: { kind: 'amount', amount: '1e3' }, item_ids: [] });
    expect(exp).toMatchObject({ status: 422, body: { errors: { rule: ['The rule must be {kind: percentage, percent 1-100}, {kind: amount, amount in cents} or {kind: buy_x_get_y, buy, get}.'] } } });
    const days = await call('POST', '/offers', { name: 'Days', rule: { kind: 'percentage', percent: 5 }, item_ids: [], schedule: { days: ['1'], start: '10:00', end: '11:00' } });
    expect(days.status).toBe(422);
    expect(Object.keys(days.body.errors)).toEqual(['schedule']); // a nullable object: the error names it whole
    expect(await count()).toBe(before);
  });

  test('a schedule whose end is its start is 422 on schedule.end, however the hour is written', async () => {
    const count = async () => (await tdb.selectFrom('offers').select('id').execute()).length;
    const before = await count();
    for (const [start, end] of [['09:00', '09:00'], ['9:00', '09:00'], ['09:00', '9:00']]) {
      const r = await call('POST', '/offers', { name: 'Happy hour', rule: { kind: 'percentage', percent: 10 }, item_ids: [], schedule: { days: [1, 2, 3], start, end } });
      expect(r).toMatchObject({ status: 422, body: { errors: { 'schedule.end': ['The schedule end must differ from its start.'] } } });
    }
    expect(await count()).toBe(before);
  });

  test('sent at once, an activation and a deletion each take effect once; the others answer as they would after it', async () => {
    const create = async (name: string) => (await call('POST', '/offers', { name, rule: { kind: 'percentage', percent: 5 }, item_ids: [] })).body.data.id as string;
    const active = await create('Race to activate');
    const activations = await atOnce(6, () => call('POST', `/offers/activate/${active}`));
    expect(sortedStatuses(activations)).toEqual([200, 409, 409, 409, 409, 409]);
    for (const r of activations.filter((x) => x.status === 409)) expect(r.body).toMatchObject({ reason: 'offer_already_active' });
    expect((await call('POST', `/offers/deactivate/${active}`)).status).toBe(200); // not to discount the kiosk quotes below
    const gone = await create('Race to delete');
    const deletions = await atOnce(4, () => call('DELETE', `/offers/${gone}`));
    expect(sortedStatuses(deletions)).toEqual([200, 404, 404, 404]);
    expect(await tdb.selectFrom('offers').select('id').where('id', '=', gone).execute()).toEqual([]);
  });
});

describe('offers and the location grant', () => {
  const body = (name: string, location_ids?: string[] | null) => ({ name, rule: { kind: 'percentage', percent: 50 }, item_ids: [], ...(location_ids !== undefined ? { location_ids } : {}) });
  const denied = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
  const named = async (name: string) => tdb.selectFrom('offers').select('id').where('name', '=', name).execute();

  test('a member writes offers of granted locations only; every location (null) needs all locations', async () => {
    const [l0, l1] = [m.locations[0]!.id, m.locations[1]!.id];
    const member = await makeMember(api, m, ['VIEW_OFFERS', 'CREATE_OFFERS', 'EDIT_OFFERS', 'DELETE_OFFERS'], { locationIds: [l1] });
    const as = (method: string, path: string, b?: unknown) => api.call(method, `/api/back-office${path}`, { token: member.token, body: b });

    expect(await as('POST', '/offers', body('Outside', [l0]))).toMatchObject(denied);
    expect(await as('POST', '/offers', body('Both', [l0, l1]))).toMatchObject(denied);
    expect(await as('POST', '/offers', body('Everywhere (omitted)'))).toMatchObject(denied);
    expect(await as('POST', '/offers', body('Everywhere', null))).toMatchObject(denied);
    for (const name of ['Outside', 'Both', 'Everywhere (omitted)', 'Everywhere']) expect(await named(name)).toEqual([]);

    const own = await as('POST', '/offers', body('Own', [l1]));
    expect(own).toMatchObject({ status: 201, body: { data: { location_ids: [l1] } } });
    expect(await as('PUT', `/offers/${own.body.data.id}`, { location_ids: [l1, l0] })).toMatchObject(denied);
    expect(await as('PUT', `/offers/${own.body.data.id}`, { location_ids: null })).toMatchObject(denied);
    expect((await call('GET', `/offers/${own.body.data.id}`)).body.data.location_ids).toEqual([l1]);

    // Offers of other locations (or of every location) stay out of the member's reach.
    const theirs = (await call('POST', '/offers', body('Theirs', [l0]))).body.data.id;
    const everywhere = (await call('POST', '/offers', body('Owner everywhere', null))).body.data.id;
    for (const id of [theirs, everywhere]) {
      expect(await as('PUT', `/offers/${id}`, { name: 'Renamed' })).toMatchObject(denied);
      expect(await as('POST', `/offers/activate/${id}`)).toMatchObject(denied);
      expect(await as('DELETE', `/offers/${id}`)).toMatchObject(denied);
      expect((await call('GET', `/offers/${id}`)).body.data).toMatchObject({ status: 'inactive' });
    }
    expect(await named('Renamed')).toEqual([]);
  });

  test('a member with all locations writes an offer for every location', async () => {
    const global = await makeMember(api, m, ['CREATE_OFFERS', 'EDIT_OFFERS'], { allLocations: true });
    const r = await api.call('POST', '/api/back-office/offers', { token: global.token, body: body('Global member', null) });
    expect(r).toMatchObject({ status: 201, body: { data: { location_ids: null } } });
    expect((await api.call('POST', `/api/back-office/offers/activate/${r.body.data.id}`, { token: global.token })).status).toBe(200);
    expect((await api.call('POST', `/api/back-office/offers/deactivate/${r.body.data.id}`, { token: global.token })).status).toBe(200); // not to discount the kiosk quotes below
  });
});

describe('POST /kiosk/pricing/quote', () => {
  test('prices from the published menu, never from the client', async () => {
    const r = await quote([
      { item_id: item('Espresso'), qty: 2 },
      { item_id: item('Croissant'), qty: 1 },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      menu_version: expect.any(Number),
      lines: [
        { key: '0', item_id: item('Espresso'), category_id: expect.any(String), name: 'Espresso', qty: 2, unit_price: 280, vat_rate: 21, gross: 560, discount: 0, total: 560, modifiers: [], variant: null, variants: [] },
        { key: '1', item_id: item('Croissant'), category_id: expect.any(String), name: 'Croissant', qty: 1, unit_price: 220, vat_rate: 6, gross: 220, discount: 0, total: 220, modifiers: [], variant: null, variants: [] },
      ],
      subtotal: 780,
      discount: 0,
      vat: 109,
      total: 780,
      by_vat_rate: [
        { rate: 21, net: 463, vat: 97, gross: 560 },
        { rate: 6, net: 208, vat: 12, gross: 220 },
      ],
      offers: [],
    });
  });

  test('active offers for the kiosk apply; a schedule outside the location\'s time does not', async () => {
    const deal = (await call('POST', '/offers', { name: 'Two coffees', rule: { kind: 'buy_x_get_y', buy: 1, get: 1 }, item_ids: [item('Espresso')], channels: ['kiosk'] })).body.data.id;
    const evening = (await call('POST', '/offers', { name: 'Evening', rule: { kind: 'percentage', percent: 50 }, item_ids: [], schedule: { days: [1], start: '18:00', end: '22:00' } })).body.data.id;
    const online = (await call('POST', '/offers', { name: 'Online only', rule: { kind: 'amount', amount: 100 }, item_ids: [], channels: ['online_ordering'] })).body.data.id;
    for (const id of [deal, evening, online]) await call('POST', `/offers/activate/${id}`);
    const r = await quote([{ item_id: item('Espresso'), qty: 2 }, { item_id: item('Croissant'), qty: 1 }]);
    expect(r.body.data).toMatchObject({ subtotal: 780, discount: 280, total: 500, offers: [{ id: deal, name: 'Two coffees', discount: 280 }] });
    expect(r.body.data.lines.map((l: { total: number }) => l.total)).toEqual([280, 220]);
    for (const id of [deal, evening, online]) await call('POST', `/offers/archive/${id}`);
  });

  test('modifiers and variants add to the unit price; bad selections are 422 on the field', async () => {
    const g = (await call('POST', '/modifier-groups', { name: 'Milk', min_select: 0, max_select: 1, modifiers: [{ name: 'Oat', price: 40 }, { name: 'Soy', price: 30 }] })).body.data;
    await call('PUT', `/items/${item('Espresso')}`, { modifier_group_ids: [g.id] });
    const v = (await call('POST', '/variant-groups', { item_id: item('Espresso'), name: 'Size', variants: [{ name: 'Double', unit_price: 350 }] })).body.data;
    const r = await quote([{ item_id: item('Espresso'), qty: 1, modifier_ids: [g.modifiers[0].id], variant_id: v.variants[0].id }]);
    expect(r.body.data.lines[0]).toMatchObject({ unit_price: 390, total: 390, modifiers: [{ id: g.modifiers[0].id, name: 'Oat', price: 40 }], variant: { id: v.variants[0].id, name: 'Double' } });
    expect((await quote([{ item_id: item('Espresso'), qty: 1, modifier_ids: [g.modifiers[0].id, g.modifiers[1].id], variant_id: v.variants[0].id }])).body.errors).toEqual({ 'lines.0.modifier_ids': ['Choose between 0 and 1 of Milk.'] });
    // Sold in variants: one must be chosen (the item's own price is not a size).
    expect(await quote([{ item_id: item('Espresso'), qty: 1 }])).toMatchObject({ status: 422, body: { errors: { 'lines.0.variant_id': ['Choose a variant of Espresso.'] } } });
    expect((await quote([{ item_id: item('Croissant'), qty: 1, modifier_ids: [g.modifiers[0].id] }])).body.errors).toEqual({ 'lines.0.modifier_ids.0': ['The selected lines.0.modifier_ids.0 is not a modifier of this item.'] });
  });

  test('an item not on the kiosk menu, of another merchant or a bad qty is a 422 on the line', async () => {
    const soup = (await call('POST', '/items', { name: 'Soup', unit_price: 500, vat_rate: 6, category_id: null })).body.data.id;
    expect((await quote([{ item_id: soup, qty: 1 }])).body.errors).toEqual({ 'lines.0.item_id': ['The selected lines.0.item_id is not on the menu.'] });
    expect((await quote([{ item_id: item('Croissant'), qty: 1 }, { item_id: other.items[0]!.id, qty: 1 }])).body.errors).toEqual({ 'lines.1.item_id': ['The selected lines.1.item_id is not on the menu.'] });
    expect((await quote([{ item_id: item('Croissant'), qty: 0 }])).body.errors).toHaveProperty(['lines.0.qty']);
    expect((await quote([{ item_id: item('Croissant'), qty: 1, unit_price: 1 }])).status).toBe(422);
  });

  test('only kiosk device tokens with the device key', async () => {
    const body = { lines: [{ item_id: item('Croissant'), qty: 1 }] };
    expect((await api.call('POST', '/api/kiosk/pricing/quote', { body, deviceKey: true })).status).toBe(401);
    expect((await api.call('POST', '/api/kiosk/pricing/quote', { body, token: kiosk })).status).toBe(401);
    const pos = await api.deviceToken(m, 'pos');
    expect(await api.call('POST', '/api/kiosk/pricing/quote', { body, token: pos, deviceKey: true })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
    expect(await api.call('POST', '/api/kiosk/pricing/quote', { body, token: owner, deviceKey: true })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
  });
});
