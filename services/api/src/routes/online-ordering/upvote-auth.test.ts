import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeCustomer } from '../customer-account/customer-test-support.ts';

// Spec 1 section 7: "401 | token present but invalid, expired or mis-signed | `Invalid token`".
// decisions.md: "logout revokes the jti in Redis. A token whose customer was erased is `401 Invalid token` on every customer route."
let api: TestApi;
let a: DemoSeedResult;
beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('upvote-auth');
  const r = await api.call('PUT', `/api/back-office/online-ordering/${a.locations[0]!.id}`, { token: await api.ownerToken(a), body: { enabled: true, latitude: 50.85, longitude: 4.35, categories: ['pizza'] } });
  if (r.status !== 200) throw new Error(`listing failed ${r.status} ${r.text}`);
}, 60_000);
afterAll(async () => {
  await api.close();
});
const upvote = (token: string) => api.call('POST', '/api/online-ordering/restaurant-suggestions/upvote', { body: { location_id: a.locations[0]!.id }, token });

describe('restaurant upvote: a customer token that is sent must be live', () => {
  test('a customer token revoked by POST /customer/logout is 401 Invalid token', async () => {
    const c = await makeCustomer(api, a);
    expect((await api.call('POST', '/api/customer/logout', { token: c.token })).status).toBe(200);
    expect((await api.call('GET', '/api/customer/user', { token: c.token })).status).toBe(401);
    const r = await upvote(c.token);
    expect(r).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
  });

  test("an erased customer's token is 401 Invalid token", async () => {
    const c = await makeCustomer(api, a);
    // Erased through the back office (decisions: "DELETE /customers/{id} erases").
    const del = await api.call('DELETE', `/api/back-office/customers/${c.id}`, { token: await api.ownerToken(a) });
    expect(del.status).toBe(200);
    expect((await api.call('GET', '/api/customer/user', { token: c.token })).status).toBe(401);
    const r = await upvote(c.token);
    expect(r).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
  });
});
