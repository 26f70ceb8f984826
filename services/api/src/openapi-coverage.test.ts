import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from './testing/harness.ts';

/**
 * DESIGN 2 and issue 2 point 9: every route declares TypeBox schemas for its params, query (where it
 * reads one), body and responses, and the generated OpenAPI document carries them.
 */
let api: TestApi;
beforeAll(async () => (api = await createTestApi()));
afterAll(() => api.close());

type Route = { method: string; path: string; hooks: Record<string, any> };
const routes = () => ((api.app as any).routes as Route[]).filter((r) => r.path.startsWith('/api/') || r.path === '/version').filter((r) => !r.path.startsWith('/api/docs'));

describe('OpenAPI coverage', () => {
  test('routes with path parameters declare a params schema', () => {
    const missing = routes().filter((r) => r.path.includes('/:') && !r.hooks.params).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
  });

  test('every route declares its responses', () => {
    // A WebSocket route (`WS /api/realtime`) answers messages, not HTTP responses: Elysia keeps no response hook for it.
    const missing = routes().filter((r) => r.method !== 'WS' && !r.hooks.response).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
  });

  test('every route has a summary and the document lists it', async () => {
    const doc = (await api.call('GET', '/api/docs/json')).body as { paths: Record<string, Record<string, { summary?: string }>> };
    const missing: string[] = [];
    for (const r of routes()) {
      const path = r.path.replace(/:(\w+)\??/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      if (!op?.summary) missing.push(`${r.method} ${r.path}`);
    }
    expect(missing).toEqual([]);
  });

  test('every route with a body schema documents it as application/json, and only that', async () => {
    const doc = (await api.call('GET', '/api/docs/json')).body as { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>> };
    const wrong: string[] = [];
    for (const r of routes().filter((x) => x.hooks.body)) {
      const content = doc.paths[r.path.replace(/:(\w+)\??/g, '{$1}')]?.[r.method.toLowerCase()]?.requestBody?.content ?? {};
      if (Object.keys(content).join() !== 'application/json' || !content['application/json']?.schema) wrong.push(`${r.method} ${r.path}: ${Object.keys(content).join()}`);
    }
    expect(wrong).toEqual([]);
  });
});
