import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { startPlatformASimulator, type PlatformASimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { badGateway, providerHop } from '../../testing/provider-hop.ts';

// platform-a webhooks: base64 HMAC over the notification URL + raw body, event ids claimed once.
let platformA: PlatformASimulator;
let api: TestApi;
let m: DemoSeedResult;
let kiosk: string;
const KEY = 'pa-signature-key-0123456789';
const NOTIFY = 'https://api.example.test/api/webhook/platform-a';
const CREDS = { PLATFORM_A_ACCESS_TOKEN: 'pa-webhook-token' };

beforeAll(async () => {
  platformA = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN });
  api = await createTestApi({ env: { ...CREDS, PLATFORM_A_BASE_URL: platformA.url, PLATFORM_A_WEBHOOK_SIGNATURE_KEY: KEY, PLATFORM_A_WEBHOOK_URL: NOTIFY } });
  m = await api.seed('pahook');
  kiosk = await api.deviceToken(m, 'kiosk');
  await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: `PA-${m.merchant.id}` } }) }).where('id', '=', m.locations[0]!.id).execute();
});
afterAll(async () => {
  await api.close();
  await platformA.stop();
});

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const sign = (raw: string, key = KEY, url = NOTIFY) => createHmac('sha256', key).update(url + raw).digest('base64');
const post = (raw: string, signature: string | null) =>
  api.call('POST', '/api/webhook/platform-a', { rawBody: raw, headers: signature === null ? {} : { 'x-platform-a-hmacsha256-signature': signature } });
const txn = (id: string) => tdb().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const logOf = (eventId: string) => api.deps.db.selectFrom('webhook_logs').selectAll().where('provider', '=', 'platform-a').where('event_id', '=', eventId).orderBy('created_at').execute();

let lastCheckout: string | null = null;
async function awaitingPayment() {
  if (lastCheckout) await platformA.complete(lastCheckout).catch(() => undefined);
  const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
  expect(r.body.data.status).toBe('Awaiting Payment');
  lastCheckout = r.body.data.payment_snapshot.checkout_id;
  return r.body.data as { id: string; payment_snapshot: { checkout_id: string; device_id: string } };
}

function checkoutEvent(t: { id: string; payment_snapshot: { checkout_id: string; device_id: string } }, status = 'COMPLETED', over: Record<string, unknown> = {}) {
  return JSON.stringify({
    merchant_id: 'SIM_MERCHANT',
    type: 'terminal.checkout.updated',
    event_id: crypto.randomUUID(),
    created_at: new Date().toISOString(),
    data: {
      type: 'checkout.event',
      id: t.payment_snapshot.checkout_id,
      object: { checkout: { id: t.payment_snapshot.checkout_id, amount_money: { amount: 280, currency: 'EUR' }, device_options: { device_id: t.payment_snapshot.device_id }, reference_id: t.id, status, payment_ids: status === 'COMPLETED' ? ['p1'] : [], ...over } },
    },
  });
}

describe('POST /webhook/platform-a', () => {
  test('a valid signature completes the kiosk transaction (tenant from the terminal device)', async () => {
    const t = await awaitingPayment();
    const raw = checkoutEvent(t);
    expect(await post(raw, sign(raw))).toMatchObject({ status: 200, text: '{"received":true}' });
    expect((await txn(t.id)).status).toBe('Complete');
    expect((await logOf(JSON.parse(raw).event_id))[0]).toMatchObject({ status: 'processed', merchant_id: m.merchant.id, type: 'platform_a_webhook' });
  });

  test('platform-a turned off while an order\'s checkout runs: its retry keeps platform-a (the same checkout), and the customer\'s payment of it completes the order', async () => {
    const t = await awaitingPayment();
    const c0 = t.payment_snapshot.checkout_id;
    const settings = (await tdb().selectFrom('locations').select('payment_settings').where('id', '=', m.locations[0]!.id).executeTakeFirstOrThrow()).payment_settings;
    await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({}) }).where('id', '=', m.locations[0]!.id).execute();
    try {
      const retry = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { transaction_id: t.id } });
      expect([retry.status, retry.body.data.payment_snapshot.provider, retry.body.data.payment_snapshot.checkout_id]).toEqual([200, 'platform-a', c0]);
      await platformA.complete(c0);
      const raw = checkoutEvent(t);
      expect((await post(raw, sign(raw))).status).toBe(200);
      expect((await txn(t.id)).status).toBe('Complete');
    } finally {
      await tdb().updateTable('locations').set({ payment_settings: JSON.stringify(settings) }).where('id', '=', m.locations[0]!.id).execute();
    }
  });

  test('a completed checkout for less than the order total (or without an amount) is stored as failed (amount_mismatch) and not captured; the amount is saved once paid', async () => {
    const t = await awaitingPayment();
    for (const over of [{ amount_money: { amount: 1, currency: 'EUR' } }, { amount_money: { amount: 279, currency: 'EUR' } }, { amount_money: null }, { amount_money: { amount: '280' } }]) {
      const raw = checkoutEvent(t, 'COMPLETED', over);
      expect(await post(raw, sign(raw))).toMatchObject({ status: 200, text: '{"received":true}' });
      expect({ over, log: (await logOf(JSON.parse(raw).event_id))[0] }).toMatchObject({ over, log: { status: 'failed', error: 'amount_mismatch' } });
    }
    expect(await txn(t.id)).toMatchObject({ status: 'Awaiting Payment', receipt_no: null });
    // The full amount in another currency is not this order's money either.
    const usd = checkoutEvent(t, 'COMPLETED', { amount_money: { amount: 280, currency: 'USD' } });
    expect((await post(usd, sign(usd))).status).toBe(200);
    expect((await logOf(JSON.parse(usd).event_id))[0]).toMatchObject({ status: 'failed', error: 'currency_mismatch' });
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
    const raw = checkoutEvent(t, 'COMPLETED', { amount_money: { amount: 230, currency: 'EUR' }, tip_money: { amount: 50, currency: 'EUR' } });
    expect((await post(raw, sign(raw))).status).toBe(200);
    expect(await txn(t.id)).toMatchObject({ status: 'Complete', payment_snapshot: expect.objectContaining({ amount: 230 }) });
  });

  test('a tip added on the terminal (tip_money beside the full amount) is booked as the transaction\'s tip', async () => {
    const t = await awaitingPayment();
    const { total } = await txn(t.id);
    const raw = checkoutEvent(t, 'COMPLETED', { amount_money: { amount: total, currency: 'EUR' }, tip_money: { amount: 40, currency: 'EUR' } });
    expect((await post(raw, sign(raw))).status).toBe(200);
    expect(await txn(t.id)).toMatchObject({ status: 'Complete', tip_amount: 40, total: total + 40 });
  });

  test('forged, another key, another notification URL, missing: 401 and nothing stored', async () => {
    const t = await awaitingPayment();
    const raw = checkoutEvent(t);
    for (const sig of [Buffer.alloc(32, 7).toString('base64'), sign(raw, 'another-key-0123'), sign(raw, KEY, `${NOTIFY}/`), null]) {
      expect(await post(raw, sig)).toMatchObject({ status: 401, body: { message: 'Webhook verification failed.' } });
    }
    expect(await logOf(JSON.parse(raw).event_id)).toEqual([]);
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
  });

  test('a replay changes nothing; a signed body that is not JSON is stored as failed; both acknowledged', async () => {
    const t = await awaitingPayment();
    const raw = checkoutEvent(t);
    expect((await post(raw, sign(raw))).status).toBe(200);
    const receipt = (await txn(t.id)).receipt_no;
    expect(await post(raw, sign(raw))).toMatchObject({ status: 200, text: '{"received":true}' });
    expect((await logOf(JSON.parse(raw).event_id)).map((l) => l.status)).toEqual(['processed', 'duplicate']);
    expect((await txn(t.id)).receipt_no).toBe(receipt);

    const junk = '<xml>not json</xml>';
    expect(await post(junk, sign(junk))).toMatchObject({ status: 200, text: '{"received":true}' });
    expect(await api.deps.db.selectFrom('webhook_logs').select(['status', 'error']).where('provider', '=', 'platform-a').where('raw_body', '=', junk).executeTakeFirst()).toEqual({ status: 'failed', error: 'not_an_event' });
  });

  test('tenant from the location reference; an unknown reference and device is unresolved (same answer)', async () => {
    const t = await awaitingPayment();
    const viaLocation = checkoutEvent(t, 'COMPLETED', { location_id: `PA-${m.merchant.id}`, device_options: { device_id: 'unknown-device' } });
    expect((await post(viaLocation, sign(viaLocation))).status).toBe(200);
    expect((await txn(t.id)).status).toBe('Complete');
    const u = await awaitingPayment();
    const unknown = checkoutEvent(u, 'COMPLETED', { location_id: 'PA-NOWHERE', device_options: { device_id: 'unknown-device' } });
    expect(await post(unknown, sign(unknown))).toMatchObject({ status: 200, text: '{"received":true}' });
    expect((await logOf(JSON.parse(unknown).event_id))[0]).toMatchObject({ status: 'location_not_resolved', merchant_id: null });
    expect((await txn(u.id)).status).toBe('Awaiting Payment');
  });

  test('without a key or URL configured every delivery is refused (401)', async () => {
    const bare = await createTestApi();
    try {
      const r = await bare.call('POST', '/api/webhook/platform-a', { rawBody: '{}', headers: { 'x-platform-a-hmacsha256-signature': 'x' } });
      expect(r).toMatchObject({ status: 401, body: { message: 'Webhook verification failed.' } });
    } finally {
      await bare.close();
    }
  });

  test('the platform-a simulator delivers its signed webhook to the running API and the kiosk sees Complete', async () => {
    const sim = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN, webhookSignatureKey: KEY });
    const live = await createTestApi({ env: { ...CREDS, PLATFORM_A_BASE_URL: sim.url, PLATFORM_A_WEBHOOK_SIGNATURE_KEY: KEY } });
    // On a port the system picks (one probed and released first could be taken meanwhile): the subscribed
    // URL, which the simulator posts to and both sides sign over, is known only then.
    const server = live.app.listen({ port: 0, hostname: '127.0.0.1' });
    const url = `http://127.0.0.1:${live.app.server!.port}/api/webhook/platform-a`;
    Object.assign(live.deps.config, { PLATFORM_A_WEBHOOK_URL: url });
    sim.setWebhookUrl(url);
    try {
      const lm = await live.seed('palive');
      await bindTenant(live.deps.db, lm.merchant.tenant_database).updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-LIVE' } }) }).where('id', '=', lm.locations[0]!.id).execute();
      const token = await live.deviceToken(lm, 'kiosk');
      const created = (await live.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: lm.items[0]!.id, qty: 1 }] } })).body.data;
      await sim.complete(created.payment_snapshot.checkout_id);
      expect(sim.webhooks.at(-1)!.result).toEqual({ status: 200 });
      const seen = await live.call('GET', `/api/kiosk/payment/session-status?idempotency_key=${created.idempotency_key}`, { token, deviceKey: true });
      expect(seen.body.data.status).toBe('Complete');
    } finally {
      await server.stop();
      await live.close();
      await sim.stop();
    }
  });
test('a start whose checkout answer was lost (the API died, or the answer never came): recorded before the call, so the signed event names the order, its checkout id is kept and the payment captured', async () => {
    const sim = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN, webhookSignatureKey: KEY });
    // The checkout reaches the provider (and its terminal), its answer does not.
    let lostCheckout: string | null = null;
    const hop = providerHop(sim.url, async (r) => {
      const res = await r.forward();
      if (r.method !== 'POST' || r.path !== '/v2/terminals/checkouts' || lostCheckout !== null) return res;
      lostCheckout = ((await res.json()) as { checkout: { id: string } }).checkout.id;
      return badGateway();
    });
    const live = await createTestApi({ env: { ...CREDS, PLATFORM_A_BASE_URL: hop.url, PLATFORM_A_WEBHOOK_SIGNATURE_KEY: KEY } });
    // On a port the system picks (one probed and released first could be taken meanwhile): the subscribed
    // URL, which the simulator posts to and both sides sign over, is known only then.
    const server = live.app.listen({ port: 0, hostname: '127.0.0.1' });
    const url = `http://127.0.0.1:${live.app.server!.port}/api/webhook/platform-a`;
    Object.assign(live.deps.config, { PLATFORM_A_WEBHOOK_URL: url });
    sim.setWebhookUrl(url);
    try {
      const lm = await live.seed('palost');
      const ltdb = bindTenant(live.deps.db, lm.merchant.tenant_database);
      await ltdb.updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-LOST' } }) }).where('id', '=', lm.locations[0]!.id).execute();
      const token = await live.deviceToken(lm, 'kiosk');
      const r = await live.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: lm.items[0]!.id, qty: 1 }] } });
      expect([r.status, r.body.reason]).toEqual([503, 'provider_error']);
      const id = r.body.transaction_id as string;
      const before = await ltdb.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect({ status: before.status, snapshot: before.payment_snapshot }).toEqual({
        status: 'Awaiting Payment',
        snapshot: { provider: 'platform-a', idempotency_key: before.idempotency_key, device_id: lm.kiosk.platform_a_device_id },
      });
      expect(lostCheckout).not.toBeNull();
      expect(sim.checkout(lostCheckout!)).toMatchObject({ reference_id: id, status: 'PENDING' });

      // The customer pays at the terminal; the provider's signed event reaches the API.
      await sim.complete(lostCheckout!);
      expect(sim.webhooks.at(-1)!.result).toEqual({ status: 200 });
      const after = await ltdb.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(after.status).toBe('Complete');
      expect(after.payment_snapshot).toMatchObject({ checkout_id: lostCheckout, checkout_status: 'COMPLETED' });
      expect(after.receipt_no).not.toBeNull();
    } finally {
      await server.stop();
      await live.close();
      hop.stop();
      await sim.stop();
    }
  });

  test('an event with another checkout id is not adopted by a transaction whose checkout is known: not found, nothing changes', async () => {
    const t = await awaitingPayment();
    const other = { id: t.id, payment_snapshot: { checkout_id: 'chk_someone_else', device_id: t.payment_snapshot.device_id } };
    const raw = checkoutEvent(other);
    expect((await post(raw, sign(raw))).status).toBe(200);
    expect((await logOf(JSON.parse(raw).event_id))[0]).toMatchObject({ status: 'failed', error: 'transaction_not_found' });
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
  });
  test('a lost checkout answer: cancel learns the checkout and cancels it at the provider; a late event of an earlier key\'s checkout (or another device\'s) is not taken for the new one; its own completed checkout is', async () => {
    let dropNext = false;
    let dropped: string | null = null;
    const hop = providerHop(platformA.url, async (r) => {
      const res = await r.forward();
      if (r.method !== 'POST' || r.path !== '/v2/terminals/checkouts' || !dropNext) return res;
      dropNext = false;
      dropped = ((await res.json()) as { checkout: { id: string } }).checkout.id;
      return badGateway();
    });
    const lossy = await createTestApi({ env: { ...CREDS, PLATFORM_A_BASE_URL: hop.url, PLATFORM_A_WEBHOOK_SIGNATURE_KEY: KEY, PLATFORM_A_WEBHOOK_URL: NOTIFY } });
    try {
      const lm = await lossy.seed('pacancel');
      const ltdb = bindTenant(lossy.deps.db, lm.merchant.tenant_database);
      await ltdb.updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-CANCEL' } }) }).where('id', '=', lm.locations[0]!.id).execute();
      const token = await lossy.deviceToken(lm, 'kiosk');
      const call = (method: 'GET' | 'POST', path: string, body?: unknown) => lossy.call(method, path, { token, deviceKey: true, ...(body ? { body } : {}) });
      const row = (id: string) => ltdb.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const order = { lines: [{ item_id: lm.items[0]!.id, qty: 1 }] };

      // Cancel after a lost answer: the checkout is learnt (same key) and cancelled; nothing left running.
      dropNext = true;
      const lost = await call('POST', '/api/kiosk/payment/create-intent', order);
      expect(lost.status).toBe(503);
      const a = await row(lost.body.transaction_id);
      expect(a.payment_snapshot.checkout_id).toBeUndefined();
      const created = platformA.created;
      const cancelled = await call('POST', '/api/kiosk/payment/cancel-action', { idempotency_key: a.idempotency_key });
      expect(cancelled.body.data.status).toBe('Cancelled');
      expect(platformA.created).toBe(created);
      const aAfter = await row(a.id);
      expect(platformA.checkout(aAfter.payment_snapshot.checkout_id as string)!.status).toBe('CANCELED');

      // An earlier key's checkout (C1) ends; the retry's answer (C2) is lost; C1's event arrives late.
      const b = (await call('POST', '/api/kiosk/payment/create-intent', order)).body.data;
      const c1 = b.payment_snapshot.checkout_id as string;
      await platformA.timeout(c1);
      dropNext = true;
      expect((await call('POST', '/api/kiosk/payment/create-intent', { transaction_id: b.id })).status).toBe(503);
      const late = checkoutEvent({ id: b.id, payment_snapshot: { checkout_id: c1, device_id: lm.kiosk.platform_a_device_id } }, 'CANCELED', { cancel_reason: 'TIMED_OUT' });
      const lr = await lossy.call('POST', '/api/webhook/platform-a', { rawBody: late, headers: { 'x-platform-a-hmacsha256-signature': sign(late) } });
      expect(lr.status).toBe(200);
      const c2 = dropped!;
      expect(c2).not.toBe(c1);
      // C1's late event is not taken for the start: the order still waits, its checkout still unknown.
      const bAfter = await row(b.id);
      expect(bAfter.status).toBe('Awaiting Payment');
      expect(bAfter.payment_snapshot.checkout_id).toBeUndefined();
      // A completed checkout on another device naming the order is not its payment either.
      const elsewhere = checkoutEvent({ id: b.id, payment_snapshot: { checkout_id: c2, device_id: 'PA-SOMEONE-ELSE' } }, 'COMPLETED', { amount_money: { amount: bAfter.total, currency: 'EUR' } });
      await lossy.call('POST', '/api/webhook/platform-a', { rawBody: elsewhere, headers: { 'x-platform-a-hmacsha256-signature': sign(elsewhere) } });
      expect((await row(b.id)).status).toBe('Awaiting Payment');
      // The customer pays C2: its signed event completes the order, and the order learns its checkout.
      const paid = checkoutEvent({ id: b.id, payment_snapshot: { checkout_id: c2, device_id: lm.kiosk.platform_a_device_id } }, 'COMPLETED', { amount_money: { amount: bAfter.total, currency: 'EUR' } });
      expect((await lossy.call('POST', '/api/webhook/platform-a', { rawBody: paid, headers: { 'x-platform-a-hmacsha256-signature': sign(paid) } })).status).toBe(200);
      expect(await row(b.id)).toMatchObject({ status: 'Complete', payment_snapshot: expect.objectContaining({ checkout_id: c2 }) });
    } finally {
      await lossy.close();
      hop.stop();
    }
  });
  test('a checkout the provider refuses outright (404, no checkout made) puts the order back, and it can be cancelled; a lost start whose re-ask is refused is not cancelled blind (503), and its payment is still captured', async () => {
    let mode: 'refuse' | 'lose' = 'refuse';
    let lostCheckout: string | null = null;
    const hop = providerHop(platformA.url, async (r) => {
      const create = r.method === 'POST' && r.path === '/v2/terminals/checkouts';
      if (create && mode === 'refuse') return Response.json({ errors: [{ category: 'INVALID_REQUEST_ERROR', code: 'NOT_FOUND', detail: 'Device not found' }] }, { status: 404 });
      const res = await r.forward();
      if (!create) return res;
      mode = 'refuse';
      lostCheckout = ((await res.json()) as { checkout: { id: string } }).checkout.id;
      return badGateway();
    });
    const lossy = await createTestApi({ env: { ...CREDS, PLATFORM_A_BASE_URL: hop.url, PLATFORM_A_WEBHOOK_SIGNATURE_KEY: KEY, PLATFORM_A_WEBHOOK_URL: NOTIFY } });
    try {
      const lm = await lossy.seed('parefused');
      const ltdb = bindTenant(lossy.deps.db, lm.merchant.tenant_database);
      await ltdb.updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-REFUSED' } }) }).where('id', '=', lm.locations[0]!.id).execute();
      const token = await lossy.deviceToken(lm, 'kiosk');
      const call = (method: 'GET' | 'POST', path: string, body?: unknown) => lossy.call(method, path, { token, deviceKey: true, ...(body ? { body } : {}) });
      const row = (id: string) => ltdb.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const order = { lines: [{ item_id: lm.items[0]!.id, qty: 1 }] };

      const refused = await call('POST', '/api/kiosk/payment/create-intent', order);
      expect(refused.status).toBeGreaterThanOrEqual(400);
      const a = await row(refused.body.transaction_id);
      expect({ status: a.status, snapshot: a.payment_snapshot }).toEqual({ status: 'Pending', snapshot: { idempotency_key: a.idempotency_key } });
      const ca = await call('POST', '/api/kiosk/payment/cancel-action', { idempotency_key: a.idempotency_key });
      expect([ca.status, ca.body.data.status]).toEqual([200, 'Cancelled']);

      // The answer is lost, and asking again with the key is refused (a token rotated, say): that does not
      // prove no checkout exists, so cancel answers 503 and leaves the order; the customer's payment of the
      // running checkout is still captured.
      mode = 'lose';
      const lost = await call('POST', '/api/kiosk/payment/create-intent', order);
      expect(lost.status).toBe(503);
      const b = await row(lost.body.transaction_id);
      expect(b.status).toBe('Awaiting Payment');
      const refusedCancel = await call('POST', '/api/kiosk/payment/cancel-action', { idempotency_key: b.idempotency_key });
      expect([refusedCancel.status, refusedCancel.body.reason]).toEqual([503, 'provider_error']);
      expect((await row(b.id)).status).toBe('Awaiting Payment');
      expect(platformA.checkout(lostCheckout!)!.status).toBe('PENDING');
      await platformA.complete(lostCheckout!);
      const paid = checkoutEvent({ id: b.id, payment_snapshot: { checkout_id: lostCheckout!, device_id: lm.kiosk.platform_a_device_id } }, 'COMPLETED', { amount_money: { amount: b.total, currency: 'EUR' } });
      expect((await lossy.call('POST', '/api/webhook/platform-a', { rawBody: paid, headers: { 'x-platform-a-hmacsha256-signature': sign(paid) } })).status).toBe(200);
      expect((await row(b.id)).status).toBe('Complete');

      // Past the provider's checkout deadline no checkout can be waiting: a still refused re-ask no longer
      // keeps the order from being cancelled.
      mode = 'lose';
      const stale = await call('POST', '/api/kiosk/payment/create-intent', order);
      const c = await row(stale.body.transaction_id);
      expect((await call('POST', '/api/kiosk/payment/cancel-action', { idempotency_key: c.idempotency_key })).status).toBe(503);
      const backdate = () => ltdb.updateTable('transactions').set({ updated_at: new Date(Date.now() - 11 * 60_000) }).where('id', '=', c.id).execute();
      // A re-ask that reached the provider but whose answer was lost may just have made a checkout: 503,
      // and its deadline starts again.
      await backdate();
      mode = 'lose';
      expect((await call('POST', '/api/kiosk/payment/cancel-action', { idempotency_key: c.idempotency_key })).status).toBe(503);
      expect((await call('POST', '/api/kiosk/payment/cancel-action', { idempotency_key: c.idempotency_key })).status).toBe(503);
      expect((await row(c.id)).status).toBe('Awaiting Payment');
      await backdate();
      const late = await call('POST', '/api/kiosk/payment/cancel-action', { idempotency_key: c.idempotency_key });
      expect([late.status, late.body.data?.status]).toEqual([200, 'Cancelled']);
    } finally {
      await lossy.close();
      hop.stop();
    }
  });
});
