import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startSmtpCatcher, type SmtpCatcher } from '@pos/providers/mail/smtp-catcher';
import { startIdpSimulator, type IdpSimulator } from '@pos/providers/idp/idp-simulator';
import { sha256 } from '@pos/core/accounts/account-tokens';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { SoftAuthenticator } from '../../testing/soft-authenticator.ts';
import { runAccountMailJobs } from '../../testing/account-mail-jobs.ts';
import { invitationTokenIn, runInvitationMailJobs } from '../../testing/invitation-mail-jobs.ts';
import { PASSKEY_REJECTED, authenticatePasskey, registerPasskey } from '@pos/core/accounts/passkeys';
import { updatePassword } from '@pos/core/accounts/sign-up';
import { startPendingLogin } from '@pos/core/accounts/second-factor';
import { BAD_CREDENTIALS, signIn } from '@pos/core/identity/sign-in';
import { signSession } from '@pos/core/identity/sign-in-proof';
import { errors } from '@pos/kernel';
import { assertSessionLive } from '@pos/core/auth/revocation';
import { relyingParty } from './index.ts';

let api: TestApi;
let mail: SmtpCatcher;
let idp: IdpSimulator;
let other: DemoSeedResult;
const ORIGIN = 'http://localhost:3999';
const registered: string[] = [];
let ipSeq = 0;
/** A fresh client address per test, so the per-address throttles of one test do not reach the next. */
const run = Math.floor(Math.random() * 250);
const ip = () => `10.${run}.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;

beforeAll(async () => {
  mail = await startSmtpCatcher();
  idp = await startIdpSimulator({ clientId: 'backoffice-client' });
  api = await createTestApi({
    env: { SMTP_URL: mail.smtpUrl, MAIL_FROM: 'Ordering <no-reply@test.local>', APP_URL: 'http://bo.test', IDP_ISSUER: idp.issuer, IDP_CLIENT_ID: 'backoffice-client', WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGIN: ORIGIN },
  });
  other = await api.seed('acct-other');
});
afterAll(async () => {
  for (const email of registered) {
    const m = await api.deps.db.selectFrom('users').innerJoin('memberships', 'memberships.user_id', 'users.id').innerJoin('merchants', 'merchants.id', 'memberships.merchant_id').select(['merchants.id', 'merchants.tenant_database']).where('users.email', '=', email).where('memberships.is_owner', '=', true).executeTakeFirst();
    if (m) await (await import('@pos/core/merchants/create-merchant')).dropMerchant(api.deps.db, m);
  }
  await api.close();
  await mail.stop();
  await idp.stop();
}, 120_000);

/** A copy to assert on: bun's toMatchObject writes its asymmetric matchers into the object it is given. */
const snap = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v) => (k === 'headers' ? undefined : v)));
const uniqueEmail = (p: string) => `${p}-${crypto.randomUUID().slice(0, 8)}@example.com`;
const tokenIn = (text: string, label: string) => new RegExp(`${label}: (\\S+)`).exec(text)![1]!;

async function register(email = uniqueEmail('owner'), password = 'correct horse 1') {
  registered.push(email);
  const r = await api.call('POST', '/api/back-office/register', { ip: ip(), body: { name: 'Nora Owner', email, password, business_name: 'Nora Bakery' } });
  return { r, email, password };
}
async function verified(email?: string) {
  const u = await register(email);
  const m = await mail.waitFor(u.email, (x) => x.subject === 'Verify your e-mail address');
  expect((await api.call('POST', '/api/back-office/verify-email', { ip: ip(), body: { token: tokenIn(m.text, 'Verification token') } })).status).toBe(200);
  return u;
}
const login = (email: string, password: string) => api.call('POST', '/api/login', { body: { email, password }, ip: ip() });

describe('POST /back-office/register and verify-email', () => {
  test('creates the merchant and its schema, answers verification_required, mails a token stored only hashed', async () => {
    const { r, email, password } = await register();
    expect(snap(r)).toMatchObject({ status: 200, body: { status: 'verification_required', email } });
    expect(r.body.token).toBeUndefined();
    const user = await api.deps.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    expect(user.email_verified_at).toBeNull();
    const merchant = await api.deps.db.selectFrom('merchants').innerJoin('memberships', 'memberships.merchant_id', 'merchants.id').selectAll('merchants').select('memberships.is_owner').where('memberships.user_id', '=', user.id).executeTakeFirstOrThrow();
    expect(merchant).toMatchObject({ name: 'Nora Bakery', is_owner: true });
    const schema = await api.deps.db.selectFrom('tenant_schema_versions').select('schema_name').where('schema_name', '=', merchant.tenant_database).executeTakeFirst();
    expect(schema?.schema_name).toBe(merchant.tenant_database);

    const m = await mail.waitFor(email);
    expect(m.subject).toBe('Verify your e-mail address');
    expect(m.from).toContain('no-reply@test.local');
    const token = tokenIn(m.text, 'Verification token');
    expect(m.html).toContain(`http://bo.test/verify-email?token=${token}`);
    const rows = await api.deps.db.selectFrom('account_tokens').selectAll().where('user_id', '=', user.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(sha256(token));
    expect(JSON.stringify(rows)).not.toContain(token);

    // Unverified: password login answers verification_required, no token.
    expect(await login(email, password)).toMatchObject({ status: 200, body: { status: 'verification_required', email } });
    expect(await api.call('POST', '/api/back-office/verify-email', { ip: ip(), body: { token } })).toMatchObject({ status: 200, body: { status: 'success' } });
    // Single use.
    expect(await api.call('POST', '/api/back-office/verify-email', { ip: ip(), body: { token } })).toMatchObject({
      status: 422,
      body: { message: 'This token is invalid or has expired.', errors: { token: ['This token is invalid or has expired.'] } },
    });
    const signed = await login(email, password);
    expect(signed.status).toBe(200);
    expect(signed.body).toEqual({ token: expect.any(String), token_type: 'Bearer', expires_in: 43200 });
    // The new owner holds every permission on its own merchant.
    const team = await api.call('GET', '/api/back-office/user', { token: signed.body.token });
    expect(team.body.data).toMatchObject({ email, name: 'Nora Owner', two_factor_enabled: false, merchant: { id: merchant.id, name: 'Nora Bakery' } });
  });

  test('a taken e-mail is 422 and creates nothing; bad input is 422 with field errors', async () => {
    const before = await api.deps.db.selectFrom('merchants').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const r = await api.call('POST', '/api/back-office/register', { ip: ip(), body: { name: 'X', email: other.backoffice.email, password: 'long-enough-1', business_name: 'X' } });
    expect(snap(r)).toMatchObject({ status: 422, body: { message: 'The email has already been taken.', errors: { email: ['The email has already been taken.'] } } });
    const bad = await api.call('POST', '/api/back-office/register', { ip: ip(), body: { name: 'X', email: 'nope', password: 'short', business_name: 'X' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toMatchObject({ email: ['The email field must be a valid email address.'], password: ['The password field must be at least 8 characters.'] });
    const after = await api.deps.db.selectFrom('merchants').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  test('an address only invited to a team signs up its own business: the invited account is completed and its invitation stays open; then the address is taken', async () => {
    const owner = await api.ownerToken(other);
    const invite = async (email: string) => {
      const r = await api.call('POST', '/api/back-office/settings/team/users', { token: owner, body: { email, name: 'Ivy Invited', role_ids: [], location_ids: [other.locations[0]!.id] } });
      expect(r.status).toBe(200);
      // The token as the invitee reads it: in the mail the worker's job sends.
      await runInvitationMailJobs(api);
      return invitationTokenIn((await mail.waitFor(email, (x) => x.subject.startsWith('You are invited to join '))).text);
    };
    const email = uniqueEmail('invited');
    const inviteToken = await invite(email);
    // Before: 422 `The email has already been taken.` (the invitation had created the account).
    const { r, password } = await register(email);
    expect(snap(r)).toMatchObject({ status: 200, body: { status: 'verification_required', email } });
    const m = await mail.waitFor(email, (x) => x.subject === 'Verify your e-mail address');
    expect((await api.call('POST', '/api/back-office/verify-email', { ip: ip(), body: { token: tokenIn(m.text, 'Verification token') } })).status).toBe(200);
    const signed = (await login(email, password)).body.token as string;
    expect((await api.call('GET', '/api/back-office/user', { token: signed })).body.data).toMatchObject({ email, name: 'Nora Owner', merchant: { name: 'Nora Bakery' } });
    // One account: the invitation's. Its invitation is still open (pending: not a merchant to switch to yet).
    expect(await api.deps.db.selectFrom('users').select('id').where('email', '=', email).execute()).toHaveLength(1);
    expect((await api.call('GET', '/api/back-office/merchant-options', { token: signed })).body.data).toHaveLength(1);
    expect((await api.call('GET', `/api/back-office/join-merchant?token=${inviteToken}`)).body.data).toMatchObject({ email, requires_password: false });
    expect((await api.call('POST', '/api/back-office/join-merchant', { body: { token: inviteToken } })).status).toBe(200);
    expect((await api.call('GET', '/api/back-office/merchant-options', { token: signed })).body.data).toHaveLength(2);
    // The account owns a business now: the address is taken.
    expect(snap((await register(email)).r)).toMatchObject({ status: 422, body: { errors: { email: ['The email has already been taken.'] } } });

    // Two registrations racing for an invited address: one completes it, the other is 422 and leaves no merchant.
    const raced = uniqueEmail('invited-race');
    await invite(raced);
    registered.push(raced);
    const names = ['One', 'Two'].map((n) => `Race ${n} ${raced}`);
    const both = await Promise.all(
      names.map((business_name) => api.call('POST', '/api/back-office/register', { ip: ip(), body: { name: 'Nora Owner', email: raced, password: 'correct horse 1', business_name } })),
    );
    expect(both.map((x) => x.status).sort()).toEqual([200, 422]);
    const owned = await api.deps.db.selectFrom('users').innerJoin('memberships', 'memberships.user_id', 'users.id').select('memberships.merchant_id').where('users.email', '=', raced).where('memberships.is_owner', '=', true).execute();
    expect(owned).toHaveLength(1);
    const left = await api.deps.db.selectFrom('merchants').select('id').where('name', 'in', names).execute();
    expect(left).toEqual([{ id: owned[0]!.merchant_id }]);
  });

  test('resend-verification: a new token replaces the old one; unknown addresses answer the same and get nothing', async () => {
    const { email } = await register();
    const first = tokenIn((await mail.waitFor(email)).text, 'Verification token');
    expect(await api.call('POST', '/api/back-office/resend-verification', { ip: ip(), body: { email } })).toMatchObject({ status: 200, body: { status: 'success' } });
    await runAccountMailJobs(api);
    const second = tokenIn((await mail.waitFor(email, (m) => !m.text.includes(first))).text, 'Verification token');
    expect(second).not.toBe(first);
    expect((await api.call('POST', '/api/back-office/verify-email', { ip: ip(), body: { token: first } })).status).toBe(422);
    expect((await api.call('POST', '/api/back-office/verify-email', { ip: ip(), body: { token: second } })).status).toBe(200);
    const nobody = uniqueEmail('nobody');
    expect(await api.call('POST', '/api/back-office/resend-verification', { ip: ip(), body: { email: nobody } })).toMatchObject({ status: 200, body: { status: 'success' } });
    await runAccountMailJobs(api);
    // Verified already: nothing more is sent.
    const count = mail.messages(email).length;
    await api.call('POST', '/api/back-office/resend-verification', { ip: ip(), body: { email } });
    await runAccountMailJobs(api);
    await Bun.sleep(100);
    expect(mail.messages(email)).toHaveLength(count);
    expect(mail.messages(nobody)).toHaveLength(0);
  });

  test('an expired verification token is refused', async () => {
    const { email } = await register();
    const token = tokenIn((await mail.waitFor(email)).text, 'Verification token');
    await api.deps.db.updateTable('account_tokens').set({ expires_at: new Date(Date.now() - 1000) }).where('token_hash', '=', sha256(token)).execute();
    expect((await api.call('POST', '/api/back-office/verify-email', { ip: ip(), body: { token } })).status).toBe(422);
  });
});

describe('forget-password and update-password', () => {
  test('the mailed token sets the password once; the old password stops working', async () => {
    const { email, password } = await verified();
    expect(await api.call('POST', '/api/back-office/forget-password', { ip: ip(), body: { email } })).toMatchObject({ status: 200, body: { status: 'success' } });
    await runAccountMailJobs(api);
    const m = await mail.waitFor(email, (x) => x.subject === 'Reset your password');
    const token = tokenIn(m.text, 'Reset token');
    expect(m.html).toContain('http://bo.test/reset-password?token=');
    const stored = await api.deps.db.selectFrom('account_tokens').select('token_hash').where('purpose', '=', 'reset_password').where('token_hash', '=', sha256(token)).executeTakeFirst();
    expect(stored).toBeDefined();
    expect(await api.call('PUT', '/api/back-office/update-password', { ip: ip(), body: { token, password: 'new password 2' } })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await api.call('PUT', '/api/back-office/update-password', { ip: ip(), body: { token, password: 'third password 3' } })).toMatchObject({
      status: 422,
      body: { errors: { token: ['This token is invalid or has expired.'] } },
    });
    expect((await login(email, password)).status).toBe(422);
    expect((await login(email, 'new password 2')).body.token).toEqual(expect.any(String));
  });

  test('a password reset ends every back-office session signed in before it (401 Invalid token); a sign-in after it works', async () => {
    const { email, password } = await verified();
    const stolen = (await login(email, password)).body.token as string;
    const other = (await login(email, password)).body.token as string;
    expect((await api.call('GET', '/api/back-office/user', { token: stolen })).status).toBe(200);
    await api.call('POST', '/api/back-office/forget-password', { ip: ip(), body: { email } });
    await runAccountMailJobs(api);
    const m = await mail.waitFor(email, (x) => x.subject === 'Reset your password');
    expect((await api.call('PUT', '/api/back-office/update-password', { ip: ip(), body: { token: tokenIn(m.text, 'Reset token'), password: 'after reset 4' } })).status).toBe(200);
    for (const token of [stolen, other]) {
      expect(await api.call('GET', '/api/back-office/user', { token })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
      expect(await api.call('GET', '/api/validate-token', { token })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    }
    const fresh = (await login(email, 'after reset 4')).body.token as string;
    expect((await api.call('GET', '/api/back-office/user', { token: fresh })).status).toBe(200);
  });

  test('a password reset removes the passkeys (one added with a stolen session no longer signs in), and the reset mail says so', async () => {
    const { email, password } = await verified();
    const stolen = (await login(email, password)).body.token as string;
    // With only the bearer token, a thief enrols their own passkey.
    const thief = new SoftAuthenticator(ORIGIN, 'localhost');
    const opts = await api.call('GET', '/api/back-office/passkeys/setup', { token: stolen });
    expect(opts.status).toBe(200);
    expect((await api.call('POST', '/api/back-office/passkeys/setup', { token: stolen, body: { name: 'thief', response: thief.register(opts.body.data) } })).status).toBe(200);
    await api.call('POST', '/api/back-office/forget-password', { ip: ip(), body: { email } });
    await runAccountMailJobs(api);
    const m = await mail.waitFor(email, (x) => x.subject === 'Reset your password');
    expect(m.text).toContain('Choosing a new password also removes your passkeys: add them again once signed in.');
    expect((await api.call('PUT', '/api/back-office/update-password', { ip: ip(), body: { token: tokenIn(m.text, 'Reset token'), password: 'after reset 4' } })).status).toBe(200);
    expect((await api.call('GET', '/api/back-office/user', { token: stolen })).status).toBe(401);
    const c = (await api.call('POST', '/api/back-office/passkeys', { ip: ip() })).body.data;
    expect(await api.call('POST', '/api/back-office/authenticate-passkey', { ip: ip(), body: { response: thief.assert(c) } })).toMatchObject({
      status: 422,
      body: { errors: { response: ['The passkey could not be verified.'] } },
    });
    const fresh = (await login(email, 'after reset 4')).body.token as string;
    expect(await api.call('GET', '/api/back-office/passkeys', { token: fresh })).toMatchObject({ status: 200, body: { data: [] } });
  });

  test('a reset landing while a stolen session is mid-request: the passkey it goes on to insert is removed again (401), and no new token comes from it', async () => {
    const { email, password } = await verified();
    const stolen = (await login(email, password)).body.token as string;
    const claims = JSON.parse(Buffer.from(stolen.split('.')[1]!, 'base64url').toString()) as { sub: string; jti: string };
    const session = { userId: claims.sub, jti: claims.jti };
    // The thief's setup request was authenticated (and its challenge issued) before the reset...
    const thief = new SoftAuthenticator(ORIGIN, 'localhost');
    const opts = (await api.call('GET', '/api/back-office/passkeys/setup', { token: stolen })).body.data;
    await api.call('POST', '/api/back-office/forget-password', { ip: ip(), body: { email } });
    await runAccountMailJobs(api);
    const m = await mail.waitFor(email, (x) => x.subject === 'Reset your password');
    expect((await api.call('PUT', '/api/back-office/update-password', { ip: ip(), body: { token: tokenIn(m.text, 'Reset token'), password: 'after reset 5' } })).status).toBe(200);
    // ...and inserts after the reset removed the user's passkeys: it finds its session ended and takes the passkey back out.
    await expect(registerPasskey(api.deps.db, api.deps.redis, relyingParty(api.deps), session, { name: 'thief', response: thief.register(opts) }, new Date())).rejects.toMatchObject({ code: 'invalid_token', message: 'Invalid token' });
    expect(await api.deps.db.selectFrom('passkeys').select('id').where('user_id', '=', claims.sub).execute()).toEqual([]);
    // A merchant switch of that session gets no new token (the route checks the session once it has signed).
    await expect(assertSessionLive(api.deps.redis, session)).rejects.toMatchObject({ code: 'invalid_token' });
    const fresh = (await login(email, 'after reset 5')).body.token as string;
    const freshClaims = JSON.parse(Buffer.from(fresh.split('.')[1]!, 'base64url').toString()) as { sub: string; jti: string };
    await assertSessionLive(api.deps.redis, { userId: freshClaims.sub, jti: freshClaims.jti });
    const merchantId = (await api.call('GET', '/api/back-office/merchant-options', { token: fresh })).body.data[0].value;
    expect((await api.call('POST', '/api/back-office/set-merchant', { token: fresh, body: { merchant_id: merchantId } })).status).toBe(200);
  });

  test('the reset mail leaves through the outbox (the worker job account.mail): known and unknown addresses get the same answer from the same work, and no token is written in clear', async () => {
    const { email } = await verified();
    const user = await api.deps.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const before = mail.messages(email).length;
    expect(await api.call('POST', '/api/back-office/forget-password', { ip: ip(), body: { email } })).toMatchObject({ status: 200, body: { status: 'success' } });
    const rows = await api.deps.db.selectFrom('outbox').select(['queue', 'payload']).where('job', '=', 'account.mail').where('relayed_at', 'is', null).execute();
    expect(rows.map((r) => ({ queue: r.queue, payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload }))).toEqual([{ queue: 'notifications', payload: { user_id: user.id, purpose: 'reset_password' } }]);
    // Nothing was mailed, nor any token issued, while the request ran.
    await Bun.sleep(100);
    expect(mail.messages(email)).toHaveLength(before);
    expect(await api.deps.db.selectFrom('account_tokens').select('token_hash').where('user_id', '=', user.id).where('purpose', '=', 'reset_password').execute()).toEqual([]);
    expect(await runAccountMailJobs(api)).toBe(1);
    const m = await mail.waitFor(email, (x) => x.subject === 'Reset your password');
    expect(m.text).toContain('Reset token: ');
    expect(await api.call('POST', '/api/back-office/forget-password', { ip: ip(), body: { email: uniqueEmail('nobody') } })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await runAccountMailJobs(api)).toBe(0);
  });

  test('at most 5 reset or verification mails per address per 15 minutes, whatever the client address; past the cap the answer is the same, for known and unknown addresses', async () => {
    const { email } = await verified();
    const before = mail.messages(email).filter((x) => x.subject === 'Reset your password').length;
    for (let i = 0; i < 12; i++) {
      expect(await api.call('POST', '/api/back-office/forget-password', { ip: ip(), body: { email: i % 2 ? email.toUpperCase() : email } })).toMatchObject({ status: 200, body: { status: 'success' } });
    }
    expect(await runAccountMailJobs(api)).toBe(5);
    await Bun.sleep(300);
    expect(mail.messages(email).filter((x) => x.subject === 'Reset your password').length - before).toBe(5);
    const nobody = uniqueEmail('nobody');
    for (let i = 0; i < 7; i++) expect(await api.call('POST', '/api/back-office/forget-password', { ip: ip(), body: { email: nobody } })).toMatchObject({ status: 200, body: { status: 'success' } });
    // Verification mails of an unverified account are capped the same way.
    const u = await register();
    expect(u.r.status).toBe(200);
    for (let i = 0; i < 7; i++) expect(await api.call('POST', '/api/back-office/resend-verification', { ip: ip(), body: { email: u.email } })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await runAccountMailJobs(api)).toBe(5);
  });

  test('an unknown address answers the same and nothing is sent', async () => {
    const nobody = uniqueEmail('nobody');
    expect(await api.call('POST', '/api/back-office/forget-password', { ip: ip(), body: { email: nobody } })).toMatchObject({ status: 200, body: { status: 'success' } });
    await runAccountMailJobs(api);
    await Bun.sleep(100);
    expect(mail.messages(nobody)).toHaveLength(0);
  });
});

describe('sign-ins racing a password reset', () => {
  async function resetToken(email: string) {
    await api.call('POST', '/api/back-office/forget-password', { ip: ip(), body: { email } });
    await runAccountMailJobs(api);
    return tokenIn((await mail.waitFor(email, (x) => x.subject === 'Reset your password')).text, 'Reset token');
  }

  test('sign-ins with the old password started around the reset: each is refused or its token dies with the reset; none keeps a live session', async () => {
    const { email, password } = await verified();
    const token = await resetToken(email);
    // A sign-in reads the password hash, verifies it (argon2id, tens of milliseconds), then signs: started
    // every 4 ms around the reset, some read the old hash just before the reset commits and sign after it.
    const logins = Array.from({ length: 10 }, (_, i) => Bun.sleep(i * 4).then(() => login(email, password)));
    const reset = api.call('PUT', '/api/back-office/update-password', { ip: ip(), body: { token, password: 'raced reset 6' } });
    expect((await reset).status).toBe(200);
    const answers = await Promise.all(logins);
    for (const r of answers) {
      if (r.status === 422) {
        expect(r.body).toMatchObject({ errors: { email: ['These credentials do not match our records.'] } });
        continue;
      }
      expect(r.status).toBe(200);
      // Before: a sign-in that read the old hash before the reset and signed after it kept a live token.
      expect(await api.call('GET', '/api/back-office/user', { token: r.body.token })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    }
    expect((await api.call('GET', '/api/back-office/user', { token: (await login(email, 'raced reset 6')).body.token })).status).toBe(200);
  });

  test('a sign-in that verified the old password signs after the reset: refused (422), no token answered', async () => {
    const { email, password } = await verified();
    const r = await signIn(api.deps.db, { email, password });
    if (r.kind !== 'signed_in') throw new Error(r.kind);
    await updatePassword(api.deps.db, api.deps.redis, { token: await resetToken(email), password: 'after reset 7' }, new Date());
    await expect(signSession(api.deps.db, api.deps.tokens, r, () => errors.field('email', BAD_CREDENTIALS))).rejects.toMatchObject({ status: 422, errors: { email: [BAD_CREDENTIALS] } });
  });

  test('a two-factor sign-in of the old password written after the reset cleared the pending ones cannot complete', async () => {
    const { email, password } = await verified();
    const t = (await login(email, password)).body.token;
    expect((await api.call('PUT', '/api/back-office/user-personal-info', { token: t, body: { name: 'Nora Owner', two_factor_enabled: true } })).status).toBe(200);
    const r = await signIn(api.deps.db, { email, password });
    if (r.kind !== 'two_factor_required') throw new Error(r.kind);
    await updatePassword(api.deps.db, api.deps.redis, { token: await resetToken(email), password: 'after reset 8' }, new Date());
    // Before: the reset had already deleted the pending sign-ins; this one, written after, mailed its code and completed.
    const loginToken = await startPendingLogin(api.deps.db, r.proof, r.merchant.id, new Date());
    for (const [path, body] of [
      ['/api/back-office/request-otp', { login_token: loginToken }],
      ['/api/back-office/verify-otp', { login_token: loginToken, code: '123456' }],
    ] as const) {
      expect(await api.call('POST', path, { ip: ip(), body })).toMatchObject({
        status: 422,
        body: { errors: { login_token: ['This sign-in has expired; sign in again.'] } },
      });
    }
    // The new password's sign-in asks for its code as usual.
    expect((await login(email, 'after reset 8')).body).toMatchObject({ status: 'two_factor_required', login_token: expect.any(String) });
  });

  test('a passkey sign-in whose passkey the reset removed before the token was signed: refused', async () => {
    const { email, password } = await verified();
    const t = (await login(email, password)).body.token as string;
    const key = new SoftAuthenticator(ORIGIN, 'localhost');
    const opts = (await api.call('GET', '/api/back-office/passkeys/setup', { token: t })).body.data;
    expect((await api.call('POST', '/api/back-office/passkeys/setup', { token: t, body: { name: 'laptop', response: key.register(opts) } })).status).toBe(200);
    const c = (await api.call('POST', '/api/back-office/passkeys', { ip: ip() })).body.data;
    const r = await authenticatePasskey(api.deps.db, api.deps.redis, relyingParty(api.deps), key.assert(c) as never, new Date());
    await updatePassword(api.deps.db, api.deps.redis, { token: await resetToken(email), password: 'after reset 9' }, new Date());
    await expect(signSession(api.deps.db, api.deps.tokens, r, () => errors.field('response', PASSKEY_REJECTED))).rejects.toMatchObject({ status: 422, errors: { response: [PASSKEY_REJECTED] } });
  });
});

describe('second factor: request-otp and verify-otp', () => {
  async function twoFactorUser() {
    const u = await verified();
    const t = (await login(u.email, u.password)).body.token;
    expect((await api.call('PUT', '/api/back-office/user-personal-info', { token: t, body: { name: 'Nora Owner', two_factor_enabled: true } })).body.data.two_factor_enabled).toBe(true);
    return u;
  }

  test('a password login answers a pending state; the mailed code completes it once', async () => {
    const { email, password } = await twoFactorUser();
    const pending = await login(email, password);
    expect(snap(pending)).toMatchObject({ status: 200, body: { status: 'two_factor_required', login_token: expect.any(String) } });
    expect(pending.body.token).toBeUndefined();
    const loginToken = pending.body.login_token as string;
    // Before a code was asked for.
    expect(await api.call('POST', '/api/back-office/verify-otp', { ip: ip(), body: { login_token: loginToken, code: '123456' } })).toMatchObject({ status: 422, body: { errors: { code: ['Request a code first.'] } } });
    expect(await api.call('POST', '/api/back-office/request-otp', { ip: ip(), body: { login_token: loginToken } })).toMatchObject({ status: 200, body: { status: 'success' } });
    const m = await mail.waitFor(email, (x) => x.subject.startsWith('Your sign-in code'));
    const code = /is (\d{6})\./.exec(m.text)![1]!;
    expect(m.html).toContain(`<strong>${code}</strong>`);
    const row = await api.deps.db.selectFrom('otp_challenges').selectAll().where('login_token_hash', '=', sha256(loginToken)).executeTakeFirstOrThrow();
    expect(row.code_hash).not.toContain(code);
    expect(row.code_hash!.startsWith('$argon2id$')).toBe(true);
    const wrong = code === '000000' ? '000001' : '000000';
    expect(await api.call('POST', '/api/back-office/verify-otp', { ip: ip(), body: { login_token: loginToken, code: wrong } })).toMatchObject({
      status: 422,
      body: { message: 'The code is invalid or has expired.', errors: { code: ['The code is invalid or has expired.'] } },
    });
    const ok = await api.call('POST', '/api/back-office/verify-otp', { ip: ip(), body: { login_token: loginToken, code } });
    expect(snap(ok)).toMatchObject({ status: 200, body: { token: expect.any(String), token_type: 'Bearer', expires_in: 43200 } });
    expect((await api.call('GET', '/api/back-office/user', { token: ok.body.token })).body.data.email).toBe(email);
    // Single use.
    expect(await api.call('POST', '/api/back-office/verify-otp', { ip: ip(), body: { login_token: loginToken, code } })).toMatchObject({
      status: 422,
      body: { errors: { login_token: ['This sign-in has expired; sign in again.'] } },
    });
  });

  test('five wrong codes end the pending sign-in, even with the right code after', async () => {
    const { email, password } = await twoFactorUser();
    const loginToken = (await login(email, password)).body.login_token as string;
    await api.call('POST', '/api/back-office/request-otp', { ip: ip(), body: { login_token: loginToken } });
    const code = /is (\d{6})\./.exec((await mail.waitFor(email, (x) => x.subject.startsWith('Your sign-in code'))).text)![1]!;
    const wrong = code === '111111' ? '222222' : '111111';
    const statuses: string[][] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api.call('POST', '/api/back-office/verify-otp', { ip: ip(), body: { login_token: loginToken, code: wrong } })).body.errors.code);
    expect(statuses.at(-1)).toEqual(['Too many wrong codes; sign in again.']);
    expect(await api.call('POST', '/api/back-office/verify-otp', { ip: ip(), body: { login_token: loginToken, code } })).toMatchObject({ status: 422, body: { errors: { code: ['Too many wrong codes; sign in again.'] } } });
    expect(await api.call('POST', '/api/back-office/request-otp', { ip: ip(), body: { login_token: loginToken } })).toMatchObject({ status: 422, body: { errors: { login_token: ['Too many wrong codes; sign in again.'] } } });
  });

  test('an expired code is refused; an unknown login token is 422', async () => {
    const { email, password } = await twoFactorUser();
    const loginToken = (await login(email, password)).body.login_token as string;
    await api.call('POST', '/api/back-office/request-otp', { ip: ip(), body: { login_token: loginToken } });
    const code = /is (\d{6})\./.exec((await mail.waitFor(email, (x) => x.subject.startsWith('Your sign-in code'))).text)![1]!;
    await api.deps.db.updateTable('otp_challenges').set({ code_expires_at: new Date(Date.now() - 1000) }).where('login_token_hash', '=', sha256(loginToken)).execute();
    expect((await api.call('POST', '/api/back-office/verify-otp', { ip: ip(), body: { login_token: loginToken, code } })).body.errors).toEqual({ code: ['The code is invalid or has expired.'] });
    expect(await api.call('POST', '/api/back-office/request-otp', { ip: ip(), body: { login_token: 'x'.repeat(40) } })).toMatchObject({ status: 422, body: { errors: { login_token: ['This sign-in has expired; sign in again.'] } } });
  });
});

describe('POST /login/idp', () => {
  const nonce = () => `n-${crypto.randomUUID()}`;
  const idpLogin = (credential: string, n: string, from = ip()) => api.call('POST', '/api/login/idp', { ip: from, body: { credential, nonce: n } });

  test('links by verified e-mail at first sign-in, then by subject; answers a token', async () => {
    const { email } = await verified();
    const n = nonce();
    const cred = await idp.sign({ sub: 'idp-user-1', email, email_verified: true, nonce: n });
    const r = await idpLogin(cred, n);
    expect(snap(r)).toMatchObject({ status: 200, body: { token: expect.any(String), token_type: 'Bearer', expires_in: 43200 } });
    const me = await api.call('GET', '/api/back-office/user', { token: r.body.token });
    expect(me.body.data.email).toBe(email);
    const link = await api.deps.db.selectFrom('user_identities').selectAll().where('issuer', '=', idp.issuer).where('subject', '=', 'idp-user-1').executeTakeFirstOrThrow();
    expect(link.email).toBe(email);
    // Replaying the same credential (same nonce) is refused.
    expect(await idpLogin(cred, n)).toMatchObject({ status: 422, body: { errors: { credential: ['This identity credential has already been used.'] } } });
    // Later: by subject, even after the provider's e-mail changed.
    const n2 = nonce();
    expect((await idpLogin(await idp.sign({ sub: 'idp-user-1', email: 'changed@elsewhere.example', email_verified: true, nonce: n2 }), n2)).status).toBe(200);
  });

  test('refuses: wrong audience, issuer, nonce, expired, forged signature, unverified e-mail, unknown or unverified account', async () => {
    const { email } = await verified();
    const cases: [Parameters<IdpSimulator['sign']>[0], string][] = [
      [{ sub: 's1', email, email_verified: true, aud: 'someone-else' }, 'The identity credential is invalid.'],
      [{ sub: 's1', email, email_verified: true, iss: 'http://evil.example' }, 'The identity credential is invalid.'],
      [{ sub: 's1', email, email_verified: true, expires_in: -120 }, 'The identity credential has expired.'],
      [{ sub: 's1', email, email_verified: true, foreign_key: true }, 'The identity credential is invalid.'],
      [{ sub: 's1', email, email_verified: false }, 'The provider has not verified this e-mail address.'.replace('The provider', 'The identity provider')],
      [{ sub: 's1', email: uniqueEmail('stranger'), email_verified: true }, 'No account matches this identity.'],
    ];
    for (const [claims, message] of cases) {
      const n = nonce();
      const r = await idpLogin(await idp.sign({ ...claims, nonce: n }), n);
      expect({ claims, status: r.status, body: r.body }).toEqual({ claims, status: 422, body: { message, errors: { credential: [message] } } });
    }
    const n = nonce();
    const mismatched = await idp.sign({ sub: 's1', email, email_verified: true, nonce: n });
    expect((await idpLogin(mismatched, nonce())).body.errors.credential).toEqual(['The identity credential does not match this request.']);
    // An unverified local account is never linked (it may have been pre-registered by someone else).
    const { email: unverifiedEmail } = await register();
    const n3 = nonce();
    expect((await idpLogin(await idp.sign({ sub: 's2', email: unverifiedEmail, email_verified: true, nonce: n3 }), n3)).body.errors.credential).toEqual(['No account matches this identity.']);
    expect(await api.deps.db.selectFrom('user_identities').select('subject').where('issuer', '=', idp.issuer).where('subject', 'in', ['s1', 's2']).execute()).toEqual([]);
  });

  test('throttle: 5 per minute per client address, the sixth is 429', async () => {
    const from = ip();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await idpLogin('x'.repeat(40), nonce(), from)).status);
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429]);
    expect((await idpLogin('x'.repeat(40), nonce(), ip())).status).toBe(422);
  });

  test('throttle: refused bodies count too (the limit is checked before validation)', async () => {
    const from = ip();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await api.call('POST', '/api/login/idp', { ip: from, body: { credential: 1 } })).status);
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429]);
  });
});

describe('passkeys', () => {
  test('setup options, register (none and packed attestation), list, sign in, delete; isolation between users', async () => {
    const { email, password } = await verified();
    const token = (await login(email, password)).body.token as string;
    expect((await api.call('GET', '/api/back-office/passkeys')).status).toBe(401);
    expect(await api.call('GET', '/api/back-office/passkeys', { token })).toMatchObject({ status: 200, body: { data: [] } });

    const auth1 = new SoftAuthenticator(ORIGIN, 'localhost');
    const opts = await api.call('GET', '/api/back-office/passkeys/setup', { token });
    expect(opts.status).toBe(200);
    expect(snap(opts.body.data)).toMatchObject({ challenge: expect.any(String), rp: { id: 'localhost' }, user: { name: email } });
    const reg = await api.call('POST', '/api/back-office/passkeys/setup', { token, body: { name: 'Laptop', response: auth1.register(opts.body.data) } });
    expect(snap(reg)).toMatchObject({ status: 200, body: { data: { id: expect.any(String), name: 'Laptop', created_at: expect.any(String), last_used_at: null } } });
    // The challenge is spent.
    expect(await api.call('POST', '/api/back-office/passkeys/setup', { token, body: { response: new SoftAuthenticator(ORIGIN, 'localhost').register(opts.body.data) } })).toMatchObject({
      status: 422,
      body: { errors: { response: ['The passkey could not be verified.'] } },
    });
    // Packed self-attestation, and a wrong origin refused.
    const auth2 = new SoftAuthenticator(ORIGIN, 'localhost');
    const opts2 = (await api.call('GET', '/api/back-office/passkeys/setup', { token })).body.data;
    expect(opts2.excludeCredentials).toHaveLength(1);
    expect((await api.call('POST', '/api/back-office/passkeys/setup', { token, body: { name: 'Phone', response: auth2.register(opts2, 'packed') } })).status).toBe(200);
    const opts3 = (await api.call('GET', '/api/back-office/passkeys/setup', { token })).body.data;
    expect((await api.call('POST', '/api/back-office/passkeys/setup', { token, body: { response: new SoftAuthenticator(ORIGIN, 'localhost').register(opts3, 'none', { origin: 'http://evil.example' }) } })).status).toBe(422);
    const list = (await api.call('GET', '/api/back-office/passkeys', { token })).body.data;
    expect(list.map((p: { name: string }) => p.name)).toEqual(['Laptop', 'Phone']);

    // Sign in with the passkey.
    const challenge = await api.call('POST', '/api/back-office/passkeys', { ip: ip() });
    expect(snap(challenge)).toMatchObject({ status: 200, body: { data: { challenge: expect.any(String), rpId: 'localhost' } } });
    const signed = await api.call('POST', '/api/back-office/authenticate-passkey', { ip: ip(), body: { response: auth1.assert(challenge.body.data) } });
    expect(snap(signed)).toMatchObject({ status: 200, body: { token: expect.any(String), token_type: 'Bearer' } });
    expect((await api.call('GET', '/api/back-office/user', { token: signed.body.token })).body.data.email).toBe(email);
    // Same challenge again: spent. A replayed counter: refused.
    expect((await api.call('POST', '/api/back-office/authenticate-passkey', { ip: ip(), body: { response: auth1.assert(challenge.body.data) } })).status).toBe(422);
    const c2 = (await api.call('POST', '/api/back-office/passkeys', { ip: ip() })).body.data;
    expect((await api.call('POST', '/api/back-office/authenticate-passkey', { ip: ip(), body: { response: auth1.assert(c2, { signCount: 1 }) } })).status).toBe(422);
    // An unknown credential.
    const c3 = (await api.call('POST', '/api/back-office/passkeys', { ip: ip() })).body.data;
    expect(await api.call('POST', '/api/back-office/authenticate-passkey', { ip: ip(), body: { response: new SoftAuthenticator(ORIGIN, 'localhost').assert(c3) } })).toMatchObject({
      status: 422,
      body: { errors: { response: ['The passkey could not be verified.'] } },
    });

    // Another user neither sees nor deletes these passkeys.
    const otherToken = await api.ownerToken(other);
    expect((await api.call('GET', '/api/back-office/passkeys', { token: otherToken })).body.data).toEqual([]);
    expect(await api.call('DELETE', `/api/back-office/passkeys/${list[0].id}`, { token: otherToken })).toMatchObject({ status: 404, body: { message: 'Unable to locate the passkey you requested.' } });
    expect(await api.call('DELETE', `/api/back-office/passkeys/${list[0].id}`, { token })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect((await api.call('GET', '/api/back-office/passkeys', { token })).body.data.map((p: { name: string }) => p.name)).toEqual(['Phone']);
    // The deleted passkey no longer signs in.
    const c4 = (await api.call('POST', '/api/back-office/passkeys', { ip: ip() })).body.data;
    expect((await api.call('POST', '/api/back-office/authenticate-passkey', { ip: ip(), body: { response: auth1.assert(c4) } })).status).toBe(422);
    const c5 = (await api.call('POST', '/api/back-office/passkeys', { ip: ip() })).body.data;
    expect((await api.call('POST', '/api/back-office/authenticate-passkey', { ip: ip(), body: { response: auth2.assert(c5) } })).status).toBe(200);

    // Spec 1's `DELETE /back-office/passkeys`: the passkey named in the body; an id that is not a UUID is not found.
    const phone = (await api.call('GET', '/api/back-office/passkeys', { token })).body.data[0].id;
    const notFound = { status: 404, body: { message: 'Unable to locate the passkey you requested.' } };
    expect(await api.call('DELETE', '/api/back-office/passkeys/not-a-uuid', { token })).toMatchObject(notFound);
    expect(await api.call('DELETE', '/api/back-office/passkeys', { token, body: { id: 'not-a-uuid' } })).toMatchObject(notFound);
    expect(await api.call('DELETE', '/api/back-office/passkeys', { token: otherToken, body: { id: phone } })).toMatchObject(notFound);
    expect(await api.call('DELETE', '/api/back-office/passkeys', { token, body: {} })).toMatchObject({ status: 422, body: { errors: { id: ['The id field is required.'] } } });
    expect(await api.call('DELETE', '/api/back-office/passkeys', { token, body: { id: phone } })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect((await api.call('GET', '/api/back-office/passkeys', { token })).body.data).toEqual([]);
  });

  test('user verification (PIN or biometrics) is required: an authenticator that did not verify its user neither enrols nor signs in', async () => {
    const { email, password } = await verified();
    const token = (await login(email, password)).body.token as string;
    const key = new SoftAuthenticator(ORIGIN, 'localhost');
    const opts = (await api.call('GET', '/api/back-office/passkeys/setup', { token })).body.data;
    expect(opts.authenticatorSelection).toMatchObject({ userVerification: 'required' });
    expect(await api.call('POST', '/api/back-office/passkeys/setup', { token, body: { name: 'no pin', response: key.register(opts, 'none', { userVerified: false }) } })).toMatchObject({
      status: 422,
      body: { errors: { response: ['The passkey could not be verified.'] } },
    });
    const again = (await api.call('GET', '/api/back-office/passkeys/setup', { token })).body.data;
    expect((await api.call('POST', '/api/back-office/passkeys/setup', { token, body: { name: 'with pin', response: key.register(again) } })).status).toBe(200);
    const c = (await api.call('POST', '/api/back-office/passkeys', { ip: ip() })).body.data;
    expect(c.userVerification).toBe('required');
    // Before: a security key picked up from a desk signed in (user present only), skipping password and second factor.
    expect(await api.call('POST', '/api/back-office/authenticate-passkey', { ip: ip(), body: { response: key.assert(c, { userVerified: false }) } })).toMatchObject({
      status: 422,
      body: { errors: { response: ['The passkey could not be verified.'] } },
    });
    const c2 = (await api.call('POST', '/api/back-office/passkeys', { ip: ip() })).body.data;
    expect((await api.call('POST', '/api/back-office/authenticate-passkey', { ip: ip(), body: { response: key.assert(c2) } })).status).toBe(200);
  });

  test('passkey management is back-office only: a device token is 403', async () => {
    const pos = await api.deviceToken(other, 'pos');
    expect(await api.call('GET', '/api/back-office/passkeys', { token: pos })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
  });
});

describe('throttles of the mail-sending routes', () => {
  test('six mails per minute per client address, then 429', async () => {
    const from = ip();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await api.call('POST', '/api/back-office/forget-password', { ip: from, body: { email: uniqueEmail('t') } })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
  });
});

describe('profile routes (start-using, user-personal-info, user-business-info)', () => {
  test('a fresh sign-up: start-using once, personal and business info, two-factor toggle; back-office tokens only', async () => {
    const { email, password } = await verified();
    const token = (await login(email, password)).body.token as string;
    const before = (await api.call('GET', '/api/back-office/user', { token })).body.data;
    expect(before).toMatchObject({ name: 'Nora Owner', phone: null, business_info: { company_name: 'Nora Bakery' }, two_factor_enabled: false, merchant: { started_at: null, pos_provider: null } });

    expect(await api.call('POST', '/api/back-office/start-using', { token })).toMatchObject({ status: 200, body: { status: 'success' } });
    const started = (await api.call('GET', '/api/back-office/user', { token })).body.data.merchant.started_at;
    expect(started).toEqual(expect.any(String));
    await api.call('POST', '/api/back-office/start-using', { token });
    expect((await api.call('GET', '/api/back-office/user', { token })).body.data.merchant.started_at).toBe(started);

    const personal = await api.call('PUT', '/api/back-office/user-personal-info', { token, body: { name: 'Nora B.', phone: '+32 470 11 22 33', two_factor_enabled: true } });
    expect(personal.status).toBe(200);
    expect(personal.body.data).toMatchObject({ name: 'Nora B.', phone: '+32 470 11 22 33', two_factor_enabled: true });
    const row = await api.deps.db.selectFrom('users').select(['name', 'phone', 'two_factor_enabled']).where('email', '=', email).executeTakeFirstOrThrow();
    expect(row).toEqual({ name: 'Nora B.', phone: '+32 470 11 22 33', two_factor_enabled: true });
    // Leaving the toggle out keeps it.
    expect((await api.call('PUT', '/api/back-office/user-personal-info', { token, body: { name: 'Nora B.' } })).body.data.two_factor_enabled).toBe(true);
    expect((await api.call('PUT', '/api/back-office/user-personal-info', { token, body: { name: 'Nora B.', two_factor_enabled: 'yes' } })).status).toBe(422);

    const business = await api.call('PUT', '/api/back-office/user-business-info', { token, body: { vat_number: 'BE0999999999', city: 'Gent', country: 'BE' } });
    expect(business.body.data.business_info).toEqual({ company_name: 'Nora Bakery', vat_number: 'BE0999999999', city: 'Gent', country: 'BE' });
    expect((await api.call('PUT', '/api/back-office/user-business-info', { token, body: { country: 'BEL' } })).status).toBe(422);
    // A pair of letters that is no country is refused as for a location; a country is stored upper-case.
    expect(await api.call('PUT', '/api/back-office/user-business-info', { token, body: { country: 'ZZ' } })).toMatchObject({
      status: 422,
      body: { errors: { country: ['The country field must be a two-letter ISO country code.'] } },
    });
    expect((await api.call('PUT', '/api/back-office/user-business-info', { token, body: { country: 'nl' } })).body.data.business_info.country).toBe('NL');
    // A blank name is refused and the name kept.
    expect(await api.call('PUT', '/api/back-office/user-personal-info', { token, body: { name: '   ' } })).toMatchObject({
      status: 422,
      body: { errors: { name: ['The name field is required.'] } },
    });
    expect((await api.call('GET', '/api/back-office/user', { token })).body.data.name).toBe('Nora B.');

    const pos = await api.deviceToken(other, 'pos');
    for (const [method, path, body] of [
      ['POST', '/api/back-office/start-using', undefined],
      ['PUT', '/api/back-office/user-personal-info', { name: 'X' }],
      ['PUT', '/api/back-office/user-business-info', { city: 'X' }],
    ] as const) {
      expect(await api.call(method, path, { body })).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
      expect(await api.call(method, path, { token: pos, body })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
    }
  });
});
