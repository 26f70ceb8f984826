import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { gate, providerHop, type ProviderHop } from '../../testing/provider-hop.ts';

// The storefront's verify under repeated calls (docs/decisions.md "Payment verification under repeated
// calls"): a page polling it, or a script, must not hammer the provider. Real PostgreSQL, Redis and the
// card-a simulator behind an HTTP hop that counts (and may hold) the intent reads.
let cardA: CardASimulator;
let hop: ProviderHop;
let api: TestApi;
let a: DemoSeedResult;
const KEY = 'sk_test_oo_verify';
/** Intent reads that reached card-a, per intent id. */
const reads = new Map<string, number>();
/** When set, the next intent read waits at it. */
let hold: ReturnType<typeof gate> | null = null;

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: KEY, webhookSecret: 'whsec_oo_verify_0123' });
  hop = providerHop(cardA.url, async (r) => {
    const m = /^\/v1\/payment_intents\/(pi_[A-Za-z0-9]+)$/.exec(r.path);
    if (r.method === 'GET' && m) {
      reads.set(m[1]!, (reads.get(m[1]!) ?? 0) + 1);
      const g = hold;
      hold = null;
      if (g) await g.wait();
    }
    return r.forward();
  });
  api = await createTestApi({ env: { CARD_A_BASE_URL: hop.url, CARD_A_SECRET_KEY: KEY } });
  a = await api.seed('opverify-a');
}, 60_000);
afterAll(async () => {
  await cardA.idle();
  await api.close();
  hop.stop();
  await cardA.stop();
});

/** A client address of its own per test (throttle windows outlive a run). */
const someAddress = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
const loc = () => a.online_ordering.location_id;
const pay = (ip: string) => api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc()}/payment`, { body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }] }, ip });
const verify = (transaction_id: string, ip: string) => api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc()}/verify-payment`, { body: { transaction_id }, ip });
const row = (id: string) => bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('transactions').select(['status', 'receipt_no']).where('id', '=', id).executeTakeFirstOrThrow();

describe('verify-payment: one provider check at a time', () => {
  test('verifies sent while a check is in flight wait for it: one intent read, every answer what it found', async () => {
    const ip = someAddress();
    const r = await pay(ip);
    const id = r.body.data.transaction_id;
    const intent = r.body.data.payment.id as string;
    hold = gate();
    const held = hold;
    const first = verify(id, ip);
    await held.reached;
    const others = Array.from({ length: 5 }, () => verify(id, ip));
    await Bun.sleep(300);
    held.release();
    const answers = await Promise.all([first, ...others]);
    expect(answers.map((x) => [x.status, x.body.data.status])).toEqual(answers.map(() => [200, 'Awaiting Payment']));
    expect(reads.get(intent)).toBe(1);
  });

  test('paid while a check was in flight: the next verify asks again and answers Complete; concurrent ones share one receipt', async () => {
    const ip = someAddress();
    const r = await pay(ip);
    const id = r.body.data.transaction_id;
    const intent = r.body.data.payment.id as string;
    expect((await verify(id, ip)).body.data.status).toBe('Awaiting Payment');
    // Paid, the webhook lost: the very next verify is not answered from the earlier check.
    (cardA.intent(intent)! as { status: string }).status = 'succeeded';
    hold = gate();
    const held = hold;
    const first = verify(id, ip);
    await held.reached;
    const others = Array.from({ length: 4 }, () => verify(id, ip));
    await Bun.sleep(300);
    held.release();
    const answers = await Promise.all([first, ...others]);
    const done = await row(id);
    expect(done.status).toBe('Complete');
    expect(answers.map((x) => [x.status, x.body.data.status, x.body.data.receipt_no])).toEqual(answers.map(() => [200, 'Complete', done.receipt_no]));
    expect(reads.get(intent)).toBe(2);
    // Complete: answered without asking.
    expect((await verify(id, ip)).body.data.status).toBe('Complete');
    expect(reads.get(intent)).toBe(2);
  });
});

describe("the back office's verify shares the storefront's flight", () => {
  test('a back-office verify-payment-status sent while the customer\'s verify asks card-a waits for it: one intent read', async () => {
    const ip = someAddress();
    const r = await pay(ip);
    const id = r.body.data.transaction_id;
    const intent = r.body.data.payment.id as string;
    const owner = await api.ownerToken(a);
    hold = gate();
    const held = hold;
    const first = verify(id, ip);
    await held.reached;
    const staff = api.call('POST', `/api/back-office/transactions/${id}/verify-payment-status`, { token: owner });
    await Bun.sleep(300);
    held.release();
    const [customer, backOffice] = await Promise.all([first, staff]);
    expect([customer.status, customer.body.data.status]).toEqual([200, 'Awaiting Payment']);
    expect(backOffice.status).toBe(200);
    expect(reads.get(intent)).toBe(1);
    // With none in flight, the back office asks card-a itself.
    expect((await api.call('POST', `/api/back-office/transactions/${id}/verify-payment-status`, { token: owner })).status).toBe(200);
    expect(reads.get(intent)).toBe(2);
  });
});

describe('verify-payment: throttled per client address and order', () => {
  test('the 61st verify of an order in a minute from one address is 429; another address or another order is not', async () => {
    const ip = someAddress();
    const r = await pay(ip);
    const id = r.body.data.transaction_id;
    const other = (await pay(ip)).body.data.transaction_id;
    for (let i = 0; i < 60; i++) expect((await verify(id, ip)).status).toBe(200);
    const before = reads.get(r.body.data.payment.id) ?? 0;
    const refused = await verify(id, ip);
    expect([refused.status, refused.body.message, typeof refused.body.retry_after]).toEqual([429, 'Too Many Attempts.', 'number']);
    expect(reads.get(r.body.data.payment.id)).toBe(before);
    expect((await verify(id, someAddress())).status).toBe(200);
    expect((await verify(other, ip)).status).toBe(200);
    // An unknown order is 404 and counts nothing.
    expect((await verify(crypto.randomUUID(), ip)).status).toBe(404);
  });
});
