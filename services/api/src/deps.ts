import { ApiEnv, appEnv, createLogger, createRedis, ensureRedis, isDebug, readEnv, systemClock, type Clock } from '@pos/kernel';
import { createDatabase, resolveDatabase } from '@pos/db';
import { checkDependencies, HealthMonitor } from '@pos/core/health/check-dependencies';
import type { ApiDeps } from './context.ts';
import { createTokenService } from './plugins/tokens.ts';
import { createFiscalService } from '@pos/core/fiscal/fiscal-service';
import { fiscalConfigFromEnv } from '@pos/core/fiscal/fiscal-config';
import { registerRecoveryHooks } from '@pos/core/pos/fiscal-recovery/recovery-hooks';
import { AuthCache } from '@pos/core/auth/auth-cache';
import { subscribeAuthInvalidation } from '@pos/core/auth/auth-invalidation';
import { parseAllowList } from '@pos/core/devices/ip-allow-list';
import { createClientAddress } from '@pos/core/network/client-address';
import { throttleAddress } from '@pos/core/network/throttle-subject';
import { bodyPolicies } from './request-guard/body-policy.ts';
import { objectStoreFromEnv } from '@pos/core/storage/object-store';
import { DEFAULT_CONTENT_MAX_BYTES } from '@pos/core/catalog/contents';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { RealtimeHub } from './realtime/realtime-hub.ts';
import { configureDeviceLiveness } from '@pos/core/devices/device-liveness';

/** Builds the API's dependencies from the environment; `close` releases connections. */
export async function buildDeps(env: Record<string, string | undefined>, opts: { clock?: Clock; repoDir?: string; healthTtlMs?: number } = {}) {
  const config = readEnv(ApiEnv, env);
  const log = createLogger({ service: 'api' });
  const database = await resolveDatabase(env, process.cwd(), (m) => log.info(m));
  const handle = createDatabase(database.url, { applicationName: 'api', max: 20 });
  const redis = createRedis(await ensureRedis(config.REDIS_URL), 'api');
  redis.on('error', (e) => log.warn('redis error', { err: e.message }));
  const authCache = new AuthCache({ ttlMs: Number(config.AUTH_CACHE_TTL_MS ?? 5000) });
  configureDeviceLiveness(Number(config.DEVICE_OFFLINE_AFTER_SECONDS ?? 120) * 1000);
  // Its own connection: a subscribed Redis connection can issue no other command.
  const subscriber = createRedis(await ensureRedis(config.REDIS_URL), 'api-auth-invalidation');
  subscriber.on('error', (e) => log.warn('redis subscriber error', { err: e.message }));
  await subscribeAuthInvalidation(subscriber, authCache, log);
  const fiscal = createFiscalService(fiscalConfigFromEnv(config), log, { clock: opts.clock, hooks: registerRecoveryHooks(opts.clock ?? systemClock, log) });
  const contentMaxBytes = config.CONTENT_MAX_BYTES ? Number(config.CONTENT_MAX_BYTES) : DEFAULT_CONTENT_MAX_BYTES;
  const clientAddress = createClientAddress(parseAllowList(config.TRUSTED_PROXIES, 'TRUSTED_PROXIES'));
  const deps: ApiDeps = {
    db: handle.db,
    redis,
    config,
    env: appEnv(config),
    debug: isDebug(config),
    clock: opts.clock ?? systemClock,
    log,
    health: new HealthMonitor(() => checkDependencies(handle.db, redis), opts.healthTtlMs ?? 5000),
    tokens: createTokenService(config.JWT_SECRET),
    authCache,
    fiscal,
    clientAddress,
    throttleAddress: throttleAddress(clientAddress),
    objects: objectStoreFromEnv(config, process.cwd()),
    contentMaxBytes,
    bodyPolicies: bodyPolicies(contentMaxBytes),
    repoDir: opts.repoDir ?? process.cwd(),
    payments: paymentProvidersFromEnv(config),
    realtime: new RealtimeHub(redis, log),
  };
  return {
    deps,
    close: async () => {
      await deps.realtime.stop();
      redis.disconnect();
      subscriber.disconnect();
      await handle.close();
      await database.stop();
    },
  };
}
