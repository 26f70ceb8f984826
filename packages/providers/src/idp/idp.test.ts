import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { IdTokenError, IdTokenVerifier, idTokenVerifierFromEnv } from './id-token-verifier.ts';
import { startIdpSimulator, type IdpSimulator } from './idp-simulator.ts';

let sim: IdpSimulator;
beforeAll(async () => {
  sim = await startIdpSimulator({ clientId: 'client-1' });
});
afterAll(() => sim.stop());

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'accepted';
  } catch (e) {
    return e instanceof IdTokenError ? e.reason : `other: ${String(e)}`;
  }
}

describe('IdTokenVerifier against the idp simulator', () => {
  test('discovery serves the issuer and JWKS; a good token verifies with its claims', async () => {
    const doc = await (await fetch(`${sim.url}/.well-known/openid-configuration`)).json();
    expect(doc).toMatchObject({ issuer: sim.issuer, jwks_uri: `${sim.issuer}/jwks` });
    const jwks = (await (await fetch(`${sim.url}/jwks`)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys[0]!.d).toBeUndefined();

    const v = new IdTokenVerifier({ issuer: sim.issuer, clientId: 'client-1' });
    const token = await sim.sign({ sub: 'u-1', email: 'Ann@Example.com', email_verified: true, name: 'Ann', nonce: 'nonce-1' });
    const id = await v.verify(token, 'nonce-1');
    expect(id).toMatchObject({ issuer: sim.issuer, subject: 'u-1', email: 'ann@example.com', emailVerified: true, name: 'Ann' });
    // The explicit JWKS address works the same; the HTTP token endpoint signs too.
    const direct = new IdTokenVerifier({ issuer: sim.issuer, clientId: 'client-1', jwksUrl: `${sim.url}/jwks` });
    const viaHttp = (await (await fetch(`${sim.url}/_sim/id-token`, { method: 'POST', body: JSON.stringify({ sub: 'u-2', nonce: 'n2' }) })).json()) as { id_token: string };
    expect((await direct.verify(viaHttp.id_token, 'n2')).subject).toBe('u-2');
  });

  test('refusals: audience, issuer, expiry, foreign key, nonce, garbage; unreachable provider', async () => {
    const v = new IdTokenVerifier({ issuer: sim.issuer, clientId: 'client-1' });
    expect(await reason(v.verify(await sim.sign({ sub: 'u', aud: 'other', nonce: 'n' }), 'n'))).toBe('invalid');
    expect(await reason(v.verify(await sim.sign({ sub: 'u', iss: 'http://evil', nonce: 'n' }), 'n'))).toBe('invalid');
    expect(await reason(v.verify(await sim.sign({ sub: 'u', expires_in: -120, nonce: 'n' }), 'n'))).toBe('expired');
    // Within the 60 s clock tolerance an expired token still passes.
    expect(await reason(v.verify(await sim.sign({ sub: 'u', expires_in: -30, nonce: 'n' }), 'n'))).toBe('accepted');
    expect(await reason(v.verify(await sim.sign({ sub: 'u', foreign_key: true, nonce: 'n' }), 'n'))).toBe('invalid');
    expect(await reason(v.verify(await sim.sign({ sub: 'u', nonce: 'n' }), 'other'))).toBe('nonce');
    expect(await reason(v.verify(await sim.sign({ sub: 'u' }), 'n'))).toBe('nonce');
    expect(await reason(v.verify('not.a.token', 'n'))).toBe('invalid');
    const down = new IdTokenVerifier({ issuer: 'http://127.0.0.1:9', clientId: 'client-1' }, 1000);
    expect(await reason(down.verify(await sim.sign({ sub: 'u', nonce: 'n' }), 'n'))).toBe('unavailable');
  });

  test('from the environment: both issuer and client id are needed', () => {
    expect(idTokenVerifierFromEnv({})).toBeNull();
    expect(idTokenVerifierFromEnv({ IDP_ISSUER: sim.issuer })).toBeNull();
    expect(idTokenVerifierFromEnv({ IDP_ISSUER: sim.issuer, IDP_CLIENT_ID: 'c' })).toBeInstanceOf(IdTokenVerifier);
  });
});
