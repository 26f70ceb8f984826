import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { TRANSLATION_UNAVAILABLE } from '@pos/core/settings/translations';
import { startTranslationSimulator } from '@pos/providers/translation/translation-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
let fr: string;
let sim: ReturnType<typeof startTranslationSimulator>;
const P = '/api/back-office/settings/translations';
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const saved = async () => Number((await tdbOf(a).selectFrom('translations').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  sim = startTranslationSimulator({ apiKey: 'test-translation-key' });
  api = await createTestApi({ env: { TRANSLATION_BASE_URL: sim.url, TRANSLATION_API_KEY: 'test-translation-key' } });
  a = await api.seed('tr-a');
  b = await api.seed('tr-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
  await api.call('POST', '/api/back-office/settings/languages', { token: owner, body: { code: 'en', name: 'English' } });
  fr = (await api.call('POST', '/api/back-office/settings/languages', { token: owner, body: { code: 'fr', name: 'Français' } })).body.data.id;
}, 60_000);
afterAll(async () => {
  await api.close();
  sim.stop();
});

describe('translations', () => {
  test('datatable lists the catalog texts; save, update and clear one translation', async () => {
    const item = await tdbOf(a).selectFrom('items').select(['id', 'name']).orderBy('name').limit(1).executeTakeFirstOrThrow();
    const all = await api.call('GET', `${P}/datatable?language_id=${fr}&per_page=100`, { token: owner });
    expect(all.status).toBe(200);
    expect(all.body.total).toBeGreaterThan(0);
    expect(all.body.data.every((r: { value: string | null }) => r.value === null)).toBe(true);
    const saveR = await api.call('POST', P, { token: owner, body: { language_id: fr, subject_type: 'item', subject_id: item.id, field: 'name', value: ' Bonjour ' } });
    expect(saveR.body).toEqual({ data: { subject_type: 'item', subject_id: item.id, field: 'name', source: item.name, value: 'Bonjour' } });
    const done = await api.call('GET', `${P}/datatable?language_id=${fr}&missing=false`, { token: owner });
    expect(done.body).toMatchObject({ total: 1, data: [{ subject_id: item.id, field: 'name', value: 'Bonjour' }] });
    const missing = await api.call('GET', `${P}/datatable?language_id=${fr}&missing=true&per_page=100`, { token: owner });
    expect(missing.body.total).toBe(all.body.total - 1);
    expect((await api.call('GET', `${P}/datatable?language_id=${fr}&search=bonjour`, { token: owner })).body.total).toBe(1);
    expect((await api.call('GET', `${P}?language_id=${fr}`, { token: owner })).body.data).toEqual([{ subject_type: 'item', subject_id: item.id, field: 'name', value: 'Bonjour', updated_at: expect.any(String) }]);
    await api.call('POST', P, { token: owner, body: { language_id: fr, subject_type: 'item', subject_id: item.id, field: 'name', value: '' } });
    expect(await saved()).toBe(0);
  });

  test('auto-translate one text and bulk through the provider; a provider down is a 503 and saves nothing', async () => {
    const cat = await tdbOf(a).selectFrom('categories').select(['id', 'name']).orderBy('name').limit(1).executeTakeFirstOrThrow();
    const one = await api.call('POST', `${P}/translate`, { token: owner, body: { language_id: fr, subject_type: 'category', subject_id: cat.id, field: 'name' } });
    expect(one.body).toEqual({ data: { subject_type: 'category', subject_id: cat.id, field: 'name', source: cat.name, value: `[FR] ${cat.name}` } });
    expect(sim.requests.at(-1)).toEqual({ texts: [cat.name], target: 'FR' });
    const status = await api.call('GET', `${P}/bulk/${fr}`, { token: owner });
    expect(status.body.data).toMatchObject({ language_id: fr, missing: status.body.data.total - 1 });

    await fetch(`${sim.url}/_sim/down`, { method: 'POST', body: JSON.stringify({ down: true }) });
    const before = await saved();
    expect(await api.call('POST', `${P}/bulk/${fr}`, { token: owner })).toMatchObject({ status: 503, body: { message: TRANSLATION_UNAVAILABLE, reason: 'translation_unavailable' } });
    expect(await saved()).toBe(before);
    await fetch(`${sim.url}/_sim/down`, { method: 'POST', body: JSON.stringify({ down: false }) });

    const bulk = await api.call('POST', `${P}/bulk/${fr}`, { token: owner });
    expect(bulk.body.data).toEqual({ language_id: fr, translated: status.body.data.missing, missing: 0, total: status.body.data.total });
    const check = await api.call('GET', '/api/back-office/settings/languages/check-incomplete', { token: owner });
    await api.call('POST', `/api/back-office/settings/languages/publish/${fr}`, { token: owner });
    const after = await api.call('GET', '/api/back-office/settings/languages/check-incomplete', { token: owner });
    expect(check.status).toBe(200);
    expect(after.body.data.languages.find((l: { language_id: string }) => l.language_id === fr)).toMatchObject({ missing: 0, complete: true });
  });

  test('permissions, input and isolation', async () => {
    const item = await tdbOf(b).selectFrom('items').select('id').limit(1).executeTakeFirstOrThrow();
    const theirLang = (await api.call('POST', '/api/back-office/settings/languages', { token: ownerB, body: { code: 'de', name: 'Deutsch' } })).body.data.id;
    expect(await api.call('POST', P, { token: owner, body: { language_id: fr, subject_type: 'item', subject_id: item.id, field: 'name', value: 'x' } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the item you requested.' } });
    expect(await api.call('GET', `${P}/datatable?language_id=${theirLang}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the language you requested.' } });
    expect((await api.call('POST', `${P}/bulk/${theirLang}`, { token: owner })).status).toBe(404);
    expect((await api.call('POST', P, { token: owner, body: { language_id: fr, subject_type: 'menu', subject_id: 'x', field: 'sku', value: 1 } })).status).toBe(422);
    expect(await tdbOf(b).selectFrom('translations').selectAll().execute()).toEqual([]);
    const viewer = await limitedUserToken(api, a, ['VIEW_TRANSLATION'], []);
    expect((await api.call('GET', `${P}/datatable?language_id=${fr}`, { token: viewer })).status).toBe(200);
    expect(await api.call('POST', `${P}/bulk/${fr}`, { token: viewer })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const nobody = await limitedUserToken(api, a, [], []);
    expect((await api.call('GET', `${P}?language_id=${fr}`, { token: nobody })).status).toBe(403);
  });
});
