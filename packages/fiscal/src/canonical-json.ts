/**
 * Deterministic JSON: object keys sorted by code unit, no whitespace, `undefined` object members
 * dropped (as JSON.stringify does), so a value that went through a jsonb round trip serialises to
 * the same bytes. Throws on values JSON cannot carry faithfully (NaN, Infinity, bigint, functions).
 */
export function canonicalJson(value: unknown): string {
  try {
    return fast(value);
  } catch (e) {
    // Say where: the path-tracking writer throws the same error with the location.
    if (e === UNSERIALISABLE) return write(value, '$');
    throw e;
  }
}

const UNSERIALISABLE = new TypeError('canonicalJson: value cannot be serialised');

/**
 * The hot path (every fiscal event is serialised several times per signature): the same output as
 * `write`, without building a path string for every member.
 */
function fast(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw UNSERIALISABLE;
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          const v: unknown = value[i];
          out += v === undefined ? 'null' : fast(v);
        }
        return out + ']';
      }
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      let out = '{';
      let first = true;
      for (const k of keys) {
        const v = obj[k];
        if (v === undefined) continue;
        if (!first) out += ',';
        out += JSON.stringify(k) + ':' + fast(v);
        first = false;
      }
      return out + '}';
    }
    default:
      throw UNSERIALISABLE;
  }
}

function write(value: unknown, path: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number at ${path}`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        return `[${value.map((v, i) => (v === undefined ? 'null' : write(v, `${path}[${i}]`))).join(',')}]`;
      }
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${write(obj[k], `${path}.${k}`)}`).join(',')}}`;
    }
    default:
      throw new TypeError(`canonicalJson: cannot serialise ${typeof value} at ${path}`);
  }
}
