import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { t } from 'elysia';
import { createTestApi, type TestApi } from '../testing/harness.ts';
import { unboundedNodes } from './schema-bounds.ts';
import { MAX_JSON_ITEMS } from './json-guard.ts';

describe('unboundedNodes', () => {
  test('names each unbounded string, array and number by its path', () => {
    const s = t.Object({
      a: t.String(),
      b: t.String({ maxLength: 3 }),
      c: t.Array(t.Integer({ minimum: 0 }), { maxItems: 2 }),
      d: t.Optional(t.Union([t.Array(t.String({ maxLength: 1 })), t.Null()])),
      e: t.Number({ minimum: 0, maximum: 1 }),
      f: t.String({ format: 'uuid' }),
      g: t.Union([t.Literal('x'), t.Literal('y')]),
    });
    expect(unboundedNodes(s)).toEqual(['a: string without maxLength', 'c.*: integer without maximum', 'd: array without maxItems']);
  });
});

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

describe('every route bounds its input', () => {
  test('body, query and params schemas have maxLength, maxItems and numeric bounds everywhere', () => {
    const routes = ((api.app as any).routes as { method: string; path: string; hooks: any }[]);
    const problems: string[] = [];
    for (const r of routes) {
      for (const part of ['body', 'query', 'params'] as const) {
        for (const p of unboundedNodes(r.hooks?.[part])) problems.push(`${r.method} ${r.path} ${part} ${p}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test(`no array accepts more than the request guard's MAX_JSON_ITEMS (${MAX_JSON_ITEMS}) entries`, () => {
    const routes = (api.app as any).routes as { method: string; path: string; hooks: any }[];
    const over: string[] = [];
    let largest = 0;
    const walk = (s: unknown, at: string) => {
      if (!s || typeof s !== 'object') return;
      const node = s as { type?: unknown; maxItems?: unknown };
      if (node.type === 'array' && typeof node.maxItems === 'number') {
        largest = Math.max(largest, node.maxItems);
        if (node.maxItems > MAX_JSON_ITEMS) over.push(`${at} maxItems ${node.maxItems}`);
      }
      for (const v of Object.values(s)) walk(v, at);
    };
    for (const r of routes) walk(r.hooks?.body, `${r.method} ${r.path}`);
    // A larger maxItems needs a larger MAX_JSON_ITEMS (json-guard.ts), or the guard refuses valid bodies.
    expect(over).toEqual([]);
    expect(largest).toBe(MAX_JSON_ITEMS);
  });
});
