import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { exchangeAuthorizationCode, OAuthExchangeError, refreshAccessToken, type OAuthClientConfig } from './oauth-client.ts';
import { startOAuthSimulator, type OAuthSimulator } from './oauth-simulator.ts';

// The authorization-code exchange and the refresh grant against the token endpoint simulator, over real HTTP.
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

describe('OAuth token endpoint (code exchange and refresh)', () => {
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

  test('a refresh token gives a new access token and a rotated refresh token; the old one is spent', async () => {
    const first = await exchangeAuthorizationCode(cfg, sim.issueCode({ accountId: 'acct-r', redirectUri: cfg.redirectUri }));
    const next = await refreshAccessToken(cfg, first.refreshToken!);
    const issued = sim.issued.at(-1)!;
    expect(issued).toEqual({ grant: 'refresh_token', code: null, accessToken: next.accessToken, refreshToken: next.refreshToken!, accountId: 'acct-r' });
    expect(next).toEqual({ accessToken: expect.stringMatching(/^at_register-c_/), refreshToken: expect.stringMatching(/^rt_register-c_/), expiresIn: 3600, scope: 'read write', accountId: 'acct-r' });
    expect(next.accessToken).not.toBe(first.accessToken);
    expect(next.refreshToken).not.toBe(first.refreshToken);
    // Rotation: the spent token is refused, the new one works once more.
    await rejected(refreshAccessToken(cfg, first.refreshToken!), 400, 'invalid_grant');
    const third = await refreshAccessToken(cfg, next.refreshToken!);
    expect(third.refreshToken).not.toBe(next.refreshToken);
    await rejected(refreshAccessToken(cfg, next.refreshToken!), 400, 'invalid_grant');
  });

  test('an unknown or revoked refresh token, wrong client credentials, a code as refresh token are rejected', async () => {
    const t = await exchangeAuthorizationCode(cfg, sim.issueCode({ accountId: 'acct-x', redirectUri: cfg.redirectUri }));
    await rejected(refreshAccessToken(cfg, 'rt_unknown'), 400, 'invalid_grant');
    await rejected(refreshAccessToken({ ...cfg, clientSecret: 'wrong-secret' }, t.refreshToken!), 401, 'invalid_client');
    await rejected(refreshAccessToken(cfg, sim.issueCode({ accountId: 'acct-x' })), 400, 'invalid_grant');
    const before = sim.issued.length;
    sim.revokeRefreshToken(t.refreshToken!);
    await rejected(refreshAccessToken(cfg, t.refreshToken!), 400, 'invalid_grant');
    expect(sim.issued).toHaveLength(before);
  });

  test('a refreshed access token is active at the introspection endpoint', async () => {
    const t = await exchangeAuthorizationCode(cfg, sim.issueCode({ accountId: 'acct-i', redirectUri: cfg.redirectUri }));
    const next = await refreshAccessToken(cfg, t.refreshToken!);
    const res = await fetch(`${sim.url}/oauth/introspect`, { method: 'POST', body: new URLSearchParams({ token: next.accessToken, client_id: 'rc-client', client_secret: 'rc-client-secret' }) });
    expect(await res.json()).toEqual({ active: true, account_id: 'acct-i' });
  });

  test('an unreachable endpoint is unavailable', async () => {
    // Port 1: privileged, nothing listens there (a probed and released port could be taken meanwhile and answer).
    const e = await exchangeAuthorizationCode({ ...cfg, baseUrl: 'http://127.0.0.1:1', timeoutMs: 2000 }, 'x').then(() => null, (x: unknown) => x);
    expect(e).toMatchObject({ kind: 'unavailable' });
  });
});
