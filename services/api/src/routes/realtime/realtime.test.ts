import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { publishKitchenEvent } from '@pos/core/payments/payment-events';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { latestKitchenSeq, publishKitchenEvents } from '@pos/core/kitchen/kitchen-events';
import { announceSubscription } from '@pos/core/webhooks/card-a-subscriptions';
import { bindTenant } from '@pos/db';
import { sql } from 'kysely';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { publishPaymentStatus } from '@pos/core/payments/payment-events';
import { MAX_FOLLOWED_TRANSACTIONS, MESSAGE_BURST } from './index.ts';
import { REALTIME_MAX_FRAME_BYTES } from './realtime.schemas.ts';

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
  // The listening instance checks open sockets' credentials every second (default 30).
  api2 = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: sim.url, REALTIME_RECHECK_SECONDS: '1' } });
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
    expect(await kiosk.next()).toEqual({ type: 'payment.status', transaction_id: t.id, location_id: m.locations[0]!.id, status: 'Complete' });
    expect(await office.next()).toEqual({ type: 'payment.status', transaction_id: t.id, location_id: m.locations[0]!.id, status: 'Complete' });
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

  test('the back office follows payments as its routes show them: VIEW_TRANSACTIONS, and only the locations it is granted', async () => {
    const [loc0, loc1] = [m.locations[0]!.id, m.locations[1]!.id];
    const push = (location_id: string) => publishPaymentStatus(api1.deps.redis, m.merchant.tenant_database, { transaction_id: crypto.randomUUID(), location_id, status: 'Complete' }, api1.deps.log);
    const t = (await api1.call('POST', '/api/kiosk/payment/create-intent', { token: await api1.deviceToken(m, 'kiosk'), deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } })).body.data;

    const none = connect(`${base}?token=${await limitedUserToken(api1, m, [], [loc0, loc1])}`);
    expect(await none.next()).toEqual({ type: 'ready' });
    none.send({ action: 'subscribe', channel: 'payments' });
    expect(await none.next()).toEqual({ type: 'error', message: 'Unauthorized: Insufficient permissions' });
    none.send({ action: 'subscribe', channel: 'transaction', id: t.id });
    expect(await none.next()).toEqual({ type: 'error', message: 'Unauthorized: Insufficient permissions' });
    none.close();

    const elsewhere = connect(`${base}?token=${await limitedUserToken(api1, m, ['VIEW_TRANSACTIONS'], [loc1])}`);
    expect(await elsewhere.next()).toEqual({ type: 'ready' });
    elsewhere.send({ action: 'subscribe', channel: 'transaction', id: t.id });
    expect(await elsewhere.next()).toEqual({ type: 'error', message: 'Unable to locate the transaction you requested.' });
    elsewhere.send({ action: 'subscribe', channel: 'payments' });
    expect(await elsewhere.next()).toEqual({ type: 'subscribed', channel: 'payments' });
    elsewhere.send({ action: 'subscribe', channel: 'location' });
    expect(await elsewhere.next()).toEqual({ type: 'subscribed', channel: 'location' });
    await push(loc0);
    await push(loc1);
    expect(await elsewhere.next()).toMatchObject({ type: 'payment.status', location_id: loc1 });
    const deps = { db: api1.deps.db, redis: api1.deps.redis, providers: api1.deps.payments, log: api1.deps.log, now: () => new Date(), commissionBps: 0 };
    await announceSubscription(deps, { merchantId: m.merchant.id, tenantDatabase: m.merchant.tenant_database, locationId: loc0 }, { subscription_id: 'sub_0', status: 'active', devices: [] });
    await announceSubscription(deps, { merchantId: m.merchant.id, tenantDatabase: m.merchant.tenant_database, locationId: loc1 }, { subscription_id: 'sub_1', status: 'active', devices: [] });
    expect(await elsewhere.next()).toMatchObject({ type: 'location.updated', location_id: loc1 });
    await Bun.sleep(100);
    expect(elsewhere.pending()).toBe(0);
    elsewhere.close();
    await api1.call('POST', '/api/kiosk/payment/cancel-action', { token: await api1.deviceToken(m, 'kiosk'), deviceKey: true, body: { idempotency_key: t.idempotency_key } });
  });

  test('a permission withdrawn while the socket is open ends the payments channel and the followed transactions at the next check', async () => {
    const token = await limitedUserToken(api1, m, ['VIEW_TRANSACTIONS'], [m.locations[0]!.id]);
    const t = (await api1.call('POST', '/api/kiosk/payment/create-intent', { token: await api1.deviceToken(m, 'kiosk'), deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } })).body.data;
    const office = connect(`${base}?token=${token}`);
    expect(await office.next()).toEqual({ type: 'ready' });
    office.send({ action: 'subscribe', channel: 'payments' });
    expect(await office.next()).toEqual({ type: 'subscribed', channel: 'payments' });
    office.send({ action: 'subscribe', channel: 'transaction', id: t.id });
    expect(await office.next()).toEqual({ type: 'subscribed', channel: 'transaction', id: t.id, status: 'Awaiting Payment' });
    const tdb = bindTenant(api1.deps.db, m.merchant.tenant_database);
    await tdb.updateTable('roles').set({ permissions: [] }).where('name', 'like', 'Limited %').execute();
    const dropped = [await office.next(3000), await office.next(3000)];
    expect(dropped).toEqual([
      { type: 'unsubscribed', channel: 'payments', reason: 'Unauthorized: Insufficient permissions' },
      { type: 'unsubscribed', channel: 'transaction', id: t.id, reason: 'Unauthorized: Insufficient permissions' },
    ]);
    await publishPaymentStatus(api1.deps.redis, m.merchant.tenant_database, { transaction_id: t.id, location_id: m.locations[0]!.id, status: 'Cancelled' }, api1.deps.log);
    await Bun.sleep(150);
    expect(office.pending()).toBe(0);
    office.close();
    await api1.call('POST', '/api/kiosk/payment/cancel-action', { token: await api1.deviceToken(m, 'kiosk'), deviceKey: true, body: { idempotency_key: t.idempotency_key } });
  });

  test(`one socket follows at most ${MAX_FOLLOWED_TRANSACTIONS} transactions; its messages are handled one at a time, in order`, async () => {
    const office = connect(`${base}?token=${await api1.ownerToken(m)}`);
    expect(await office.next()).toEqual({ type: 'ready' });
    // MAX + 1 transactions of the merchant, copies of one (new ids, order numbers and keys).
    const t = (await api1.call('POST', '/api/kiosk/payment/create-intent', { token: await api1.deviceToken(m, 'kiosk'), deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } })).body.data;
    await api1.call('POST', '/api/kiosk/payment/cancel-action', { token: await api1.deviceToken(m, 'kiosk'), deviceKey: true, body: { idempotency_key: t.idempotency_key } });
    const table = sql.raw(`"${m.merchant.tenant_database}".transactions`);
    const copies = await sql<{ id: string }>`
      insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(t) || jsonb_build_object('id', gen_random_uuid(), 'order_no', 900000 + g, 'idempotency_key', t.idempotency_key || 'c' || g, 'all_idempotency_keys', jsonb_build_array(t.idempotency_key || 'c' || g)))).*
      from ${table} t, generate_series(1, ${MAX_FOLLOWED_TRANSACTIONS + 1}) g where t.id = ${t.id} returning id`.execute(api1.deps.db);
    const ids = copies.rows.map((r) => r.id);
    for (const id of ids) office.send({ action: 'subscribe', channel: 'transaction', id });
    const answers = await Promise.all(ids.map(() => office.next()));
    // In order: the first MAX followed, the one after refused without being looked up.
    expect(answers.slice(0, MAX_FOLLOWED_TRANSACTIONS)).toEqual(ids.slice(0, MAX_FOLLOWED_TRANSACTIONS).map((id) => ({ type: 'subscribed', channel: 'transaction', id, status: 'Cancelled' })));
    expect(answers[MAX_FOLLOWED_TRANSACTIONS]).toEqual({ type: 'error', message: `A connection follows at most ${MAX_FOLLOWED_TRANSACTIONS} transactions: unsubscribe from one first.` });
    office.send({ action: 'unsubscribe', channel: 'transaction', id: ids[0] });
    expect(await office.next()).toEqual({ type: 'unsubscribed', channel: 'transaction', id: ids[0] });
    office.send({ action: 'subscribe', channel: 'transaction', id: ids[MAX_FOLLOWED_TRANSACTIONS] });
    expect(await office.next()).toEqual({ type: 'subscribed', channel: 'transaction', id: ids[MAX_FOLLOWED_TRANSACTIONS], status: 'Cancelled' });
    office.close();
  });

  test('a socket sending frames faster than the channel allows is closed with 4429 (its frames no longer queue without bound)', async () => {
    const office = connect(`${base}?token=${await api1.ownerToken(m)}`);
    expect(await office.next()).toEqual({ type: 'ready' });
    for (let i = 0; i < MESSAGE_BURST + 40; i++) office.send({ action: 'subscribe', channel: 'location' });
    const seen: any[] = [];
    for (;;) {
      const msg = await office.next(3000);
      seen.push(msg);
      if (msg.closed !== undefined) break;
    }
    expect(seen.at(-1)).toEqual({ closed: 4429 });
    expect(seen.at(-2)).toEqual({ type: 'error', message: 'Too Many Attempts.' });
    const answered = seen.filter((x) => x.type === 'subscribed').length;
    expect(answered).toBeGreaterThanOrEqual(MESSAGE_BURST - 5);
    expect(answered).toBeLessThanOrEqual(MESSAGE_BURST + 5);
  });

  test('with APP_ENV=local the message rate is not limited (spec 1 section 8): a flood is all answered, the socket stays open', async () => {
    const local = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: sim.url, APP_ENV: 'local' } });
    try {
      local.app.listen({ port: 0, hostname: '127.0.0.1' });
      const office = connect(`ws://127.0.0.1:${local.app.server!.port}/api/realtime?token=${await api1.ownerToken(m)}`);
      expect(await office.next()).toEqual({ type: 'ready' });
      const flood = MESSAGE_BURST * 3;
      for (let i = 0; i < flood; i++) office.send({ action: 'subscribe', channel: 'location' });
      const seen: any[] = [];
      for (let i = 0; i < flood; i++) seen.push(await office.next(3000));
      // Before: closed with 4429 `Too Many Attempts.` after about MESSAGE_BURST answers, as in test or production.
      expect(seen).toEqual(Array.from({ length: flood }, () => ({ type: 'subscribed', channel: 'location' })));
      office.send({ action: 'subscribe', channel: 'location' });
      expect(await office.next()).toEqual({ type: 'subscribed', channel: 'location' });
      expect(office.ws.readyState).toBe(WebSocket.OPEN);
      office.close();
    } finally {
      await local.app.stop(true);
      await local.close();
    }
  });

  test(`a frame over ${REALTIME_MAX_FRAME_BYTES} bytes closes the socket with 1009, unparsed; frames within it (long, deep, binary) are answered`, async () => {
    const office = connect(`${base}?token=${await api1.ownerToken(m)}`);
    expect(await office.next()).toEqual({ type: 'ready' });
    // Just under the limit: parsed and refused as a message (the socket stays).
    const pad = REALTIME_MAX_FRAME_BYTES - JSON.stringify({ action: 'subscribe', channel: 'payments', id: '' }).length;
    office.send({ action: 'subscribe', channel: 'payments', id: 'x'.repeat(pad) });
    expect(await office.next()).toEqual({ type: 'error', message: 'The id field is only for the transaction channel.' });
    // As deep as the limit allows, and a binary frame: refused as messages, the socket keeps working.
    const depth = REALTIME_MAX_FRAME_BYTES / 2 - 1;
    office.ws.send('['.repeat(depth) + ']'.repeat(depth));
    expect(await office.next()).toEqual({ type: 'error', message: 'A message must be a JSON object.' });
    office.ws.send(new TextEncoder().encode(JSON.stringify({ action: 'subscribe', channel: 'location' })));
    expect(await office.next()).toEqual({ type: 'error', message: 'A message must be a JSON object.' });
    office.send({ action: 'subscribe', channel: 'location' });
    expect(await office.next()).toEqual({ type: 'subscribed', channel: 'location' });
    office.send({ action: 'subscribe', channel: 'payments', id: 'x'.repeat(8 * 1024 * 1024) });
    expect(await office.next(8000)).toEqual({ closed: 1009 });
  });

  test('a device moved to another location follows it at the next check: kitchen.resync with the new cursor, then only the new location\'s events', async () => {
    const [loc0, loc1] = [m.locations[0]!.id, m.locations[1]!.id];
    const tdb = bindTenant(api1.deps.db, m.merchant.tenant_database);
    const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
    // The new location gets a station too, so its orders make tickets.
    await tdb.insertInto('kitchen_stations').values({ id: crypto.randomUUID(), location_id: loc1, name: 'Second kitchen', category_ids: [cat.id], created_at: new Date(), updated_at: new Date() }).execute();
    /** A numbered kitchen ticket at a location, written and published as the worker's listener does. */
    const ticket = async (locationId: string, orderNo: string) => {
      const created = await tdb.transaction().execute((tx) =>
        createKitchenTickets(tx, { source: 'transaction', sourceId: crypto.randomUUID(), locationId, orderNo, at: new Date(), lines: [{ position: 0, item_id: m.items[0]!.id, category_id: cat.id, name: 'Soup', qty: 1, modifiers: [] }] }),
      );
      await publishKitchenEvents(api1.deps.redis, m.merchant.tenant_database, created.map((c) => c.event), api1.deps.log);
      return created[0]!.event;
    };
    // The old location numbers past the new one, so a floor kept from it would drop the new one's events.
    await ticket(loc0, 'M1');
    await ticket(loc0, 'M2');
    const device = m.devices.filter((d) => d.type === 'pos')[1]!;
    const pos = connect(base, { authorization: `Bearer ${await api1.deviceToken(m, 'pos', 1)}`, 'x-client-api-key': api1.env.DEVICE_API_KEY });
    expect(await pos.next()).toEqual({ type: 'ready' });
    pos.send({ action: 'subscribe', channel: 'kitchen' });
    expect(await pos.next()).toEqual({ type: 'subscribed', channel: 'kitchen', cursor: await latestKitchenSeq(tdb, loc0) });
    pos.send({ action: 'subscribe', channel: 'location' });
    expect(await pos.next()).toEqual({ type: 'subscribed', channel: 'location' });

    const moved = await api1.call('PUT', `/api/back-office/devices/${device.id}`, { token: await api1.ownerToken(m), body: { location_id: loc1 } });
    expect(moved.status).toBe(200);
    expect(await pos.next(4000)).toEqual({ type: 'kitchen.resync', cursor: await latestKitchenSeq(tdb, loc1) });

    const old = { location_id: loc0, transaction_id: crypto.randomUUID(), order_no: 1, items: [] };
    const mine = { location_id: loc1, transaction_id: crypto.randomUUID(), order_no: 2, items: [{ name: 'Tea', qty: 1 }] };
    await publishKitchenEvent(api1.deps.redis, m.merchant.tenant_database, old, api1.deps.log);
    await ticket(loc0, 'M3');
    await publishKitchenEvent(api1.deps.redis, m.merchant.tenant_database, mine, api1.deps.log);
    const numbered = await ticket(loc1, 'N1');
    expect(numbered.location_id).toBe(loc1);
    expect(await pos.next()).toEqual({ type: 'kitchen.order', ...mine });
    expect(await pos.next()).toEqual(JSON.parse(JSON.stringify(numbered)));
    const deps = { db: api1.deps.db, redis: api1.deps.redis, providers: api1.deps.payments, log: api1.deps.log, now: () => new Date(), commissionBps: 0 };
    await announceSubscription(deps, { merchantId: m.merchant.id, tenantDatabase: m.merchant.tenant_database, locationId: loc0 }, { subscription_id: 'sub_old', status: 'active', devices: [] });
    await announceSubscription(deps, { merchantId: m.merchant.id, tenantDatabase: m.merchant.tenant_database, locationId: loc1 }, { subscription_id: 'sub_new', status: 'active', devices: [] });
    expect(await pos.next()).toMatchObject({ type: 'location.updated', location_id: loc1, subscription_id: 'sub_new' });
    // Still open, nothing of the old location, and no second resync at the next checks.
    await Bun.sleep(1500);
    expect(pos.pending()).toBe(0);
    expect(pos.ws.readyState).toBe(WebSocket.OPEN);
    pos.close();
  });

  test('a kitchen screen bound to another station while its socket is open is told to reload at the next check (kitchen.resync), once', async () => {
    const loc0 = m.locations[0]!.id;
    const tdb = bindTenant(api1.deps.db, m.merchant.tenant_database);
    const other = crypto.randomUUID();
    await tdb.insertInto('kitchen_stations').values({ id: other, location_id: loc0, name: 'Bar', category_ids: [], created_at: new Date(), updated_at: new Date() }).execute();
    const screen = connect(base, await deviceHeaders('kds'));
    expect(await screen.next()).toEqual({ type: 'ready' });
    screen.send({ action: 'subscribe', channel: 'kitchen' });
    expect(await screen.next()).toMatchObject({ type: 'subscribed', channel: 'kitchen' });
    const owner = await api1.ownerToken(m);
    try {
      expect((await api1.call('POST', `/api/back-office/devices/${m.kds.device_id}/station`, { token: owner, body: { station_id: other } })).status).toBe(200);
      // Before: nothing; the screen went on filtering events by the station it read at sign-in.
      expect(await screen.next(4000)).toEqual({ type: 'kitchen.resync', cursor: await latestKitchenSeq(tdb, loc0) });
      await Bun.sleep(1500);
      expect(screen.pending()).toBe(0);
    } finally {
      expect((await api1.call('POST', `/api/back-office/devices/${m.kds.device_id}/station`, { token: owner, body: { station_id: m.kds.station_id } })).status).toBe(200);
      expect(await screen.next(4000)).toMatchObject({ type: 'kitchen.resync' });
      screen.close();
      await tdb.deleteFrom('kitchen_stations').where('id', '=', other).execute();
    }
  });

  test('a device deleted while its socket is open is closed at the next check (4401), as its requests are refused', async () => {
    const pos = connect(base, await deviceHeaders('pos'));
    expect(await pos.next()).toEqual({ type: 'ready' });
    pos.send({ action: 'subscribe', channel: 'kitchen' });
    expect(await pos.next()).toMatchObject({ type: 'subscribed', channel: 'kitchen' });
    const device = m.devices.filter((d) => d.type === 'pos')[0]!;
    const del = await api1.call('DELETE', `/api/back-office/devices/${device.id}`, { token: await api1.ownerToken(m) });
    expect(del.status).toBe(200);
    expect(await pos.next(4000)).toEqual({ type: 'error', message: 'Invalid token' });
    expect(await pos.next(2000)).toEqual({ closed: 4401 });
    const later = connect(base, await deviceHeaders('pos').catch(() => ({ authorization: 'Bearer x' })));
    expect((await later.next()).type).toBe('error');
  });
});
