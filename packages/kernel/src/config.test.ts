import { describe, expect, test } from 'bun:test';
import { ApiEnv, ConfigError, readEnv } from './config.ts';

const good = { JWT_SECRET: 'x'.repeat(40), DEVICE_API_KEY: 'k'.repeat(20), PIN_PEPPER: 'p'.repeat(20), FISCAL_MASTER_KEY: 'f'.repeat(40) };

describe('configuration from the environment', () => {
  test('valid values pass; blanks count as unset', () => {
    expect(readEnv(ApiEnv, { ...good, APP_ENV: 'test', API_PORT: '3000', DEBUG: '' })).toEqual({ ...good, APP_ENV: 'test', API_PORT: '3000' });
  });

  test('a missing variable is named in one line', () => {
    const { JWT_SECRET: _, ...rest } = good;
    expect(() => readEnv(ApiEnv, rest)).toThrow(new ConfigError('JWT_SECRET', 'is required'));
    expect(() => readEnv(ApiEnv, rest)).toThrow('Invalid configuration: JWT_SECRET is required');
  });

  test('a bad value is named', () => {
    expect(() => readEnv(ApiEnv, { ...good, APP_ENV: 'staging' })).toThrow(/^Invalid configuration: APP_ENV is invalid/);
    expect(() => readEnv(ApiEnv, { ...good, API_PORT: 'eighty' })).toThrow(/API_PORT is invalid/);
    expect(() => readEnv(ApiEnv, { ...good, DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL is invalid/);
  });

  test('payment settings: provider words and URLs checked; auto-success refused in production only', () => {
    expect(readEnv(ApiEnv, { ...good, PAYMENT_KIOSK_DEFAULT_PROVIDER: 'card-a', CARD_B_BASE_URL: 'http://127.0.0.1:3302', PAYMENT_AUTO_SUCCESS: 'true', APP_ENV: 'local' })).toEqual({
      ...good,
      PAYMENT_KIOSK_DEFAULT_PROVIDER: 'card-a',
      CARD_B_BASE_URL: 'http://127.0.0.1:3302',
      PAYMENT_AUTO_SUCCESS: 'true',
      APP_ENV: 'local',
    });
    expect(() => readEnv(ApiEnv, { ...good, PAYMENT_DEFAULT_PROVIDER: 'stripe' })).toThrow(/PAYMENT_DEFAULT_PROVIDER is invalid/);
    expect(() => readEnv(ApiEnv, { ...good, CARD_A_BASE_URL: 'ftp://x' })).toThrow(/CARD_A_BASE_URL is invalid/);
    expect(() => readEnv(ApiEnv, { ...good, APP_ENV: 'production', PAYMENT_AUTO_SUCCESS: 'true' })).toThrow(
      'Invalid configuration: PAYMENT_AUTO_SUCCESS is refused in production (payments would complete without a terminal)',
    );
    expect(readEnv(ApiEnv, { ...good, APP_ENV: 'production', PAYMENT_AUTO_SUCCESS: 'false' }).PAYMENT_AUTO_SUCCESS).toBe('false');
  });

  test('the service exits with that one line', () => {
    const r = Bun.spawnSync(['bun', 'services/api/src/main.ts'], { env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root' }, cwd: `${import.meta.dir}/../../..` });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.toString().trim()).toBe('Invalid configuration: JWT_SECRET is required');
  });
});
