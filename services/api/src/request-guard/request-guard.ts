import { Elysia } from 'elysia';
import { AppError, MESSAGES, errors } from '@pos/kernel';
import { bodyPolicyFor, mediaTypeOf } from './body-policy.ts';
import { BodyLessRoutes, isEmptyBody } from './body-less-routes.ts';
import { exceedsDepth, findUnsafeValue, MAX_JSON_DEPTH, unsafeStringReason } from './json-guard.ts';
import { payloadTooLarge, readBodyText } from './read-body.ts';

/**
 * The request layer every route inherits (issue 8). A body is read against its route family's size
 * limit, its nesting depth checked on the raw text, parsed once as JSON, and scanned for strings
 * PostgreSQL refuses and for prototype keys, all before validation or any handler runs; an empty
 * body reads as `{}`. A route without a body schema refuses a non-empty body. Query and path values
 * get the same string check. `routes.current` is set by the app once every route is registered.
 *
 * Errors thrown here reach the error plugin wrapped in Elysia's ParseError, which unwraps them.
 */
export function requestGuard(routes: { current: BodyLessRoutes | null }) {
  return new Elysia({ name: 'request-guard' })
    .onParse({ as: 'global' }, async ({ request }) => {
      const url = new URL(request.url);
      const policy = bodyPolicyFor(url.pathname);
      const media = mediaTypeOf(request.headers.get('content-type'));
      if (media === 'multipart/form-data' && policy.mediaTypes.includes(media)) {
        if (!(Number(request.headers.get('content-length') ?? NaN) <= policy.maxBytes)) throw payloadTooLarge(policy.maxBytes);
        return undefined; // the framework's form parser reads it
      }
      let text: string;
      try {
        text = await readBodyText(request, policy.maxBytes);
      } catch (e) {
        throw e instanceof AppError ? e : errors.badRequest(MESSAGES.malformedJson);
      }
      if (text.trim() === '') return {};
      if (media !== '' && !policy.mediaTypes.includes(media)) {
        throw new AppError('unsupported_media_type', `Unsupported Media Type: send ${policy.mediaTypes.join(' or ')}.`);
      }
      if (exceedsDepth(text)) throw errors.badRequest(`The JSON body may not be nested more than ${MAX_JSON_DEPTH} levels deep.`);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw errors.badRequest(MESSAGES.malformedJson);
      }
      const bad = findUnsafeValue(value);
      if (bad) throw errors.field(bad.path, bad.text);
      if (!isEmptyBody(value) && routes.current?.takesNoBody(request.method, url.pathname)) {
        throw errors.field('body', 'This route takes no request body.');
      }
      return value;
    })
    .onTransform({ as: 'global' }, ({ query, params }) => {
      for (const [where, values] of [['parameter', query], ['path segment', params]] as const) {
        if (!values) continue;
        for (const [key, v] of Object.entries(values as Record<string, unknown>)) {
          for (const s of Array.isArray(v) ? v : [v]) {
            const why = typeof s === 'string' ? unsafeStringReason(s) : null;
            if (why) throw errors.field(key, `The ${key} ${where} ${why}.`);
          }
        }
      }
    });
}
