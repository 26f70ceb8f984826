import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { E2E } from '../support/stack-env.ts';

test.describe('back office: sign in, create a device, activate it, heartbeats', () => {
  test('the whole device lifecycle over HTTP', async ({ request }) => {
    const seed = loadSeed();
    const login = await request.post('/api/login', { data: seed.backoffice });
    expect(login.status()).toBe(200);
    const { token } = await login.json();
    const auth = { authorization: `Bearer ${token}` };

    const me = await request.get('/api/back-office/user', { headers: auth });
    expect((await me.json()).data.email).toBe(seed.backoffice.email);

    const created = await request.post('/api/back-office/devices', { headers: auth, data: { name: 'Terrace kiosk', type: 'kiosk', location_id: seed.locations[0]!.id } });
    expect(created.status()).toBe(201);
    const device = (await created.json()).data;
    expect(device.activation_code).toEqual(expect.any(String));

    const listed = await request.get('/api/back-office/devices', { headers: auth });
    expect((await listed.json()).data.map((d: { id: string }) => d.id)).toContain(device.id);

    const act = await request.post('/api/device-auth/activate', { data: { activation_code: device.activation_code } });
    expect(act.status()).toBe(200);
    const activated = await act.json();
    expect(activated.device_details).toEqual({ id: device.id, location_id: seed.locations[0]!.id, merchant_slug: 'demo' });
    const deviceHeaders = { authorization: `Bearer ${activated.token}`, 'x-client-api-key': E2E.env.DEVICE_API_KEY };

    // A kiosk created without a subscription is refused with 402; subscribed kiosks from the seed pass.
    expect((await request.post('/api/device-auth/heartbeat', { headers: deviceHeaders })).status()).toBe(402);

    const seededKiosk = seed.devices.find((d) => d.type === 'kiosk')!;
    const kioskAct = await request.post('/api/device-auth/activate', { data: { activation_code: seededKiosk.activation_code } });
    expect(kioskAct.status()).toBe(200);
    const kioskHeaders = { authorization: `Bearer ${(await kioskAct.json()).token}`, 'x-client-api-key': E2E.env.DEVICE_API_KEY };
    for (let i = 0; i < 3; i++) {
      const hb = await request.post('/api/device-auth/heartbeat', { headers: kioskHeaders });
      expect(hb.status()).toBe(200);
      expect((await hb.json()).status).toBe('success');
    }
    const seen = await request.get(`/api/back-office/devices/${seededKiosk.id}`, { headers: auth });
    expect((await seen.json()).data.last_seen_at).toEqual(expect.any(String));

    expect((await request.post('/api/device-auth/logout', { headers: kioskHeaders })).status()).toBe(200);
    const after = await request.post('/api/device-auth/heartbeat', { headers: kioskHeaders });
    expect(after.status()).toBe(401);
    expect(await after.json()).toEqual({ message: 'Invalid token' });
  });
});
