import { describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { REQUEST_IN_PROGRESS, REQUEST_KEY_INVALID, REQUEST_KEY_REUSED } from '@pos/domain';
import type { CardASimulator, CardBSimulator } from '@pos/providers/payments';
import type { TestApi } from '../../testing/harness.ts';
import { someAddress, storefrontTestbed } from './online-payments.test-support.ts';

// Retried and repeated storefront payment requests (docs/decisions.md "Online and table ordering
// robustness"): a double click or a client retry must not create two orders and two payments. Real
// PostgreSQL, Redis and the card-a / card-b simulators over HTTP.
let cardA: CardASimulator, cardB: CardBSimulator, apiA: TestApi, apiB: TestApi, a: DemoSeedResult, b: DemoSeedResult;
storefrontTestbed('retries', 'opretry', (bed) => ({ cardA, cardB, apiA, apiB, a, b } = bed));

const freshKey = () => `idemp_browser-${crypto.randomUUID().slice(0, 8)}_${Date.now()}`;
const payA = (body: Record<string, unknown>, headers: Record<string, string>, ip: string) =>
  apiA.call('POST', `/api/online-ordering/${a.merchant.slug}/${a.online_ordering.location_id}/payment`, { body, headers, ip });
const rowsOfKey = (key: string) => bindTenant(apiA.deps.db, a.merchant.tenant_database).selectFrom('transactions').select(['id', 'status', 'request_key']).where('request_key', '=', key).execute();
const txCount = async (api: TestApi, m: DemoSeedResult) =>
  Number((await bindTenant(api.deps.db, m.merchant.tenant_database).selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);

describe('Idempotency-Key on the storefront payment', () => {
  test('a retry with the same key answers the same order and the same card-a intent; one order is stored', async () => {
    const key = freshKey();
    const ip = someAddress();
    const body = { lines: [{ item_id: a.items[0]!.id, qty: 1 }], customer: { name: 'Ann Peeters' } };
    const first = await payA(body, { 'idempotency-key': key }, ip);
    expect(first.status).toBe(200);
    const before = await txCount(apiA, a);
    // The client wrote its keys in another order: the same request.
    const again = await payA({ customer: { name: 'Ann Peeters' }, lines: [{ qty: 1, item_id: a.items[0]!.id }] }, { 'idempotency-key': key }, ip);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(first.body.data.payment.client_secret).toEqual(expect.any(String));
    expect(await txCount(apiA, a)).toBe(before);
    expect(await rowsOfKey(key)).toEqual([{ id: first.body.data.transaction_id, status: 'Awaiting Payment', request_key: key }]);
  });

  test('a double click (two requests at once with one key) stores one order; each answer is that order or 409 request_in_progress', async () => {
    const key = freshKey();
    const ip = someAddress();
    const body = { lines: [{ item_id: a.items[0]!.id, qty: 2 }] };
    const answers = await Promise.all([payA(body, { 'idempotency-key': key }, ip), payA(body, { 'idempotency-key': key }, ip), payA(body, { 'idempotency-key': key }, ip)]);
    const rows = await rowsOfKey(key);
    expect(rows.length).toBe(1);
    for (const r of answers) {
      if (r.status === 200) expect(r.body.data.transaction_id).toBe(rows[0]!.id);
      else expect([r.status, r.body.message, r.body.reason]).toEqual([409, REQUEST_IN_PROGRESS, 'request_in_progress']);
    }
    expect(answers.some((r) => r.status === 200)).toBe(true);
    // Once started, the retry answers it.
    const later = await payA(body, { 'idempotency-key': key }, ip);
    expect([later.status, later.body.data.transaction_id]).toEqual([200, rows[0]!.id]);
  });

  test('the key with another basket is 409 idempotency_key_reused and stores nothing', async () => {
    const key = freshKey();
    const ip = someAddress();
    const first = await payA({ lines: [{ item_id: a.items[0]!.id, qty: 1 }] }, { 'idempotency-key': key }, ip);
    expect(first.status).toBe(200);
    const before = await txCount(apiA, a);
    const other = await payA({ lines: [{ item_id: a.items[0]!.id, qty: 5 }] }, { 'idempotency-key': key }, ip);
    expect([other.status, other.body.message, other.body.reason]).toEqual([409, REQUEST_KEY_REUSED, 'idempotency_key_reused']);
    expect(JSON.stringify(other.body)).not.toContain(first.body.data.payment.client_secret);
    expect(await txCount(apiA, a)).toBe(before);
  });

  test('a malformed key is 422 on Idempotency-Key and stores nothing; without a key every request is a new order', async () => {
    const ip = someAddress();
    const before = await txCount(apiA, a);
    const bad = await payA({ lines: [{ item_id: a.items[0]!.id, qty: 1 }] }, { 'idempotency-key': "x'; drop--" }, ip);
    expect([bad.status, bad.body.errors]).toEqual([422, { 'Idempotency-Key': [REQUEST_KEY_INVALID] }]);
    expect(await txCount(apiA, a)).toBe(before);
    const one = await payA({ lines: [{ item_id: a.items[0]!.id, qty: 1 }] }, {}, ip);
    const two = await payA({ lines: [{ item_id: a.items[0]!.id, qty: 1 }] }, {}, ip);
    expect(one.body.data.transaction_id).not.toBe(two.body.data.transaction_id);
  });

  test('the same key at another location is another request', async () => {
    const key = freshKey();
    const ip = someAddress();
    const first = await payA({ lines: [{ item_id: a.items[0]!.id, qty: 1 }] }, { 'idempotency-key': key }, ip);
    // Another merchant's storefront with the same key: its own order, nothing of a's answered.
    const other = await apiB.call('POST', `/api/online-ordering/${b.merchant.slug}/${b.online_ordering.location_id}/payment`, { body: { lines: [{ item_id: b.items[0]!.id, qty: 1 }] }, headers: { 'idempotency-key': key }, ip });
    expect(other.status).toBe(200);
    expect(other.body.data.transaction_id).not.toBe(first.body.data.transaction_id);
  });

  test('legacy card-b: a retry answers the same order code and redirect, no second card-b order', async () => {
    const key = freshKey();
    const ip = someAddress();
    const pay = () => apiB.call('POST', `/api/online-ordering/${b.merchant.slug}/${b.online_ordering.location_id}/payment`, { body: { lines: [{ item_id: b.items[0]!.id, qty: 1 }] }, headers: { 'idempotency-key': key }, ip });
    const first = await pay();
    expect(first.status).toBe(200);
    const before = await txCount(apiB, b);
    const again = await pay();
    expect(again.body).toEqual(first.body);
    expect(again.body.data.payment).toEqual({ orderCode: expect.any(String), redirectUrl: expect.stringContaining(first.body.data.payment.orderCode) });
    expect(await txCount(apiB, b)).toBe(before);
  });
});

describe('an Idempotency-Key whose order was left Pending (the request died before its payment started)', () => {
  /** Puts an order back as a request that died after storing it leaves it, stored `ageMs` ago. */
  const orphan = (api: TestApi, m: DemoSeedResult, id: string, ageMs: number) =>
    bindTenant(api.deps.db, m.merchant.tenant_database)
      .updateTable('transactions')
      .set({ status: 'Pending', payment_snapshot: sql`jsonb_build_object('idempotency_key', idempotency_key)`, created_at: new Date(Date.now() - ageMs) })
      .where('id', '=', id)
      .execute();
  const snapshotOf = async (api: TestApi, m: DemoSeedResult, id: string) =>
    bindTenant(api.deps.db, m.merchant.tenant_database).selectFrom('transactions').select(['status', 'payment_snapshot']).where('id', '=', id).executeTakeFirstOrThrow();

  test('card-a: while young, 409 request_in_progress; after a minute the retry starts the same order (card-a answers its intent again), one order', async () => {
    const key = freshKey();
    const ip = someAddress();
    const body = { lines: [{ item_id: a.items[0]!.id, qty: 1 }] };
    const first = await payA(body, { 'idempotency-key': key }, ip);
    const id = first.body.data.transaction_id;
    await orphan(apiA, a, id, 5_000);
    const young = await payA(body, { 'idempotency-key': key }, ip);
    expect([young.status, young.body.reason]).toEqual([409, 'request_in_progress']);
    await orphan(apiA, a, id, 61_000);
    const resumed = await payA(body, { 'idempotency-key': key }, ip);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual(first.body);
    expect(await rowsOfKey(key)).toEqual([{ id, status: 'Awaiting Payment', request_key: key }]);
    expect((await snapshotOf(apiA, a, id)).payment_snapshot).toMatchObject({ provider: 'card-a', id: first.body.data.payment.id });
    // Started: the next retry answers it as any retry.
    expect((await payA(body, { 'idempotency-key': key }, ip)).body).toEqual(first.body);
  });

  test('card-b: the retry of an orphaned order creates its card-b order, stored on that order; retries answer it', async () => {
    const key = freshKey();
    const ip = someAddress();
    const pay = () => apiB.call('POST', `/api/online-ordering/${b.merchant.slug}/${b.online_ordering.location_id}/payment`, { body: { lines: [{ item_id: b.items[0]!.id, qty: 1 }] }, headers: { 'idempotency-key': key }, ip });
    const first = await pay();
    const id = first.body.data.transaction_id;
    await orphan(apiB, b, id, 120_000);
    const before = await txCount(apiB, b);
    const resumed = await pay();
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ transaction_id: id, order_no: first.body.data.order_no, provider: 'card-b' });
    const stored = await snapshotOf(apiB, b, id);
    expect(stored.status).toBe('Awaiting Payment');
    expect(stored.payment_snapshot).toMatchObject({ provider: 'card-b', orderCode: resumed.body.data.payment.orderCode });
    expect(await txCount(apiB, b)).toBe(before);
    expect((await pay()).body).toEqual(resumed.body);
  });

  test('three retries of an orphaned order at once start it once: one card-b order, every answer names it', async () => {
    const key = freshKey();
    const ip = someAddress();
    const pay = () => apiB.call('POST', `/api/online-ordering/${b.merchant.slug}/${b.online_ordering.location_id}/payment`, { body: { lines: [{ item_id: b.items[0]!.id, qty: 2 }] }, headers: { 'idempotency-key': key }, ip });
    const id = (await pay()).body.data.transaction_id;
    await orphan(apiB, b, id, 120_000);
    const answers = await Promise.all([pay(), pay(), pay()]);
    const stored = await snapshotOf(apiB, b, id);
    expect(answers.map((r) => [r.status, r.body.data.transaction_id, r.body.data.payment.orderCode])).toEqual(answers.map(() => [200, id, stored.payment_snapshot.orderCode]));
  });
});
