import { Elysia } from 'elysia';
import { AppError, MESSAGES, validationMessage, type FieldErrors, type Logger } from '@pos/kernel';

/** Elysia validation issue paths (`/lines/0/qty`) to the dot paths of CONTRACTS 3 (`lines.0.qty`). */
function dotPath(path: string | undefined, fallback: string): string {
  const p = (path ?? '').replace(/^\//, '').replace(/\//g, '.');
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

/** Collects Elysia/TypeBox validation issues into `{field: [text]}`, keeping the first text per field. */
export function fieldErrorsFrom(all: readonly ValueIssue[], type: string): FieldErrors {
  const out: FieldErrors = {};
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

/**
 * The one place errors become responses (spec 1 section 7, CONTRACTS 3): kernel AppErrors by their
 * code table, validation as the 422 shape, malformed JSON as 400, everything else as a 500 whose
 * text is shown only with DEBUG on.
 */
export function errorPlugin(opts: { debug: boolean; log: Logger }) {
  return new Elysia({ name: 'errors' }).onError({ as: 'global' }, ({ code, error, request }) => {
    if (error instanceof AppError) {
      if (error.status >= 500) opts.log.error('dependency failure', { err: error, path: new URL(request.url).pathname });
      return json(error.status, error.toBody());
    }
    switch (code) {
      case 'VALIDATION': {
        const v = error as unknown as { all?: ValueIssue[]; type?: string };
        const errs = fieldErrorsFrom(v.all ?? [], v.type ?? 'body');
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
        opts.log.error('unhandled error', { err: error, path: new URL(request.url).pathname });
        const message = opts.debug && error instanceof Error ? error.message : MESSAGES.unexpected;
        return json(500, opts.debug && error instanceof Error ? { message, exception: error.name } : { message });
      }
    }
  });
}
