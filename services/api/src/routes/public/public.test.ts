import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
beforeAll(async () => (api = await createTestApi()));
afterAll(() => api.close());

describe('public option lists', () => {
  test('countries, optionally for payment profiles', async () => {
    const all = await api.call('GET', '/api/country-options');
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThan(240);
    expect(all.body.data).toContainEqual({ value: 'BE', label: 'Belgium', calling_code: '+32' });
    const pp = await api.call('GET', '/api/country-options/1');
    expect(pp.body.data.length).toBeLessThan(60);
    expect(pp.body.data.map((c: { value: string }) => c.value)).toContain('BE');
    expect(pp.body.data.map((c: { value: string }) => c.value)).not.toContain('KP');
  });

  test('the 14 EU allergens', async () => {
    const r = await api.call('GET', '/api/allergens-options');
    expect(r.body.data.map((a: { value: string }) => a.value)).toEqual([
      'gluten', 'crustaceans', 'eggs', 'fish', 'peanuts', 'soybeans', 'milk', 'nuts', 'celery', 'mustard', 'sesame', 'sulphites', 'lupin', 'molluscs',
    ]);
  });

  test('every other list answers a non-empty data array without a token', async () => {
    for (const path of ['/lang-options', '/calling-code-options', '/branding-font-options', '/dietary-preferences-options', '/dietary-supplements-options', '/tags-options']) {
      const r = await api.call('GET', `/api${path}`);
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeGreaterThan(5);
    }
    const cc = await api.call('GET', '/api/calling-code-options');
    expect(cc.body.data).toContainEqual({ value: '+32', label: 'Belgium (+32)', country: 'BE' });
    const langs = await api.call('GET', '/api/lang-options');
    expect(langs.body.data).toContainEqual({ value: 'nl', label: 'Dutch', native: 'Nederlands' });
  });

  test('the OpenAPI document lists the routes', async () => {
    const r = await api.call('GET', '/api/docs/json');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.paths)).toContain('/api/allergens-options');
    expect(Object.keys(r.body.paths)).toContain('/version');
    const page = await api.call('GET', '/api/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html');
  });
});
