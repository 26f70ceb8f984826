import { fixEnumTypes } from './enum-types.ts';

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

/**
 * An after-handle hook applying `keepJsonBodies` and `fixEnumTypes` to the document route's answer. Registered as a
 * local hook of the docs plugin (api-docs.ts), so it runs on the docs routes only: a global hook is
 * compiled into every route's handler, and each handler's code is compiled once per route.
 */
export const jsonBodiesOf =
  (path: string) =>
  ({ request, response }: { request: Request; response: unknown }) => {
    if (new URL(request.url).pathname === path && response && typeof response === 'object' && 'paths' in response) return fixEnumTypes(keepJsonBodies(response));
  };
