import { Elysia } from 'elysia';
import { AppError, MESSAGES, errors } from '@pos/kernel';
import { bodyPolicyFor, mediaTypeOf, type BodyPolicy } from './body-policy.ts';
import { exceedsDepth, findUnsafeValue, isEmptyBody, MAX_JSON_DEPTH, unsafeStringReason } from './json-guard.ts';
import type { RoutePatterns } from '../plugins/route-patterns.ts';
import { readBodyBytes, readBodyText } from './read-body.ts';

const WITHOUT_BODY = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Checks a request's body before routing: read (from a copy) against its route family's size
 * limit, nesting depth measured on the raw text, parsed, and scanned for strings PostgreSQL refuses,
 * prototype keys and arrays longer than any schema accepts. A route without a body schema refuses a non-empty body. Throws the refusal;
 * returns nothing when the body may go on to the framework's own JSON parser and validation.
 */
async function checkBody(request: Request, url: URL, policies: readonly BodyPolicy[], routes: RoutePatterns | null): Promise<void> {
  const policy = bodyPolicyFor(policies, url.pathname);
  if (policy.raw) {
    // Webhooks: counted against the family limit; the route reads the same bytes and verifies them.
    await readBodyBytes(request.clone() as Request, policy.maxBytes);
    return;
  }
  const media = mediaTypeOf(request.headers.get('content-type'));
  if (media === 'multipart/form-data' && policy.mediaTypes.includes(media)) {
    // Counted against the family limit; the framework's form parser reads it, the route checks the file.
    await readBodyBytes(request.clone() as Request, policy.maxBytes);
    return;
  }
  let text: string;
  try {
    text = await readBodyText(request.clone() as Request, policy.maxBytes);
  } catch (e) {
    throw e instanceof AppError ? e : errors.badRequest(MESSAGES.malformedJson);
  }
  if (text.trim() === '') return;
  if (!policy.mediaTypes.includes(media)) {
    throw new AppError('unsupported_media_type', `Unsupported Media Type: send ${policy.mediaTypes.join(' or ')}.`);
  }
  if (exceedsDepth(text)) throw errors.badRequest(`The JSON body may not be nested more than ${MAX_JSON_DEPTH} levels deep.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.badRequest(MESSAGES.malformedJson);
  }
  // Every body of this API is a JSON object; `[]`, `null` or a bare string never reach a handler
  // (an optional object body would otherwise let them through as "no body").
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw errors.field('body', 'The request body must be a JSON object.');
  const bad = findUnsafeValue(value);
  if (bad) throw errors.field(bad.path, bad.text);
  if (!isEmptyBody(value) && routes?.takesNoBody(request.method, url.pathname)) throw errors.field('body', 'This route takes no request body.');
}

/** Query values get the string check bodies get (path segments are checked after routing). */
function checkValues(values: Record<string, unknown> | undefined, where: 'parameter' | 'path segment'): void {
  if (!values) return;
  for (const [key, v] of Object.entries(values)) {
    for (const s of Array.isArray(v) ? v : [v]) {
      const why = typeof s === 'string' ? unsafeStringReason(s) : null;
      if (why) throw errors.field(key, `The ${key} ${where} ${why}.`);
    }
  }
}

const refused = new WeakSet<Request>();

/** True when the guard refused the request before routing: it never reached a route. */
export const refusedBeforeRouting = (request: Request) => refused.has(request);

/**
 * The request layer every route inherits (issue 8): bodies are checked before routing, so no
 * handler, validator or recursion sees a hostile one; query and path values are checked before
 * validation. `routes.current` is set by the app once every route is registered.
 */
export function requestGuard(policies: readonly BodyPolicy[], routes: { current: RoutePatterns | null }) {
  return new Elysia({ name: 'request-guard' })
    .onRequest(async ({ request }) => {
      if (WITHOUT_BODY.has(request.method)) return;
      try {
        await checkBody(request, new URL(request.url), policies, routes.current);
      } catch (e) {
        refused.add(request);
        throw e;
      }
    })
    .onTransform({ as: 'global' }, ({ query, params }) => {
      checkValues(query as Record<string, unknown>, 'parameter');
      checkValues(params as Record<string, unknown>, 'path segment');
    });
}
