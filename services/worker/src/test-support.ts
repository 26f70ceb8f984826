/** Shared by the worker's tests: real PostgreSQL and Redis from the environment, unique queue prefixes. */
import Redis from 'ioredis';
import { sql } from 'kysely';
import { createDatabase, migrateCentral, type DatabaseHandle } from '@pos/db';
import { createLogger, createRedis, deleteMatching, type Logger } from '@pos/kernel';
import { createFiscalService, type FiscalService } from '@pos/core/fiscal/fiscal-service';
import { fiscalConfigFromEnv } from '@pos/core/fiscal/fiscal-config';

export const TEST_DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/ordering_test';
export const TEST_REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** The worker's environment in tests (`buildWorkerDeps`, `main.ts`). */
export const TEST_WORKER_ENV = {
  APP_ENV: 'test',
  DATABASE_URL: TEST_DATABASE_URL,
  REDIS_URL: TEST_REDIS_URL,
  FISCAL_MASTER_KEY: 'test-fiscal-master-key-0123456789abcdef',
} as const;

/** The fiscal service the worker builds from `TEST_WORKER_ENV` plus `env` (e.g. FDM_REMOTE_URL / FDM_REMOTE_SECRETS). */
export function testFiscal(log: Logger, env: Record<string, string> = {}): FiscalService {
  return createFiscalService(fiscalConfigFromEnv({ ...TEST_WORKER_ENV, ...env }), log);
}

export interface TestEnv {
  handle: DatabaseHandle;
  redis: Redis;
  log: Logger;
  close(): Promise<void>;
}

export async function openTestEnv(): Promise<TestEnv> {
  const handle = createDatabase(TEST_DATABASE_URL, { max: 5, applicationName: 'worker-test' });
  await migrateCentral(handle.db);
  const redis = createRedis(TEST_REDIS_URL, 'worker-test');
  // Health checks fail while the connection is still being made.
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  const log = createLogger({ service: 'worker-test' }, (process.env.LOG_LEVEL as 'debug' | undefined) ?? 'error');
  return {
    handle,
    redis,
    log,
    close: async () => {
      redis.disconnect();
      await handle.close();
    },
  };
}

/** A queue prefix no other test uses. */
export const uniquePrefix = (): string => `bqtest-${crypto.randomUUID().slice(0, 8)}`;

/** Deletes every Redis key under `prefix`. */
export async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  await deleteMatching(redis, `${prefix}:*`);
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/**
 * What a test's worker is started with: the test's database and Redis, its own queue prefix, no
 * heartbeat or fiscal sweeps during the test, a quick relay poll. Spread it and add what the test needs.
 */
export function testWorkerDeps(env: TestEnv, prefix: string) {
  return {
    db: env.handle.db,
    redis: env.redis,
    redisUrl: TEST_REDIS_URL,
    log: env.log,
    prefix,
    heartbeatMs: 3_600_000,
    fiscal: testFiscal(env.log),
    fiscalRecoverMs: 0,
    relayIntervalMs: 50,
  };
}

/** Deletes the outbox rows of a tenant a test is done with: its jobs' own rows and the fan-out rows carrying them. */
export async function deleteTenantOutbox(db: DatabaseHandle['db'], tenantDatabase: string): Promise<void> {
  await db
    .deleteFrom('outbox')
    .where((eb) =>
      eb.or([
        eb(sql<string>`payload->>'tenant_database'`, '=', tenantDatabase),
        eb(sql<boolean>`payload @> ${JSON.stringify({ messages: [{ payload: { tenant_database: tenantDatabase } }] })}::jsonb`, '=', true),
      ]),
    )
    .execute();
}
