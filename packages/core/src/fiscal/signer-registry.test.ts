import { describe, expect, test } from 'bun:test';
import { hkdfSync } from 'node:crypto';
import { SoftwareSigner, verifySignature } from '@pos/fiscal';
import { testSale } from '@pos/fiscal/test-fixtures';
import { AppError } from '@pos/kernel';
import { createSignerRegistry, deriveSeedHex } from './signer-registry.ts';
import { TEST_FISCAL_CONFIG } from './test-support.ts';
import { fiscalConfigFromEnv } from './fiscal-config.ts';

describe('signer registry', () => {
  test('software key: HKDF-SHA256(masterKey, info = fdm id), 32 bytes; stable and distinct per device', () => {
    const seed = deriveSeedHex(TEST_FISCAL_CONFIG.masterKey, 'FDM-1');
    expect(seed).toBe(Buffer.from(hkdfSync('sha256', TEST_FISCAL_CONFIG.masterKey, Buffer.alloc(0), 'FDM-1', 32)).toString('hex'));
    expect(seed).toMatch(/^[0-9a-f]{64}$/);
    expect(deriveSeedHex(TEST_FISCAL_CONFIG.masterKey, 'FDM-2')).not.toBe(seed);
    const registry = createSignerRegistry(TEST_FISCAL_CONFIG);
    const expected = new SoftwareSigner({ fdmId: 'FDM-1', seedHex: seed, verificationBaseUrl: 'https://x.test' });
    expect(registry.publicKeyFor('FDM-1')).toBe(expected.publicKeyPem);
    expect(registry.software('FDM-1')).toBe(registry.software('FDM-1'));
  });

  test('a configured signing key wins over the derived one', async () => {
    const seedHex = '42'.repeat(32);
    const registry = createSignerRegistry({ ...TEST_FISCAL_CONFIG, signingKeys: { 'FDM-1': seedHex } });
    const own = new SoftwareSigner({ fdmId: 'FDM-1', seedHex, verificationBaseUrl: 'https://x.test' });
    expect(registry.publicKeyFor('FDM-1')).toBe(own.publicKeyPem);
    const sale = testSale();
    const result = await registry.software('FDM-1').sign(sale);
    expect(verifySignature(own.publicKeyPem, sale, result)).toBe(true);
    expect(result.verificationUrl).toStartWith(TEST_FISCAL_CONFIG.verificationBaseUrl);
  });

  test('a module id named like a member of every object finds no configured key or secret (derived key; remote not configured)', async () => {
    const config = fiscalConfigFromEnv({ FISCAL_MASTER_KEY: TEST_FISCAL_CONFIG.masterKey, FISCAL_SIGNING_KEYS: JSON.stringify({ 'FDM-1': '42'.repeat(32) }), FDM_REMOTE_URL: 'http://127.0.0.1:1', FDM_REMOTE_SECRETS: JSON.stringify({ 'FDM-2': 's' }) });
    const registry = createSignerRegistry(config);
    for (const id of ['toString', 'constructor', 'valueOf', 'hasOwnProperty']) {
      // Before: Object.prototype's function was taken as the seed (a TypeError: every sale a 500) or the secret (enrolment passed).
      expect(registry.publicKeyFor(id)).toBe(new SoftwareSigner({ fdmId: id, seedHex: deriveSeedHex(config.masterKey, id), verificationBaseUrl: 'https://x.test' }).publicKeyPem);
      expect(() => registry.remote(id)).toThrow('The fiscal data module of this location is not configured.');
    }
    // Plain objects given directly are read by own key as well.
    const plain = createSignerRegistry({ ...TEST_FISCAL_CONFIG, signingKeys: { 'FDM-1': '42'.repeat(32) }, remote: { baseUrl: 'http://127.0.0.1:1', secrets: { 'FDM-2': 's' } } });
    expect(() => plain.software('toString')).not.toThrow();
    expect(() => plain.remote('constructor')).toThrow('The fiscal data module of this location is not configured.');
  });

  test('remote: a clear 503 when the URL or the device secret is missing', () => {
    const none = createSignerRegistry(TEST_FISCAL_CONFIG);
    expect(() => none.remote('FDM-9')).toThrow(AppError);
    const some = createSignerRegistry({ ...TEST_FISCAL_CONFIG, remote: { baseUrl: 'http://127.0.0.1:1', secrets: { 'FDM-2': 's' } } });
    let caught: unknown;
    try {
      some.remote('FDM-9');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).status).toBe(503);
    expect((caught as AppError).reason).toBe('fiscal_not_configured');
    expect(String(((caught as AppError).cause as Error).message)).toContain('FDM-9');
    expect(some.remote('FDM-2')).toBe(some.remote('FDM-2'));
  });
});
