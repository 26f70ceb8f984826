/**
 * Pure checks on a request body before and after `JSON.parse` (issue 8): nesting depth is measured
 * on the raw text so a hostile body never reaches the parser or the validator's recursion, and
 * strings PostgreSQL cannot store (NUL, lone surrogates) or keys that reach object prototypes are
 * found once here for every route instead of in each schema.
 */

/** Deepest nesting of arrays and objects a body may have. */
export const MAX_JSON_DEPTH = 32;

/**
 * Most entries an array in a body may have: the largest `maxItems` of any route's input schema
 * (schema-bounds.test.ts keeps every schema within it). A longer array can never be valid, so it is
 * refused here, before the framework parses the body again and validation walks every entry: a
 * refused 10,000-entry array cost 15-35 MB of garbage in validation-error detail alone.
 */
export const MAX_JSON_ITEMS = 1000;

/** Keys refused anywhere in a body: they reach prototypes when code copies objects by assignment. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** True when `text` nests arrays or objects deeper than `max` (brackets inside strings do not count). */
export function exceedsDepth(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

/** Why a string cannot be accepted, or null when it can. */
export function unsafeStringReason(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character';
  if (!s.isWellFormed()) return 'contains an unpaired surrogate';
  return null;
}

export interface UnsafeValue {
  /** Dot path of the offending value or key (`lines.0.name`). */
  path: string;
  text: string;
}

/**
 * The first string value or key in a parsed body that cannot be accepted, or array longer than any
 * schema accepts, with its dot path, or null.
 * Depth is already bounded by `exceedsDepth`, so the recursion is too.
 */
export function findUnsafeValue(value: unknown, path = ''): UnsafeValue | null {
  if (typeof value === 'string') {
    const why = unsafeStringReason(value);
    return why ? { path: path || 'body', text: `The ${path || 'body'} field ${why}.` } : null;
  }
  if (Array.isArray(value)) {
    if (value.length > MAX_JSON_ITEMS) return { path: path || 'body', text: `The ${path || 'body'} field may not have more than ${MAX_JSON_ITEMS} entries.` };
    for (let i = 0; i < value.length; i++) {
      const hit = findUnsafeValue(value[i], path ? `${path}.${i}` : String(i));
      if (hit) return hit;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const at = path ? `${path}.${key}` : key;
      if (FORBIDDEN_KEYS.has(key)) return { path: at, text: `The ${key} field is not allowed.` };
      const why = unsafeStringReason(key);
      if (why) return { path: path || 'body', text: `A field name in ${path || 'the body'} ${why}.` };
      const hit = findUnsafeValue((value as Record<string, unknown>)[key], at);
      if (hit) return hit;
    }
  }
  return null;
}

/** An absent body, an empty one or `{}`: what a route without a body schema accepts. */
export function isEmptyBody(value: unknown): boolean {
  return value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
}
