import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({});
}, 60_000);
afterAll(async () => {
  await api.close();
});

const get = (path: string) => api.app.handle(new Request(`http://localhost${path}`));

describe('queue dashboard', () => {
  test('the page, its script and style are served with a strict policy and no inline script', async () => {
    const page = await get('/queue-dashboard');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script src="/queue-dashboard/app.js" defer></script>');
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
    const js = await get('/queue-dashboard/app.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const code = await js.text();
    // It reads the global-admin async-monitoring routes and the fields they answer.
    expect(code).toContain("'/api/back-office/async-monitoring'");
    expect(code).toContain("'/api/back-office/async-monitoring/summary'");
    expect(code).toContain('q.queue');
    expect(code).toContain('summary.by_tenant');
    expect(code).not.toContain('innerHTML');
    expect((await get('/queue-dashboard/dashboard.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  test('the data it shows stays global-admin only', async () => {
    const m = await api.seed('qd-a');
    const owner = await api.ownerToken(m);
    expect((await api.call('GET', '/api/back-office/async-monitoring', { token: owner })).status).toBe(403);
    await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('email', '=', m.backoffice.email).execute();
    const r = await api.call('GET', '/api/back-office/async-monitoring', { token: owner });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.data)).toBe(true);
  });

  test('the page is not an API operation', async () => {
    const doc = (await api.call('GET', '/api/docs/json')).body as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
    expect(Object.keys(doc.paths).some((p) => p.includes('queue-dashboard'))).toBe(false);
  });
});
