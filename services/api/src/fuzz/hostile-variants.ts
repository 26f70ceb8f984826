import { sampleValue } from '../isolation/sample-body.ts';

/**
 * Hostile variants of one OpenAPI operation (issue 8, "keep it so"): every operation of the
 * document gets them, so a new route joins the fuzz pass by being registered. Pure: it builds
 * requests, it sends none.
 */
export interface OpenApiOperation {
  method: string;
  /** OpenAPI path with `{param}` placeholders. */
  path: string;
  parameters: { name: string; in: string; schema?: unknown }[];
  bodySchema: unknown;
}

export interface HostileRequest {
  variant: string;
  method: string;
  /** Path with query string, ready to send. */
  url: string;
  body?: string;
  contentType?: string;
}

const HUGE_STRING = 20_000;
const HUGE_ARRAY = 10_000;

/** Operations of an OpenAPI document (only `/api` paths). */
export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): OpenApiOperation[] {
  const out: OpenApiOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const [method, op] of Object.entries(item)) {
      out.push({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []) as OpenApiOperation['parameters'],
        bodySchema: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return out;
}

/** Replaces every scalar leaf of a value through `f`. */
function mapLeaves(v: unknown, f: (leaf: unknown) => unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => mapLeaves(x, f));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapLeaves(x, f)]));
  return f(v);
}

/** Every array of a value (outermost only) repeated to HUGE_ARRAY copies of its first item. */
function expandArrays(v: unknown): unknown {
  if (Array.isArray(v)) return Array.from({ length: HUGE_ARRAY }, () => v[0] ?? null);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expandArrays(x)]));
  return v;
}

const wrongType = (v: unknown): unknown => {
  if (typeof v === 'string') return 12345;
  if (typeof v === 'number') return 'not-a-number';
  if (typeof v === 'boolean') return 'yes';
  if (Array.isArray(v)) return { not: 'an array' };
  if (v && typeof v === 'object') return [1, 2, 3];
  return { unexpected: true };
};

function withPath(op: OpenApiOperation, values: Record<string, string>, query = ''): string {
  let p = op.path;
  for (const param of op.parameters.filter((x) => x.in === 'path')) p = p.replace(`{${param.name}}`, values[param.name] ?? crypto.randomUUID());
  return query ? `${p}?${query}` : p;
}

/**
 * At least ten hostile requests for an operation: wrong types, missing and extra fields, prototype
 * keys, deep nesting, huge strings and arrays, NUL and lone surrogates, numbers at the limits,
 * malformed JSON and a wrong content type for a body; hostile query and path values for every
 * operation. `pathValues` gives real ids for path parameters (others get a random UUID).
 */
export function hostileRequests(op: OpenApiOperation, pathValues: Record<string, string> = {}): HostileRequest[] {
  const out: HostileRequest[] = [];
  const base = withPath(op, pathValues);
  const json = (variant: string, body: string, contentType = 'application/json') => out.push({ variant, method: op.method, url: base, body, contentType });
  const queryNames = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const query = (variant: string, value: string, names = queryNames) =>
    out.push({ variant, method: op.method, url: withPath(op, pathValues, [...names, 'unknown_param'].map((n) => `${encodeURIComponent(n)}=${value}`).join('&')) });
  const pathNames = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const path = (variant: string, value: string) => {
    if (pathNames.length) out.push({ variant, method: op.method, url: withPath(op, Object.fromEntries(pathNames.map((n) => [n, value]))) });
  };

  if (op.bodySchema !== undefined || !['GET', 'HEAD'].includes(op.method)) {
    const sample = (sampleValue(op.bodySchema, [crypto.randomUUID()]) ?? {}) as Record<string, unknown>;
    const sampleText = JSON.stringify(sample);
    json('wrong-types', JSON.stringify(sample && typeof sample === 'object' && !Array.isArray(sample) ? Object.fromEntries(Object.entries(sample).map(([k, v]) => [k, wrongType(v)])) : wrongType(sample)));
    json('missing-fields', '{}');
    json('extra-field', JSON.stringify({ ...(typeof sample === 'object' ? sample : {}), unexpected_field: 'x' }));
    json('prototype-keys', `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"toString":1${sampleText.length > 2 ? `,${sampleText.slice(1)}` : '}'}`);
    json('deep-nesting', `{"a":${'['.repeat(5_000)}${']'.repeat(5_000)}}`);
    json('huge-strings', JSON.stringify(mapLeaves(sample, (v) => (typeof v === 'string' ? 'x'.repeat(HUGE_STRING) : v))));
    json('huge-arrays', JSON.stringify(expandArrays(sample)));
    json('nul-strings', JSON.stringify(mapLeaves(sample, (v) => (typeof v === 'string' ? `a\u0000b` : v))));
    json('lone-surrogates', JSON.stringify(mapLeaves(sample, (v) => (typeof v === 'string' ? `a\ud800b` : v))));
    json('numbers-huge', JSON.stringify(mapLeaves(sample, (v) => (typeof v === 'number' ? 1e308 : v))));
    json('numbers-unsafe', JSON.stringify(mapLeaves(sample, (v) => (typeof v === 'number' ? -(2 ** 53) - 2 : v))));
    json('numbers-fraction', JSON.stringify(mapLeaves(sample, (v) => (typeof v === 'number' ? 0.5 : v))));
    // A member of every object as each free text value (ids, e-mails and dates kept valid): a lookup keyed by it found Object.prototype.
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-/i;
    json('prototype-values', JSON.stringify(mapLeaves(sample, (v) => (typeof v === 'string' && !UUID.test(v) && !v.includes('@') && Number.isNaN(Date.parse(v)) ? 'constructor' : v))));
    json('malformed-json', '{"a":');
    json('null-body', 'null');
    json('array-body', '[]');
    json('wrong-content-type', sampleText, 'text/plain');
  }
  query('query-nul', '%00');
  query('query-surrogate', '%ED%A0%80');
  query('query-huge', 'x'.repeat(HUGE_STRING));
  query('query-number-limit', '1e308');
  query('query-repeated', '1&' + queryNames.map((n) => `${n}=2`).join('&'));
  query('query-prototype', '1', ['__proto__', 'constructor', ...queryNames]);
  // One free text parameter at a time named like a member of every object, the others valid: the value
  // reaches the handler (`platform=constructor` found Object.prototype's constructor in a lookup table).
  const freeText = op.parameters.filter((p) => p.in === 'query' && (p.schema as { type?: string; enum?: unknown } | undefined)?.type === 'string' && !(p.schema as { enum?: unknown }).enum);
  for (const target of freeText.slice(0, 4)) {
    for (const value of ['constructor', '__proto__']) {
      const params = op.parameters.filter((p) => p.in === 'query' && (p === target || (p as { required?: boolean }).required));
      const q = params.map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(p === target ? value : String(sampleValue(p.schema, [crypto.randomUUID()]) ?? '1'))}`).join('&');
      out.push({ variant: `query-prototype-value-${target.name}`, method: op.method, url: withPath(op, pathValues, q) });
    }
  }
  query('query-negative', '-1');
  query('query-fraction', '0.5');
  query('query-invalid-utf8', '%C0%AE%FF');
  query('query-sql', encodeURIComponent("' OR 1=1; --"));
  query('query-empty', '');
  path('path-nul', '%00');
  path('path-huge', 'x'.repeat(HUGE_STRING));
  path('path-traversal', '..%2F..%2Fetc%2Fpasswd');
  path('path-number-limit', '1e308');
  path('path-surrogate', '%ED%A0%80');
  path('path-prototype', 'constructor');
  return out;
}

/** What no response may carry: the runtime's error page, stack frames, source paths or SQL. */
export const LEAK_PATTERN = /<html|<!doctype|\n\s+at |\bat [\w.<>]+ \(|\.[jt]s:\d+|\/work\/|node_modules|\/home\/|\/app\/src|\/root\/|syntax error at|violates .* constraint|relation ".*" does not exist|invalid input syntax/i;
