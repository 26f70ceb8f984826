import { createLogger, createRedis, ensureRedis, portOf, readEnv, WorkerEnv } from '@pos/kernel';
import { createDatabase, resolveDatabase } from '@pos/db';
import { DEFAULT_HEARTBEAT_MS } from './heartbeat-scheduler.ts';
import type { WorkerDeps } from './worker.ts';

/** Builds the worker's dependencies from the environment; `close` releases the connections. */
export async function buildWorkerDeps(env: Record<string, string | undefined>) {
  const config = readEnv(WorkerEnv, env);
  const log = createLogger({ service: 'worker' });
  const database = await resolveDatabase(env, process.cwd(), (m) => log.info(m));
  const handle = createDatabase(database.url, { applicationName: 'worker', max: 10 });
  const redisUrl = await ensureRedis(config.REDIS_URL);
  const redis = createRedis(redisUrl, 'worker');
  redis.on('error', (e) => log.warn('redis error', { err: e.message }));
  const deps: WorkerDeps = {
    db: handle.db,
    redis,
    redisUrl,
    log,
    port: portOf(config.WORKER_PORT, 3200),
    heartbeatMs: config.WORKER_HEARTBEAT_MS ? Number(config.WORKER_HEARTBEAT_MS) : DEFAULT_HEARTBEAT_MS,
  };
  return {
    deps,
    close: async () => {
      redis.disconnect();
      await handle.close();
      await database.stop();
    },
  };
}
