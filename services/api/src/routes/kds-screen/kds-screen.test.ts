import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/** The kitchen screen's static files (the browser run is e2e/tests/kds-screen.spec.ts). */
let api: TestApi;
beforeAll(async () => (api = await createTestApi()));
afterAll(() => api.close());

describe('GET /kds-screen', () => {
  test('the page, its script and style, with a same-origin script policy', async () => {
    const page = await api.call('GET', '/kds-screen');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text).toContain('<script src="/kds-screen/app.js" defer></script>');
    expect(page.text).not.toMatch(/<script>(?!<)/);
    const js = await api.call('GET', '/kds-screen/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.text).toContain("'/api/realtime?token='");
    const css = await api.call('GET', '/kds-screen/screen.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await api.call('GET', '/kds-screen/other.js')).status).toBe(404);
  });
});
