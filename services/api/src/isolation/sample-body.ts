/**
 * Builds a body that satisfies a route's TypeBox/JSON schema, using `idPool` for uuid-formatted
 * strings, so the isolation matrix reaches the handler instead of stopping at validation.
 */
export function sampleValue(schema: any, idPool: readonly string[], depth = 0): unknown {
  if (!schema || depth > 6) return undefined;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) {
    const nonNull = schema.anyOf.find((s: any) => s.type !== 'null');
    return sampleValue(nonNull ?? schema.anyOf[0], idPool, depth + 1);
  }
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = sampleValue(schema.properties?.[key], idPool, depth + 1);
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
      if (schema.pattern === '^[0-9]{4,8}$') return '9999';
      if (schema.pattern) return undefined;
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
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
