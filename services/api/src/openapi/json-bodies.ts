import { Elysia } from 'elysia';

type Doc = { paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>> };

/**
 * Request bodies are JSON only (the request guard answers any other media type 415), but the
 * OpenAPI generator lists form and multipart encodings beside JSON for every body schema. This keeps
 * only `application/json` wherever it is listed. Idempotent; the generator caches the document.
 */
export function keepJsonBodies<T>(doc: T): T {
  for (const item of Object.values((doc as Doc)?.paths ?? {})) {
    for (const op of Object.values(item)) {
      const content = op?.requestBody?.content;
      if (content?.['application/json']) op.requestBody!.content = { 'application/json': content['application/json'] };
    }
  }
  return doc;
}

/** Applies `keepJsonBodies` to the document route's answer. */
export function openapiJsonBodies(path: string) {
  return new Elysia({ name: 'openapi-json-bodies' }).onAfterHandle({ as: 'global' }, ({ request, response }) => {
    if (new URL(request.url).pathname === path && response && typeof response === 'object' && 'paths' in response) return keepJsonBodies(response);
  });
}
