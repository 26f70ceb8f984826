import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { CLIENT_LOG_OTHER_DEVICE } from './index.ts';

/**
 * `POST /client-logger` as a hostile caller: the API key ships in every app, so the device a report is
 * counted against must be the signed-in one, never a `device_id` the caller writes into the body.
 */
let api: TestApi;
let receiver: ReturnType<typeof Bun.serve>;
const alerts: Record<string, unknown>[] = [];
let m: DemoSeedResult;
let posId: string;
let kioskId: string;
let kioskToken: string;
const P = '/api/client-logger';
const keysOf = (deviceId: string) => api.deps.redis.keys(`client-logger:${deviceId}:*`);

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      alerts.push((await req.json()) as Record<string, unknown>);
      return new Response('');
    },
  });
  api = await createTestApi({ env: { CLIENT_LOGGER_ALERT_WEBHOOK_URL: `http://127.0.0.1:${receiver.port}/alerts`, CLIENT_LOGGER_WATCHLIST: 'payment_failed', CLIENT_LOGGER_ALERT_THRESHOLD: '2', CLIENT_LOGGER_BUCKET_SECONDS: '3600' } });
  m = await api.seed('client-log-adv');
  posId = m.devices.find((d) => d.type === 'pos')!.id;
  kioskId = m.devices.find((d) => d.type === 'kiosk')!.id;
  kioskToken = await api.deviceToken(m, 'kiosk');
}, 60_000);
afterAll(async () => {
  await api.close();
  receiver.stop(true);
});

test('the API key alone cannot report for a device: 401, nothing counted, no alert', async () => {
  const before = alerts.length;
  for (let i = 0; i < 3; i++) {
    const r = await api.call('POST', P, { deviceKey: true, body: { device_id: posId, level: 'error', event: 'payment_failed' } });
    expect(r).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
  }
  expect(await keysOf(posId)).toEqual([]);
  expect(alerts.length).toBe(before);
});

test('a device naming another device is 403, nothing counted against either', async () => {
  const r = await api.call('POST', P, { deviceKey: true, token: kioskToken, body: { device_id: posId, level: 'critical', event: 'payment_failed' } });
  expect(r).toEqual(expect.objectContaining({ status: 403, body: { message: CLIENT_LOG_OTHER_DEVICE } }));
  expect(await keysOf(posId)).toEqual([]);
  expect(await keysOf(kioskId)).toEqual([]);
});

test('a back-office token is not a device (403); a made-up device id with the key and no token is 401', async () => {
  const owner = await api.ownerToken(m);
  expect(await api.call('POST', P, { deviceKey: true, token: owner, body: { level: 'error', event: 'payment_failed' } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
  expect((await api.call('POST', P, { deviceKey: true, body: { device_id: 'dev-made-up', level: 'error', event: 'payment_failed' } })).status).toBe(401);
});

test('the signed-in device reports with or without its own id, and is counted and alerted as itself', async () => {
  const before = alerts.length;
  const first = await api.call('POST', P, { deviceKey: true, token: kioskToken, body: { level: 'error', event: 'payment_failed', message: 'declined' } });
  expect(first).toMatchObject({ status: 200, body: { status: 'success', counted: true, alerted: false } });
  const second = await api.call('POST', P, { deviceKey: true, token: kioskToken, body: { device_id: kioskId, level: 'error', event: 'payment_failed', message: 'declined again' } });
  expect(second).toMatchObject({ status: 200, body: { status: 'success', counted: true, alerted: true } });
  expect(alerts.slice(before)).toEqual([expect.objectContaining({ device_id: kioskId, event: 'payment_failed', count: 2, last_message: 'declined again' })]);
  expect((await keysOf(kioskId)).length).toBe(1);
});

test('one device reporting in a loop: 60 a minute, then 429 and nothing logged or counted; another device still reports', async () => {
  const pos = await api.deviceToken(m, 'pos');
  const statuses: number[] = [];
  for (let i = 0; i < 61; i++) statuses.push((await api.call('POST', P, { deviceKey: true, token: pos, body: { level: 'info', event: 'flood', message: 'x'.repeat(2000) } })).status);
  // Before: every one logged (the logger writes synchronously).
  expect(statuses).toEqual([...Array(60).fill(200), 429]);
  expect((await api.call('POST', P, { deviceKey: true, token: kioskToken, body: { level: 'info', event: 'after_the_flood' } })).status).toBe(200);
});
