import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sucrose } from 'elysia/sucrose';
import { createTestApi, type TestApi } from './testing/harness.ts';

/**
 * Elysia compiles one handler per route from generated source, with the route's path in it as a
 * literal when any hook of the route or its handler reads `route` or hands the whole context to a
 * function. Routes whose generated source is the same share one compiled (and JIT-compiled) handler;
 * with the literal, every route's is its own (docs/performance.md, "Hostile-input memory").
 */
let api: TestApi;
beforeAll(async () => (api = await createTestApi()));
afterAll(() => api.close());

interface Route {
  method: string;
  path: string;
  handler: unknown;
  hooks: Record<string, unknown>;
  compile: () => (...args: unknown[]) => unknown;
}
const routes = () => (api.app as unknown as { router: { history: Route[] } }).router.history;

describe('compiled route handlers', () => {
  test('no hook a route inherits reads `route` or hands the whole context on', () => {
    const offenders = new Set<string>();
    for (const r of routes()) {
      for (const [kind, list] of Object.entries(r.hooks ?? {})) {
        if (!Array.isArray(list)) continue;
        for (const h of list as { fn?: unknown }[]) {
          if (typeof h?.fn === 'function' && sucrose({ [kind]: [h.fn] } as never).route) offenders.add(`${kind}: ${String(h.fn).slice(0, 80)}`);
        }
      }
    }
    expect([...offenders]).toEqual([]);
  });

  test("only a route whose own handler needs the context whole carries its path; the others share their shape's source", () => {
    let withoutPath = 0;
    const sources = new Set<string>();
    for (const r of routes()) {
      if (typeof r.compile !== 'function' || r.method === 'WS') continue;
      const source = String(r.compile());
      const ownNeeds = sucrose({ handler: r.handler } as never).route;
      expect({ route: `${r.method} ${r.path}`, path: source.includes('c.route=') }).toEqual({ route: `${r.method} ${r.path}`, path: ownNeeds });
      if (!ownNeeds) {
        withoutPath++;
        sources.add(source);
      }
    }
    // Far fewer distinct handlers than routes: same-shaped routes share one.
    expect(withoutPath).toBeGreaterThan(300);
    expect(sources.size).toBeLessThan(withoutPath / 2);
  });
});
