/**
 * The OpenAPI generator writes every union of literals as `{ type: 'string', enum: [...] }`, so a
 * number one (`paper_width_mm`: 58 or 80) is documented as a string the API refuses. This gives such an
 * enum the type of its values (`integer`, `number`, `boolean`; none when they are mixed). Idempotent.
 */
export function fixEnumTypes<T>(doc: T): T {
  const seen = new Set<object>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) return node.forEach(visit);
    const schema = node as Record<string, unknown>;
    if (schema.type === 'string' && Array.isArray(schema.enum) && schema.enum.length > 0) {
      const type = typeOfValues(schema.enum);
      if (type === null) delete schema.type;
      else schema.type = type;
    }
    for (const v of Object.values(schema)) visit(v);
  };
  visit(doc);
  return doc;
}

function typeOfValues(values: readonly unknown[]): string | null {
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => Number.isInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'number')) return 'number';
  if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  return null;
}
