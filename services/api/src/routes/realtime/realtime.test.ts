import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { publishKitchenEvent } from '@pos/core/payments/payment-events';
import { announceSubscription } from '@pos/core/webhooks/card-a-subscriptions';
import { bindTenant } from '@pos/db';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * The real-time channel over real WebSockets: two API instances (two "processes") share PostgreSQL and
 * Redis; a payment captured through the first reaches screens connected to the second.
 */
let sim: CardBSimulator;
let api1: TestApi;
let api2: TestApi;
let m: DemoSeedResult;
let base: string;
const CREDS = { CARD_B_CLIENT_ID: 'rt-test', CARD_B_CLIENT_SECRET: 'rt-test-secret' };

beforeAll(async () => {
  sim = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api1 = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: sim.url } });
  api2 = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: sim.url } });
  m = await api1.seed('rt');
  api2.app.listen({ port: 0, hostname: '127.0.0.1' });
  base = `ws://127.0.0.1:${api2.app.server!.port}/api/realtime`;
});
afterAll(async () => {
  await api2.app.stop(true);
  await api2.close();
  await api1.close();
  await sim.stop();
});

/** A socket whose messages are queued for `next()`. */
function connect(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers } as unknown as string[]);
  const inbox: any[] = [];
  const waiters: ((v: any) => void)[] = [];
  let closed: { code: number } | null = null;
  ws.onmessage = (e) => {
    const v = JSON.parse(String(e.data));
    const w = waiters.shift();
    if (w) w(v);
    else inbox.push(v);
  };
  ws.onclose = (e) => {
    closed = { code: e.code };
    for (const w of waiters.splice(0)) w({ closed: e.code });
  };
  return {
    ws,
    send: (v: unknown) => ws.send(JSON.stringify(v)),
    next: (ms = 3000): Promise<any> =>
      inbox.length
        ? Promise.resolve(inbox.shift())
        : closed
          ? Promise.resolve({ closed: closed.code })
          : new Promise((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error('no message')), ms);
              waiters.push((v) => {
                clearTimeout(timer);
                resolve(v);
              });
            }),
    pending: () => inbox.length,
    close: () => ws.close(),
  };
}

const deviceHeaders = async (type: 'kiosk' | 'kds' | 'pos') => ({ authorization: `Bearer ${await api1.deviceToken(m, type)}`, 'x-client-api-key': api1.env.DEVICE_API_KEY });

describe('real-time channel', () => {
  test('a kiosk follows its transaction; the capture on another API process reaches it and the back office', async () => {
    const kiosk = connect(base, await deviceHeaders('kiosk'));
    expect(await kiosk.next()).toEqual({ type: 'ready' });
    const owner = await api1.ownerToken(m);
    const office = connect(`${base}?token=${owner}`);
    expect(await office.next()).toEqual({ type: 'ready' });
    office.send({ action: 'subscribe', channel: 'payments' });
    expect(await office.next()).toEqual({ type: 'subscribed', channel: 'payments' });

    const r = await api1.call('POST', '/api/kiosk/payment/create-intent', { token: await api1.deviceToken(m, 'kiosk'), deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
    const t = r.body.data;
    kiosk.send({ action: 'subscribe', channel: 'transaction', id: t.id });
    expect(await kiosk.next()).toEqual({ type: 'subscribed', channel: 'transaction', id: t.id, status: 'Awaiting Payment' });

    await sim.complete(t.idempotency_key);
    const deps = { tdb: bindTenant(api1.deps.db, m.merchant.tenant_database), tenantDatabase: m.merchant.tenant_database, redis: api1.deps.redis, providers: api1.deps.payments, log: api1.deps.log, now: () => new Date() };
    await capturePayment(deps, t.id, { kind: 'poll' });
    expect(await kiosk.next()).toEqual({ type: 'payment.status', transaction_id: t.id, status: 'Complete' });
    expect(await office.next()).toEqual({ type: 'payment.status', transaction_id: t.id, status: 'Complete' });
    expect(api2.deps.realtime.delivered).toBeGreaterThanOrEqual(2);
    // A second capture is a no-op: nothing more is pushed.
    await capturePayment(deps, t.id, { kind: 'poll' });
    await Bun.sleep(150);
    expect(kiosk.pending()).toBe(0);
    kiosk.close();
    office.close();
  });

  test('a kds follows its location\'s kitchen; refusals are messages, not disconnections', async () => {
    const kds = connect(base, await deviceHeaders('kds'));
    expect(await kds.next()).toEqual({ type: 'ready' });
    kds.send({ action: 'subscribe', channel: 'kitchen' });
    expect(await kds.next()).toEqual({ type: 'subscribed', channel: 'kitchen', cursor: expect.any(Number) });
    await publishKitchenEvent(api1.deps.redis, m.merchant.tenant_database, { location_id: m.locations[1]!.id, transaction_id: crypto.randomUUID(), order_no: 1, items: [] }, api1.deps.log);
    const mine = { location_id: m.locations[0]!.id, transaction_id: crypto.randomUUID(), order_no: 7, items: [{ name: 'Espresso', qty: 2 }] };
    await publishKitchenEvent(api1.deps.redis, m.merchant.tenant_database, mine, api1.deps.log);
    expect(await kds.next()).toEqual({ type: 'kitchen.order', ...mine });

    kds.send({ action: 'subscribe', channel: 'payments' });
    expect(await kds.next()).toEqual({ type: 'error', message: 'Unauthorized: Invalid user type' });
    kds.send({ action: 'subscribe', channel: 'transaction', id: crypto.randomUUID() });
    expect(await kds.next()).toEqual({ type: 'error', message: 'Unauthorized: Invalid user type' });
    kds.send({ action: 'subscribe', channel: 'kitchen', extra: 1 });
    expect(await kds.next()).toEqual({ type: 'error', message: 'Unknown field extra.' });
    kds.send({ action: 'subscribe', channel: 'transaction', id: 'x'.repeat(1000) });
    expect(await kds.next()).toEqual({ type: 'error', message: 'The id must be a transaction id.' });
    kds.send({ action: 'listen', channel: 'kitchen' });
    expect(await kds.next()).toEqual({ type: 'error', message: 'The action must be subscribe or unsubscribe.' });
    kds.close();

    const kiosk = connect(base, await deviceHeaders('kiosk'));
    await kiosk.next();
    kiosk.send({ action: 'subscribe', channel: 'transaction', id: crypto.randomUUID() });
    expect(await kiosk.next()).toEqual({ type: 'error', message: 'Unable to locate the transaction you requested.' });
    kiosk.send({ action: 'subscribe', channel: 'transaction', id: 'nope' });
    expect(await kiosk.next()).toEqual({ type: 'error', message: 'The id must be a transaction id.' });
    kiosk.send(['not', 'an', 'object']);
    expect(await kiosk.next()).toEqual({ type: 'error', message: 'A message must be a JSON object.' });
    kiosk.close();
  });

  test('location updates (a subscription change) reach the screens of that location and the back office only', async () => {
    const kiosk = connect(base, await deviceHeaders('kiosk'));
    expect(await kiosk.next()).toEqual({ type: 'ready' });
    kiosk.send({ action: 'subscribe', channel: 'location' });
    expect(await kiosk.next()).toEqual({ type: 'subscribed', channel: 'location' });
    const office = connect(`${base}?token=${await api1.ownerToken(m)}`);
    expect(await office.next()).toEqual({ type: 'ready' });
    office.send({ action: 'subscribe', channel: 'location' });
    expect(await office.next()).toEqual({ type: 'subscribed', channel: 'location' });
    const deps = { db: api1.deps.db, redis: api1.deps.redis, providers: api1.deps.payments, log: api1.deps.log, now: () => new Date(), commissionBps: 0 };
    const tenant = (locationId: string) => ({ merchantId: m.merchant.id, tenantDatabase: m.merchant.tenant_database, locationId });
    // Another location's update reaches the back office only.
    await announceSubscription(deps, tenant(m.locations[1]!.id), { subscription_id: 'sub_other', status: 'active', devices: [] });
    const other = await office.next();
    expect(other).toMatchObject({ type: 'location.updated', location_id: m.locations[1]!.id, subscription_id: 'sub_other' });
    const until = new Date(Date.now() + 86_400_000);
    await announceSubscription(deps, tenant(m.locations[0]!.id), { subscription_id: 'sub_mine', status: 'canceled', devices: [{ id: m.kiosk.device_id, active_until: until }] });
    const expected = { type: 'location.updated', reason: 'subscription', location_id: m.locations[0]!.id, subscription_id: 'sub_mine', status: 'canceled', devices: [{ id: m.kiosk.device_id, subscription_active_until: until.toISOString() }] };
    expect(await kiosk.next()).toEqual(expected);
    expect(await office.next()).toEqual(expected);
    kiosk.close();
    office.close();
  });

  test('no token, a bad token, a device without its key: closed with 4401', async () => {
    const none = connect(base);
    expect(await none.next()).toEqual({ type: 'error', message: 'Unauthenticated' });
    expect(await none.next()).toEqual({ closed: 4401 });
    const bad = connect(`${base}?token=abc.def.ghi`);
    expect(await bad.next()).toEqual({ type: 'error', message: 'Invalid token' });
    expect(await bad.next()).toEqual({ closed: 4401 });
    const nokey = connect(base, { authorization: `Bearer ${await api1.deviceToken(m, 'kiosk')}` });
    expect(await nokey.next()).toEqual({ type: 'error', message: 'Invalid API key' });
    expect(await nokey.next()).toEqual({ closed: 4401 });
  });
});
