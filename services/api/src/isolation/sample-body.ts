/**
 * Builds a body that satisfies a route's TypeBox/JSON schema, using `idPool` for uuid-formatted
 * strings, so the isolation matrix reaches the handler instead of stopping at validation.
 */
/** True when a schema holds a uuid-formatted string somewhere. */
export function carriesUuid(schema: any): boolean {
  return !!schema && (schema.format === 'uuid' || Object.values(schema.properties ?? {}).some(carriesUuid) || carriesUuid(schema.items) || (schema.anyOf ?? []).some(carriesUuid));
}

export function sampleValue(schema: any, idPool: readonly string[], depth = 0): unknown {
  if (!schema || depth > 6) return undefined;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) {
    // Elysia's t.Integer/t.Numeric: a numeric-string branch beside the number branch; send the number.
    const numericString = (s: any) => s.type === 'string' && (s.format === 'integer' || s.format === 'numeric');
    const nonNull = schema.anyOf.find((s: any) => s.type !== 'null' && !numericString(s)) ?? schema.anyOf.find((s: any) => s.type !== 'null');
    return sampleValue(nonNull ?? schema.anyOf[0], idPool, depth + 1);
  }
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      // The required keys, and every optional key that carries an id: the foreign id must be sent.
      const keys = new Set<string>([...(schema.required ?? []), ...Object.keys(schema.properties ?? {}).filter((k) => carriesUuid(schema.properties[k]))]);
      for (const key of keys) out[key] = sampleValue(schema.properties?.[key], idPool, depth + 1);
      return out;
    }
    case 'array': {
      const n = Math.max(1, schema.minItems ?? 1);
      return Array.from({ length: n }, () => sampleValue(schema.items, idPool, depth + 1));
    }
    case 'string': {
      if (schema.format === 'uuid') return idPool[0] ?? crypto.randomUUID();
      if (schema.format === 'email') return 'matrix@example.com';
      if (schema.format === 'date-time') return new Date().toISOString();
      const min = Math.max(1, schema.minLength ?? 1);
      if (schema.pattern) {
        // A value the pattern accepts, so the call reaches the handler rather than stopping at validation.
        const re = new RegExp(schema.pattern);
        return ['9999', '482915', 'Matrix sample', 'https://matrix.example', 'pm_card_visa', 'x'.repeat(min)].find((v) => re.test(v) && v.length >= min && v.length <= (schema.maxLength ?? Infinity));
      }
      return 'x'.repeat(min);
    }
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return undefined;
  }
}
