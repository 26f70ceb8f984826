import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from '../testing/harness.ts';
import { RoutePatterns } from './route-patterns.ts';

describe('RoutePatterns', () => {
  const table = new RoutePatterns([
    { method: 'GET', path: '/api/items' },
    { method: 'GET', path: '/api/items/datatable' },
    { method: 'GET', path: '/api/items/:id' },
    { method: 'PUT', path: '/api/items/:id' },
    { method: 'GET', path: '/api/a/:x/b' },
    { method: 'GET', path: '/api/a/c/:y' },
    { method: 'GET', path: '/' },
  ]);

  test('a path reaches its pattern; a static segment wins over a parameter', () => {
    expect(table.patternOf('GET', '/api/items')).toBe('/api/items');
    expect(table.patternOf('GET', '/api/items/datatable')).toBe('/api/items/datatable');
    expect(table.patternOf('GET', '/api/items/0f8fad5b-d9cb-469f-a165-70867728950e')).toBe('/api/items/:id');
    expect(table.patternOf('PUT', '/api/items/x')).toBe('/api/items/:id');
    expect(table.patternOf('GET', '/api/a/c/b')).toBe('/api/a/c/:y');
    expect(table.patternOf('GET', '/api/a/d/b')).toBe('/api/a/:x/b');
    expect(table.patternOf('GET', '/')).toBe('/');
  });

  test('a static segment that leads nowhere falls back to the parameter', () => {
    expect(table.patternOf('GET', '/api/a/c/b/')).toBe('/api/a/c/:y');
    const t = new RoutePatterns([
      { method: 'GET', path: '/x/static/end' },
      { method: 'GET', path: '/x/:p/other' },
    ]);
    expect(t.patternOf('GET', '/x/static/other')).toBe('/x/:p/other');
  });

  test('a trailing slash is ignored; HEAD reaches GET; other methods, empty segments and unknown paths reach nothing', () => {
    expect(table.patternOf('GET', '/api/items/')).toBe('/api/items');
    expect(table.patternOf('HEAD', '/api/items/1')).toBe('/api/items/:id');
    expect(table.patternOf('POST', '/api/items')).toBeUndefined();
    expect(table.patternOf('GET', '/api/items//')).toBeUndefined();
    expect(table.patternOf('GET', '/api/nothing')).toBeUndefined();
    expect(table.patternOf('GET', '/api/items/1/2')).toBeUndefined();
  });
});

describe('RoutePatterns.takesNoBody', () => {
  const table = new RoutePatterns([
    { method: 'POST', path: '/api/logout', hasBody: false },
    { method: 'POST', path: '/api/items', hasBody: true },
    { method: 'POST', path: '/api/items/:id/publish', hasBody: false },
    { method: 'POST', path: '/api/items/import/publish', hasBody: true },
  ]);

  test('a route without a body schema takes none; one with a schema, an unknown path or another method does', () => {
    expect(table.takesNoBody('POST', '/api/logout')).toBe(true);
    expect(table.takesNoBody('POST', '/api/logout/')).toBe(true);
    expect(table.takesNoBody('POST', '/api/items')).toBe(false);
    expect(table.takesNoBody('POST', '/api/items/1/publish')).toBe(true);
    expect(table.takesNoBody('PUT', '/api/logout')).toBe(false);
    expect(table.takesNoBody('POST', '/api/nothing')).toBe(false);
  });

  test('a path that also reaches a route with a body schema counts as taking one', () => {
    expect(table.patternOf('POST', '/api/items/import/publish')).toBe('/api/items/import/publish');
    expect(table.takesNoBody('POST', '/api/items/import/publish')).toBe(false);
  });

  test("a request's pattern is found once and remembered", () => {
    const request = new Request('http://x/api/items/1/publish', { method: 'POST' });
    expect(table.patternOfRequest(request)).toBe('/api/items/:id/publish');
    expect(table.patternOfRequest(request)).toBe('/api/items/:id/publish');
    expect(table.patternOfRequest(new Request('http://x/api/none', { method: 'POST' }))).toBeUndefined();
  });
});

describe("the app's routes", () => {
  let api: TestApi;
  beforeAll(async () => (api = await createTestApi()));
  afterAll(() => api.close());

  test('every registered route is found again from a path with values in its parameters', () => {
    const routes = (api.app.routes as { method: string; path: string }[]).filter((r) => r.method !== 'WS');
    const table = new RoutePatterns(routes);
    // A uuid never equals a static segment, so each path can only reach the route it was made from.
    const wrong = routes
      .map((r) => ({ r, found: table.patternOf(r.method, r.path.replace(/:\w+/g, '0f8fad5b-d9cb-469f-a165-70867728950e')) }))
      .filter(({ r, found }) => found !== r.path);
    expect(routes.length).toBeGreaterThan(500);
    expect(wrong.map(({ r, found }) => `${r.method} ${r.path} -> ${found}`)).toEqual([]);
  });
});
