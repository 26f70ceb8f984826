import { appEnv, createLogger, createRedis, ensureRedis, PrinterPollEnv, readEnv } from '@pos/kernel';
import { createDatabase, resolveDatabase } from '@pos/db';
import { checkDependencies, HealthMonitor } from '@pos/core/health/check-dependencies';
import { parseAllowList } from '@pos/core/devices/ip-allow-list';
import { createClientAddress } from '@pos/core/network/client-address';
import { throttleAddress } from '@pos/core/network/throttle-subject';
import type { PrinterPollDeps } from './context.ts';

/** Builds the service's dependencies from the environment; `close` releases connections. */
export async function buildPrinterPollDeps(env: Record<string, string | undefined>, opts: { healthTtlMs?: number } = {}) {
  const config = readEnv(PrinterPollEnv, env);
  const log = createLogger({ service: 'printer-poll' });
  const database = await resolveDatabase(env, process.cwd(), (m) => log.info(m));
  const handle = createDatabase(database.url, { applicationName: 'printer-poll', max: 10 });
  const redis = createRedis(await ensureRedis(config.REDIS_URL), 'printer-poll');
  redis.on('error', (e) => log.warn('redis error', { err: e.message }));
  const deps: PrinterPollDeps = {
    db: handle.db,
    redis,
    log,
    health: new HealthMonitor(() => checkDependencies(handle.db, redis), opts.healthTtlMs ?? 2000),
    appEnv: appEnv(config),
    clientAddress: throttleAddress(createClientAddress(parseAllowList(config.TRUSTED_PROXIES, 'TRUSTED_PROXIES'))),
  };
  return {
    deps,
    config,
    databaseUrl: database.url,
    close: async () => {
      redis.disconnect();
      await handle.close();
      await database.stop();
    },
  };
}
