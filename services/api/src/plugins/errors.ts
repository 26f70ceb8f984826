import { Elysia } from 'elysia';
import { AppError, MESSAGES, validationMessage, type FieldErrors, type Logger } from '@pos/kernel';

/** Elysia validation issue paths (`/lines/0/qty`) to the dot paths of CONTRACTS 3 (`lines.0.qty`). */
function dotPath(path: string | undefined, fallback: string): string {
  const p = (path ?? '').replace(/^\//, '').replace(/\//g, '.').replace(/~1/g, '/').replace(/~0/g, '~');
  return p || fallback;
}

function humanise(field: string, message: string, value: unknown): string {
  if (value === undefined) return `The ${field} field is required.`;
  return `The ${field} field is invalid: ${message.charAt(0).toLowerCase()}${message.slice(1)}.`;
}

interface ValueIssue {
  path?: string;
  message?: string;
  value?: unknown;
  schema?: { error?: unknown };
}

/**
 * Collects Elysia/TypeBox validation issues into `{field: [text]}`, keeping the first text per field.
 * A null-prototype map: a field named `__proto__` or `toString` is a key like any other.
 */
export function fieldErrorsFrom(all: readonly ValueIssue[], type: string): FieldErrors {
  const out: FieldErrors = Object.create(null);
  for (const issue of all) {
    const field = dotPath(issue.path, type);
    const custom = typeof issue.schema?.error === 'string' ? issue.schema.error : undefined;
    const text = custom ?? humanise(field, issue.message ?? 'invalid value', issue.value);
    const list = (out[field] ??= []);
    if (!list.includes(text)) list.push(text);
  }
  return out;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** The answer when everything else failed: no text of the failure, whatever the environment. */
export const lastResortResponse = () => json(500, { message: MESSAGES.unexpected });

function pathOf(request: Request): string {
  try {
    return new URL(request.url).pathname;
  } catch {
    return '';
  }
}

/**
 * Elysia reports a numeric query value that decodes but breaks its bounds (`per_page=1e308`) as a
 * "property" error without the key; the key is the query parameter holding that value.
 */
function queryKeyHolding(request: Request, value: unknown): string | undefined {
  let params: URLSearchParams;
  try {
    params = new URL(request.url).searchParams;
  } catch {
    return undefined;
  }
  const keys = [...params].filter(([, v]) => v === String(value) || Number(v) === value).map(([k]) => k);
  return keys.length === 1 ? keys[0] : undefined;
}

function respond(opts: { debug: boolean; log: Logger }, code: unknown, error: unknown, request: Request): Response {
  // The request guard's refusals arrive wrapped in Elysia's ParseError.
  const cause = (error as { cause?: unknown })?.cause;
  if (code === 'PARSE' && cause instanceof AppError) error = cause;
  if (error instanceof AppError) {
    if (error.status >= 500) opts.log.error('dependency failure', { err: error, path: pathOf(request) });
    return json(error.status, error.toBody());
  }
  switch (code) {
    case 'VALIDATION': {
      const v = error as unknown as { all?: ValueIssue[]; type?: string };
      // An answer that fails its own schema is our defect, not the caller's: never a 422 (a register
      // reads a 422 on settle as "nothing happened" while the sale was written).
      if (v.type === 'response') {
        opts.log.error('response failed its schema', { err: error, path: pathOf(request) });
        return json(500, { message: MESSAGES.unexpected });
      }
      const type = v.type === 'property' ? queryKeyHolding(request, v.all?.[0]?.value) ?? 'query' : (v.type ?? 'body');
      const errs = fieldErrorsFrom(v.all ?? [], type);
      return json(422, { message: validationMessage(errs), errors: errs });
    }
    case 'PARSE':
      return json(400, { message: MESSAGES.malformedJson });
    case 'NOT_FOUND':
      return json(404, { message: 'Not Found' });
    default: {
      // Elysia status() responses thrown as errors keep their own status and body.
      const status = (error as { status?: unknown })?.status;
      if (typeof status === 'number' && status < 500 && status >= 400) {
        const resp = (error as { response?: unknown }).response;
        return json(status, typeof resp === 'object' && resp !== null ? resp : { message: String(resp ?? 'Error') });
      }
      opts.log.error('unhandled error', { err: error, path: pathOf(request) });
      const message = opts.debug && error instanceof Error ? error.message : MESSAGES.unexpected;
      return json(500, opts.debug && error instanceof Error ? { message, exception: error.name } : { message });
    }
  }
}

/**
 * The one place errors become responses (spec 1 section 7, CONTRACTS 3): kernel AppErrors by their
 * code table, validation as the 422 shape, malformed JSON as 400, everything else as a 500 whose
 * text is shown only with DEBUG on. It never throws: if building the answer fails, the last-resort
 * 500 is sent and the failure logged.
 */
export function errorPlugin(opts: { debug: boolean; log: Logger }) {
  return new Elysia({ name: 'errors' }).onError({ as: 'global' }, ({ code, error, request }) => {
    try {
      return respond(opts, code, error, request);
    } catch (failure) {
      try {
        opts.log.error('error handler failed', { err: failure, original: String(error) });
      } catch {
        // logging must not turn the last resort into a crash either
      }
      return lastResortResponse();
    }
  });
}
