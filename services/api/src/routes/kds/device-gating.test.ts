import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { deviceOnline } from '@pos/core/devices/device-liveness';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * Spec 1 section 5 item 4 (issue 14 item 7): kiosk and kds device tokens without an active
 * subscription answer 402 on every route of their audience, discovered from the registered routes (so
 * a new route joins by being registered); pos tokens are never gated. Liveness is tracked for kds,
 * kiosk and pos devices and the back office shows a device offline after the configured silence.
 */
let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('gate');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
});
afterAll(() => api.close());

const routes = () => ((api.app as any).routes as { method: string; path: string }[]).filter((r) => r.method !== 'WS');
const concrete = (path: string) => path.replace(/:(\w+)\??/g, () => crypto.randomUUID());
const idOf = (type: 'kiosk' | 'kds' | 'pos') => m.devices.find((d) => d.type === type)!.id;

describe('402 without an active subscription', () => {
  for (const type of ['kds', 'kiosk'] as const) {
    test(`every /api/${type} route answers 402 to a ${type} device whose subscription ended, and 402 is the only answer`, async () => {
      const token = await api.deviceToken(m, type);
      const mine = routes().filter((r) => r.path.startsWith(`/api/${type}/`));
      expect(mine.length).toBeGreaterThan(type === 'kds' ? 17 : 4);
      await tdb.updateTable('devices').set({ subscription_active_until: new Date(Date.now() - 1000) }).where('id', '=', idOf(type)).execute();
      try {
        const failures: string[] = [];
        for (const r of mine) {
          const res = await api.call(r.method, concrete(r.path), { token, deviceKey: true, body: ['GET', 'HEAD'].includes(r.method) ? undefined : {} });
          if (res.status !== 402 || res.body?.message !== 'An active subscription is required for this device.') failures.push(`${r.method} ${r.path}: ${res.status} ${res.text.slice(0, 80)}`);
        }
        expect(failures).toEqual([]);
        // Never subscribed is the same.
        await tdb.updateTable('devices').set({ subscription_active_until: null }).where('id', '=', idOf(type)).execute();
        expect((await api.call('GET', type === 'kds' ? '/api/kds/orders' : '/api/kiosk/payment/session-status', { token, deviceKey: true })).status).toBe(402);
      } finally {
        await tdb.updateTable('devices').set({ subscription_active_until: new Date(Date.now() + 86_400_000) }).where('id', '=', idOf(type)).execute();
      }
      expect((await api.call('GET', type === 'kds' ? '/api/kds/orders' : '/api/kiosk/payment/session-status', { token, deviceKey: true })).status).not.toBe(402);
    });
  }

  test('the real-time channel closes a kds socket without a subscription with 4402', async () => {
    api.app.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      await tdb.updateTable('devices').set({ subscription_active_until: null }).where('id', '=', idOf('kds')).execute();
      const ws = new WebSocket(`ws://127.0.0.1:${api.app.server!.port}/api/realtime`, {
        headers: { authorization: `Bearer ${await api.deviceToken(m, 'kds')}`, 'x-client-api-key': api.env.DEVICE_API_KEY },
      } as unknown as string[]);
      const code = await new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)));
      expect(code).toBe(4402);
    } finally {
      await tdb.updateTable('devices').set({ subscription_active_until: new Date(Date.now() + 86_400_000) }).where('id', '=', idOf('kds')).execute();
      await api.app.stop(true);
    }
  });

  test('pos device tokens are never gated', async () => {
    const token = await api.deviceToken(m, 'pos');
    await tdb.updateTable('devices').set({ subscription_active_until: null }).where('id', '=', idOf('pos')).execute();
    const posRoutes = routes().filter((r) => r.path.startsWith('/api/pos/') && r.method === 'GET' && !r.path.includes(':'));
    expect(posRoutes.length).toBeGreaterThan(3);
    for (const r of posRoutes) expect(`${r.path} ${(await api.call('GET', r.path, { token, deviceKey: true })).status}`).not.toEndWith(' 402');
  });
});

describe('authentication and token type on every kds route', () => {
  test('no token 401, another token type 403, a kds token without the device key 401', async () => {
    const kdsRoutes = routes().filter((r) => r.path.startsWith('/api/kds/'));
    const pos = await api.deviceToken(m, 'pos');
    const kds = await api.deviceToken(m, 'kds');
    const owner = await api.ownerToken(m);
    const failures: string[] = [];
    for (const r of kdsRoutes) {
      const path = concrete(r.path);
      const body = ['GET', 'HEAD'].includes(r.method) ? undefined : {};
      const expectations: [string, { status: number; body: any; text: string }, number, string][] = [
        ['none', await api.call(r.method, path, { body }), 401, 'Unauthenticated'],
        ['pos', await api.call(r.method, path, { token: pos, deviceKey: true, body }), 403, 'Unauthorized: Invalid user type'],
        ['owner', await api.call(r.method, path, { token: owner, body }), 403, 'Unauthorized: Invalid user type'],
        ['no key', await api.call(r.method, path, { token: kds, body }), 401, 'Invalid API key'],
      ];
      for (const [who, res, status, message] of expectations) {
        if (res.status !== status || res.body?.message !== message) failures.push(`${r.method} ${r.path} (${who}): ${res.status} ${res.text.slice(0, 80)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('liveness', () => {
  test('a device request records it seen; the back office shows it online, then offline after the silence', async () => {
    // A fresh merchant: this process has not seen its devices yet.
    const f = await api.seed('live');
    const fdb = bindTenant(api.deps.db, f.merchant.tenant_database);
    const owner = await api.ownerToken(f);
    const show = async (id: string) => (await api.call('GET', `/api/back-office/devices/${id}`, { token: owner })).body.data;
    const kiosk = f.devices.find((d) => d.type === 'kiosk')!.id;
    expect(await show(kiosk)).toMatchObject({ last_seen_at: null, online: false });
    expect((await api.call('GET', '/api/kiosk/payment/session-status', { token: await api.deviceToken(f, 'kiosk'), deviceKey: true })).status).not.toBe(402);
    const seen = await show(kiosk);
    expect(seen.online).toBe(true);
    expect(Date.now() - Date.parse(seen.last_seen_at)).toBeLessThan(10_000);
    // Silent for longer than DEVICE_OFFLINE_AFTER_SECONDS (default 120): offline.
    await fdb.updateTable('devices').set({ last_seen_at: new Date(Date.now() - 121_000) }).where('id', '=', kiosk).execute();
    expect(await show(kiosk)).toMatchObject({ online: false });
    await fdb.updateTable('devices').set({ last_seen_at: new Date(Date.now() - 100_000) }).where('id', '=', kiosk).execute();
    expect(await show(kiosk)).toMatchObject({ online: true });
    // The list shows it too, for kds and pos as well.
    const list = (await api.call('GET', '/api/back-office/devices?per_page=100', { token: owner })).body.data as { type: string; online: boolean | null }[];
    for (const d of list) expect(typeof d.online).toBe('boolean');
  });

  test('the rule: tracked types only, never seen is offline, the window is configurable', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const ago = (s: number) => new Date(now.getTime() - s * 1000);
    expect(deviceOnline('kds', ago(59), now, 60_000)).toBe(true);
    expect(deviceOnline('kds', ago(61), now, 60_000)).toBe(false);
    expect(deviceOnline('pos', null, now, 60_000)).toBe(false);
    expect(deviceOnline('printer', ago(1), now, 60_000)).toBeNull();
  });
});
