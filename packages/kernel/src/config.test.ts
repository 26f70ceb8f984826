import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiEnv, ConfigError, PrinterPollEnv, isDebug, readEnv } from './config.ts';
import { BUN, bareEnv } from './test-process.ts';

const ROOT = join(import.meta.dir, '..', '..', '..');

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
    expect(() => readEnv(ApiEnv, { ...good, APP_ENV: 'production', DEBUG: 'true' })).toThrow('Invalid configuration: DEBUG is refused in production (5xx answers would show internal error text)');
    expect(() => readEnv(PrinterPollEnv, { ...good, APP_ENV: 'production', DEBUG: '1' })).toThrow('Invalid configuration: DEBUG is refused in production');
    expect(readEnv(ApiEnv, { ...good, APP_ENV: 'production', DEBUG: 'false' }).DEBUG).toBe('false');
    expect(isDebug({ APP_ENV: 'production', DEBUG: 'true' })).toBe(false);
    expect(isDebug({ APP_ENV: 'local', DEBUG: 'true' })).toBe(true);
  });

  test('the service exits with that one line', () => {
    const r = Bun.spawnSync([...BUN, 'services/api/src/main.ts'], { env: bareEnv(), cwd: ROOT });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.toString().trim()).toBe('Invalid configuration: JWT_SECRET is required');
  });

  test('a .env in the working directory (as `bun run dev` writes) never reaches a process a test starts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotenv-'));
    try {
      writeFileSync(join(dir, '.env'), `JWT_SECRET=${'s'.repeat(48)}\nDEVICE_API_KEY=${'k'.repeat(32)}\n`);
      const r = Bun.spawnSync([...BUN, join(ROOT, 'services/api/src/main.ts')], { env: bareEnv(), cwd: dir });
      expect(r.stderr.toString().trim()).toBe('Invalid configuration: JWT_SECRET is required');
      expect(r.exitCode).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
