import { readFileSync } from 'node:fs';
import { Elysia, t } from 'elysia';

/**
 * The kitchen screen (issue 14): a static page for a KDS device, served at the address root beside
 * `/version` (it is a page, not an API operation): `GET /kds-screen` and its script and style. It signs
 * in with the device token and talks to `/api/kds/*` and the real-time channel like any KDS app. The
 * files are read once at start. No inline script: the policy allows scripts from this origin only.
 */
const read = (name: string) => readFileSync(new URL(`./static/${name}`, import.meta.url), 'utf8');

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' ws: wss:; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function kdsScreenRoutes() {
  const files = {
    html: read('index.html'),
    js: read('app.js'),
    css: read('screen.css'),
  };
  const serve = (body: string, type: string) => () =>
    new Response(body, {
      headers: { 'content-type': type, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-cache' },
    });
  const detail = (summary: string) => ({ detail: { tags: ['Kitchen display'], summary, hide: true } });
  return new Elysia({ name: 'kds-screen' })
    .get('/kds-screen', serve(files.html, 'text/html; charset=utf-8'), { response: { 200: t.String() }, ...detail('Kitchen screen page') })
    .get('/kds-screen/app.js', serve(files.js, 'text/javascript; charset=utf-8'), { response: { 200: t.String() }, ...detail('Kitchen screen script') })
    .get('/kds-screen/screen.css', serve(files.css, 'text/css; charset=utf-8'), { response: { 200: t.String() }, ...detail('Kitchen screen style') });
}
