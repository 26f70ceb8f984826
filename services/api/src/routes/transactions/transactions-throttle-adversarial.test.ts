import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { makeOrder } from '../customer-account/customer-test-support.ts';

// Back-office rechecks and register re-syncs are throttled (docs/decisions.md "Payment verification
// under repeated calls"): each verify may ask a provider, each retry-sync queues a dispatch job.
let api: TestApi;
let m: DemoSeedResult;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('tx-throttle');
}, 60_000);
afterAll(async () => {
  await api.close();
});

/** A user of its own per test (throttle windows outlive a run). */
const someUser = () => limitedUserToken(api, m, ['VIEW_TRANSACTIONS'], m.locations.map((l) => l.id));
const order = async () => (await makeOrder(api, m, {})).id as string;
const post = (token: string, id: string, action: string) => api.call('POST', `/api/back-office/transactions/${id}/${action}`, { token });
const throttled = (r: { status: number; body: any }) => [r.status, r.body.message, typeof r.body.retry_after];

describe.each([
  ['verify-payment-status', 10, 60],
  ['retry-sync', 5, 30],
] as const)('%s', (action, perTransaction, perUser) => {
  test(`per transaction: call ${perTransaction + 1} in a minute is 429, whoever asks; another transaction is not`, async () => {
    const [one, two] = [await someUser(), await someUser()];
    const id = await order();
    for (let i = 0; i < perTransaction; i++) expect((await post(one, id, action)).status).toBe(200);
    expect(throttled(await post(one, id, action))).toEqual([429, 'Too Many Attempts.', 'number']);
    expect(throttled(await post(two, id, action))).toEqual([429, 'Too Many Attempts.', 'number']);
    expect((await post(one, await order(), action)).status).toBe(200);
  });

  test(`per user: call ${perUser + 1} in a minute over many transactions is 429; another user is not; a 404 counts nothing`, async () => {
    const [one, two] = [await someUser(), await someUser()];
    const ids = await Promise.all(Array.from({ length: perUser / perTransaction + 1 }, () => order()));
    expect((await post(one, crypto.randomUUID(), action)).status).toBe(404);
    for (const id of ids.slice(0, -1)) for (let i = 0; i < perTransaction; i++) expect((await post(one, id, action)).status).toBe(200);
    const last = ids[ids.length - 1]!;
    expect(throttled(await post(one, last, action))).toEqual([429, 'Too Many Attempts.', 'number']);
    expect((await post(two, last, action)).status).toBe(200);
  });
});
