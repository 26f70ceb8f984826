import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/** An attacker's and a careless user's pass over locations (spec 1 "Settings"): what a deleted location leaves behind. */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
const bo = (method: string, path: string, body?: unknown, token = owner) => api.call(method, `/api/back-office${path}`, { token, body });
const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('loc-adv');
  other = await api.seed('loc-adv-other');
  owner = await api.ownerToken(m);
}, 60_000);
afterAll(() => api.close());

describe('locations, adversarial', () => {
  test('a deleted location leaves the location lists of items and offers: the record sent back saves, and a member granted the remaining locations may edit it', async () => {
    const kept = m.locations[1]!.id;
    const popUp = (await bo('POST', '/settings/locations', { name: 'Pop-up', timezone: 'Europe/Brussels', country: 'BE' })).body.data.id as string;
    const item = (await bo('POST', '/items', { name: 'Pop-up waffle', unit_price: 450, vat_rate: 6, category_id: null, location_ids: [kept, popUp] })).body.data.id as string;
    const onlyThere = (await bo('POST', '/items', { name: 'Pop-up only', unit_price: 300, vat_rate: 6, category_id: null, location_ids: [popUp] })).body.data.id as string;
    const everywhere = (await bo('POST', '/items', { name: 'Everywhere', unit_price: 300, vat_rate: 6, category_id: null })).body.data.id as string;
    const offer = (await bo('POST', '/offers', { name: 'Pop-up deal', rule: { kind: 'percentage', percent: 10 }, item_ids: [item], location_ids: [popUp, kept] })).body.data.id as string;

    expect(await bo('DELETE', `/settings/locations/${popUp}`)).toMatchObject({ status: 200, body: { status: 'success' } });

    const i = (await bo('GET', `/items/${item}`)).body.data;
    expect(i.location_ids).toEqual([kept]);
    expect((await bo('GET', `/items/${onlyThere}`)).body.data.location_ids).toEqual([]); // sold nowhere, as before
    expect((await bo('GET', `/items/${everywhere}`)).body.data.location_ids).toBeNull(); // every location stays every location
    const o = (await bo('GET', `/offers/${offer}`)).body.data;
    expect(o.location_ids).toEqual([kept]);

    // The forms sent back as they were read.
    expect((await bo('PUT', `/items/${item}`, { name: i.name, location_ids: i.location_ids })).status).toBe(200);
    expect((await bo('PUT', `/offers/${offer}`, { name: o.name, location_ids: o.location_ids })).status).toBe(200);

    // A member granted the remaining location reaches both again.
    const member = await makeMember(api, m, ['EDIT_ITEMS', 'VIEW_ITEMS', 'EDIT_OFFERS', 'VIEW_OFFERS'], { locationIds: [kept] });
    expect(await bo('PUT', `/items/${item}`, { unit_price: 500 }, member.token)).toMatchObject({ status: 200, body: { data: { unit_price: 500 } } });
    expect(await bo('PUT', `/offers/${offer}`, { rule: { kind: 'percentage', percent: 15 } }, member.token)).toMatchObject({ status: 200, body: { data: { rule: { kind: 'percentage', percent: 15 } } } });
  });

  test('another merchant\'s location is a 404 for every verb; a member limited to some locations cannot delete one (403); nothing changes', async () => {
    const foreign = other.locations[0]!.id;
    const snapshot = async () => tdb().selectFrom('locations').selectAll().orderBy('id').execute();
    const before = await snapshot();
    expect(await bo('GET', `/settings/locations/${foreign}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect(await bo('PUT', `/settings/locations/${foreign}`, { name: 'Mine now' })).toMatchObject({ status: 404 });
    expect(await bo('PUT', `/settings/locations/${foreign}/status`, { status: 'inactive' })).toMatchObject({ status: 404 });
    expect(await bo('DELETE', `/settings/locations/${foreign}`)).toMatchObject({ status: 404 });
    const member = await makeMember(api, m, [], { locationIds: [m.locations[1]!.id] });
    expect(await bo('DELETE', `/settings/locations/${m.locations[1]!.id}`, undefined, member.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await bo('PUT', `/settings/locations/${m.locations[0]!.id}`, { name: 'Renamed' }, member.token)).toMatchObject({ status: 403 });
    for (const [body, field] of [
      [{ name: 'X', timezone: '+01:00', country: 'BE' }, 'timezone'],
      [{ name: 'X', timezone: 'Europe/Brussels', country: 'ZZ' }, 'country'],
      [{ name: '  ', timezone: 'Europe/Brussels', country: 'BE' }, 'name'],
      [{ name: 'X', timezone: 'Europe/Brussels', country: 'BE', email: 'not-an-email' }, 'email'],
    ] as const) {
      const r = await bo('POST', '/settings/locations', body);
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([field]);
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe('the register\'s tenders of a location (spec 2 `pos_tenders`)', () => {
  test('written with PUT /settings/locations/{id} and `edit-locations`: stored normalised, shown to the back office and to the register; omitted, unchanged', async () => {
    const popUp = (await bo('POST', '/settings/locations', { name: 'Tender pop-up', timezone: 'Europe/Brussels', country: 'BE' })).body.data.id as string;
    // A new location takes cash only.
    expect((await bo('GET', `/settings/locations/${popUp}`)).body.data.pos_tenders).toEqual({ enabled: [], issuers: { card_debit: [], card_credit: [], meal_voucher: [], gift_voucher: [] } });
    // Before: 422 (the key was refused), so a location made through the API could never take a card.
    const put = await bo('PUT', `/settings/locations/${popUp}`, { pos_tenders: { enabled: ['card', 'meal_voucher', 'card'], issuers: { meal_voucher: [' Pluxee ', 'Edenred', 'Pluxee'], card_debit: ['Bancontact'] } } });
    expect(put.status).toBe(200);
    const expected = { enabled: ['card', 'meal_voucher'], issuers: { card_debit: ['Bancontact'], card_credit: [], meal_voucher: ['Pluxee', 'Edenred'], gift_voucher: [] } };
    expect(put.body.data.pos_tenders).toEqual(expected);
    // Another field alone leaves the block as it is.
    expect((await bo('PUT', `/settings/locations/${popUp}`, { city: 'Gent' })).body.data.pos_tenders).toEqual(expected);
    // Cash is always on: it is not a configurable method; unknown keys are refused.
    expect((await bo('PUT', `/settings/locations/${popUp}`, { pos_tenders: { enabled: ['cash'] } })).status).toBe(422);
    expect((await bo('PUT', `/settings/locations/${popUp}`, { pos_tenders: { enabled: [], surcharge: 1 } })).status).toBe(422);
    // The key needs `edit-locations` at the location; the location's other fields do not.
    const member = await makeMember(api, m, []);
    expect(await bo('PUT', `/settings/locations/${m.locations[0]!.id}`, { pos_tenders: { enabled: [] } }, member.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const editor = await makeMember(api, m, ['edit-locations']);
    const loc0 = m.locations[0]!.id;
    const before = (await bo('GET', `/settings/locations/${loc0}`)).body.data.pos_tenders;
    expect((await bo('PUT', `/settings/locations/${loc0}`, { pos_tenders: { enabled: ['gift_voucher'] } }, editor.token)).body.data.pos_tenders.enabled).toEqual(['gift_voucher']);
    // The register reads it in its bootstrap.
    const pos = await api.deviceToken(m, 'pos');
    expect((await api.call('GET', '/api/pos/bootstrap', { token: pos, deviceKey: true })).body.location.pos_tenders.enabled).toEqual(['gift_voucher']);
    expect((await bo('PUT', `/settings/locations/${loc0}`, { pos_tenders: before })).status).toBe(200);
  });
});
