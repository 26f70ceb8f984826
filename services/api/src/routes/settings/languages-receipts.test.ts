import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { DEFAULT_MUST_BE_PUBLISHED, DEFAULT_NOT_DELETABLE, DEFAULT_STAYS_PUBLISHED, DUPLICATE_LANGUAGE } from '@pos/core/settings/languages';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { atOnce, sortedStatuses } from '../../testing/at-once.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const P = '/api/back-office/settings';
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const addLanguage = (body: Record<string, unknown>, token = owner) => api.call('POST', `${P}/languages`, { token, body });
const languageRows = async (m: DemoSeedResult) => tdbOf(m).selectFrom('languages').select(['code', 'is_default', 'status']).orderBy('code').execute();

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('lang-a');
  b = await api.seed('lang-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
}, 60_000);
afterAll(() => api.close());

describe('languages', () => {
  let en: string;
  let fr: string;
  test('the first language is published and the default; later ones start unpublished; a duplicate is a 409', async () => {
    const r = await addLanguage({ code: 'EN', name: 'English' });
    expect(r.status).toBe(201);
    en = r.body.data.id;
    expect(r.body).toEqual({ data: { id: en, code: 'en', name: 'English', is_default: true, status: 'published', created_at: expect.any(String), updated_at: expect.any(String) } });
    const f = await addLanguage({ code: 'fr-be', name: 'Français (Belgique)' });
    fr = f.body.data.id;
    expect(f.body.data).toMatchObject({ code: 'fr-BE', is_default: false, status: 'unpublished' });
    expect(await addLanguage({ code: 'en', name: 'English again' })).toMatchObject({ status: 409, body: { message: DUPLICATE_LANGUAGE } });
    const bad = await addLanguage({ code: 'english!', name: '' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['code', 'name']);
    expect(await languageRows(a)).toEqual([
      { code: 'en', is_default: true, status: 'published' },
      { code: 'fr-BE', is_default: false, status: 'unpublished' },
    ]);
    const list = await api.call('GET', `${P}/languages`, { token: owner });
    expect(list.body.data.map((l: { code: string }) => l.code)).toEqual(['en', 'fr-BE']);
  });

  test('publish, default, unpublish and delete follow the rules', async () => {
    expect(await api.call('POST', `${P}/languages/set-default/${fr}`, { token: owner })).toMatchObject({ status: 422, body: { message: DEFAULT_MUST_BE_PUBLISHED } });
    expect(await api.call('POST', `${P}/languages/publish/${fr}`, { token: owner })).toMatchObject({ status: 200, body: { data: { id: fr, status: 'published', is_default: false } } });
    expect(await api.call('POST', `${P}/languages/set-default/${fr}`, { token: owner })).toMatchObject({ status: 200, body: { data: { id: fr, is_default: true } } });
    expect(await languageRows(a)).toEqual([
      { code: 'en', is_default: false, status: 'published' },
      { code: 'fr-BE', is_default: true, status: 'published' },
    ]);
    expect(await api.call('POST', `${P}/languages/unpublish/${fr}`, { token: owner })).toMatchObject({ status: 422, body: { message: DEFAULT_STAYS_PUBLISHED } });
    expect(await api.call('DELETE', `${P}/languages/delete/${fr}`, { token: owner })).toMatchObject({ status: 422, body: { message: DEFAULT_NOT_DELETABLE } });
    expect(await api.call('POST', `${P}/languages/unpublish/${en}`, { token: owner })).toMatchObject({ status: 200, body: { data: { status: 'unpublished' } } });
    expect(await api.call('DELETE', `${P}/languages/delete/${en}`, { token: owner })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await languageRows(a)).toEqual([{ code: 'fr-BE', is_default: true, status: 'published' }]);
    expect(await api.call('POST', `${P}/languages/publish/${en}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the language you requested.' } });
  });

  test('check-incomplete counts the catalog texts a published non-default language lacks', async () => {
    const tdb = tdbOf(a);
    const nl = (await addLanguage({ code: 'nl', name: 'Nederlands' })).body.data.id;
    // Unpublished languages are not checked.
    expect((await api.call('GET', `${P}/languages/check-incomplete`, { token: owner })).body).toEqual({ data: { incomplete: false, languages: [] } });
    await api.call('POST', `${P}/languages/publish/${nl}`, { token: owner });
    const texts = async () => {
      let n = 0;
      for (const t of ['items', 'categories'] as const) {
        for (const f of ['name', 'description'] as const) {
          const rows = await tdb.selectFrom(t).select(f).execute();
          n += rows.filter((r) => (r as Record<string, string | null>)[f]?.trim()).length;
        }
      }
      return n;
    };
    const total = await texts();
    expect(total).toBeGreaterThan(0);
    const r1 = await api.call('GET', `${P}/languages/check-incomplete`, { token: owner });
    expect(r1).toMatchObject({ status: 200, body: { data: { incomplete: true, languages: [{ language_id: nl, code: 'nl', total, translated: 0, missing: total, complete: false }] } } });
    const item = await tdb.selectFrom('items').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
    await tdb.insertInto('translations').values({ id: Bun.randomUUIDv7(), language_id: nl, subject_type: 'item', subject_id: item.id, field: 'name', value: 'Vertaald' }).execute();
    const r2 = await api.call('GET', `${P}/languages/check-incomplete`, { token: owner });
    expect(r2.body.data.languages[0]).toMatchObject({ translated: 1, missing: total - 1 });
    // Deleting the language takes its translations with it.
    await api.call('DELETE', `${P}/languages/delete/${nl}`, { token: owner });
    expect(await tdb.selectFrom('translations').select('id').where('language_id', '=', nl).execute()).toEqual([]);
  });

  test('permissions per route, and another merchant\'s language is a 404', async () => {
    const viewer = await limitedUserToken(api, a, ['VIEW_LANGUAGE'], []);
    expect((await api.call('GET', `${P}/languages`, { token: viewer })).status).toBe(200);
    expect(await addLanguage({ code: 'de', name: 'Deutsch' }, viewer)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const theirs = (await addLanguage({ code: 'de', name: 'Deutsch' }, ownerB)).body.data.id;
    expect((await api.call('POST', `${P}/languages/publish/${theirs}`, { token: viewer })).status).toBe(403);
    const nobody = await limitedUserToken(api, a, [], []);
    expect((await api.call('GET', `${P}/languages`, { token: nobody })).status).toBe(403);
    expect((await api.call('GET', `${P}/languages/check-incomplete`, { token: nobody })).status).toBe(403);
    for (const [m, path] of [['POST', `/languages/publish/${theirs}`], ['POST', `/languages/unpublish/${theirs}`], ['POST', `/languages/set-default/${theirs}`], ['DELETE', `/languages/delete/${theirs}`]] as const) {
      expect(await api.call(m, `${P}${path}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the language you requested.' } });
    }
    expect(await languageRows(b)).toEqual([{ code: 'de', is_default: true, status: 'published' }]);
  });

  test('a code outside /lang-options (ISO 639-1), or with a region outside /country-options, is 422 on code; nothing written', async () => {
    const options = JSON.stringify((await api.call('GET', '/api/lang-options', {})).body.data.map((o: { value: string }) => o.value));
    for (const code of ['xx', 'eng', 'nl-ZZ']) {
      if (code.length === 2) expect(options).not.toContain(`"${code}"`);
      expect(await addLanguage({ code, name: 'Nonsense' })).toMatchObject({ status: 422, body: { errors: { code: ['The code field must be a language code such as en or nl-BE.'] } } });
    }
    expect(await tdbOf(a).selectFrom('languages').select('code').where('name', '=', 'Nonsense').execute()).toEqual([]);
    expect(await addLanguage({ code: 'NL-be', name: 'Vlaams' })).toMatchObject({ status: 201, body: { data: { code: 'nl-BE' } } });
  });

  test('set-default for several languages at once: no 500, every answer 200, one default in the end', async () => {
    const ids: string[] = [];
    for (const code of ['it', 'es', 'pt']) {
      const id = (await addLanguage({ code, name: code })).body.data.id;
      expect((await api.call('POST', `${P}/languages/publish/${id}`, { token: owner })).status).toBe(200);
      ids.push(id);
    }
    const rs = await atOnce(3, (i) => api.call('POST', `${P}/languages/set-default/${ids[i]}`, { token: owner }));
    expect(sortedStatuses(rs)).toEqual([200, 200, 200]);
    const defaults = await tdbOf(a).selectFrom('languages').select('id').where('is_default', '=', true).execute();
    expect(defaults).toHaveLength(1);
    expect(ids).toContain(defaults[0]!.id);
  });
});

describe('receipts per location', () => {
  test('defaults until saved; a PUT changes only the fields sent', async () => {
    const loc = a.locations[0]!.id;
    const r = await api.call('GET', `${P}/receipts/${loc}`, { token: owner });
    expect(r.body).toEqual({ data: { location_id: loc, header: '', footer: '', show_logo: true, show_address: true, show_vat_number: true, show_order_number: true, updated_at: null } });
    const put = await api.call('PUT', `${P}/receipts/${loc}`, { token: owner, body: { header: 'Welcome', show_logo: false } });
    expect(put.body).toEqual({ data: { location_id: loc, header: 'Welcome', footer: '', show_logo: false, show_address: true, show_vat_number: true, show_order_number: true, updated_at: expect.any(String) } });
    const again = await api.call('PUT', `${P}/receipts/${loc}`, { token: owner, body: { footer: 'Thanks' } });
    expect(again.body.data).toMatchObject({ header: 'Welcome', footer: 'Thanks', show_logo: false });
    expect(await api.call('GET', `${P}/receipts/${loc}`, { token: owner })).toMatchObject({ status: 200, body: { data: again.body.data } });
    expect((await api.call('PUT', `${P}/receipts/${loc}`, { token: owner, body: { header: 'x'.repeat(501) } })).status).toBe(422);
    expect((await api.call('PUT', `${P}/receipts/${loc}`, { token: owner, body: { show_logo: 'no' } })).status).toBe(422);
    expect((await tdbOf(a).selectFrom('location_receipts').select(['header', 'show_logo']).where('location_id', '=', loc).executeTakeFirstOrThrow())).toEqual({ header: 'Welcome', show_logo: false });
  });

  test('EDIT_RECEIPTS for that location; reading needs the grant; another merchant\'s location is a 404', async () => {
    const [l0, l1] = [a.locations[0]!.id, a.locations[1]!.id];
    const editor = await limitedUserToken(api, a, ['EDIT_RECEIPTS'], [l0]);
    expect((await api.call('PUT', `${P}/receipts/${l0}`, { token: editor, body: { footer: 'Editor' } })).status).toBe(200);
    expect(await api.call('PUT', `${P}/receipts/${l1}`, { token: editor, body: { footer: 'Nope' } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect((await api.call('GET', `${P}/receipts/${l1}`, { token: editor })).status).toBe(403);
    const reader = await limitedUserToken(api, a, [], [l0]);
    expect((await api.call('GET', `${P}/receipts/${l0}`, { token: reader })).status).toBe(200);
    expect((await api.call('PUT', `${P}/receipts/${l0}`, { token: reader, body: { footer: 'Nope' } })).status).toBe(403);
    // Refused before the body is read: a 403, not the route's field list in a 422.
    expect(await api.call('PUT', `${P}/receipts/${l0}`, { token: reader, body: { show_logo: 'x', unknown: 1 } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const theirs = b.locations[0]!.id;
    expect(await api.call('GET', `${P}/receipts/${theirs}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect((await api.call('PUT', `${P}/receipts/${theirs}`, { token: owner, body: { footer: 'Hijack' } })).status).toBe(404);
    expect(await tdbOf(b).selectFrom('location_receipts').selectAll().execute()).toEqual([]);
    expect((await tdbOf(a).selectFrom('location_receipts').select('footer').where('location_id', '=', l0).executeTakeFirstOrThrow()).footer).toBe('Editor');
  });
});
