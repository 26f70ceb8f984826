import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
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
      if (i % 9 === 8) await api.deps.redis.del(`throttle:${THROTTLES.login.name}:${THROTTLES.login.windowSeconds}:${ip}:${a.backoffice.email.toLowerCase()}`);
      expect((await login(ip, a.backoffice.email, a.backoffice.password)).status).toBe(200);
    }
  });
});
