import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { saveConnection } from '@pos/core/integrations/connections';
import { decryptSecret, parseTokenKey } from '@pos/core/integrations/token-crypto';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// The integration webhooks (issue 13): one verification each over the raw bytes, stored in the central
// log, a repeated event changes nothing, the tenant from the connection the event names (never guessed),
// always 200 once verified.
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
const TOKEN_KEY = 'a'.repeat(64);
const key = parseTokenKey(TOKEN_KEY)!;
const SECRETS = {
  SHOP_A_WEBHOOK_SECRET: 'shop-a-webhook-secret-0123',
  DELIVERY_A_WEBHOOK_SECRET: 'delivery-a-webhook-secret-0123',
  DELIVERY_B_WEBHOOK_SECRET: 'delivery-b-webhook-secret-0123',
  REGISTER_B_WEBHOOK_SECRET: 'register-b-webhook-secret-0123',
  REGISTER_C_WEBHOOK_USERNAME: 'register-c',
  REGISTER_C_WEBHOOK_PASSWORD: 'register-c-password-0123',
  CRM_WEBHOOK_TOKEN: 'crm-intake-token-0123456789',
  INTEGRATION_TOKEN_KEY: TOKEN_KEY,
  PLATFORM_A_WEBHOOK_SIGNATURE_KEY: 'pa-signature-key-0123456789',
  PLATFORM_A_WEBHOOK_URL: 'https://api.example.test/api/webhook/platform-a',
};
const APP_ID = 'app-3f9c2b7e-merchant-a';
const OTHER_APP_ID = 'app-0000-merchant-b';
const ref = () => crypto.randomUUID().slice(0, 8);
const refs = { shop: `corner-${ref()}`, daStore: `da-${ref()}`, dbStore: `db-${ref()}`, raStore: crypto.randomUUID(), raCompany: crypto.randomUUID(), rbAccount: `rb-${ref()}`, rcAccount: `rc-${ref()}`, paMerchant: `PAM-${ref()}`, otherStore: crypto.randomUUID() };
const connIds: Record<string, string> = {};

beforeAll(async () => {
  api = await createTestApi({ env: SECRETS });
  m = await api.seed('inthook');
  other = await api.seed('inthook-b');
  const now = new Date();
  const loc = m.locations[0]!.id;
  const save = async (name: string, provider: string, externalRef: string, extra: Record<string, unknown> = {}, merchant = m) =>
    (connIds[name] = (await saveConnection(api.deps.db, key, { provider, externalRef, merchantId: merchant.merchant.id, locationId: merchant.locations[0]!.id, ...extra }, now)).id);
  await save('shop', 'shop-a', refs.shop);
  await save('da', 'delivery-a', refs.daStore);
  await save('db', 'delivery-b', refs.dbStore);
  await save('ra', 'register-a', refs.raStore, { externalGroupRef: refs.raCompany, webhookKey: APP_ID });
  await save('raOther', 'register-a', refs.otherStore, { webhookKey: OTHER_APP_ID }, other);
  await save('rb', 'register-b', refs.rbAccount);
  await save('rc', 'register-c', refs.rcAccount);
  await save('pa', 'platform-a', refs.paMerchant);
  expect(loc).toBeTruthy();
}, 60_000);
afterAll(() => api.close());

const hex = (secret: string, raw: string) => createHmac('sha256', secret).update(raw).digest('hex');
const b64 = (secret: string, raw: string) => createHmac('sha256', secret).update(raw).digest('base64');
const post = (path: string, raw: string, headers: Record<string, string> = {}, ip?: string) => api.call('POST', path, { rawBody: raw, headers, ...(ip ? { ip } : {}) });
const logs = (provider: string, raw: string) =>
  api.deps.db.selectFrom('webhook_logs').select(['status', 'merchant_id', 'error', 'type', 'event_id', 'event_type']).where('provider', '=', provider).where('raw_body', '=', raw).orderBy('created_at').orderBy('id').execute();
const events = (connection: string) => api.deps.db.selectFrom('integration_events').selectAll().where('connection_id', '=', connIds[connection]!).orderBy('created_at').execute();
const connection = (name: string) => api.deps.db.selectFrom('integration_connections').selectAll().where('id', '=', connIds[name]!).executeTakeFirstOrThrow();
const OK = { status: 200, text: '{"received":true}' };
const REFUSED = { status: 401, body: { message: 'Webhook verification failed.' } };

describe('POST /shop-a-webhook (base64 HMAC, tenant from X-Shop-A-Shop-Domain)', () => {
  const headers = (raw: string, o: { topic?: string; id?: string; domain?: string; sig?: string | null } = {}) => {
    const h: Record<string, string> = { 'x-shop-a-topic': o.topic ?? 'orders/create', 'x-shop-a-webhook-id': o.id ?? crypto.randomUUID(), 'x-shop-a-shop-domain': o.domain ?? `${refs.shop}.myshop-a.com` };
    if (o.sig !== null) h['x-shop-a-hmac-sha256'] = o.sig ?? b64(SECRETS.SHOP_A_WEBHOOK_SECRET, raw);
    return h;
  };

  test('valid: stored, resolved to the shop\'s merchant, the order recorded once; a replay is a duplicate', async () => {
    const raw = JSON.stringify({ id: 820982911946154500, name: '#9999', total_price: '12.50', note: ref() });
    const h = headers(raw);
    expect(await post('/api/shop-a-webhook', raw, h)).toMatchObject(OK);
    expect(await post('/api/shop-a-webhook', raw, h)).toMatchObject(OK);
    expect(await logs('shop-a', raw)).toEqual([
      { status: 'processed', merchant_id: m.merchant.id, error: null, type: 'shop_a_webhook', event_id: h['x-shop-a-webhook-id']!, event_type: 'orders/create' },
      { status: 'duplicate', merchant_id: m.merchant.id, error: null, type: 'shop_a_webhook', event_id: h['x-shop-a-webhook-id']!, event_type: 'orders/create' },
    ]);
    const recorded = (await events('shop')).filter((e) => e.event_id === h['x-shop-a-webhook-id']);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ kind: 'order_event', status: 'pending', external_id: '820982911946154500', merchant_id: m.merchant.id, location_id: m.locations[0]!.id });
  });

  test('a product topic requests a menu sync on the connection', async () => {
    expect((await connection('shop')).menu_sync_requested_at).toBeNull();
    const raw = JSON.stringify({ id: 1, title: 'Latte', note: ref() });
    expect(await post('/api/shop-a-webhook', raw, headers(raw, { topic: 'products/update' }))).toMatchObject(OK);
    expect((await connection('shop')).menu_sync_requested_at).toBeInstanceOf(Date);
  });

  test('forged, another secret, changed body, missing: 401 and nothing stored', async () => {
    const raw = JSON.stringify({ id: 77, probe: ref() });
    for (const sig of [Buffer.alloc(32, 1).toString('base64'), b64('another-secret-0123', raw), b64(SECRETS.SHOP_A_WEBHOOK_SECRET, `${raw} `), null]) {
      expect(await post('/api/shop-a-webhook', raw, headers(raw, { sig }))).toMatchObject(REFUSED);
    }
    expect(await logs('shop-a', raw)).toEqual([]);
  });

  test('a signed body that is not JSON is stored as failed and acknowledged', async () => {
    const raw = `not json ${ref()}`;
    expect(await post('/api/shop-a-webhook', raw, headers(raw))).toMatchObject(OK);
    expect(await logs('shop-a', raw)).toMatchObject([{ status: 'failed', error: 'not_json', merchant_id: null }]);
  });

  test('an unknown shop answers exactly as a known one, stored as location_not_resolved', async () => {
    const raw = JSON.stringify({ id: 5, probe: ref() });
    const r = await post('/api/shop-a-webhook', raw, headers(raw, { domain: 'nobody-here.myshop-a.com' }));
    expect(r).toMatchObject(OK);
    expect(await logs('shop-a', raw)).toMatchObject([{ status: 'location_not_resolved', merchant_id: null }]);
  });
});

describe('POST /webhook/delivery-a/orders and /menu (hex HMAC, tenant from the store)', () => {
  const event = (o: Record<string, unknown> = {}) =>
    JSON.stringify({ event_id: crypto.randomUUID(), event_type: 'orders.notification', event_time: 1700000000, meta: { resource_id: `order-${ref()}`, status: 'pos', user_id: refs.daStore }, resource_href: 'https://api.delivery-a.example/v1/orders/x', ...o });
  const sig = (raw: string) => ({ 'x-delivery-a-signature': hex(SECRETS.DELIVERY_A_WEBHOOK_SECRET, raw) });

  test('valid order event recorded; replay duplicate; forged 401; not JSON failed', async () => {
    const raw = event();
    expect(await post('/api/webhook/delivery-a/orders', raw, sig(raw))).toMatchObject(OK);
    expect(await post('/api/webhook/delivery-a/orders', raw, sig(raw))).toMatchObject(OK);
    expect((await logs('delivery-a', raw)).map((l) => l.status)).toEqual(['processed', 'duplicate']);
    const id = JSON.parse(raw).event_id;
    expect((await events('da')).filter((e) => e.event_id === id)).toMatchObject([{ kind: 'order_event', event_type: 'orders.notification', external_id: JSON.parse(raw).meta.resource_id }]);
    // Issue 17: the recorded event's import job is in the outbox, once (the duplicate wrote none).
    const jobs = await api.deps.db.selectFrom('outbox').select(['job', 'payload']).where('job', '=', 'integration.order-import').where(sql<boolean>`payload->>'eventId' = ${id}`).execute();
    expect(jobs.map((j) => j.payload)).toEqual([{ provider: 'delivery-a', connectionId: connIds.da!, externalOrderId: JSON.parse(raw).meta.resource_id, eventId: id }]);

    const forged = event();
    expect(await post('/api/webhook/delivery-a/orders', forged, { 'x-delivery-a-signature': hex('wrong-secret-0123', forged) })).toMatchObject(REFUSED);
    expect(await post('/api/webhook/delivery-a/orders', forged)).toMatchObject(REFUSED);
    expect(await logs('delivery-a', forged)).toEqual([]);

    const junk = `{"event_id": ${ref()}`;
    expect(await post('/api/webhook/delivery-a/orders', junk, sig(junk))).toMatchObject(OK);
    expect(await logs('delivery-a', junk)).toMatchObject([{ status: 'failed', error: 'not_json' }]);
  });

  test('an order id past 200 characters: the event is recorded without it (before: the insert failed on every delivery), and nothing is imported', async () => {
    const long = `order-${'x'.repeat(250)}`;
    const raw = event({ meta: { resource_id: long, status: 'pos', user_id: refs.daStore } });
    expect(await post('/api/webhook/delivery-a/orders', raw, sig(raw))).toMatchObject(OK);
    expect((await logs('delivery-a', raw)).map((l) => l.status)).toEqual(['processed']);
    const id = JSON.parse(raw).event_id;
    expect((await events('da')).filter((e) => e.event_id === id)).toMatchObject([{ kind: 'order_event', external_id: null }]);
    expect(await api.deps.db.selectFrom('outbox').select('id').where('job', '=', 'integration.order-import').where(sql<boolean>`payload->>'eventId' = ${id}`).execute()).toEqual([]);
  });

  test('the menu route is logged and not acted on', async () => {
    const raw = event({ event_type: 'menu.updated' });
    expect(await post('/api/webhook/delivery-a/menu', raw, sig(raw))).toMatchObject(OK);
    expect(await logs('delivery-a', raw)).toMatchObject([{ status: 'ignored', merchant_id: m.merchant.id, type: 'delivery_a_menu_webhook' }]);
    expect((await events('da')).filter((e) => e.event_id === JSON.parse(raw).event_id)).toEqual([]);
    expect((await connection('da')).menu_sync_requested_at).toBeNull();
  });

  test('an event whose location was removed fails (200, logged with the event id), and replays from the CLI once remapped', async () => {
    await api.deps.db.updateTable('integration_connections').set({ location_id: crypto.randomUUID() }).where('id', '=', connIds.da!).execute();
    const raw = event();
    expect(await post('/api/webhook/delivery-a/orders', raw, sig(raw))).toMatchObject(OK);
    const row = await api.deps.db.selectFrom('webhook_logs').select(['id', 'status', 'error']).where('raw_body', '=', raw).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', error: 'location_not_found' });
    expect((await events('da')).filter((e) => e.event_id === JSON.parse(raw).event_id)).toEqual([]);

    await api.deps.db.updateTable('integration_connections').set({ location_id: m.locations[0]!.id }).where('id', '=', connIds.da!).execute();
    const cli = Bun.spawn(['bun', 'run', 'webhooks:replay', row.id], {
      cwd: `${import.meta.dir}/../../../../..`,
      env: { ...process.env, DATABASE_URL: api.env.DATABASE_URL, REDIS_URL: api.env.REDIS_URL, LOG_LEVEL: 'error' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const out = await new Response(cli.stdout).text();
    expect(await cli.exited).toBe(0);
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ id: row.id, status: 'processed' });
    expect(await logs('delivery-a', raw)).toMatchObject([{ status: 'processed', error: null, merchant_id: m.merchant.id }]);
    expect((await events('da')).filter((e) => e.event_id === JSON.parse(raw).event_id)).toHaveLength(1);

    // A second replay is refused: only failed events replay (exit 1, nothing changes).
    const again = Bun.spawn(['bun', 'run', 'webhooks:replay', row.id], { cwd: `${import.meta.dir}/../../../../..`, env: { ...process.env, DATABASE_URL: api.env.DATABASE_URL, REDIS_URL: api.env.REDIS_URL }, stdout: 'pipe', stderr: 'pipe' });
    expect(await again.exited).toBe(1);
  }, 30_000);
});

describe('POST /webhook/delivery-b (hex HMAC; 503 without a secret)', () => {
  const event = (o: Record<string, unknown> = {}) => JSON.stringify({ event_id: crypto.randomUUID(), event_type: 'order.new', store_id: refs.dbStore, order: { id: `ord-${ref()}` }, ...o });
  const sig = (raw: string) => ({ 'x-delivery-b-signature': hex(SECRETS.DELIVERY_B_WEBHOOK_SECRET, raw) });

  test('valid: recorded; replay duplicate; cancel and scheduled recorded too', async () => {
    const raw = event();
    expect(await post('/api/webhook/delivery-b', raw, sig(raw))).toMatchObject(OK);
    expect(await post('/api/webhook/delivery-b', raw, sig(raw))).toMatchObject(OK);
    expect((await logs('delivery-b', raw)).map((l) => l.status)).toEqual(['processed', 'duplicate']);
    for (const type of ['order.cancelled', 'order.scheduled']) {
      const r = event({ event_type: type });
      expect(await post('/api/webhook/delivery-b', r, sig(r))).toMatchObject(OK);
    }
    expect((await events('db')).map((e) => e.event_type)).toEqual(['order.new', 'order.cancelled', 'order.scheduled']);
  });

  test('missing or wrong signature: 401, nothing stored; not JSON: failed', async () => {
    const raw = event();
    expect(await post('/api/webhook/delivery-b', raw)).toMatchObject(REFUSED);
    expect(await post('/api/webhook/delivery-b', raw, { 'x-delivery-b-signature': 'abc' })).toMatchObject(REFUSED);
    expect(await logs('delivery-b', raw)).toEqual([]);
    const junk = `<order>${ref()}</order>`;
    expect(await post('/api/webhook/delivery-b', junk, sig(junk))).toMatchObject(OK);
    expect(await logs('delivery-b', junk)).toMatchObject([{ status: 'failed', error: 'not_json' }]);
  });

  test('without DELIVERY_B_WEBHOOK_SECRET: 503 Webhook verification is not configured', async () => {
    const bare = await createTestApi();
    try {
      const raw = event();
      expect(await bare.call('POST', '/api/webhook/delivery-b', { rawBody: raw, headers: sig(raw) })).toMatchObject({ status: 503, body: { message: 'Webhook verification is not configured' } });
      expect(await logs('delivery-b', raw)).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});

describe('POST /webhook/register-a (HMAC keyed by the merchant\'s applicationId)', () => {
  const sig = (raw: string, k = APP_ID) => ({ 'x-register-a-signature': hex(k, raw) });
  const body = (o: Record<string, unknown> = {}) => JSON.stringify({ event: 'store.orders', resource: `store.${refs.raStore}`, content: [{ id: `o-${ref()}`, status: 'done' }], ...o });

  test('valid store event recorded; the same body again is a duplicate (the register retries the body)', async () => {
    const raw = body();
    expect(await post('/api/webhook/register-a', raw, sig(raw))).toMatchObject(OK);
    expect(await post('/api/webhook/register-a', raw, sig(raw))).toMatchObject(OK);
    expect((await logs('register-a', raw)).map((l) => [l.status, l.merchant_id])).toEqual([['processed', m.merchant.id], ['duplicate', m.merchant.id]]);
    expect((await events('ra')).filter((e) => e.external_id === JSON.parse(raw).content[0].id)).toMatchObject([{ kind: 'order_event', event_type: 'store.orders' }]);
  });

  test('a company item event requests the menu sync of the company\'s connection', async () => {
    const raw = body({ event: 'company.items', resource: `company.${refs.raCompany}` });
    expect(await post('/api/webhook/register-a', raw, sig(raw))).toMatchObject(OK);
    expect((await connection('ra')).menu_sync_requested_at).toBeInstanceOf(Date);
  });

  test('another merchant\'s applicationId, a forged signature, an unknown resource, a body that is not JSON: 401, nothing stored', async () => {
    const raw = body();
    expect(await post('/api/webhook/register-a', raw, sig(raw, OTHER_APP_ID))).toMatchObject(REFUSED);
    expect(await post('/api/webhook/register-a', raw, { 'x-register-a-signature': '00'.repeat(32) })).toMatchObject(REFUSED);
    expect(await post('/api/webhook/register-a', raw)).toMatchObject(REFUSED);
    const unknown = body({ resource: `store.${crypto.randomUUID()}` });
    expect(await post('/api/webhook/register-a', unknown, sig(unknown))).toMatchObject(REFUSED);
    const junk = `not json ${ref()}`;
    expect(await post('/api/webhook/register-a', junk, sig(junk))).toMatchObject(REFUSED);
    for (const r of [raw, unknown, junk]) expect(await logs('register-a', r)).toEqual([]);
  });

  test('the other merchant\'s store is verified with its own applicationId and lands with that merchant', async () => {
    const raw = body({ resource: `store.${refs.otherStore}` });
    expect(await post('/api/webhook/register-a', raw, sig(raw, OTHER_APP_ID))).toMatchObject(OK);
    expect(await logs('register-a', raw)).toMatchObject([{ status: 'processed', merchant_id: other.merchant.id }]);
    expect((await events('ra')).filter((e) => e.webhook_log_id !== null && e.merchant_id !== m.merchant.id)).toEqual([]);
  });

  test('the applicationId is stored encrypted', async () => {
    const c = await connection('ra');
    expect(c.webhook_key_encrypted).not.toContain(APP_ID);
    expect(decryptSecret(key, c.webhook_key_encrypted!)).toBe(APP_ID);
  });
});

describe('POST /webhook/register-b/{event} (hex HMAC, event type in the path)', () => {
  const sig = (raw: string) => ({ 'x-register-b-signature': hex(SECRETS.REGISTER_B_WEBHOOK_SECRET, raw) });
  test('valid, replay, forged, not JSON, catalog event', async () => {
    const raw = JSON.stringify({ id: `rb-evt-${ref()}`, account_id: refs.rbAccount, resource_id: 'order-1' });
    expect(await post('/api/webhook/register-b/order.created', raw, sig(raw))).toMatchObject(OK);
    expect(await post('/api/webhook/register-b/order.created', raw, sig(raw))).toMatchObject(OK);
    expect((await logs('register-b', raw)).map((l) => [l.status, l.event_type])).toEqual([['processed', 'order.created'], ['duplicate', 'order.created']]);
    expect(await events('rb')).toMatchObject([{ kind: 'order_event', event_type: 'order.created', external_id: 'order-1' }]);

    const forged = JSON.stringify({ id: `rb-evt-${ref()}`, account_id: refs.rbAccount });
    expect(await post('/api/webhook/register-b/order.created', forged, { 'x-register-b-signature': hex('x'.repeat(12), forged) })).toMatchObject(REFUSED);
    expect(await logs('register-b', forged)).toEqual([]);

    const longId = JSON.stringify({ id: 'x'.repeat(5000), account_id: refs.rbAccount });
    expect(await post('/api/webhook/register-b/order.created', longId, sig(longId))).toMatchObject(OK);
    expect(await logs('register-b', longId)).toMatchObject([{ status: 'failed', error: 'not_an_event' }]);

    const junk = `junk ${ref()}`;
    expect(await post('/api/webhook/register-b/order.created', junk, sig(junk))).toMatchObject(OK);
    expect(await logs('register-b', junk)).toMatchObject([{ status: 'failed', error: 'not_json' }]);

    const articles = JSON.stringify({ id: `rb-evt-${ref()}`, account_id: refs.rbAccount });
    expect(await post('/api/webhook/register-b/articles.updated', articles, sig(articles))).toMatchObject(OK);
    expect((await connection('rb')).menu_sync_requested_at).toBeInstanceOf(Date);
  });

  test('an event name outside the path pattern is refused before anything is read', async () => {
    const raw = '{}';
    expect((await post('/api/webhook/register-b/a%20b', raw, sig(raw))).status).toBe(422);
  });
});

describe('POST /webhook/register-c (HTTP Basic)', () => {
  const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  const good = basic(SECRETS.REGISTER_C_WEBHOOK_USERNAME, SECRETS.REGISTER_C_WEBHOOK_PASSWORD);
  test('valid, replay, wrong password, missing, not JSON', async () => {
    const raw = JSON.stringify({ id: `rc-${ref()}`, type: 'order.updated', account_id: refs.rcAccount, resource_id: 'check-9' });
    expect(await post('/api/webhook/register-c', raw, good)).toMatchObject(OK);
    expect(await post('/api/webhook/register-c', raw, good)).toMatchObject(OK);
    expect((await logs('register-c', raw)).map((l) => l.status)).toEqual(['processed', 'duplicate']);
    expect(await events('rc')).toMatchObject([{ kind: 'order_event', external_id: 'check-9' }]);

    const probe = JSON.stringify({ id: `rc-${ref()}`, type: 'order.updated', account_id: refs.rcAccount });
    expect(await post('/api/webhook/register-c', probe, basic(SECRETS.REGISTER_C_WEBHOOK_USERNAME, 'wrong-password'))).toMatchObject(REFUSED);
    expect(await post('/api/webhook/register-c', probe)).toMatchObject(REFUSED);
    expect(await logs('register-c', probe)).toEqual([]);

    const junk = `junk ${ref()}`;
    expect(await post('/api/webhook/register-c', junk, good)).toMatchObject(OK);
    expect(await logs('register-c', junk)).toMatchObject([{ status: 'failed', error: 'not_json' }]);
  });
});

describe('POST /crm/intake (shared bearer token, 60 per minute)', () => {
  const bearer = { authorization: `Bearer ${SECRETS.CRM_WEBHOOK_TOKEN}` };
  test('valid is stored and acknowledged; a replay is a duplicate; wrong or missing token 401; not JSON failed', async () => {
    const raw = JSON.stringify({ id: `lead-${ref()}`, type: 'lead.created', email: 'owner@example.test' });
    expect(await post('/api/crm/intake', raw, bearer, '10.3.0.1')).toMatchObject(OK);
    expect(await post('/api/crm/intake', raw, bearer, '10.3.0.1')).toMatchObject(OK);
    expect((await logs('crm', raw)).map((l) => [l.status, l.merchant_id])).toEqual([['ignored', null], ['duplicate', null]]);
    for (const h of [{ authorization: 'Bearer wrong-token-0123456789' }, {}, { authorization: `Basic ${SECRETS.CRM_WEBHOOK_TOKEN}` }] as Record<string, string>[]) {
      expect(await post('/api/crm/intake', '{"id":"x"}', h, '10.3.0.1')).toMatchObject({ status: 401, body: { message: 'Invalid CRM webhook token' } });
    }
    const junk = `junk ${ref()}`;
    expect(await post('/api/crm/intake', junk, bearer, '10.3.0.1')).toMatchObject(OK);
    expect(await logs('crm', junk)).toMatchObject([{ status: 'failed', error: 'not_json' }]);
  });

  test('the 61st request of a minute from one address is 429', async () => {
    const ip = `10.3.1.${Math.floor(Math.random() * 200) + 1}`;
    // Aligned to the start of a fixed window so the 61 requests share it.
    const ms = Date.now() % 60_000;
    if (ms > 50_000) await Bun.sleep(60_000 - ms + 50);
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await post('/api/crm/intake', JSON.stringify({ id: `t-${ip}-${i}` }), bearer, ip)).status);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
  }, 30_000);
});

describe('platform-a: the tenant from the merchant reference of a connected account', () => {
  const sign = (raw: string) => ({ 'x-platform-a-hmacsha256-signature': createHmac('sha256', SECRETS.PLATFORM_A_WEBHOOK_SIGNATURE_KEY).update(SECRETS.PLATFORM_A_WEBHOOK_URL + raw).digest('base64') });
  const checkout = (merchant: string) =>
    JSON.stringify({ merchant_id: merchant, type: 'terminal.checkout.updated', event_id: crypto.randomUUID(), data: { object: { checkout: { id: `chk-${ref()}`, device_options: { device_id: 'unknown-device' }, reference_id: crypto.randomUUID(), status: 'COMPLETED' } } } });
  test('a connected merchant id resolves (the unknown checkout then fails); an unknown one stays unresolved', async () => {
    const known = checkout(refs.paMerchant);
    expect(await post('/api/webhook/platform-a', known, sign(known))).toMatchObject(OK);
    expect(await logs('platform-a', known)).toMatchObject([{ status: 'failed', error: 'transaction_not_found', merchant_id: m.merchant.id }]);
    const unknown = checkout('PAM-nobody');
    expect(await post('/api/webhook/platform-a', unknown, sign(unknown))).toMatchObject(OK);
    expect(await logs('platform-a', unknown)).toMatchObject([{ status: 'location_not_resolved', merchant_id: null }]);
  });
});

describe('duplicates, the back office replay and metrics', () => {
  const sig = (raw: string) => ({ 'x-delivery-b-signature': hex(SECRETS.DELIVERY_B_WEBHOOK_SECRET, raw) });
  const event = () => JSON.stringify({ event_id: crypto.randomUUID(), event_type: 'order.new', store_id: refs.dbStore, order: { id: `ord-${ref()}` } });

  test('the same event 20 times at once: one processed, 19 duplicates, recorded once', async () => {
    const raw = event();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('/api/webhook/delivery-b', raw, sig(raw))));
    expect(answers.every((a) => a.status === 200 && a.text === '{"received":true}')).toBe(true);
    const statuses = (await logs('delivery-b', raw)).map((l) => l.status).sort();
    expect(statuses).toEqual(['duplicate', ...Array(18).fill('duplicate'), 'processed'].sort());
    expect((await events('db')).filter((e) => e.event_id === JSON.parse(raw).event_id)).toHaveLength(1);
  });

  test('a failed integration event is replayed from the back office once its connection is fixed', async () => {
    const owner = await api.ownerToken(m);
    await api.deps.db.updateTable('integration_connections').set({ location_id: crypto.randomUUID() }).where('id', '=', connIds.db!).execute();
    const raw = event();
    expect(await post('/api/webhook/delivery-b', raw, sig(raw))).toMatchObject(OK);
    const row = await api.deps.db.selectFrom('webhook_logs').select(['id', 'status', 'error', 'merchant_id']).where('raw_body', '=', raw).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', error: 'location_not_found', merchant_id: m.merchant.id });
    await api.deps.db.updateTable('integration_connections').set({ location_id: m.locations[0]!.id }).where('id', '=', connIds.db!).execute();
    const otherOwner = await api.ownerToken(other);
    expect((await api.call('POST', `/api/back-office/webhook-logs/${row.id}/replay`, { token: otherOwner })).status).toBe(404);
    expect(await api.call('POST', `/api/back-office/webhook-logs/${row.id}/replay`, { token: owner })).toMatchObject({ status: 200, body: { data: { status: 'processed' } } });
    expect((await events('db')).filter((e) => e.event_id === JSON.parse(raw).event_id)).toHaveLength(1);
    expect((await api.call('POST', `/api/back-office/webhook-logs/${row.id}/replay`, { token: owner })).status).toBe(409);
  });

  test('metrics count per provider and outcome', async () => {
    const metric = async (provider: string, outcome: string) => {
      const line = (await api.call('GET', '/metrics')).text.split('\n').find((l) => l.startsWith('webhooks_total{') && l.includes(`provider="${provider}"`) && l.includes(`outcome="${outcome}"`));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const before = await Promise.all(['received', 'verified', 'rejected', 'processed', 'unresolved'].map((o) => metric('delivery-b', o)));
    const raw = event();
    expect((await post('/api/webhook/delivery-b', raw)).status).toBe(401);
    expect((await post('/api/webhook/delivery-b', raw, sig(raw))).status).toBe(200);
    const lost = JSON.stringify({ event_id: crypto.randomUUID(), event_type: 'order.new', store_id: 'nobody' });
    expect((await post('/api/webhook/delivery-b', lost, sig(lost))).status).toBe(200);
    const after = await Promise.all(['received', 'verified', 'rejected', 'processed', 'unresolved'].map((o) => metric('delivery-b', o)));
    expect(after.map((a, i) => a - before[i]!)).toEqual([3, 2, 1, 1, 1]);
  });
});
