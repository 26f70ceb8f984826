import { expect, test } from 'bun:test';
import { heapStats } from 'bun:jsc';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Elysia, t } from 'elysia';

/**
 * Elysia compiles a handler for every route, and TypeBox a check for every schema of every route,
 * from generated source. The patched packages (patches/) evaluate one factory per distinct source,
 * so same-shaped routes and equal schemas run closures of one function and share its compiled code;
 * unpatched, each compiled its own copy (about 100 KB of bytecode and machine code per route handler
 * in the API; docs/performance.md, "Hostile-input memory").
 */
const codeBlocks = () => {
  Bun.gc(true);
  return heapStats().objectTypeCounts.FunctionCodeBlock ?? 0;
};
const N = 60;

test('same-shaped routes share one compiled handler', async () => {
  let app = new Elysia();
  for (let i = 0; i < N; i++) app = app.post(`/r${i}/:id`, ({ params, body }) => ({ id: params.id, n: body.n }), { body: t.Object({ n: t.Number() }) }) as unknown as Elysia;
  const hit = (i: number) => app.handle(new Request(`http://localhost/r${i}/a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' }));
  // The first route compiles what the routes have in common (parsers, validator helpers).
  expect(await (await hit(0)).json()).toEqual({ id: 'a', n: 1 });
  const before = codeBlocks();
  for (let i = 1; i < N; i++) expect((await hit(i)).status).toBe(200);
  expect(app.routes.length).toBe(N); // the app (and its routes' compiled code) stays alive until counted
  // Measured for 59 routes: 22 new code blocks with the patches, about 375 without.
  expect(codeBlocks() - before).toBeLessThan(2 * N);
});

test('checks of equal schemas share one compiled check', () => {
  const schema = () => t.Object({ id: t.String({ maxLength: 64 }), n: t.Optional(t.Integer({ minimum: 0 })), tags: t.Array(t.String()) });
  expect(TypeCompiler.Compile(schema()).Check({ id: 'a', tags: [] })).toBe(true);
  const before = codeBlocks();
  // Kept alive, as a route keeps its validators: a dropped check's code is collected.
  const checks = [];
  for (let i = 0; i < N; i++) {
    const check = TypeCompiler.Compile(schema());
    checks.push(check);
    expect(check.Check({ id: 'a', n: i, tags: ['x'] })).toBe(true);
    expect(check.Check({ id: 'a', n: -1, tags: [] })).toBe(false);
  }
  // Measured for 60 checks: about 40 new code blocks with the patch, about 280 without.
  expect(codeBlocks() - before).toBeLessThan(N);
});

test('with jsonBodies a JSON route compiles only the JSON parser; a file route keeps the form parser', async () => {
  const routes = new Elysia({ prefix: '/api' })
    .post('/json', ({ body }) => body, { body: t.Object({ n: t.Number() }) })
    .post('/file', ({ body }) => ({ size: body.file.size }), { body: t.Object({ file: t.File() }) });
  const app = new Elysia({ jsonBodies: true } as ConstructorParameters<typeof Elysia>[0]).use(routes);
  const json = await app.handle(new Request('http://localhost/api/json', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":2}' }));
  expect({ status: json.status, body: await json.json() }).toEqual({ status: 200, body: { n: 2 } });
  const form = new FormData();
  form.set('file', new File(['abc'], 'a.png'));
  const file = await app.handle(new Request('http://localhost/api/file', { method: 'POST', body: form }));
  expect({ status: file.status, body: await file.json() }).toEqual({ status: 200, body: { size: 3 } });
  // A body without a content type is left unparsed: the schema refuses it, as before.
  expect((await app.handle(new Request('http://localhost/api/json', { method: 'POST', body: '' }))).status).toBe(422);
  const source = (path: string) => String((app.routes as unknown as { path: string; composed: unknown }[]).find((r) => r.path === path)!.composed);
  expect([source('/api/json').includes('formData'), source('/api/file').includes('formData')]).toEqual([false, true]);
});
