/**
 * Finds the places in an input schema (body, query, params) that accept unbounded input: a string
 * without `maxLength`, an array without `maxItems`, a number without both a lower and an upper
 * bound. Every route's input must be bounded (issue 8): the schema lint test walks every route
 * with this, so a new route joins the check by being registered.
 */
const BOUNDED_FORMATS = new Set(['uuid', 'integer', 'numeric']);

export function unboundedNodes(schema: unknown, path = '', out: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as Record<string, any>;
  if (s.const !== undefined || Array.isArray(s.enum)) return out;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(s[key])) for (const sub of s[key]) unboundedNodes(sub, path, out);
  }
  const here = path || '(root)';
  switch (s.type) {
    case 'string':
      // Elysia's t.Integer/t.Numeric carry a numeric-string branch beside the bounded number branch.
      if (typeof s.maxLength !== 'number' && !BOUNDED_FORMATS.has(s.format)) out.push(`${here}: string without maxLength`);
      break;
    case 'integer':
    case 'number':
      if (s.minimum === undefined && s.exclusiveMinimum === undefined) out.push(`${here}: ${s.type} without minimum`);
      if (s.maximum === undefined && s.exclusiveMaximum === undefined) out.push(`${here}: ${s.type} without maximum`);
      break;
    case 'array':
      if (typeof s.maxItems !== 'number') out.push(`${here}: array without maxItems`);
      unboundedNodes(s.items, `${path}.*`.replace(/^\./, ''), out);
      break;
    case 'object':
      for (const [k, sub] of Object.entries(s.properties ?? {})) unboundedNodes(sub, path ? `${path}.${k}` : k, out);
      if (s.additionalProperties && typeof s.additionalProperties === 'object') unboundedNodes(s.additionalProperties, `${path}.*`.replace(/^\./, ''), out);
      if (s.patternProperties) for (const sub of Object.values(s.patternProperties)) unboundedNodes(sub, `${path}.*`.replace(/^\./, ''), out);
      break;
  }
  return out;
}
