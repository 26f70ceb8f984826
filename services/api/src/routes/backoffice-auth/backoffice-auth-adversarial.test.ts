import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { accountKey } from '@pos/core/shared/mailbox';
import { THROTTLES } from '../../middleware/throttle.ts';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let a: DemoSeedResult;

const octet = () => Math.floor(Math.random() * 250) + 1;
const randomIp = () => `10.${octet()}.${octet()}.${octet()}`;
const login = (ip: string, email: string, password: string) => api.call('POST', '/api/login', { ip, body: { email, password } });

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('auth-adv-a');
});
afterAll(() => api.close());

describe('POST /login, adversarial: password spraying from one address', () => {
  test('failures over many accounts from one address end in 429, even for the right password; other addresses are unaffected', async () => {
    const ip = randomIp();
    const limit = THROTTLES.loginAddressFailures.limit;
    for (let i = 0; i < limit; i++) {
      // A different account each time: the address-and-account throttle never sees more than one attempt.
      const r = await login(ip, `sprayed-${i}-${crypto.randomUUID().slice(0, 6)}@example.com`, 'Summer2026!');
      expect(r).toMatchObject({ status: 422, body: { errors: { email: ['These credentials do not match our records.'] } } });
    }
    const blocked = await login(ip, a.backoffice.email, a.backoffice.password);
    expect(blocked).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.', retry_after: expect.any(Number) } });
    expect(blocked.body.token).toBeUndefined();
    expect(await login(randomIp(), a.backoffice.email, a.backoffice.password)).toMatchObject({ status: 200, body: { token: expect.any(String) } });
  });

  test('a made-up X-Forwarded-For from an untrusted peer does not make each attempt a new address', async () => {
    const ip = randomIp();
    const limit = THROTTLES.loginAddressFailures.limit;
    for (let i = 0; i <= limit; i++) {
      const r = await api.call('POST', '/api/login', { ip, headers: { 'x-forwarded-for': randomIp() }, body: { email: `xff-${i}-${crypto.randomUUID().slice(0, 6)}@example.com`, password: 'Winter2026!' } });
      expect(r.status).toBe(i < limit ? 422 : 429);
    }
  });

  test('a burst of attempts sent at once is bounded as a sequence is: at most the limit have their password checked', async () => {
    const ip = randomIp();
    const limit = THROTTLES.loginAddressFailures.limit;
    const burst = await Promise.all(
      Array.from({ length: 3 * limit }, (_, i) => login(ip, `burst-${i}-${crypto.randomUUID().slice(0, 6)}@example.com`, 'Spring2026!')),
    );
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 422).length).toBe(limit);
    expect(statuses.filter((s) => s === 429).length).toBe(2 * limit);
    expect((await login(ip, a.backoffice.email, a.backoffice.password)).status).toBe(429);
  });

  test('successful sign-ins from one address (an office) do not count towards it', async () => {
    const ip = randomIp();
    for (let i = 0; i < THROTTLES.loginAddressFailures.limit + 2; i++) {
      // The address-and-account throttle (10 a minute) is not what is tested here: alternate two accounts' worth.
      if (i % 9 === 8) await api.deps.redis.del(`throttle:${THROTTLES.login.name}:${THROTTLES.login.windowSeconds}:${ip}:${accountKey(a.backoffice.email)}`);
      expect((await login(ip, a.backoffice.email, a.backoffice.password)).status).toBe(200);
    }
  });
});

describe('POST /login, adversarial: what the throttle keeps in Redis', () => {
  test('the address-and-account counter is keyed by a hash of the lower-cased e-mail, never the typed address; same limit, case-insensitive', async () => {
    const ip = randomIp();
    const typed = `Someone.Private+${crypto.randomUUID().slice(0, 6)}@Example.com`;
    const hashed = createHash('sha256').update(typed.toLowerCase()).digest('hex');
    // Each attempt under another casing of one address: one counter, 10 a minute, then 429.
    const cased = (i: number) => (i % 2 ? typed.toUpperCase() : typed.toLowerCase());
    for (let i = 0; i < THROTTLES.login.limit; i++) expect((await login(ip, cased(i), 'Autumn2026!')).status).toBe(422);
    expect((await login(ip, typed, 'Autumn2026!')).status).toBe(429);
    const keys = await api.deps.redis.keys(`throttle:${THROTTLES.login.name}:*:${ip}:*`);
    expect(keys).toEqual([`throttle:${THROTTLES.login.name}:${THROTTLES.login.windowSeconds}:${ip}:${hashed}`]);
    const everything = await api.deps.redis.keys('throttle:*');
    expect(everything.filter((k) => k.toLowerCase().includes('someone.private'))).toEqual([]);
  });
});
