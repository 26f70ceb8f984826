import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { PURCHASE_IN_PROGRESS } from '@pos/core/generation/ai-credit-purchases';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * AI credit purchases and the money: card-a's answer lost after it charged (a 502 from a gateway in
 * front of card-a), a double-click, a deleted location, and events whose amount is not the package's.
 * Rules in docs/decisions.md ("Issue 18 item 5"): credited once, only for what card-a says was taken.
 */
let api: TestApi;
let sim: CardASimulator;
let server: { stop(): unknown };
let proxy: { stop(closeActive?: boolean): unknown; port?: number };
let a: DemoSeedResult;
let owner: string;
let breakCharges = false;
let holdWebhooks = false;
const held: (() => Promise<unknown>)[] = [];
let relay: { stop(closeActive?: boolean): unknown; port?: number };
const SECRET = 'whsec_credits_money_0123456789';
const CREDS = { CARD_A_SECRET_KEY: 'sk_test_credits_money' };
const P = '/api/back-office/ai-photo';
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const balance = async () => (await api.call('GET', `${P}/credits`, { token: owner })).body.data.balance as number;

async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 8_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await Bun.sleep(50);
  }
}

async function savedCard(m: DemoSeedResult, token: string, card: string): Promise<string> {
  const id = (await api.call('POST', '/api/back-office/settings/billing-profiles', { token, body: { name: `Billing ${card}` } })).body.data.id as string;
  expect((await api.call('POST', `/api/back-office/settings/billing-profiles/${id}`, { token, body: { payment_method: card } })).status).toBe(200);
  return id;
}

beforeAll(async () => {
  // The API's port, known once it listens on the port the system picks (the relay reads it when it forwards).
  let port = 0;
  // Webhook relay: card-a's events reach the API late (as in production, seconds after the API call answered).
  relay = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      const body = await req.arrayBuffer();
      const headers = new Headers(req.headers);
      const send = () => fetch(`http://127.0.0.1:${port}/api/card-a-webhook/BE`, { method: 'POST', headers, body }).then((r) => r.arrayBuffer());
      if (holdWebhooks) held.push(send);
      else await send();
      return new Response('{}', { status: 200 });
    },
  });
  sim = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY, webhookUrl: `http://127.0.0.1:${relay.port}/`, webhookSecret: SECRET });
  // A gateway in front of card-a: forwards everything; while `breakCharges`, the answer of a
  // payment-intent creation is lost (502) AFTER card-a processed it.
  proxy = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      const u = new URL(req.url);
      const res = await fetch(`${sim.url}${u.pathname}${u.search}`, { method: req.method, headers: req.headers, body: req.method === 'GET' ? undefined : await req.arrayBuffer() });
      const body = await res.arrayBuffer();
      if (breakCharges && req.method === 'POST' && u.pathname === '/v1/payment_intents') return new Response('bad gateway', { status: 502 });
      return new Response(body, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } });
    },
  });
  api = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: `http://127.0.0.1:${proxy.port}`, CARD_A_WEBHOOK_SECRET: SECRET, APP_URL: 'https://app.example.test' } });
  server = api.app.listen({ port: 0, hostname: '127.0.0.1' });
  port = api.app.server!.port!;
  a = await api.seed('credits-money-a');
  owner = await api.ownerToken(a);
}, 60_000);

afterAll(async () => {
  await sim.idle();
  await server.stop();
  await api.close();
  proxy.stop(true);
  relay.stop(true);
  await sim.stop();
});

describe('POST /ai-photo/purchase-with-default: money', () => {
  test('a charge card-a made whose answer was lost is credited when card-a reports it succeeded (never charged without credits)', async () => {
    const profile = await savedCard(a, owner, 'pm_card_visa');
    await sim.idle();
    const before = await balance();
    breakCharges = true;
    holdWebhooks = true;
    const r = await api.call('POST', `${P}/purchase-with-default`, { token: owner, body: { package_id: 'small', billing_profile_id: profile } });
    breakCharges = false;
    expect(r.status).toBe(503);
    // card-a did charge the card: its payment_intent.succeeded (metadata kind ai_credits) arrives, after the answer.
    await sim.idle();
    holdWebhooks = false;
    for (const send of held.splice(0)) await send();
    const charged = sim.webhooks.map((w) => w.body as { type: string; data: { object: { metadata?: Record<string, string>; amount?: number } } }).filter((w) => w.type === 'payment_intent.succeeded' && w.data.object.metadata?.kind === 'ai_credits' && w.data.object.amount === 500);
    expect(charged.length).toBe(1);
    // The merchant paid 5.00 EUR for 10 credits: they must be credited (the purchase must not stay `failed`).
    expect(await eventually(() => balance(), (v) => v === before + 10)).toBe(before + 10);
    const rows = await tdbOf(a).selectFrom('ai_credit_purchases').select('status').where('method', '=', 'saved_card').execute();
    expect(rows.map((x) => x.status)).toEqual(['paid']);
  });

  test('a double-click (two identical purchases at once) charges the card once', async () => {
    const profile = await savedCard(a, owner, 'pm_card_visa');
    await sim.idle();
    const before = await balance();
    const n0 = sim.webhooks.filter((w) => (w.body as { type: string }).type === 'payment_intent.succeeded').length;
    const [r1, r2] = await Promise.all([
      api.call('POST', `${P}/purchase-with-default`, { token: owner, body: { package_id: 'large', billing_profile_id: profile } }),
      api.call('POST', `${P}/purchase-with-default`, { token: owner, body: { package_id: 'large', billing_profile_id: profile } }),
    ]);
    // One charges; the other is refused while the first is in flight (or just paid).
    expect([r1.status, r2.status].sort()).toEqual([200, 409]);
    const refused = [r1, r2].find((r) => r.status === 409)!;
    expect(refused.body.message).toBe(PURCHASE_IN_PROGRESS);
    await sim.idle();
    const charges = sim.webhooks.filter((w) => (w.body as { type: string }).type === 'payment_intent.succeeded').length - n0;
    expect(charges).toBe(1);
    expect(await balance()).toBe(before + 200);
  });
});

describe('POST /ai-photo/create-checkout-url: money', () => {
  test('a paid checkout is credited even when the location named in its metadata was deleted in between', async () => {
    // A fresh merchant location made the oldest one (the purchase's metadata names the oldest location).
    const loc = (await api.call('POST', '/api/back-office/settings/locations', { token: owner, body: { name: 'Pop-up', timezone: 'Europe/Brussels', country: 'BE' } })).body.data.id as string;
    await tdbOf(a).updateTable('locations').set({ created_at: new Date('2001-01-01T00:00:00Z') }).where('id', '=', loc).execute();
    const before = await balance();
    const r = await api.call('POST', `${P}/create-checkout-url`, { token: owner, body: { package_id: 'small' } });
    expect(r.status).toBe(200);
    const session = (r.body.data.url as string).split('/').at(-1)!;
    // The merchant closes the unused pop-up location, then pays on the hosted page.
    expect((await api.call('DELETE', `/api/back-office/settings/locations/${loc}`, { token: owner })).status).toBe(200);
    expect((await fetch(`${sim.url}/_sim/checkout/${session}/pay`, { method: 'POST' })).status).toBe(200);
    await sim.idle();
    expect(await eventually(() => balance(), (v) => v === before + 10)).toBe(before + 10);
  });
});

describe('card-a events for a purchase', () => {
  test('a succeeded payment whose amount or currency is not the package\'s does not credit the package', async () => {
    const r = await api.call('POST', `${P}/create-checkout-url`, { token: owner, body: { package_id: 'large' } });
    expect(r.status).toBe(200);
    const purchaseId = r.body.data.purchase_id as string;
    const location = (await tdbOf(a).selectFrom('locations').select('id').orderBy('created_at').orderBy('id').limit(1).executeTakeFirstOrThrow()).id;
    const before = await balance();
    // A signed card-a event (e.g. from a connected account's own payment) naming the purchase, for 0.50 USD instead of 60.00 EUR.
    await sim.sendEvent('payment_intent.succeeded', {
      id: 'pi_probe5_cheap',
      object: 'payment_intent',
      amount: 50,
      amount_received: 50,
      currency: 'usd',
      status: 'succeeded',
      metadata: { kind: 'ai_credits', purchase_id: purchaseId, merchant_id: a.merchant.id, location_id: location },
    });
    await sim.idle();
    await Bun.sleep(300);
    expect(await balance()).toBe(before);

    // A real payment at card-a naming the purchase, for 0.50 USD: read back from card-a, still not the package's.
    const auth = { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' };
    const form = new URLSearchParams({ amount: '50', currency: 'usd', 'metadata[kind]': 'ai_credits', 'metadata[purchase_id]': purchaseId, 'metadata[merchant_id]': a.merchant.id, 'metadata[location_id]': location });
    const pi = (await (await fetch(`${sim.url}/v1/payment_intents`, { method: 'POST', headers: auth, body: form })).json()) as { id: string; client_secret: string };
    expect((await fetch(`${sim.url}/_sim/payment_intents/${pi.id}/confirm`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_secret: pi.client_secret }) })).status).toBe(200);
    await sim.idle();
    await Bun.sleep(300);
    expect(await balance()).toBe(before);
    expect((await tdbOf(a).selectFrom('ai_credit_purchases').select('status').where('id', '=', purchaseId).executeTakeFirstOrThrow()).status).toBe('pending');
  });
});
