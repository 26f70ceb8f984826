import { afterAll, beforeAll, expect, test } from 'bun:test';
import { clientLoggerConfig, recordClientLog } from '@pos/core/settings/client-logger';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let receiver: ReturnType<typeof Bun.serve>;
const alerts: Record<string, unknown>[] = [];
let answer = 200;
const P = '/api/client-logger';
/** The seeded devices, one per test that counts (counts last the bucket): id and token. */
const devices: { id: string; token: string }[] = [];
let next = 0;
const device = () => devices[next++]!.id;
const tokenOf = (id: string) => devices.find((d) => d.id === id)!.token;
/** A report signed in as the device it names (the device's token; the body's `device_id` must match it). */
const log = (body: Record<string, unknown>, deviceKey = true) => api.call('POST', P, { deviceKey, token: tokenOf(String(body.device_id)), body });

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      alerts.push((await req.json()) as Record<string, unknown>);
      return new Response('', { status: answer });
    },
  });
  api = await createTestApi({
    env: {
      CLIENT_LOGGER_ALERT_WEBHOOK_URL: `http://127.0.0.1:${receiver.port}/alerts`,
      CLIENT_LOGGER_WATCHLIST: 'payment_failed,printer_offline',
      CLIENT_LOGGER_ALERT_THRESHOLD: '3',
      CLIENT_LOGGER_BUCKET_SECONDS: '3600',
    },
  });
  const m = await api.seed('client-log');
  for (const type of ['pos', 'kiosk', 'kds'] as const) {
    const ofType = m.devices.filter((d) => d.type === type);
    for (let i = 0; i < ofType.length; i++) devices.push({ id: ofType[i]!.id, token: await api.deviceToken(m, type, i) });
  }
}, 60_000);
afterAll(async () => {
  await api.close();
  receiver.stop(true);
});

test('a watchlisted event crossing the threshold posts once per device and bucket', async () => {
  const d = device();
  const before = alerts.length;
  const outcomes = [];
  for (let i = 0; i < 5; i++) outcomes.push((await log({ device_id: d, level: 'error', event: 'payment_failed', message: `try ${i}`, app_version: '2.4.0' })).body);
  expect(outcomes).toEqual([
    { status: 'success', counted: true, alerted: false },
    { status: 'success', counted: true, alerted: false },
    { status: 'success', counted: true, alerted: true },
    { status: 'success', counted: true, alerted: false },
    { status: 'success', counted: true, alerted: false },
  ]);
  expect(alerts.slice(before)).toEqual([
    {
      type: 'client_logger.threshold_crossed',
      device_id: d,
      event: 'payment_failed',
      count: 3,
      threshold: 3,
      bucket_start: expect.any(String),
      bucket_seconds: 3600,
      last_message: 'try 2',
      app_version: '2.4.0',
    },
  ]);
  // Counted per device and per event: another device, or another event, starts at zero.
  const other = device();
  for (let i = 0; i < 2; i++) await log({ device_id: other, level: 'error', event: 'payment_failed' });
  for (let i = 0; i < 2; i++) await log({ device_id: d, level: 'warning', event: 'printer_offline' });
  expect(alerts.length).toBe(before + 1);
  const keys = await api.deps.redis.keys(`client-logger:${d}:*`);
  expect(keys.length).toBe(2);
  expect(await api.deps.redis.ttl(keys[0]!)).toBeGreaterThan(0);
});

test('events off the watchlist are logged, not counted; concurrent reports still alert once', async () => {
  const d = device();
  const r = await log({ device_id: d, level: 'info', event: 'screen_opened' });
  expect(r).toMatchObject({ status: 200, body: { status: 'success', counted: false, alerted: false } });
  expect(await api.deps.redis.keys(`client-logger:${d}:*`)).toEqual([]);
  const before = alerts.length;
  const burst = await Promise.all(Array.from({ length: 8 }, () => log({ device_id: d, level: 'critical', event: 'printer_offline' })));
  expect(burst.filter((x) => x.body.alerted).length).toBe(1);
  expect(alerts.length).toBe(before + 1);
});

test('a failing webhook does not fail the report; no webhook configured disables counting', async () => {
  answer = 500;
  const d = device();
  const results = [];
  for (let i = 0; i < 3; i++) results.push(await log({ device_id: d, level: 'error', event: 'payment_failed' }));
  expect(results.map((x) => [x.status, x.body.alerted])).toEqual([[200, false], [200, false], [200, true]]);
  answer = 200;
  const off = clientLoggerConfig({ CLIENT_LOGGER_WATCHLIST: 'payment_failed' });
  expect(off.webhookUrl).toBeNull();
  const d2 = `dev-${crypto.randomUUID().slice(0, 8)}`;
  expect(await recordClientLog(api.deps.redis, off, { device_id: d2, level: 'error', event: 'payment_failed' }, new Date(), () => {})).toEqual({ count: null, alerted: false });
  expect(await api.deps.redis.keys(`client-logger:${d2}:*`)).toEqual([]);
});

test('device-key is required (401) and input is checked (422)', async () => {
  const d = devices[0]!;
  expect(await api.call('POST', P, { token: d.token, body: { device_id: d.id, level: 'error', event: 'payment_failed' } })).toMatchObject({ status: 401, body: { message: 'Invalid API key' } });
  expect((await api.call('POST', P, { token: d.token, headers: { 'x-client-api-key': 'wrong-key-wrong-key' }, body: { device_id: d.id, level: 'error', event: 'e' } })).status).toBe(401);
  const bad = await api.call('POST', P, { token: d.token, deviceKey: true, body: { device_id: '', level: 'fatal', event: 'Bad Event', message: 'x'.repeat(2001), extra: 1 } });
  expect(bad.status).toBe(422);
  expect(Object.keys(bad.body.errors).sort()).toEqual(expect.arrayContaining(['device_id', 'event', 'level', 'message']));
});
