import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { DEFAULT_PROFILE_NOT_DELETABLE, UNKNOWN_FONT } from '@pos/core/settings/branding-profiles';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { atOnce, sortedStatuses } from '../../testing/at-once.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const P = '/api/back-office/settings/branding-profiles';
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const rows = (m: DemoSeedResult) => tdbOf(m).selectFrom('branding_profiles').select(['name', 'is_default', 'heading_font', 'primary_color']).orderBy('name').execute();
const content = async (m: DemoSeedResult) => {
  const id = Bun.randomUUIDv7();
  await tdbOf(m).insertInto('contents').values({ id, name: 'logo.png', alt_text: null, content_type: 'image/png', size_bytes: 10, storage_key: `k/${id}`, created_at: new Date(), updated_at: new Date() }).execute();
  return id;
};

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('brand-a');
  b = await api.seed('brand-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
}, 60_000);
afterAll(() => api.close());

describe('branding profiles', () => {
  test('create (first is the default), show, update, rename, set-default, delete', async () => {
    const logo = await content(a);
    const r = await api.call('POST', P, { token: owner, body: { name: 'Main', primary_color: '#ff0000', heading_font: 'Inter', logo_content_id: logo } });
    expect(r.status).toBe(201);
    const main = r.body.data.id;
    expect(r.body).toEqual({
      data: {
        id: main,
        name: 'Main',
        is_default: true,
        primary_color: '#FF0000',
        accent_color: '#2563EB',
        background_color: '#FFFFFF',
        text_color: '#111827',
        heading_font: 'Inter',
        body_font: 'Inter',
        logo_content_id: logo,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const second = (await api.call('POST', P, { token: owner, body: { name: 'Summer' } })).body.data;
    expect(second.is_default).toBe(false);
    expect(await api.call('GET', `${P}/${main}`, { token: owner })).toMatchObject({ status: 200, body: { data: r.body.data } });

    const upd = await api.call('PUT', `${P}/${second.id}`, { token: owner, body: { body_font: 'Inter', accent_color: '#00aa00', logo_content_id: null } });
    expect(upd.body.data).toMatchObject({ id: second.id, accent_color: '#00AA00', body_font: 'Inter', name: 'Summer' });
    expect((await api.call('PUT', `${P}/${second.id}/name`, { token: owner, body: { name: 'Winter' } })).body.data.name).toBe('Winter');

    expect(await api.call('POST', `${P}/set-default`, { token: owner, body: { id: second.id } })).toMatchObject({ status: 200, body: { data: { id: second.id, is_default: true } } });
    expect((await rows(a)).map((x) => [x.name, x.is_default])).toEqual([['Main', false], ['Winter', true]]);
    expect((await api.call('GET', `${P}/options`, { token: owner })).body).toEqual({
      data: [
        { value: main, label: 'Main', is_default: false },
        { value: second.id, label: 'Winter', is_default: true },
      ],
    });
    expect(await api.call('DELETE', `${P}/${second.id}`, { token: owner })).toMatchObject({ status: 422, body: { message: DEFAULT_PROFILE_NOT_DELETABLE } });
    expect(await api.call('DELETE', `${P}/${main}`, { token: owner })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await api.call('GET', `${P}/${main}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the branding profile you requested.' } });
    const list = await api.call('GET', P, { token: owner });
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['Winter']);
    expect((await api.call('GET', `${P}/options`, { token: owner })).body).toEqual({ data: [{ value: second.id, label: 'Winter', is_default: true }] });
  });

  test('fonts from the option list, colours and names checked; nothing written on a refusal', async () => {
    const before = await rows(a);
    const bad = await api.call('POST', P, { token: owner, body: { name: 'X', heading_font: 'Comic Sans Made Up', body_font: 'Nope' } });
    expect(bad).toMatchObject({ status: 422, body: { errors: { heading_font: [UNKNOWN_FONT], body_font: [UNKNOWN_FONT] } } });
    const shape = await api.call('POST', P, { token: owner, body: { name: '', primary_color: 'red', logo_content_id: 'x' } });
    expect(shape.status).toBe(422);
    expect(Object.keys(shape.body.errors).sort()).toEqual(['logo_content_id', 'name', 'primary_color']);
    expect(await api.call('POST', P, { token: owner, body: { name: 'X', logo_content_id: crypto.randomUUID() } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the content you requested.' } });
    expect(await rows(a)).toEqual(before);
  });

  test('permissions, and another merchant\'s profile or logo is a 404', async () => {
    const theirs = (await api.call('POST', P, { token: ownerB, body: { name: 'B main' } })).body.data.id;
    const theirLogo = await content(b);
    for (const [m, path, body] of [
      ['GET', `/${theirs}`, undefined],
      ['PUT', `/${theirs}`, { primary_color: '#000000' }],
      ['PUT', `/${theirs}/name`, { name: 'Hijack' }],
      ['DELETE', `/${theirs}`, undefined],
      ['POST', '/set-default', { id: theirs }],
    ] as const) {
      expect(await api.call(m, `${P}${path}`, { token: owner, body })).toMatchObject({ status: 404, body: { message: 'Unable to locate the branding profile you requested.' } });
    }
    expect((await api.call('POST', P, { token: owner, body: { name: 'Stolen logo', logo_content_id: theirLogo } })).status).toBe(404);
    expect(await rows(b)).toEqual([{ name: 'B main', is_default: true, heading_font: 'Inter', primary_color: '#1F2937' }]);

    const viewer = await limitedUserToken(api, a, ['VIEW_BRANDING_PROFILE'], []);
    expect((await api.call('GET', P, { token: viewer })).status).toBe(200);
    expect(await api.call('POST', P, { token: viewer, body: { name: 'No' } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const mine = (await rows(a)).length;
    const nobody = await limitedUserToken(api, a, [], []);
    expect((await api.call('GET', P, { token: nobody })).status).toBe(403);
    expect((await api.call('GET', `${P}/options`, { token: nobody })).status).toBe(200);
    expect((await rows(a)).length).toBe(mine);
  });

  test('POST /set-default for several profiles at once: no 500, every answer 200, one default in the end', async () => {
    const ids: string[] = [];
    for (const i of [1, 2, 3]) ids.push((await api.call('POST', P, { token: owner, body: { name: `Race ${i}` } })).body.data.id);
    const rs = await atOnce(3, (i) => api.call('POST', `${P}/set-default`, { token: owner, body: { id: ids[i] } }));
    expect(sortedStatuses(rs)).toEqual([200, 200, 200]);
    const defaults = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('branding_profiles').select('id').where('is_default', '=', true).execute();
    expect(defaults).toHaveLength(1);
    expect(ids).toContain(defaults[0]!.id);
  });
});
