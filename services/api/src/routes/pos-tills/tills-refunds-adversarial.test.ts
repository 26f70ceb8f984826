import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { call, line, sell, signIn, type Register } from './register-test-support.ts';

// Each run seeds its own merchants, so the file can run again on the same database.
const RUN = crypto.randomUUID().slice(0, 6);

// Probe 5: tills and refunds under races, bad input and another merchant.
let api: TestApi;
let cashier: Register;
let manager: Register;

beforeAll(async () => {
  api = await createTestApi();
  const m = await api.seed(`tr-adv-tills-${RUN}`);
  cashier = await signIn(api, m, 'cashier', 0);
  manager = await signIn(api, m, 'manager', 0);
});
afterAll(() => api.close());

describe('tills and refunds, adversarial: tills', () => {
  test('two registers opening a drawer till at once: one opens, one 409, one open till', async () => {
    const second = await signIn(api, manager.m, 'manager', 1);
    const [a, b] = await Promise.all([
      call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 1000 }),
      call(second, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 1000 }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const open = await manager.tdb.selectFrom('pos_tills').select(['id']).where('state', '=', 'open').where('mode', '=', 'register_drawer').execute();
    expect(open.length).toBe(1);
    // The tests below use the till: carry on with the register whose open won the race.
    if (b.status === 200) manager = second;
  });

  test('movement amounts must be positive integers in cents: 422, never 500, nothing written', async () => {
    const till = (await call(manager, 'GET', '/pos/tills/current')).body;
    expect(till.id).toBeString();
    for (const amount of [0, -100, 1.5, '100', null]) {
      const r = await call(manager, 'POST', `/pos/tills/${till.id}/movements`, { type: 'paid_in', amount, reason: 'x' });
      expect([amount, r.status]).toEqual([amount, 422]);
    }
    const bad = await call(manager, 'POST', `/pos/tills/${till.id}/movements`, { type: 'teleport', amount: 100 });
    expect(bad.status).toBe(422);
  });

  test('a count with a negative, fractional or absent counted is 422', async () => {
    const till = (await call(manager, 'GET', '/pos/tills/current')).body;
    for (const body of [{ counted: -1 }, { counted: 10.5 }, {}, { counted: '100' }]) {
      const r = await call(manager, 'POST', `/pos/tills/${till.id}/count`, body);
      expect([body, r.status]).toEqual([body, 422]);
    }
  });
});

describe('tills and refunds, adversarial: till amounts beyond 32 bits', () => {
  test('an opening float, a movement or a count above 2^31-1 cents is 422, never a 500', async () => {
    const r = await signIn(api, await api.seed(`tr-adv-big1-${RUN}`), 'manager', 0);
    const big = await call(r, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 2147483648 });
    expect(big.status).toBe(422);
    const till = (await call(r, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0 })).body;
    expect(till.id).toBeString();
    expect((await call(r, 'POST', `/pos/tills/${till.id}/movements`, { type: 'paid_in', amount: 2147483648 })).status).toBe(422);
    expect((await call(r, 'POST', `/pos/tills/${till.id}/end`)).status).toBe(200);
    expect((await call(r, 'POST', `/pos/tills/${till.id}/count`, { counted: 2147483648 })).status).toBe(422);
  });

  test('movements each accepted can never leave a till that cannot be counted: the count answers 200 (or the movement was refused)', async () => {
    const r = await signIn(api, await api.seed(`tr-adv-big2-${RUN}`), 'manager', 0);
    const till = (await call(r, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 1000 })).body;
    expect(till.id).toBeString();
    const moved = await call(r, 'POST', `/pos/tills/${till.id}/movements`, { type: 'paid_in', amount: 2147483647 });
    expect((await call(r, 'POST', `/pos/tills/${till.id}/end`)).status).toBe(200);
    const counted = await call(r, 'POST', `/pos/tills/${till.id}/count`, { counted: 0 });
    // Either the movement was refused as too large up front, or the till counts and closes normally.
    if (moved.status === 200) expect(counted.status).toBe(200);
    else expect(moved.status).toBe(422);
  });
});

describe('tills and refunds, adversarial: tenant isolation of till routes', () => {
  test('movements, count and close of another merchant\'s till are 404 and change nothing', async () => {
    const other = await api.seed(`tr-adv-tills-iso-${RUN}`);
    const stranger = await signIn(api, other, 'manager', 0);
    const foreign = (await call(stranger, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 500 })).body;
    expect(foreign.id).toBeString();
    const NF = { message: 'Unable to locate the till you requested.' };
    expect(await call(manager, 'POST', `/pos/tills/${foreign.id}/movements`, { type: 'paid_in', amount: 100 })).toMatchObject({ status: 404, body: NF });
    expect(await call(manager, 'POST', `/pos/tills/${foreign.id}/count`, { counted: 0 })).toMatchObject({ status: 404, body: NF });
    expect(await call(manager, 'POST', `/pos/tills/${foreign.id}/close`, {})).toMatchObject({ status: 404, body: NF });
    const after = await stranger.tdb.selectFrom('pos_tills').select(['state']).where('id', '=', foreign.id).executeTakeFirstOrThrow();
    expect(after.state).toBe('open');
  });

  test('business-day close and x-report: the cashier without close_business_day is 403', async () => {
    // A fresh merchant with no open till (an open till is a 409 open_tills checked before the permission, by design).
    const fresh = await signIn(api, await api.seed(`tr-adv-bd-${RUN}`), 'cashier', 0);
    expect((await call(fresh, 'POST', '/pos/business-day/close', {})).status).toBe(403);
    expect((await call(fresh, 'GET', '/pos/business-day')).status).toBe(200);
  });
});

describe('tills and refunds, adversarial: refunds', () => {
  test('two overlapping partial refunds at once: one 200, one 409 already_refunded, never a 500', async () => {
    const sale = await sell(cashier, [line(cashier, 'Espresso'), line(cashier, 'Croissant'), line(cashier, 'Espresso')], { amount_tendered: 1000 });
    const [a, b, c] = (sale.body.lines as { uuid: string }[]).map((l) => l.uuid);
    const results = await Promise.all([
      call(manager, 'POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [a, b] }),
      call(manager, 'POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [b, c] }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)!.body.reason).toBe('already_refunded');
  });

  test('two disjoint partial refunds at once both pass', async () => {
    const sale = await sell(cashier, [line(cashier, 'Espresso'), line(cashier, 'Croissant')], { amount_tendered: 1000 });
    const [a, b] = (sale.body.lines as { uuid: string }[]).map((l) => l.uuid);
    const results = await Promise.all([
      call(manager, 'POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [a] }),
      call(manager, 'POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [b] }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
  });

  test('another merchant\'s sale is 404', async () => {
    const sale = await sell(cashier, [line(cashier, 'Espresso')], { amount_tendered: 500 });
    const other = await api.seed(`tr-adv-tills-other-${RUN}`);
    const stranger = await signIn(api, other, 'manager', 0);
    await call(stranger, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0 });
    const r = await call(stranger, 'POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'full' });
    expect(r).toMatchObject({ status: 404, body: { message: 'Unable to locate the transaction you requested.' } });
  });
});
