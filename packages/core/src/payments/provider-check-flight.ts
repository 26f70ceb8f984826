import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export interface FlightTiming {
  /** How long the leader holds the flight (a leader that died frees it after this). */
  readonly ttlMs: number;
  /** How long a follower waits for the leader before asking itself. */
  readonly waitMs: number;
}

/** The flight of an online order's provider checks: the storefront's verify and the back office's share it. */
export const onlineVerifyFlight = (transactionId: string): string => `online_verify_${transactionId}`;

/** Longer than a provider call and its capture (card-a's client gives up after 15 s). */
export const CHECK_FLIGHT: FlightTiming = { ttlMs: 20_000, waitMs: 20_000 };

/**
 * One provider check of a transaction at a time, across API processes (single flight): the first
 * caller takes `name` in Redis and runs `lead` (asks the provider, captures); a caller that finds it
 * taken waits until the leader is done, then runs `follow` (reads what the leader stored) instead of
 * asking the provider again. Nothing is cached: once no check is in flight, the next caller asks anew.
 * A follower that waited `waitMs`, or finds Redis away, runs `lead` itself (the capture lock and the
 * row lock keep the capture exactly once).
 */
export async function providerCheckFlight<T>(redis: Redis, name: string, log: Logger, lead: () => Promise<T>, follow: () => Promise<T>, timing: FlightTiming = CHECK_FLIGHT): Promise<T> {
  const token = crypto.randomUUID();
  let taken: boolean;
  try {
    taken = (await redis.set(name, token, 'PX', timing.ttlMs, 'NX')) === 'OK';
  } catch (e) {
    log.warn('provider check flight unavailable (Redis); asking the provider', { flight: name, err: e });
    return lead();
  }
  if (taken) {
    try {
      return await lead();
    } finally {
      await (redis.eval(RELEASE, 1, name, token) as Promise<unknown>).catch((e: unknown) => log.warn('provider check flight release failed', { flight: name, err: e }));
    }
  }
  const until = Date.now() + timing.waitMs;
  try {
    while ((await redis.exists(name)) === 1) {
      if (Date.now() > until) {
        log.warn('provider check still in flight after waiting; asking the provider', { flight: name });
        return lead();
      }
      await Bun.sleep(15 + Math.floor(Math.random() * 15));
    }
  } catch (e) {
    log.warn('provider check flight unavailable (Redis); asking the provider', { flight: name, err: e });
    return lead();
  }
  return follow();
}
