import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from '../testing/harness.ts';

/**
 * Numbers in JSON bodies are JSON numbers (spec 1 section 7: invalid input is a 422 on the field):
 * Elysia's `t.Integer`/`t.Numeric` take a numeric string beside the number and convert it as
 * JavaScript's `Number()` does (`"0x10"` -> 16, `"1e3"` -> 1000), so body schemas use `Int` of
 * `shared.schemas.ts`. Query and path values are always strings: their numbers keep a string branch
 * (`queryInt`, `t.Numeric`) or are coerced by the framework (`t.Number`).
 */
type Schema = Record<string, any>;
const stringBranch = (s: Schema) => s.type === 'string';
const numericString = (s: Schema) => s.type === 'string' && (s.format === 'integer' || s.format === 'numeric');

/** Paths of the nodes `bad` names, walking objects, arrays and unions (`within` is the union above, if any). */
function find(schema: unknown, bad: (s: Schema, within: Schema | null) => boolean, path = '', within: Schema | null = null, out: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as Schema;
  const here = path || '(root)';
  if (bad(s, within)) out.push(here);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(s[key])) for (const sub of s[key]) find(sub, bad, path, s, out);
  for (const [k, sub] of Object.entries(s.properties ?? {})) find(sub, bad, path ? `${path}.${k}` : k, null, out);
  if (s.items) find(s.items, bad, `${path}.*`.replace(/^\./, ''), null, out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') find(s.additionalProperties, bad, `${path}.*`.replace(/^\./, ''), null, out);
  return out;
}

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

const routes = () => (api.app as any).routes as { method: string; path: string; hooks: any }[];

describe('numbers in request schemas', () => {
  test('no body schema takes a string where a number goes', () => {
    const problems: string[] = [];
    for (const r of routes()) {
      const numericUnion = (s: Schema) => Array.isArray(s.anyOf) && s.anyOf.some(numericString);
      for (const p of find(r.hooks?.body, numericUnion)) problems.push(`${r.method} ${r.path} body ${p}`);
    }
    expect(problems).toEqual([]);
  });

  test('every integer of a query or path schema can be read from a string', () => {
    const problems: string[] = [];
    for (const r of routes()) {
      for (const part of ['query', 'params'] as const) {
        const strict = (s: Schema, within: Schema | null) => s.type === 'integer' && !(within && (within.anyOf ?? []).some(stringBranch));
        for (const p of find(r.hooks?.[part], strict)) problems.push(`${r.method} ${r.path} ${part} ${p}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
