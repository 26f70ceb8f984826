import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { createTestApi, type CallResult, type TestApi } from '../../testing/harness.ts';
import { call, line, sell, signIn, type Register } from './register-test-support.ts';

// A cash sale holds its till (FOR SHARE) from the moment it picks it until it commits, so the till
// cannot end, be counted and close in between: cash is never booked to a till whose count missed it.
// The race is made deterministic by holding the fiscal counters (the sale waits on them while it
// holds the till) until the end, count and close have had every chance to run.

let api: TestApi;
let cashier: Register;
let manager: Register;

beforeAll(async () => {
  api = await createTestApi();
  const m = await api.seed('till-race');
  cashier = await signIn(api, m, 'cashier', 0);
  manager = await signIn(api, m, 'manager', 0);
});
afterAll(() => api.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `n` backends of this database wait on a row lock, or `ms` passed. */
async function lockWaiters(n: number, ms = 3000): Promise<number> {
  const until = Date.now() + ms;
  let waiting = 0;
  while (Date.now() < until) {
    const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(cashier.tdb);
    waiting = r.rows[0]!.n;
    if (waiting >= n) return waiting;
    await sleep(20);
  }
  return waiting;
}

describe('a cash sale racing the end and close of its till', () => {
  test('never books cash to a till that ended, was counted or closed without it', async () => {
    const opened = await call(cashier, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 0 });
    expect(opened.status).toBe(200);
    const tillId = opened.body.id as string;
    await sell(cashier, [line(cashier, 'Croissant')], { amount_tendered: 220 }); // creates the counter rows the sale will wait on

    const orderId = crypto.randomUUID();
    expect((await call(cashier, 'PUT', `/pos/orders/${orderId}`, { lines: [line(cashier, 'Espresso', 2)] })).status).toBe(200);

    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const holding = cashier.tdb.transaction().execute(async (tx) => {
      await tx.selectFrom('fiscal_counters').selectAll().forUpdate().execute();
      await released;
    });
    await sleep(50);

    const settle = call(cashier, 'POST', `/pos/orders/${orderId}/settle`, { amount_tendered: 560 });
    expect(await lockWaiters(1)).toBeGreaterThanOrEqual(1); // the sale holds the till and waits on the counters

    const closing = (async (): Promise<CallResult[]> => {
      const end = await call(manager, 'POST', `/pos/tills/${tillId}/end`);
      const count = await call(manager, 'POST', `/pos/tills/${tillId}/count`, { counted: 220 });
      const close = await call(manager, 'POST', `/pos/tills/${tillId}/close`, {});
      return [end, count, close];
    })();
    // With the till lock, the end waits behind the sale; without it, end, count and close all run now.
    await Promise.race([closing, lockWaiters(2, 1500)]);
    release();
    await holding;

    const sold = await settle;
    const [end, count, close] = await closing;
    expect(sold.status).toBe(200);
    expect([end!.status, count!.status, close!.status]).toEqual([200, 200, 200]);

    const till = await cashier.tdb.selectFrom('pos_tills').selectAll().where('id', '=', tillId).executeTakeFirstOrThrow();
    const booked = await cashier.tdb.selectFrom('pos_transactions').select(['order_id', 'till_id']).where('order_id', '=', orderId).executeTakeFirstOrThrow();
    expect(till.state).toBe('closed');
    // The sale started while the till was open, so it is booked to it, and the count saw its cash.
    expect(booked.till_id).toBe(tillId);
    expect(till.expected_at_count).toBe(220 + 560);
  });
});
