import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { exchangeAuthorizationCode, OAuthExchangeError, type OAuthClientConfig } from './oauth-client.ts';
import { startOAuthSimulator, type OAuthSimulator } from './oauth-simulator.ts';

// The authorization-code exchange against the token endpoint simulator, over real HTTP.
let sim: OAuthSimulator;
let cfg: OAuthClientConfig;
beforeAll(() => {
  sim = startOAuthSimulator({ provider: 'register-c', clientId: 'rc-client', clientSecret: 'rc-client-secret' });
  cfg = { provider: 'register-c', baseUrl: sim.url, clientId: 'rc-client', clientSecret: 'rc-client-secret', redirectUri: 'https://bo.example.test/cb' };
});
afterAll(() => sim.stop());

const rejected = async (p: Promise<unknown>, status: number, code: string) => {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(OAuthExchangeError);
  expect(e).toMatchObject({ kind: 'rejected', status, code });
};

describe('exchangeAuthorizationCode', () => {
  test('a code issued for the client and redirect URI gives tokens and the account, once', async () => {
    const code = sim.issueCode({ accountId: 'acct-1', redirectUri: cfg.redirectUri });
    const t = await exchangeAuthorizationCode(cfg, code);
    expect(t).toEqual({ accessToken: sim.issued.at(-1)!.accessToken, refreshToken: expect.stringMatching(/^rt_register-c_/), expiresIn: 3600, scope: 'read write', accountId: 'acct-1' });
    await rejected(exchangeAuthorizationCode(cfg, code), 400, 'invalid_grant');
  });

  test('another redirect URI, an unknown code, wrong client credentials are rejected', async () => {
    await rejected(exchangeAuthorizationCode(cfg, sim.issueCode({ accountId: 'a', redirectUri: 'https://elsewhere.test/cb' })), 400, 'invalid_grant');
    await rejected(exchangeAuthorizationCode(cfg, 'code_unknown'), 400, 'invalid_grant');
    await rejected(exchangeAuthorizationCode({ ...cfg, clientSecret: 'wrong-secret' }, sim.issueCode({ accountId: 'a' })), 401, 'invalid_client');
  });

  test('an unreachable endpoint is unavailable', async () => {
    const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
    const url = `http://127.0.0.1:${probe.port}`;
    await probe.stop(true);
    const e = await exchangeAuthorizationCode({ ...cfg, baseUrl: url, timeoutMs: 2000 }, 'x').then(() => null, (x: unknown) => x);
    expect(e).toMatchObject({ kind: 'unavailable' });
  });
});
