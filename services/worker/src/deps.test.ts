import { describe, expect, test } from 'bun:test';
import { ConfigError } from '@pos/kernel';
import { buildWorkerDeps } from './deps.ts';
import { DEFAULT_FISCAL_RECOVER_MS } from './fiscal-recover-scheduler.ts';
import { TEST_WORKER_ENV } from './test-support.ts';
import { BUN, bareEnv } from '@pos/kernel/test-process';

const ROOT = `${import.meta.dir}/../../..`;

describe('worker configuration', () => {
  test('builds the fiscal service from the fiscal variables; FISCAL_RECOVER_MS sets the sweep interval', async () => {
    const built = await buildWorkerDeps(TEST_WORKER_ENV);
    try {
      expect(built.deps.fiscalRecoverMs).toBe(DEFAULT_FISCAL_RECOVER_MS);
      expect(typeof built.deps.fiscal.completePending).toBe('function');
    } finally {
      await built.close();
    }
    const custom = await buildWorkerDeps({ ...TEST_WORKER_ENV, FISCAL_RECOVER_MS: '5000', FDM_REMOTE_URL: 'http://127.0.0.1:1', FDM_REMOTE_SECRETS: '{"FDM-1":"s"}' });
    try {
      expect(custom.deps.fiscalRecoverMs).toBe(5000);
    } finally {
      await custom.close();
    }
  });

  test('a missing or bad fiscal variable is refused before anything is opened', async () => {
    const { FISCAL_MASTER_KEY: _, ...noKey } = TEST_WORKER_ENV;
    await expect(buildWorkerDeps(noKey)).rejects.toThrow(new ConfigError('FISCAL_MASTER_KEY', 'is required'));
    await expect(buildWorkerDeps({ ...TEST_WORKER_ENV, FISCAL_MASTER_KEY: 'short' })).rejects.toThrow(/FISCAL_MASTER_KEY is invalid/);
    await expect(buildWorkerDeps({ ...TEST_WORKER_ENV, FDM_REMOTE_SECRETS: '{"FDM-1":"s"}' })).rejects.toThrow('Invalid configuration: FDM_REMOTE_URL is required when FDM_REMOTE_SECRETS is set');
    await expect(buildWorkerDeps({ ...TEST_WORKER_ENV, FISCAL_RECOVER_MS: '0' })).rejects.toThrow(/FISCAL_RECOVER_MS is invalid/);
  });

  test('the worker process exits with the one line naming the variable', () => {
    const base = bareEnv();
    const missing = Bun.spawnSync([...BUN, 'services/worker/src/main.ts'], { env: base, cwd: ROOT });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr.toString().trim()).toBe('Invalid configuration: FISCAL_MASTER_KEY is required');
    const bad = Bun.spawnSync([...BUN, 'services/worker/src/main.ts'], { env: { ...base, FISCAL_MASTER_KEY: TEST_WORKER_ENV.FISCAL_MASTER_KEY, FDM_REMOTE_URL: 'ftp://fdm' }, cwd: ROOT });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr.toString().trim()).toBe('Invalid configuration: FDM_REMOTE_URL is invalid (expected an http or https URL)');
  });
});
