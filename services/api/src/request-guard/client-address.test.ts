import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseAllowList } from '@pos/core/devices/ip-allow-list';
import { createClientAddress, type SocketInfo } from '@pos/core/network/client-address';
import { createTestApi, type TestApi } from '../testing/harness.ts';
import { serveOptions } from './serve-options.ts';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';

const socket = (address: string): SocketInfo => ({ requestIP: () => ({ address }) });
const req = (xff?: string) => new Request('http://localhost/', { headers: xff ? { 'x-forwarded-for': xff } : {} });

describe('createClientAddress', () => {
  test('without trusted proxies the socket address is the client, whatever X-Forwarded-For says', () => {
    const resolve = createClientAddress(parseAllowList(''));
    expect(resolve(req('10.9.9.9'), socket('203.0.113.7'))).toBe('203.0.113.7');
    expect(resolve(req(), null)).toBe('unknown');
  });

  test('from a trusted proxy, the first untrusted hop from the right is the client', () => {
    const resolve = createClientAddress(parseAllowList('10.0.0.0/8,192.0.2.1', 'TRUSTED_PROXIES'));
    expect(resolve(req('198.51.100.4'), socket('10.0.0.5'))).toBe('198.51.100.4');
    // The client wrote a forged left part: the proxy appended the real peer on the right.
    expect(resolve(req('1.2.3.4, 198.51.100.4'), socket('10.0.0.5'))).toBe('198.51.100.4');
    expect(resolve(req('198.51.100.4, 192.0.2.1'), socket('10.0.0.5'))).toBe('198.51.100.4');
    expect(resolve(req(), socket('10.0.0.5'))).toBe('10.0.0.5');
    expect(resolve(req('not-an-ip'), socket('10.0.0.5'))).toBe('10.0.0.5');
    // An untrusted socket's header is ignored.
    expect(resolve(req('198.51.100.4'), socket('203.0.113.7'))).toBe('203.0.113.7');
  });

  test('a malformed TRUSTED_PROXIES entry stops the service with the variable named', () => {
    expect(() => parseAllowList('10.0.0.0/99', 'TRUSTED_PROXIES')).toThrow('TRUSTED_PROXIES');
  });
});

/** Over a real socket: rotating X-Forwarded-For no longer defeats the login throttle (10 a minute). */
describe('login throttle over HTTP', () => {
  let api: TestApi;
  let m: DemoSeedResult;
  let server: ReturnType<TestApi['app']['listen']>;
  let base: string;
  beforeAll(async () => {
    api = await createTestApi();
    m = await api.seed('xff');
    server = api.app.listen({ ...serveOptions(api.deps.bodyPolicies), port: 0, hostname: '127.0.0.1' });
    base = `http://127.0.0.1:${server.server!.port}`;
  });
  afterAll(async () => {
    await server.stop();
    await api.close();
  });

  test('the 11th attempt is 429 even with a new X-Forwarded-For each time, and a right password is refused then', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await fetch(`${base}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i + 1}` },
        body: JSON.stringify({ email: m.backoffice.email, password: 'wrong-password' }),
      });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401 || s === 422)).toBe(true);
    expect(statuses[10]).toBe(429);
    const right = await fetch(`${base}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.200' },
      body: JSON.stringify({ email: m.backoffice.email, password: m.backoffice.password }),
    });
    expect(right.status).toBe(429);
  });
});
