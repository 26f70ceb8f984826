import { dirname, join } from 'node:path';
import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { jsonBodiesOf } from '../openapi/json-bodies.ts';
import { registerStringFormats } from '../openapi/string-formats.ts';

// Importing @elysiajs/openapi replaced TypeBox's uuid and email checks by ones that build a Zod
// schema for every value checked: put back the same checks, built once (string-formats.ts).
registerStringFormats();

/** Scalar's options as the plugin types them (every field required by @scalar/types, partial at run time). */
type ScalarOptions = NonNullable<NonNullable<Parameters<typeof openapi>[0]>['scalar']>;

/** Where the reference page loads its script from: this API, never a CDN (the page must work offline). */
export const API_REFERENCE_SCRIPT = '/api/docs/assets/api-reference.js';

/**
 * The Scalar API reference's standalone browser bundle, from the pinned `@scalar/api-reference`
 * package (its exports map does not expose the file, so it is found beside the package's entry).
 */
function referenceScriptPath(): string {
  return join(dirname(Bun.resolveSync('@scalar/api-reference', import.meta.dir)), 'browser', 'standalone.js');
}

/**
 * OpenAPI at `/api/docs` (JSON at `/api/docs/json`, request bodies as JSON only), its reference UI
 * served from the installed package.
 */
export function apiDocs() {
  const script = Bun.file(referenceScriptPath());
  return new Elysia({ name: 'api-docs' })
    .onAfterHandle(jsonBodiesOf('/api/docs/json'))
    .use(
      openapi({
        path: '/api/docs',
        documentation: {
          info: { title: 'Ordering platform API', version: '1.0.0', description: 'Core API (spec 1), register (spec 2), payments and webhooks (spec 3).' },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
        },
        exclude: { paths: [API_REFERENCE_SCRIPT] },
        // url absolute: the plugin's relative 'api/docs/json' resolves to /api/api/docs/json from this page.
        // withDefaultFonts false: the default fonts would come from the vendor's font host.
        scalar: { url: '/api/docs/json', cdn: API_REFERENCE_SCRIPT, withDefaultFonts: false } as ScalarOptions,
      }),
    )
    .get(
      API_REFERENCE_SCRIPT,
      () => new Response(script, { headers: { 'content-type': 'application/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' } }),
      { detail: { hide: true } },
    );
}
