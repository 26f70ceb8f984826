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

describe('resend-receipt is no mail relay', () => {
  const resend = (token: string, id: string, email: string) => api.call('POST', `/api/back-office/transactions/${id}/resend-receipt`, { token, body: { email } });
  const inbox = (tag: string) => `${tag}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const sub = (address: string, n: number | string) => address.replace('@', `+${n}@`);

  test('one inbox, 10 an hour: its sub-addresses and its case count as that inbox', async () => {
    const user = await someUser();
    const victim = inbox('victim');
    const ids = await Promise.all([order(), order(), order()]);
    // Before: each `victim+N@` had ten of its own.
    for (let n = 0; n < 10; n++) expect((await resend(user, ids[Math.floor(n / 5)]!, sub(victim, n))).status).toBe(200);
    expect(throttled(await resend(user, ids[2]!, sub(victim, 'last').toUpperCase()))).toEqual([429, 'Too Many Attempts.', 'number']);
    expect((await resend(user, ids[2]!, inbox('someone-else'))).status).toBe(200);
  });

  test('per user: 30 an hour over many transactions and inboxes; another user is not held back', async () => {
    const [one, two] = [await someUser(), await someUser()];
    const ids = await Promise.all(Array.from({ length: 7 }, () => order()));
    const inboxes = [inbox('a'), inbox('b'), inbox('c'), inbox('d')];
    for (let n = 0; n < 30; n++) expect((await resend(one, ids[Math.floor(n / 5)]!, inboxes[n % 4]!)).status).toBe(200);
    expect(throttled(await resend(one, ids[6]!, inbox('e')))).toEqual([429, 'Too Many Attempts.', 'number']);
    expect((await resend(two, ids[6]!, inbox('f'))).status).toBe(200);
  });

  test('per merchant: 100 an hour, whichever users send them', async () => {
    const own = await api.seed('tx-throttle-merchant');
    const users = await Promise.all(Array.from({ length: 4 }, () => limitedUserToken(api, own, ['VIEW_TRANSACTIONS'], own.locations.map((l) => l.id))));
    const ids = await Promise.all(Array.from({ length: 21 }, async () => (await makeOrder(api, own, {})).id as string));
    for (let n = 0; n < 100; n++) expect((await resend(users[Math.floor(n / 25)]!, ids[Math.floor(n / 5)]!, inbox(`m${n}`))).status).toBe(200);
    const fifth = await limitedUserToken(api, own, ['VIEW_TRANSACTIONS'], own.locations.map((l) => l.id));
    expect(throttled(await resend(fifth, ids[20]!, inbox('m-last')))).toEqual([429, 'Too Many Attempts.', 'number']);
    // Another merchant's users are not held back.
    expect((await resend(await someUser(), await order(), inbox('elsewhere'))).status).toBe(200);
  });
});
