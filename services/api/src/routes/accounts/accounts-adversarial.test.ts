import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

// An adversarial pass on the back-office accounts (identity): guessing second-factor codes across
// pending sign-ins. Real PostgreSQL, Redis and SMTP catcher.
let api: TestApi;
let m: DemoSeedResult;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('acc-adv');
});
afterAll(() => api.close());

const run = Math.floor(Math.random() * 250);
let ipSeq = 0;
const ip = () => `10.${run}.${200 + Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;

/** A verified member with two-factor sign-in on, and their password. */
async function twoFactorMember() {
  const tag = crypto.randomUUID().slice(0, 8);
  const member = await makeMember(api, m, ['VIEW_ITEMS']);
  const password = `pass-${tag}-secret`;
  const { hashSecret } = await import('@pos/core/security/passwords');
  await api.deps.db.updateTable('users').set({ two_factor_enabled: true, password_hash: await hashSecret(password) }).where('id', '=', member.userId).execute();
  return { email: member.email, password };
}

async function pendingSignIn(email: string, password: string): Promise<string> {
  const r = await api.call('POST', '/api/login', { ip: ip(), body: { email, password } });
  expect(r.body.status).toBe('two_factor_required');
  const loginToken = r.body.login_token as string;
  expect((await api.call('POST', '/api/back-office/request-otp', { ip: ip(), body: { login_token: loginToken } })).status).toBe(200);
  return loginToken;
}

describe('second factor: guesses are bounded per user, not only per pending sign-in', () => {
  test('20 codes per user per hour across sign-ins and addresses: the 21st attempt is 429 (even the right code) and is not counted against its sign-in', async () => {
    const { email, password } = await twoFactorMember();
    const answers: string[] = [];
    for (let s = 0; s < 4; s++) {
      const loginToken = await pendingSignIn(email, password);
      for (let i = 0; i < 5; i++) {
        const r = await api.call('POST', '/api/back-office/verify-otp', { ip: ip(), body: { login_token: loginToken, code: '000000' } });
        answers.push(`${r.status} ${r.body.errors?.code?.[0]}`);
      }
    }
    expect(answers.filter((a) => a.startsWith('422')).length).toBe(20);
    const loginToken = await pendingSignIn(email, password);
    const mailed = await api.mail!.waitFor(email, (x) => x.subject.startsWith('Your sign-in code') && x.text.length > 0);
    const code = /is (\d{6})\./.exec(mailed.text)![1]!;
    const over = await api.call('POST', '/api/back-office/verify-otp', { ip: ip(), body: { login_token: loginToken, code } });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
    // Refused before the sign-in's own counter: nothing was spent on it.
    const row = await api.deps.db
      .selectFrom('otp_challenges')
      .innerJoin('users', 'users.id', 'otp_challenges.user_id')
      .select(['otp_challenges.attempts', 'otp_challenges.completed_at'])
      .where('users.email', '=', email)
      .orderBy('otp_challenges.created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ attempts: 0, completed_at: null });
    // Another user is not affected.
    const other = await twoFactorMember();
    const otherToken = await pendingSignIn(other.email, other.password);
    expect((await api.call('POST', '/api/back-office/verify-otp', { ip: ip(), body: { login_token: otherToken, code: '000000' } })).status).toBe(422);
  });
});

describe('profile: a field left out of PUT /back-office/user-personal-info is kept', () => {
  test('turning two-factor on (name only, as the app sends it) keeps the phone; null clears it', async () => {
    const member = await makeMember(api, m, ['VIEW_ITEMS']);
    const put = (body: unknown) => api.call('PUT', '/api/back-office/user-personal-info', { token: member.token, body });
    expect((await put({ name: 'Pat', phone: '+32 470 11 22 33' })).body.data).toMatchObject({ name: 'Pat', phone: '+32 470 11 22 33', two_factor_enabled: false });
    const on = await put({ name: 'Pat', two_factor_enabled: true });
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ name: 'Pat', phone: '+32 470 11 22 33', two_factor_enabled: true });
    expect(await api.deps.db.selectFrom('users').select(['phone', 'two_factor_enabled']).where('id', '=', member.userId).executeTakeFirstOrThrow()).toEqual({ phone: '+32 470 11 22 33', two_factor_enabled: true });
    expect((await put({ name: 'Pat', phone: null })).body.data).toMatchObject({ phone: null, two_factor_enabled: true });
  });
});
