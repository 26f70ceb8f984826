import { readFileSync } from 'node:fs';
import { Elysia, t } from 'elysia';

/**
 * The queue dashboard (issue 18 item 7): a static page served at the address root (a page, not an API
 * operation). It holds no data: it asks for a global admin's token and reads the `global-admin`
 * async-monitoring routes, which enforce the role. Scripts from this origin only, no inline script.
 */
const read = (name: string) => readFileSync(new URL(`./static/${name}`, import.meta.url), 'utf8');

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function queueDashboardRoutes() {
  const files = { html: read('index.html'), js: read('app.js'), css: read('dashboard.css') };
  const serve = (body: string, type: string) => () =>
    new Response(body, {
      headers: { 'content-type': type, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-cache' },
    });
  const detail = (summary: string) => ({ detail: { tags: ['Operations: async monitoring'], summary, hide: true } });
  return new Elysia({ name: 'queue-dashboard' })
    .get('/queue-dashboard', serve(files.html, 'text/html; charset=utf-8'), { response: { 200: t.String() }, ...detail('Queue dashboard page') })
    .get('/queue-dashboard/app.js', serve(files.js, 'text/javascript; charset=utf-8'), { response: { 200: t.String() }, ...detail('Queue dashboard script') })
    .get('/queue-dashboard/dashboard.css', serve(files.css, 'text/css; charset=utf-8'), { response: { 200: t.String() }, ...detail('Queue dashboard style') });
}
