import { describe, expect, test } from 'bun:test';
import { ConfigError } from '@pos/kernel';
import { DEFAULT_VERIFICATION_URL, fiscalConfigFromEnv } from './fiscal-config.ts';

const MASTER = 'm'.repeat(32);

describe('fiscalConfigFromEnv', () => {
  test('only the master key: defaults, no remote', () => {
    expect(fiscalConfigFromEnv({ FISCAL_MASTER_KEY: MASTER })).toEqual({ masterKey: MASTER, verificationBaseUrl: DEFAULT_VERIFICATION_URL });
  });

  test('parses signing keys, verification URL and remote modules', () => {
    const seed = 'ab'.repeat(32);
    const config = fiscalConfigFromEnv({
      FISCAL_MASTER_KEY: MASTER,
      FISCAL_SIGNING_KEYS: JSON.stringify({ 'FDM-1': seed }),
      FISCAL_VERIFICATION_URL: 'https://verify.example/fdm',
      FDM_REMOTE_URL: 'https://fdm.example',
      FDM_REMOTE_SECRETS: JSON.stringify({ 'FDM-2': 's3cret' }),
    });
    expect(config).toEqual({
      masterKey: MASTER,
      signingKeys: { 'FDM-1': seed },
      verificationBaseUrl: 'https://verify.example/fdm',
      remote: { baseUrl: 'https://fdm.example', secrets: { 'FDM-2': 's3cret' } },
    });
  });

  test('bad values throw a ConfigError naming the variable', () => {
    const cases: [Record<string, string>, string][] = [
      [{ FISCAL_SIGNING_KEYS: '{nope' }, 'FISCAL_SIGNING_KEYS'],
      [{ FISCAL_SIGNING_KEYS: '["a"]' }, 'FISCAL_SIGNING_KEYS'],
      [{ FISCAL_SIGNING_KEYS: '{"FDM-1":"abc"}' }, 'FISCAL_SIGNING_KEYS'],
      [{ FDM_REMOTE_URL: 'https://fdm.example', FDM_REMOTE_SECRETS: 'x' }, 'FDM_REMOTE_SECRETS'],
      [{ FDM_REMOTE_URL: 'https://fdm.example', FDM_REMOTE_SECRETS: '{"FDM-2":7}' }, 'FDM_REMOTE_SECRETS'],
      [{ FDM_REMOTE_SECRETS: '{"FDM-2":"s"}' }, 'FDM_REMOTE_URL'],
      [{ FDM_REMOTE_URL: 'not a url' }, 'FDM_REMOTE_URL'],
      [{ FISCAL_VERIFICATION_URL: 'ftp://x' }, 'FISCAL_VERIFICATION_URL'],
    ];
    for (const [env, variable] of cases) {
      let caught: unknown;
      try {
        fiscalConfigFromEnv({ FISCAL_MASTER_KEY: MASTER, ...env });
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).variable).toBe(variable);
    }
    expect(() => fiscalConfigFromEnv({ FISCAL_MASTER_KEY: 'short' })).toThrow(/FISCAL_MASTER_KEY/);
    expect(() => fiscalConfigFromEnv({ FISCAL_MASTER_KEY: MASTER, FISCAL_SEAL_KEY: 'short' })).toThrow(/FISCAL_SEAL_KEY is invalid/);
    expect(fiscalConfigFromEnv({ FISCAL_MASTER_KEY: MASTER, FISCAL_SEAL_KEY: 's'.repeat(32) }).sealKey).toBe('s'.repeat(32));
  });
});
