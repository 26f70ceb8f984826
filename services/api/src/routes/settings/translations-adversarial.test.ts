import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startTranslationSimulator } from '@pos/providers/translation/translation-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/** An attacker's and a careless user's pass over languages and translations (spec 1 "Settings"). */
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
let sim: ReturnType<typeof startTranslationSimulator>;
const P = '/api/back-office/settings';
const tdbA = () => bindTenant(api.deps.db, a.merchant.tenant_database);
const translationsOf = async (languageId: string) => (await tdbA().selectFrom('translations').select('id').where('language_id', '=', languageId).execute()).length;
const call = (token: string, method: string, path: string, body?: unknown) => api.call(method, `${P}${path}`, { token, body });
const slow = (ms: number) => fetch(`${sim.url}/_sim/delay`, { method: 'POST', body: JSON.stringify({ ms }) });

beforeAll(async () => {
  sim = startTranslationSimulator({ apiKey: 'test-translation-key' });
  api = await createTestApi({ env: { TRANSLATION_BASE_URL: sim.url, TRANSLATION_API_KEY: 'test-translation-key' } });
  a = await api.seed('tr-adv-a');
  b = await api.seed('tr-adv-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
  expect((await call(owner, 'POST', '/languages', { code: 'en', name: 'English' })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await api.close();
  sim.stop();
});

describe('translations, adversarial', () => {
  test('a language deleted while its bulk auto-translation waits on the provider: 404 for the language, nothing saved (it was a 500 on the foreign key)', async () => {
    const de = (await call(owner, 'POST', '/languages', { code: 'de', name: 'Deutsch' })).body.data.id as string;
    await slow(1500);
    try {
      const bulk = call(owner, 'POST', `/translations/bulk/${de}`);
      await Bun.sleep(500); // the texts are read and sent; the provider is still answering
      expect(await call(owner, 'DELETE', `/languages/delete/${de}`)).toMatchObject({ status: 200, body: { status: 'success' } });
      expect(await bulk).toMatchObject({ status: 404, body: { message: 'Unable to locate the language you requested.' } });
    } finally {
      await slow(0);
    }
    expect(await translationsOf(de)).toBe(0);
  });

  test('the same for one auto-translated text', async () => {
    const nl = (await call(owner, 'POST', '/languages', { code: 'nl', name: 'Nederlands' })).body.data.id as string;
    const item = a.items[0]!.id;
    await slow(1500);
    try {
      const one = call(owner, 'POST', '/translations/translate', { language_id: nl, subject_type: 'item', subject_id: item, field: 'name' });
      await Bun.sleep(500);
      expect((await call(owner, 'DELETE', `/languages/delete/${nl}`)).status).toBe(200);
      expect(await one).toMatchObject({ status: 404, body: { message: 'Unable to locate the language you requested.' } });
    } finally {
      await slow(0);
    }
    expect(await translationsOf(nl)).toBe(0);
  });

  test('another merchant\'s language or item is a 404; a member without the permission is a 403; nothing saved', async () => {
    const fr = (await call(owner, 'POST', '/languages', { code: 'fr', name: 'Français' })).body.data.id as string;
    const item = a.items[0]!.id;
    const body = { language_id: fr, subject_type: 'item', subject_id: item, field: 'name', value: 'Bonjour' };
    expect(await call(ownerB, 'POST', '/translations', body)).toMatchObject({ status: 404, body: { message: 'Unable to locate the language you requested.' } });
    expect(await call(owner, 'POST', '/translations', { ...body, subject_id: b.items[0]!.id })).toMatchObject({ status: 404, body: { message: 'Unable to locate the item you requested.' } });
    expect(await call(ownerB, 'POST', `/translations/bulk/${fr}`)).toMatchObject({ status: 404 });
    expect(await call(ownerB, 'DELETE', `/languages/delete/${fr}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the language you requested.' } });
    const viewer = await makeMember(api, a, ['VIEW_TRANSLATION', 'VIEW_LANGUAGE']);
    expect(await call(viewer.token, 'POST', '/translations', body)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await call(viewer.token, 'DELETE', `/languages/delete/${fr}`)).toMatchObject({ status: 403 });
    expect(await call(owner, 'POST', '/translations', { ...body, value: 'x'.repeat(5001) })).toMatchObject({ status: 422, body: { errors: { value: ['The value field may not be greater than 5000 characters.'] } } });
    expect(await translationsOf(fr)).toBe(0);
  });

  test('the default language cannot be unpublished or deleted, an unpublished one cannot become the default; unknown codes are 422', async () => {
    const en = (await call(owner, 'GET', '/languages')).body.data.find((l: { code: string }) => l.code === 'en').id;
    expect(await call(owner, 'DELETE', `/languages/delete/${en}`)).toMatchObject({ status: 422, body: { message: 'The default language cannot be deleted.' } });
    expect(await call(owner, 'POST', `/languages/unpublish/${en}`)).toMatchObject({ status: 422, body: { message: 'The default language cannot be unpublished.' } });
    const it = (await call(owner, 'POST', '/languages', { code: 'IT', name: 'Italiano' })).body.data;
    expect(it).toMatchObject({ code: 'it', is_default: false, status: 'unpublished' });
    expect(await call(owner, 'POST', `/languages/set-default/${it.id}`)).toMatchObject({ status: 422, body: { message: 'Only a published language can be the default language.' } });
    expect(await call(owner, 'POST', '/languages', { code: 'it', name: 'Again' })).toMatchObject({ status: 409, body: { message: 'The language has already been added.' } });
    for (const code of ['xx', 'en-ZZ', 'eng', 'en-', '']) {
      expect(await call(owner, 'POST', '/languages', { code, name: 'X' })).toMatchObject({ status: 422, body: { errors: { code: ['The code field must be a language code such as en or nl-BE.'] } } });
    }
  });
});
