import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { printerUrl, workerUrl } from '../support/stack-env.ts';

test.describe('platform foundation', () => {
  test('GET /version answers the version record at the root', async ({ request }) => {
    const r = await request.get('/version');
    expect(r.status()).toBe(200);
    const body = await r.json();
    expect(Object.keys(body).sort()).toEqual(['app', 'branch', 'commit', 'deployed_at', 'environment', 'short']);
    expect(body.environment).toBe('test');
  });

  test('health routes answer with real dependency checks', async ({ request }) => {
    for (const path of ['/api/health', '/api/health/readiness', '/api/health/detailed', '/api/health/fresh', '/api/health/status']) {
      expect((await request.get(path)).status(), path).toBe(200);
    }
    const d = await (await request.get('/api/health/detailed')).json();
    expect(d.checks.database.status).toBe('ok');
    expect(d.checks.redis.status).toBe('ok');
    expect((await request.get(workerUrl('/health'))).status()).toBe(200);
  });

  test('error shapes: 401, 404 model message, 400 malformed JSON, 422', async ({ request }) => {
    expect(await (await request.get('/api/back-office/user')).json()).toEqual({ message: 'Unauthenticated' });
    const bad = await request.get('/api/back-office/user', { headers: { authorization: 'Bearer nope' } });
    expect(bad.status()).toBe(401);
    expect(await bad.json()).toEqual({ message: 'Invalid token' });
    const malformed = await request.post('/api/device-auth/activate', { data: Buffer.from('{"activation_code":'), headers: { 'content-type': 'application/json' } });
    expect(malformed.status()).toBe(400);
    expect(await malformed.json()).toEqual({ message: 'Malformed JSON body' });
    const invalid = await request.post('/api/device-auth/activate', { data: {} });
    expect(invalid.status()).toBe(422);
    const body = await invalid.json();
    expect(body.errors.activation_code).toHaveLength(1);
  });

  test('the printer poll endpoint needs a printer token: without one, or with an unknown one, 401 and nothing more (issue 15; a paired printer: printers.spec)', async ({ request }) => {
    const none = await request.post(printerUrl('/print/printer-a/sdp'), { form: { ConnectionType: 'GetRequest', ID: 'printer-1' } });
    expect(none.status()).toBe(401);
    expect(await none.text()).toBe('Unauthorized');
    const unknown = await request.post(printerUrl('/print/printer-a/sdp?token=prt_unknown'), { form: { ConnectionType: 'GetRequest', ID: 'printer-1' } });
    expect(unknown.status()).toBe(401);
    expect(await unknown.text()).toBe('Unauthorized');
  });

  test("the seed's devices activate once (its staff sign in: register-shift.spec)", async ({ request }) => {
    const seed = loadSeed();
    const pos = seed.devices.find((d) => d.type === 'kds')!;
    const act = await request.post('/api/device-auth/activate', { data: { activation_code: pos.activation_code } });
    expect(act.status()).toBe(200);
    const activated = await act.json();
    expect(activated.device_details).toEqual({ id: pos.id, location_id: pos.location_id, merchant_slug: 'demo' });
    const again = await request.post('/api/device-auth/activate', { data: { activation_code: pos.activation_code } });
    expect(again.status()).toBe(422);
    expect(seed.staff.map((s) => s.role)).toEqual(['manager', 'cashier']);
  });
});
