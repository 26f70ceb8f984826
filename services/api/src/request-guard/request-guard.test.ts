import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SignJWT } from 'jose';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../testing/harness.ts';
import { serveOptions } from './serve-options.ts';

/**
 * The request layer every route inherits (issue 8): each case here was a 500, a leak or a bypass
 * before the guard existed.
 */
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let pos: string;
let staff: string;

const LOGIN = '/api/login';
const creds = () => ({ email: m.backoffice.email, password: 'not-the-password' });

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('guard');
  owner = await api.ownerToken(m);
  pos = await api.deviceToken(m, 'pos');
  staff = await api.staffLogin(m, 'manager', pos);
});
afterAll(() => api.close());

describe('prototype keys', () => {
  test('__proto__, constructor and prototype anywhere in a body are a 422 on that field', async () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const r = await api.call('POST', LOGIN, { rawBody: `{"email":"a@b.co","password":"x","${key}":{"polluted":true}}` });
      expect(r).toMatchObject({ status: 422, body: { message: `The ${key} field is not allowed.`, errors: { [key]: [`The ${key} field is not allowed.`] } } });
    }
    const nested = await api.call('PUT', `/api/pos/orders/${crypto.randomUUID()}`, { token: pos, deviceKey: true, staffToken: staff, rawBody: '{"lines":[{"__proto__":{}}]}' });
    expect(nested).toMatchObject({ status: 422, body: { errors: { 'lines.0.__proto__': ['The __proto__ field is not allowed.'] } } });
  });

  test('keys named like Object methods are ordinary unknown fields (422), not a crash', async () => {
    for (const key of ['toString', 'hasOwnProperty', 'valueOf']) {
      const r = await api.call('POST', LOGIN, { rawBody: `{"email":"a@b.co","password":"x","${key}":1}` });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([key]);
    }
  });

  test('over a real socket the answer is JSON, never the runtime\'s HTML error page', async () => {
    const server = api.app.listen({ ...serveOptions(api.deps.bodyPolicies), port: 0, hostname: '127.0.0.1' });
    try {
      const r = await fetch(`http://127.0.0.1:${server.server!.port}${LOGIN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"a@b.co","password":"x","toString":1}' });
      expect(r.status).toBe(422);
      expect(r.headers.get('content-type')).toContain('application/json');
      expect(await r.text()).not.toMatch(/<html|\bat .*\.ts:\d+|\/work\//i);
    } finally {
      await server.stop();
    }
  });
});

describe('depth and size', () => {
  test('deep nesting on the unauthenticated login is refused before parsing: 413 by size, 400 by depth', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(await api.call('POST', LOGIN, { rawBody: deep })).toMatchObject({ status: 413 });
    const shallowEnoughBytes = '['.repeat(5_000) + ']'.repeat(5_000);
    expect(await api.call('POST', LOGIN, { rawBody: shallowEnoughBytes })).toEqual(
      expect.objectContaining({ status: 400, body: { message: 'The JSON body may not be nested more than 32 levels deep.' } }),
    );
    const orders = await api.call('PUT', `/api/pos/orders/${crypto.randomUUID()}`, { token: pos, deviceKey: true, staffToken: staff, rawBody: `{"lines":${'['.repeat(40)}${']'.repeat(40)}}` });
    expect(orders).toMatchObject({ status: 400, body: { message: 'The JSON body may not be nested more than 32 levels deep.' } });
  });

  test('an array longer than any schema accepts is a 422 on that field before validation; one within the limit reaches validation', async () => {
    const lines = (n: number) => JSON.stringify({ lines: Array.from({ length: n }, () => ({ item_id: crypto.randomUUID(), qty: 1 })) });
    const over = await api.call('PUT', `/api/pos/orders/${crypto.randomUUID()}`, { token: pos, deviceKey: true, staffToken: staff, rawBody: lines(1001) });
    expect(over).toMatchObject({ status: 422, body: { message: 'The lines field may not have more than 1000 entries.', errors: { lines: ['The lines field may not have more than 1000 entries.'] } } });
    const within = await api.call('PUT', `/api/pos/orders/${crypto.randomUUID()}`, { token: pos, deviceKey: true, staffToken: staff, rawBody: lines(1000) });
    expect(within.status).toBe(422);
    expect(within.body.message).not.toContain('1000 entries');
  });

  test('a body over its family limit is 413, declared or streamed', async () => {
    const big = JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(20_000) });
    expect(await api.call('POST', LOGIN, { rawBody: big })).toEqual(expect.objectContaining({ status: 413, body: { message: 'The request body may not be larger than 16 KB.' } }));
    // No content-length: counted while it streams.
    const chunks = [new TextEncoder().encode('{"email":"a@b.co","password":"'), new Uint8Array(20_000).fill(120), new TextEncoder().encode('"}')];
    const stream = new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(x); c.close(); } });
    const res = await api.app.handle(new Request(`http://localhost${LOGIN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit));
    expect(res.status).toBe(413);
    // The register family takes larger bodies (500 order lines), but not without limit.
    const huge = JSON.stringify({ lines: [], pad: 'x'.repeat(600 * 1024) });
    expect((await api.call('PUT', `/api/pos/orders/${crypto.randomUUID()}`, { token: pos, deviceKey: true, staffToken: staff, rawBody: huge })).status).toBe(413);
  });
});

describe('strings PostgreSQL refuses', () => {
  test('a NUL or a lone surrogate in a body string or key is a 422 on its path', async () => {
    const nul = await api.call('POST', LOGIN, { rawBody: '{"email":"a\\u0000@b.co","password":"x"}' });
    expect(nul).toMatchObject({ status: 422, body: { errors: { email: ['The email field contains a NUL character.'] } } });
    const lone = await api.call('POST', '/api/back-office/settings/team/roles', { token: owner, rawBody: '{"name":"R\\ud800","permissions":[]}' });
    expect(lone).toMatchObject({ status: 422, body: { errors: { name: ['The name field contains an unpaired surrogate.'] } } });
    const pair = await api.call('POST', '/api/back-office/settings/team/roles', { token: owner, rawBody: '{"name":"Chef \\ud83c\\udf73","permissions":[]}' });
    expect(pair.status).toBe(200);
    expect(pair.body.data.name).toBe('Chef 🍳');
  });

  test('a NUL or a lone surrogate in a query parameter is a 422 naming it', async () => {
    const r = await api.call('GET', '/api/back-office/devices?search=%00', { token: owner });
    expect(r).toMatchObject({ status: 422, body: { errors: { search: ['The search parameter contains a NUL character.'] } } });
    const s = await api.call('GET', '/api/back-office/settings/activity-logs/datatable?subject=%ED%A0%80', { token: owner });
    expect(s.status).toBeLessThan(500);
  });
});

describe('bodies a route does not expect', () => {
  test('malformed JSON is 400 on a route whose body is optional, and nothing changes', async () => {
    const list = await api.call('GET', '/api/back-office/pos/staff-credentials', { token: owner });
    const cred = list.body.data[0];
    const before = await api.deps.db.withSchema(m.merchant.tenant_database).selectFrom('staff_credentials' as never).selectAll().where('id' as never, '=', cred.id as never).executeTakeFirst();
    const r = await api.call('POST', `/api/back-office/pos/staff-credentials/${cred.id}/reset-pin`, { token: owner, rawBody: '{"pin":"97' });
    expect(r).toEqual(expect.objectContaining({ status: 400, body: { message: 'Malformed JSON body' } }));
    const after = await api.deps.db.withSchema(m.merchant.tenant_database).selectFrom('staff_credentials' as never).selectAll().where('id' as never, '=', cred.id as never).executeTakeFirst();
    expect(after).toEqual(before);
  });

  test('a route without a body accepts none, an empty one or {}, and refuses anything else', async () => {
    const uuid = crypto.randomUUID();
    const item = m.items[0]!;
    const put = await api.call('PUT', `/api/pos/orders/${uuid}`, {
      token: pos, deviceKey: true, staffToken: staff,
      body: { expected_version: 0, lines: [{ uuid: crypto.randomUUID(), item_id: item.id, qty: 1, unit_price: item.unit_price, price_source: 'catalog', modifiers: [] }] },
    });
    expect(put.status).toBe(200);
    const logout = '/api/logout';
    for (const raw of ['[]', 'null', '"x"']) {
      expect(await api.call('POST', logout, { token: owner, rawBody: raw })).toMatchObject({ status: 422, body: { errors: { body: ['The request body must be a JSON object.'] } } });
    }
    expect(await api.call('POST', logout, { token: owner, rawBody: '{"a":1}' })).toMatchObject({ status: 422, body: { errors: { body: ['This route takes no request body.'] } } });
    expect(await api.call('POST', logout, { token: owner, rawBody: '{"a":' })).toMatchObject({ status: 400, body: { message: 'Malformed JSON body' } });
    // The token still works: nothing acted on a refused body.
    expect((await api.call('GET', '/api/validate-token', { token: owner })).status).toBe(200);
    expect((await api.call('POST', logout, { token: owner, rawBody: '{}' })).status).toBe(200);
    expect((await api.call('GET', '/api/validate-token', { token: owner })).status).toBe(401);
    owner = await api.ownerToken(m);
  });

  test('fire and void refuse [], null, a string and broken JSON, and the order does not move', async () => {
    const uuid = crypto.randomUUID();
    const item = m.items[0]!;
    const staffCall = { token: pos, deviceKey: true, staffToken: staff };
    await api.call('PUT', `/api/pos/orders/${uuid}`, {
      ...staffCall,
      body: { expected_version: 0, lines: [{ uuid: crypto.randomUUID(), item_id: item.id, qty: 1, unit_price: item.unit_price, price_source: 'catalog', modifiers: [] }] },
    });
    const before = (await api.call('GET', `/api/pos/orders/${uuid}`, staffCall)).body;
    for (const action of ['fire', 'void']) {
      for (const raw of ['[]', 'null', '"x"', '{"approval_token":']) {
        const r = await api.call('POST', `/api/pos/orders/${uuid}/${action}`, { ...staffCall, rawBody: raw });
        expect({ action, raw, status: r.status }).toEqual({ action, raw, status: raw.startsWith('{') ? 400 : 422 });
      }
    }
    expect((await api.call('GET', `/api/pos/orders/${uuid}`, staffCall)).body).toEqual(before);
  });

  test('a body in another media type is 415', async () => {
    const r = await api.call('POST', LOGIN, { rawBody: 'email=a@b.co&password=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r).toMatchObject({ status: 415, body: { message: 'Unsupported Media Type: send application/json.' } });
    const ok = await api.call('POST', LOGIN, { rawBody: JSON.stringify(creds()), headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(ok.status).not.toBe(415);
  });
});

describe('the request line', () => {
  test('a raw NUL in the request line is refused by the runtime\'s parser before any code runs (505, no body)', async () => {
    // Bun's HTTP parser answers this itself; no hook reaches it (docs/decisions.md, "Request layer").
    const server = api.app.listen({ ...serveOptions(api.deps.bodyPolicies), port: 0, hostname: '127.0.0.1' });
    try {
      const answer = await new Promise<string>((resolve) => {
        let data = '';
        void Bun.connect({
          hostname: '127.0.0.1',
          port: server.server!.port!,
          socket: {
            open: (s) => void s.write('GET /api/health/liveness\u0000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
            data: (_s, d) => void (data += d.toString()),
            close: () => resolve(data),
            error: () => resolve(data),
          },
        });
      });
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 505 HTTP Version Not Supported');
      expect(answer.split('\r\n\r\n')[1] ?? '').toBe('');
    } finally {
      await server.stop();
    }
  });
});

describe('tokens', () => {
  test('a token signed with the right secret but HS512 is refused', async () => {
    const ownerId = (await api.deps.db.selectFrom('users').select('id').where('email', '=', m.backoffice.email).executeTakeFirstOrThrow()).id;
    const claims = { type: 'backoffice', sub: ownerId, merchant_id: m.merchant.id, tenant_database: m.merchant.tenant_database, jti: crypto.randomUUID() };
    const key = new TextEncoder().encode(api.env.JWT_SECRET);
    const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' }).setIssuedAt().setExpirationTime('1h').sign(key);
    expect(await api.call('GET', '/api/validate-token', { token: hs512 })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(key);
    expect((await api.call('GET', '/api/validate-token', { token: hs256 })).status).toBe(200);
  });
});

describe('webhook families (issue 13): raw bodies, size limit only', () => {
  test('the webhook prefixes are raw families of 256 KB; the JSON families are unchanged', async () => {
    const { bodyPolicyFor } = await import('./body-policy.ts');
    for (const path of ['/api/card-a-webhook/BE', '/api/card-b-webhook/BE/1796', '/api/shop-a-webhook', '/api/webhook/platform-a', '/api/crm/intake']) {
      expect(bodyPolicyFor(api.deps.bodyPolicies, path)).toMatchObject({ raw: true, maxBytes: 256 * 1024 });
    }
    for (const path of ['/api/login', '/api/pos/orders', '/api/webhooks', '/api/back-office/items']) expect(bodyPolicyFor(api.deps.bodyPolicies, path).raw).toBeUndefined();
  });

  test('text that is not JSON, in any media type, passes the guard to the route (here: none, 404)', async () => {
    for (const [body, type] of [['not json', 'text/plain'], ['a=1&b=2', 'application/x-www-form-urlencoded'], ['[1,2]', 'application/json'], ['{"__proto__":{}}', 'application/json']] as const) {
      const r = await api.call('POST', '/api/webhook/no-such-provider', { rawBody: body, headers: { 'content-type': type } });
      expect(r.status).toBe(404);
    }
    // The same body on a JSON family is still refused.
    expect((await api.call('POST', LOGIN, { rawBody: 'not json', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
  });

  test('a webhook body over 256 KB is 413 before the route', async () => {
    const r = await api.call('POST', '/api/card-b-webhook/BE/1796', { rawBody: 'x'.repeat(256 * 1024 + 1), headers: { 'content-type': 'text/plain' }, ip: '127.0.0.1' });
    expect(r).toMatchObject({ status: 413, body: { message: 'The request body may not be larger than 256 KB.' } });
  });
});
