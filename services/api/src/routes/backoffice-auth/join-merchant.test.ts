import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { dropInvitationMailJobs, mailedInvitationToken, runInvitationMailJobs } from '../../testing/invitation-mail-jobs.ts';

let api: TestApi;
let m: DemoSeedResult;
let owner: string;
const email = `joiner-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** The token as the invitee reads it: from the invitation mail the worker's job sends. */
async function inviteToken(): Promise<string> {
  await runInvitationMailJobs(api);
  return mailedInvitationToken(api, email);
}

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('join');
  owner = await api.ownerToken(m);
  const r = await api.call('POST', '/api/back-office/settings/team/users', { token: owner, body: { email, name: 'Jo Joiner', role_ids: [], location_ids: [m.locations[0]!.id] } });
  expect(r.status).toBe(200);
});
afterAll(async () => {
  await dropInvitationMailJobs(api, [m.merchant.id]);
  await api.close();
});

describe('join-merchant (accepting a team invitation)', () => {
  test('details, acceptance with a password, then sign-in; the token works once', async () => {
    const token = await inviteToken();
    const d = await api.call('GET', `/api/back-office/join-merchant?token=${token}`);
    expect(d.status).toBe(200);
    expect(d.body.data).toEqual({ merchant_name: expect.any(String), email, name: 'Jo Joiner', expires_at: expect.any(String), requires_password: true });
    expect((await api.call('POST', '/api/back-office/join-merchant', { body: { token } })).body.errors).toEqual({ password: ['The password field must be at least 8 characters.'] });
    const ok = await api.call('POST', '/api/back-office/join-merchant', { body: { token, password: 'joiner-password-1' } });
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe('Bearer');
    const me = await api.call('GET', '/api/back-office/user', { token: ok.body.token });
    expect(me.body.data).toMatchObject({ email, merchant: { id: m.merchant.id } });
    const login = await api.call('POST', '/api/login', { body: { email, password: 'joiner-password-1' } });
    expect(login.status).toBe(200);
    expect(login.body.token).toEqual(expect.any(String));
    expect(await api.call('POST', '/api/back-office/join-merchant', { body: { token, password: 'joiner-password-1' } })).toMatchObject({
      status: 422,
      body: { errors: { token: ['This invitation is invalid or has expired.'] } },
    });
    expect((await api.call('GET', `/api/back-office/join-merchant?token=${token}`)).status).toBe(404);
    const members = await api.call('GET', '/api/back-office/settings/team/users', { token: owner });
    expect(members.body.data.find((u: { email: string }) => u.email === email).status).toBe('active');
  });
});
