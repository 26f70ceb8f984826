import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { dirname, join } from 'node:path';
import { createTestApi, type TestApi } from './testing/harness.ts';

// The API reference page must work without internet: its script comes from an npm package served
// by the API itself, never from a CDN.

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

const attributes = (html: string, tag: string, attr: string) => [...html.matchAll(new RegExp(`<${tag}\\b[^>]*\\b${attr}="([^"]*)"`, 'g'))].map((m) => m[1]!);

describe('GET /api/docs', () => {
  test('the page loads only local scripts and styles', async () => {
    const page = await api.call('GET', '/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const scripts = attributes(page.text, 'script', 'src');
    expect(scripts).toEqual(['/api/docs/assets/api-reference.js']);
    expect(attributes(page.text, 'link', 'href').filter((h) => !h.startsWith('/'))).toEqual([]);
    expect(page.text).not.toMatch(/cdn\.jsdelivr|unpkg\.com/);
    // The reference is told not to fetch its web fonts (fonts.scalar.com).
    expect(page.text).toContain('"withDefaultFonts":false');
    // The document is fetched from its absolute path (a relative one resolves under /api/api/...).
    const config = JSON.parse(/data-configuration='([^']*)'/.exec(page.text)![1]!) as { url: string };
    expect(config.url).toBe('/api/docs/json');
    expect((await api.call('GET', config.url)).status).toBe(200);
  });

  test('the reference script is served from the installed package, as JavaScript', async () => {
    const r = await api.call('GET', '/api/docs/assets/api-reference.js');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('javascript');
    expect(r.headers.get('cache-control')).toContain('max-age');
    const installed = await Bun.file(join(dirname(Bun.resolveSync('@scalar/api-reference', import.meta.dir)), 'browser', 'standalone.js')).text();
    expect(installed.length).toBeGreaterThan(100_000);
    expect(r.text.length).toBe(installed.length);
    expect(r.text).toBe(installed);
  });

  test('a number enum is documented as numbers (the generator wrote every enum as a string the API refuses)', async () => {
    const doc = (await api.call('GET', '/api/docs/json')).body as { paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: unknown }> } }>> };
    const body = doc.paths['/api/kiosk/printers/discovery-report']!.post!.requestBody.content['application/json']!.schema as { properties: { printers: { items: { properties: Record<string, unknown> } } } };
    expect(body.properties.printers.items.properties.paper_width_mm).toEqual({ type: 'integer', enum: [58, 80] });
    const text = JSON.stringify(doc);
    // No string enum of numbers is left anywhere.
    expect(text).not.toMatch(/"type":"string","enum":\[-?\d/);
  });

  test('the asset route is not part of the OpenAPI document', async () => {
    const doc = (await api.call('GET', '/api/docs/json')).body as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/docs'))).toEqual([]);
  });
});
