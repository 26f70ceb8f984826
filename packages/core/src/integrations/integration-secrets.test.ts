import { describe, expect, test } from 'bun:test';
import { createCipheriv } from 'node:crypto';
import { decryptSecret, encryptSecret, parseTokenKey } from './token-crypto.ts';
import { mintOAuthState, readOAuthState } from './oauth-state.ts';

const KEY_HEX = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

describe('integration secrets at rest (AES-256-GCM)', () => {
  test('round trip; a fresh IV each time; the plaintext never appears', () => {
    const key = parseTokenKey(KEY_HEX)!;
    const a = encryptSecret(key, 'at_secret_token');
    const b = encryptSecret(key, 'at_secret_token');
    expect(a).not.toBe(b);
    expect(a).not.toContain('at_secret_token');
    expect(decryptSecret(key, a)).toBe('at_secret_token');
  });

  test('reads a value encrypted independently with node:crypto (interoperable format)', () => {
    const key = Buffer.from(KEY_HEX, 'hex');
    const iv = Buffer.alloc(12, 9);
    const c = createCipheriv('aes-256-gcm', key, iv);
    const ct = Buffer.concat([c.update('hello', 'utf8'), c.final()]);
    const stored = `v1.${iv.toString('base64url')}.${c.getAuthTag().toString('base64url')}.${ct.toString('base64url')}`;
    expect(decryptSecret(parseTokenKey(KEY_HEX)!, stored)).toBe('hello');
  });

  test('another key, a changed byte or a malformed value: null', () => {
    const key = parseTokenKey(KEY_HEX)!;
    const other = parseTokenKey(Buffer.alloc(32, 7).toString('base64'))!;
    const v = encryptSecret(key, 'x');
    expect(decryptSecret(other, v)).toBeNull();
    const parts = v.split('.');
    const ct = Buffer.from(parts[3]!, 'base64url');
    ct[0] = ct[0]! ^ 1;
    expect(decryptSecret(key, [parts[0], parts[1], parts[2], ct.toString('base64url')].join('.'))).toBeNull();
    expect(decryptSecret(key, 'plain')).toBeNull();
  });

  test('the key must be 32 bytes', () => {
    expect(parseTokenKey(undefined)).toBeNull();
    expect(() => parseTokenKey('abcd')).toThrow('INTEGRATION_TOKEN_KEY must be 32 bytes');
  });
});

describe('OAuth state', () => {
  const secret = 'state-secret-0123456789abcdef0123456789';
  const now = new Date('2026-11-24T10:00:00Z');
  const minted = () => mintOAuthState({ secret, provider: 'register-c', merchantId: 'm-1', locationId: 'l-1', now });

  test('binds provider, merchant and location; valid until it expires (10 minutes)', () => {
    const { state, expiresAt } = minted();
    expect(expiresAt.toISOString()).toBe('2026-11-24T10:10:00.000Z');
    expect(readOAuthState({ secret, state, provider: 'register-c', now })).toMatchObject({ ok: true, claims: { provider: 'register-c', merchantId: 'm-1', locationId: 'l-1' } });
    expect(readOAuthState({ secret, state, provider: 'register-c', now: new Date(expiresAt.getTime() - 1000) }).ok).toBe(true);
    expect(readOAuthState({ secret, state, provider: 'register-c', now: expiresAt })).toEqual({ ok: false, reason: 'expired' });
  });

  test('forged, changed claims, another secret, another provider, malformed', () => {
    const { state } = minted();
    const [body, sig] = state.split('.');
    const changed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), m: 'm-2' })).toString('base64url');
    expect(readOAuthState({ secret, state: `${changed}.${sig}`, provider: 'register-c', now })).toEqual({ ok: false, reason: 'forged' });
    expect(readOAuthState({ secret: `${secret}x`, state, provider: 'register-c', now })).toEqual({ ok: false, reason: 'forged' });
    expect(readOAuthState({ secret, state, provider: 'shop-a', now })).toEqual({ ok: false, reason: 'wrong_provider' });
    expect(readOAuthState({ secret, state: 'nonsense', provider: 'register-c', now })).toEqual({ ok: false, reason: 'malformed' });
  });
});
