import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startSmsSimulator } from '@pos/providers/sms/sms-simulator';
import { startMailApiSimulator } from '@pos/providers/mail-api/mail-api-simulator';
import { startChallengeSimulator } from '@pos/providers/challenge/challenge-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { throttleCount } from '@pos/kernel';
import { THROTTLES } from '../../middleware/throttle.ts';

// Customer guest routes against real PostgreSQL and Redis, with the SMS, e-mail-send and challenge
// simulators and an identity provider's JWKS served over HTTP.
const sms = startSmsSimulator({ apiKey: 'sms-key-0123456789' });
const mail = startMailApiSimulator({ apiKey: 'mail-key-0123456789' });
const challenge = startChallengeSimulator({ secret: 'challenge-secret-0123' });
const keys = await generateKeyPair('RS256');
const otherKeys = await generateKeyPair('RS256');
const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
const jwks = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json({ keys: [jwk] }) });
const ISSUER = 'https://idp.example.test';
const CLIENT = 'customer-app';

const env = {
  SMS_BASE_URL: sms.url,
  SMS_API_KEY: 'sms-key-0123456789',
  MAIL_API_BASE_URL: mail.url,
  MAIL_API_KEY: 'mail-key-0123456789',
  MAIL_API_FROM: 'codes@example.test',
  CUSTOMER_IDP_JWKS_URL: `http://127.0.0.1:${jwks.port}/jwks`,
  CUSTOMER_IDP_ISSUER: ISSUER,
  CUSTOMER_IDP_CLIENT_ID: CLIENT,
};
let api: TestApi;
let gated: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;

beforeAll(async () => {
  api = await createTestApi({ env });
  gated = await createTestApi({ env: { ...env, CHALLENGE_BASE_URL: challenge.url, CHALLENGE_SECRET: 'challenge-secret-0123' } });
  m = await api.seed('cauth');
  other = await api.seed('cauth-b');
});
afterAll(async () => {
  await gated.close();
  await api.close();
  await Promise.all([sms.stop(), mail.stop(), challenge.stop()]);
  jwks.stop(true);
});

let ipSeq = Math.floor(Math.random() * 200);
/** A fresh client address per test: the guest prefix is throttled per address. */
const freshIp = () => `10.9.${++ipSeq % 250}.${Math.floor(Math.random() * 250) + 1}`;
const tdb = (s: DemoSeedResult) => bindTenant(api.deps.db, s.merchant.tenant_database);
const lastCode = (to: string) => {
  const all = sms.sent.filter((x) => x.to === to);
  return /(\d{6})/.exec(all.at(-1)?.text ?? '')?.[1] ?? null;
};
const randomPhone = () => `+3247${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

describe('POST /customer/send-otp', () => {
  test('sends a 6-digit code by SMS, stored hashed with a 15-minute expiry', async () => {
    const phone = randomPhone();
    const ip = freshIp();
    const r = await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'success', channel: 'sms', expires_at: expect.any(String) });
    const ttl = new Date(r.body.expires_at).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(14.9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);
    const code = lastCode(phone);
    expect(code).toMatch(/^\d{6}$/);
    const rows = await tdb(m).selectFrom('customer_otps').selectAll().where('destination', '=', phone).execute();
    expect(rows.length).toBe(1);
    expect(rows[0]!.channel).toBe('sms');
    expect(rows[0]!.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(code!);
  });

  test('sends by e-mail through the e-mail-send provider', async () => {
    const email = `Ann-${crypto.randomUUID().slice(0, 6)}@Example.com`;
    const r = await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, email }, ip: freshIp() });
    expect(r.status).toBe(200);
    expect(r.body.channel).toBe('email');
    const sent = mail.sent.filter((x) => x.to === email.toLowerCase());
    expect(sent.length).toBe(1);
    expect(sent[0]!.from).toBe('codes@example.test');
    expect(sent[0]!.text).toMatch(/^\d{6} is your .+ login code\. It expires in 15 minutes\.$/);
  });

  test('bad input: 422 on the field, 404 for an unknown merchant; nothing stored', async () => {
    const ip = freshIp();
    const before = Number((await tdb(m).selectFrom('customer_otps').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const none = await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug }, ip });
    expect(none.status).toBe(422);
    expect(none.body.errors).toEqual({ phone: ['A phone number or an email address is required.'] });
    const bad = await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone: '123' }, ip });
    expect(bad.body.errors).toEqual({ phone: ['The phone field must be a valid phone number.'] });
    const both = await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone: randomPhone(), email: 'a@b.co' }, ip });
    expect(both.body.errors).toEqual({ phone: ['Give either a phone number or an email address, not both.'] });
    const unknown = await api.call('POST', '/api/customer/send-otp', { body: { slug: 'no-such-merchant', phone: randomPhone() }, ip });
    expect(unknown).toMatchObject({ status: 404, body: { message: 'Unable to locate the merchant you requested.' } });
    const after = Number((await tdb(m).selectFrom('customer_otps').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    expect(after).toBe(before);
  });

  test('bot challenge: CAPTCHA_REQUIRED without a response, CAPTCHA_INVALID for a bad or reused one, passes with a solved one', async () => {
    const phone = randomPhone();
    const ip = freshIp();
    const missing = await gated.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip });
    expect(missing).toMatchObject({ status: 403, body: { code: 'CAPTCHA_REQUIRED' } });
    // An unsolved widget's empty value (or null) is no response: 403 here, a pass without the secret.
    for (const empty of ['', null]) {
      const r = await gated.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone, 'challenge-response': empty }, ip });
      expect(r).toMatchObject({ status: 403, body: { message: 'A bot challenge response is required.', code: 'CAPTCHA_REQUIRED' } });
      const open = await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone: randomPhone(), 'challenge-response': empty }, ip: freshIp() });
      expect(open.status).toBe(200);
    }
    const bad = await gated.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone, 'challenge-response': 'forged' }, ip });
    expect(bad).toMatchObject({ status: 403, body: { code: 'CAPTCHA_INVALID' } });
    expect(lastCode(phone)).toBeNull();
    const token = challenge.issue();
    const ok = await gated.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone, 'challenge-response': token }, ip });
    expect(ok.status).toBe(200);
    expect(lastCode(phone)).toMatch(/^\d{6}$/);
    const reused = await gated.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone, 'challenge-response': token }, ip });
    expect(reused).toMatchObject({ status: 403, body: { code: 'CAPTCHA_INVALID' } });
  });

  test('an unreachable challenge service is CAPTCHA_INVALID', async () => {
    const down = await createTestApi({ env: { ...env, CHALLENGE_BASE_URL: 'http://127.0.0.1:9', CHALLENGE_SECRET: 'challenge-secret-0123' } });
    try {
      const r = await down.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone: randomPhone(), 'challenge-response': challenge.issue() }, ip: freshIp() });
      expect(r).toMatchObject({ status: 403, body: { code: 'CAPTCHA_INVALID' } });
    } finally {
      await down.close();
    }
  });

  test('a channel that is not configured or a provider that fails is a 503, and no code stays usable', async () => {
    const broken = await createTestApi({ env: { ...env, SMS_BASE_URL: 'http://127.0.0.1:9', MAIL_API_BASE_URL: '', MAIL_API_KEY: '' } });
    try {
      const phone = randomPhone();
      const r = await broken.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip: freshIp() });
      expect(r).toMatchObject({ status: 503, body: { message: 'The code could not be sent. Please try again later.' } });
      expect(await tdb(m).selectFrom('customer_otps').select('id').where('destination', '=', phone).execute()).toEqual([]);
      const e = await broken.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, email: 'x@example.com' }, ip: freshIp() });
      expect(e).toMatchObject({ status: 503, body: { message: 'Sending codes by email is not configured.' } });
    } finally {
      await broken.close();
    }
  });

  test('the guest prefix is throttled at 20 per minute per address (send-otp and login share it)', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await api.call('POST', i % 2 ? '/api/customer/login' : '/api/customer/send-otp', { body: { slug: 'no-such-merchant', phone: randomPhone(), ...(i % 2 ? { code: '000000' } : {}) }, ip })).status);
    expect(statuses.every((s) => s === 404)).toBe(true);
    const over = await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone: randomPhone() }, ip });
    expect(over.status).toBe(429);
    // Another address is not affected.
    expect((await api.call('POST', '/api/customer/send-otp', { body: { slug: 'no-such-merchant', phone: randomPhone() }, ip: freshIp() })).status).toBe(404);
  });
});

describe('POST /customer/login', () => {
  test('no code row outlives its use or its expiry: a spent code is gone, an expired one goes at the next send (they name a phone or address in clear)', async () => {
    const [phone, other] = [randomPhone(), randomPhone()];
    await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip: freshIp() });
    expect((await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code: lastCode(phone)! }, ip: freshIp() })).status).toBe(200);
    // Before: kept, marked used, for ever.
    expect(await tdb(m).selectFrom('customer_otps').select('id').where('destination', '=', phone).execute()).toEqual([]);
    await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone: other }, ip: freshIp() });
    await tdb(m).updateTable('customer_otps').set({ expires_at: new Date(Date.now() - 1000) }).where('destination', '=', other).execute();
    await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone: randomPhone() }, ip: freshIp() });
    expect(await tdb(m).selectFrom('customer_otps').select('id').where('destination', '=', other).execute()).toEqual([]);
  });

  test('a code logs in once and answers a customer token; the same phone at another merchant is another customer', async () => {
    const phone = randomPhone();
    const ip = freshIp();
    await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip });
    const code = lastCode(phone)!;
    const r = await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code }, ip });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'success',
      token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 30 * 24 * 3600,
      created: true,
      customer: { id: expect.any(String), name: null, email: null, phone, marketing_consent: false, created_at: expect.any(String), updated_at: expect.any(String) },
    });
    const claims = await api.deps.tokens.verify(r.body.token);
    expect(claims).toMatchObject({ type: 'customer', sub: r.body.customer.id, merchant_id: m.merchant.id, tenant_database: m.merchant.tenant_database });
    const again = await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code }, ip });
    expect(again).toMatchObject({ status: 422, body: { errors: { code: ['The code is invalid or has expired.'] } } });
    // The same phone at the second merchant: its own code, its own customer.
    await api.call('POST', '/api/customer/send-otp', { body: { slug: other.merchant.slug, phone }, ip });
    const r2 = await api.call('POST', '/api/customer/login', { body: { slug: other.merchant.slug, phone, code: lastCode(phone)! }, ip });
    expect(r2.status).toBe(200);
    expect(r2.body.created).toBe(true);
    expect(r2.body.customer.id).not.toBe(r.body.customer.id);
    expect((await api.deps.tokens.verify(r2.body.token))!.merchant_id).toBe(other.merchant.id);
    // A second login (new code) finds the same customer.
    await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip });
    const r3 = await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone: `0${phone.slice(3)}`, code: lastCode(phone)! }, ip });
    expect(r3.body).toMatchObject({ created: false, customer: { id: r.body.customer.id } });
  });

  test('a wrong code, another merchant\'s code and an expired code are refused', async () => {
    const phone = randomPhone();
    const ip = freshIp();
    await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip });
    const code = lastCode(phone)!;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expect((await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code: wrong }, ip })).status).toBe(422);
    expect((await api.call('POST', '/api/customer/login', { body: { slug: other.merchant.slug, phone, code }, ip })).status).toBe(422);
    await tdb(m).updateTable('customer_otps').set({ expires_at: new Date(Date.now() - 1000) }).where('destination', '=', phone).execute();
    expect((await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code }, ip })).body.errors).toEqual({ code: ['The code is invalid or has expired.'] });
    const malformed = await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code: '12ab' }, ip });
    expect(malformed).toMatchObject({ status: 422, body: { errors: { code: ['The code field must be 6 digits.'] } } });
    expect(await tdb(m).selectFrom('customers').select('id').where('phone', '=', phone).executeTakeFirst()).toBeUndefined();
  });
});

describe('POST /customer/login/idp', () => {
  const idToken = (claims: Record<string, unknown>, key = keys.privateKey, kid = 'k1') =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).setIssuer(ISSUER).setAudience(CLIENT).setSubject(String(claims.sub ?? 'sub-1')).setIssuedAt().setJti(crypto.randomUUID()).setExpirationTime('5m').sign(key);

  test('a verified ID token logs in (enrols, then finds by subject); a verified e-mail links an existing customer', async () => {
    const sub = `user-${crypto.randomUUID()}`;
    const email = `idp-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const ip = freshIp();
    const r = await api.call('POST', '/api/customer/login/idp', { body: { slug: m.merchant.slug, credential: await idToken({ sub, email, email_verified: true, name: 'Ida' }), location_id: m.locations[0]!.id }, ip });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'success', token_type: 'Bearer', created: true, customer: { name: 'Ida', email, phone: null } });
    const row = await tdb(m).selectFrom('customers').select('idp_subject').where('id', '=', r.body.customer.id).executeTakeFirstOrThrow();
    expect(row.idp_subject).toBe(`${ISSUER}|${sub}`);
    const again = await api.call('POST', '/api/customer/login/idp', { body: { slug: m.merchant.slug, credential: await idToken({ sub }) }, ip });
    expect(again.body).toMatchObject({ created: false, customer: { id: r.body.customer.id } });
    const timeline = await tdb(m).selectFrom('customer_timeline').select(['kind', 'detail']).where('customer_id', '=', r.body.customer.id).orderBy('created_at').orderBy('id').execute();
    expect(timeline.map((x) => x.kind)).toEqual(['enrolled', 'logged_in', 'visited', 'logged_in']);
    // A customer known by e-mail (kiosk, back office) is linked, not duplicated; an unverified e-mail is not used.
    const known = `known-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const id = Bun.randomUUIDv7();
    await tdb(m).insertInto('customers').values({ id, name: 'Known', email: known, phone: null, created_at: new Date(), updated_at: new Date() }).execute();
    const unverified = await api.call('POST', '/api/customer/login/idp', { body: { slug: m.merchant.slug, credential: await idToken({ sub: `u-${id}`, email: known, email_verified: false }) }, ip });
    expect(unverified.body.created).toBe(true);
    expect(unverified.body.customer.id).not.toBe(id);
    const linked = await api.call('POST', '/api/customer/login/idp', { body: { slug: m.merchant.slug, credential: await idToken({ sub: `v-${id}`, email: known, email_verified: true }) }, ip });
    expect(linked.body).toMatchObject({ created: false, customer: { id, name: 'Known', email: known } });
  });

  test('a forged, foreign-key, wrong-audience or expired token is a 422 on credential and writes nothing', async () => {
    const ip = freshIp();
    const before = Number((await tdb(m).selectFrom('customers').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const foreign = await idToken({ sub: 'x' }, otherKeys.privateKey);
    const wrongAud = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(ISSUER).setAudience('other-app').setSubject('x').setIssuedAt().setJti(crypto.randomUUID()).setExpirationTime('5m').sign(keys.privateKey);
    const expired = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(ISSUER).setAudience(CLIENT).setSubject('x').setIssuedAt(Math.floor(Date.now() / 1000) - 3600).setExpirationTime(Math.floor(Date.now() / 1000) - 600).sign(keys.privateKey);
    for (const credential of [foreign, wrongAud, expired, 'not-a-jwt']) {
      const r = await api.call('POST', '/api/customer/login/idp', { body: { slug: m.merchant.slug, credential }, ip });
      expect(r).toMatchObject({ status: 422, body: { errors: { credential: ['The credential is invalid or has expired.'] } } });
    }
    const after = Number((await tdb(m).selectFrom('customers').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    expect(after).toBe(before);
  });
});

describe('customer sign-in: codes, races and which account a contact opens', () => {
  const idToken = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(ISSUER).setAudience(CLIENT).setSubject(String(claims.sub)).setIssuedAt().setJti(crypto.randomUUID()).setExpirationTime('5m').sign(keys.privateKey);
  const lastMailCode = (to: string) => /(\d{6})/.exec(mail.sent.filter((x) => x.to === to).at(-1)?.text ?? '')?.[1] ?? null;
  const signInByPhone = async (phone: string) => {
    await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip: freshIp() });
    return api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code: lastCode(phone)! }, ip: freshIp() });
  };

  test('first sign-ins of one new customer at once: identity provider three times, then a code and the identity provider with one e-mail; every one 200 for the same customer', async () => {
    // Three credentials of one identity (a credential signs in once).
    const claims = { sub: `race-${crypto.randomUUID()}`, email: `race-${crypto.randomUUID().slice(0, 8)}@example.com`, email_verified: true, name: 'Race' };
    const creds = await Promise.all([0, 1, 2].map(() => idToken(claims)));
    const rs = await Promise.all(creds.map((credential) => api.call('POST', '/api/customer/login/idp', { body: { slug: m.merchant.slug, credential }, ip: freshIp() })));
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(rs.map((r) => r.body.customer.id)).size).toBe(1);
    expect(rs.filter((r) => r.body.created).length).toBe(1);
    for (let round = 0; round < 4; round++) {
      const email = `race-${round}-${crypto.randomUUID().slice(0, 8)}@example.com`;
      await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, email }, ip: freshIp() });
      const code = lastMailCode(email)!;
      const both = await Promise.all([
        api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, email, code }, ip: freshIp() }),
        api.call('POST', '/api/customer/login/idp', { body: { slug: m.merchant.slug, credential: await idToken({ sub: `r-${crypto.randomUUID()}`, email, email_verified: true }) }, ip: freshIp() }),
      ]);
      expect(both.map((r) => r.status)).toEqual([200, 200]);
      expect(both[0]!.body.customer.id).toBe(both[1]!.body.customer.id);
      // The code was spent by the request that succeeded, once.
      const again = await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, email, code }, ip: freshIp() });
      expect(again).toMatchObject({ status: 422, body: { errors: { code: ['The code is invalid or has expired.'] } } });
    }
    // One code sent twice at once: one sign-in, one 422.
    const phone = randomPhone();
    await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip: freshIp() });
    const twice = await Promise.all([0, 1].map(() => api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code: lastCode(phone)! }, ip: freshIp() })));
    expect(twice.map((r) => r.status).sort()).toEqual([200, 422]);
  });

  test('a new code replaces the earlier ones of its destination: only the newest logs in', async () => {
    const phone = randomPhone();
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) {
      expect((await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip: freshIp() })).status).toBe(200);
      codes.push(lastCode(phone)!);
    }
    const live = await tdb(m).selectFrom('customer_otps').select('id').where('destination', '=', phone).where('used_at', 'is', null).where('expires_at', '>', new Date()).execute();
    expect(live.length).toBe(1);
    for (const code of codes.slice(0, 2).filter((c) => c !== codes[2])) {
      const old = await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code }, ip: freshIp() });
      expect(old).toMatchObject({ status: 422, body: { errors: { code: ['The code is invalid or has expired.'] } } });
    }
    expect((await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code: codes[2]! }, ip: freshIp() })).status).toBe(200);
  });

  test('at most 5 codes per destination per 15 minutes, whatever the address (429 as the other throttles); another destination is not affected', async () => {
    const email = `flood-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api.call('POST', '/api/customer/send-otp', { body: { slug: i % 2 ? other.merchant.slug : m.merchant.slug, email }, ip: freshIp() })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const sent = mail.sent.filter((x) => x.to === email).length;
    const over = await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, email: email.toUpperCase() }, ip: freshIp() });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
    expect(mail.sent.filter((x) => x.to === email).length).toBe(sent);
    expect((await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, email: `x-${email}` }, ip: freshIp() })).status).toBe(200);
  });

  test('an ID token signs in once: the same credential again, here or at another merchant, is 422 and signs nobody in', async () => {
    const cred = await idToken({ sub: `once-${crypto.randomUUID()}`, email: `once-${crypto.randomUUID().slice(0, 8)}@example.com`, email_verified: true });
    expect((await api.call('POST', '/api/customer/login/idp', { body: { slug: m.merchant.slug, credential: cred }, ip: freshIp() })).status).toBe(200);
    // Before: 200 each time, at every merchant, until the token expired.
    for (const slug of [m.merchant.slug, other.merchant.slug]) {
      expect(await api.call('POST', '/api/customer/login/idp', { body: { slug, credential: cred }, ip: freshIp() })).toMatchObject({
        status: 422,
        body: { errors: { credential: ['This identity credential has already been used.'] } },
      });
    }
  });

  test('codes to the sub-addresses of one inbox count as that inbox (5 per 15 minutes)', async () => {
    const inbox = `sub-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const at = (n: number) => inbox.replace('@', `+${n}@`);
    for (let i = 0; i < 5; i++) expect((await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, email: at(i) }, ip: freshIp() })).status).toBe(200);
    // Before: every `+tag` had five of its own.
    expect((await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, email: at(5) }, ip: freshIp() })).status).toBe(429);
  });

  test('a merchant name chosen to carry a message is cut to 40 characters in the code message; per merchant, 300 codes an hour', async () => {
    const own = await api.seed('cauth-cap');
    const long = `Parcel held at the depot, pay the fee at evil.example.com today ${'x'.repeat(150)}`;
    await api.deps.db.updateTable('merchants').set({ name: long }).where('id', '=', own.merchant.id).execute();
    const email = `long-${crypto.randomUUID().slice(0, 8)}@example.com`;
    expect((await api.call('POST', '/api/customer/send-otp', { body: { slug: own.merchant.slug, email }, ip: freshIp() })).status).toBe(200);
    const sent = mail.sent.filter((x) => x.to === email).at(-1)!;
    // Before: the whole name, and past 184 characters the mail provider refused the subject (every e-mail code 503).
    expect(sent.subject).toBe(`Your ${long.slice(0, 39)}… login code`);
    expect(sent.text).toMatch(/^\d{6} /);
    expect(sent.text.slice(7)).toBe(`is your ${long.slice(0, 39)}… login code. It expires in 15 minutes.`);
    const statuses: number[] = [];
    for (let i = 1; i < 300; i++) statuses.push((await api.call('POST', '/api/customer/send-otp', { body: { slug: own.merchant.slug, phone: randomPhone() }, ip: freshIp() })).status);
    expect(statuses.filter((x) => x !== 200)).toEqual([]);
    expect((await api.call('POST', '/api/customer/send-otp', { body: { slug: own.merchant.slug, phone: randomPhone() }, ip: freshIp() })).status).toBe(429);
    // Another merchant's customers are not held back.
    expect((await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone: randomPhone() }, ip: freshIp() })).status).toBe(200);
  });

  test('one client address sends at most 20 of a merchant\'s codes an hour: it cannot spend the merchant\'s 300 and lock its customers out', async () => {
    const own = await api.seed('cauth-share');
    const ip = freshIp();
    const send = (from: string, slug = own.merchant.slug) => api.call('POST', '/api/customer/send-otp', { body: { slug, phone: randomPhone() }, ip: from });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await send(ip)).status);
    expect(statuses.filter((x) => x !== 200)).toEqual([]);
    // The guest throttle (20 a minute) is past: only the hourly share per merchant refuses from here.
    await api.deps.redis.del(`throttle:${THROTTLES.customerGuest.name}:${THROTTLES.customerGuest.windowSeconds}:${ip}`);
    const over = await send(ip);
    expect(over.status).toBe(429);
    // Before: 200, until the merchant's 300 an hour were gone for every customer.
    expect((await throttleCount(api.deps.redis, THROTTLES.customerOtpMerchant, own.merchant.id)).count).toBe(20);
    expect((await send(freshIp())).status).toBe(200);
    expect((await send(ip, m.merchant.slug)).status).toBe(200);
  });

  test('the guest throttle counts every request of the prefix, refused bodies too (20 per minute per address)', async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) {
      const path = ['/api/customer/login', '/api/customer/send-otp', '/api/customer/login/idp'][i % 3]!;
      const r = await api.call('POST', path, { body: { slug: m.merchant.slug, phone: 'x', code: 'abc' }, ip });
      expect(r.status).toBe(422);
    }
    const over = await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone: randomPhone(), code: '123456' }, ip });
    expect(over).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.' } });
  });

  test('the guest throttle counts an IPv6 client per /64: rotating addresses inside one /64 does not escape it', async () => {
    const phone = randomPhone();
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;
    const addr = (i: number) => `${prefix}::${(i + 1).toString(16)}`;
    expect((await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, phone }, ip: addr(0) })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 1; i <= 20; i++) {
      statuses.push((await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code: String(i).padStart(6, '0') }, ip: addr(i) })).status);
    }
    expect(statuses).toEqual([...Array(19).fill(422), 429]);
    // Another /64 has its own counter.
    const next = await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, phone, code: '000000' }, ip: `2001:db8:ffff:${Math.floor(Math.random() * 0xffff).toString(16)}::1` });
    expect(next).toMatchObject({ status: 422, body: { errors: { code: ['The code is invalid or has expired.'] } } });
  });

  test('an e-mail another customer typed into their profile does not open their account: the owner signing in (identity provider, code) gets their own, and the address leaves the other account', async () => {
    for (const how of ['idp', 'code'] as const) {
      const attacker = await signInByPhone(randomPhone());
      expect(attacker.status).toBe(200);
      const victim = `victim-${how}-${crypto.randomUUID().slice(0, 8)}@example.com`;
      expect((await api.call('POST', '/api/customer/personal-info', { token: attacker.body.token, body: { email: victim }, ip: freshIp() })).status).toBe(200);
      let v;
      if (how === 'idp') {
        v = await api.call('POST', '/api/customer/login/idp', { body: { slug: m.merchant.slug, credential: await idToken({ sub: `v-${crypto.randomUUID()}`, email: victim, email_verified: true }) }, ip: freshIp() });
      } else {
        await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, email: victim }, ip: freshIp() });
        v = await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, email: victim, code: lastMailCode(victim)! }, ip: freshIp() });
      }
      expect(v.status).toBe(200);
      expect(v.body).toMatchObject({ created: true, customer: { email: victim, phone: null } });
      expect(v.body.customer.id).not.toBe(attacker.body.customer.id);
      const a = await api.call('GET', '/api/customer/user', { token: attacker.body.token });
      expect(a.body.data ?? a.body).toMatchObject({ email: null });
      const row = await tdb(m).selectFrom('customers').select(['email_verified', 'phone_verified']).where('id', '=', v.body.customer.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ email_verified: true, phone_verified: false });
    }
  });

  test('an account that was signed into stays the signer\'s after dropping its proven phone: an e-mail typed there does not open it to the address\'s owner', async () => {
    const attacker = await signInByPhone(randomPhone());
    expect(attacker.status).toBe(200);
    const victim = `victim-drop-${crypto.randomUUID().slice(0, 8)}@example.com`;
    // The account's only proven contact is removed and another's address typed: no verified contact is left.
    const edit = await api.call('POST', '/api/customer/personal-info', { token: attacker.body.token, body: { email: victim, phone: null }, ip: freshIp() });
    expect(edit.status).toBe(200);
    await api.call('POST', '/api/customer/send-otp', { body: { slug: m.merchant.slug, email: victim }, ip: freshIp() });
    const v = await api.call('POST', '/api/customer/login', { body: { slug: m.merchant.slug, email: victim, code: lastMailCode(victim)! }, ip: freshIp() });
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ created: true, customer: { email: victim, phone: null } });
    expect(v.body.customer.id).not.toBe(attacker.body.customer.id);
    // The address left the attacker's account, and the attacker's live token does not read what the owner adds.
    expect(await tdb(m).selectFrom('customers').select(['email', 'phone']).where('id', '=', attacker.body.customer.id).executeTakeFirstOrThrow()).toEqual({ email: null, phone: null });
    expect((await api.call('POST', '/api/customer/addresses', { token: v.body.token, body: { label: 'Home', line1: 'Rue Secrète 1', city: 'Brussels', postal_code: '1000', country: 'BE' } })).status).toBe(200);
    const spy = await api.call('GET', '/api/customer/addresses', { token: attacker.body.token });
    expect(spy.status).toBe(200);
    expect(JSON.stringify(spy.body)).not.toContain('Rue Secrète');
  });

  test('an account with no verified contact (kiosk, staff) opens to the sign-in that proves its contact, which becomes verified; a verified contact keeps opening it', async () => {
    const phone = randomPhone();
    const id = Bun.randomUUIDv7();
    await tdb(m).insertInto('customers').values({ id, name: 'Kiosk Kim', email: null, phone, created_at: new Date(), updated_at: new Date() }).execute();
    const r = await signInByPhone(phone);
    expect(r.body).toMatchObject({ created: false, customer: { id, name: 'Kiosk Kim', phone } });
    expect(await tdb(m).selectFrom('customers').select('phone_verified').where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ phone_verified: true });
    expect((await signInByPhone(phone)).body).toMatchObject({ created: false, customer: { id } });
    // Changing the phone on the profile drops the proof of the new number.
    const next = randomPhone();
    expect((await api.call('POST', '/api/customer/personal-info', { token: r.body.token, body: { phone: next }, ip: freshIp() })).status).toBe(200);
    expect(await tdb(m).selectFrom('customers').select('phone_verified').where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ phone_verified: false });
  });
});
