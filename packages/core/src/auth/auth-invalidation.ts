import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';
import type { AuthCache } from './auth-cache.ts';

/** Redis channel on which API processes announce changes to a merchant's authentication state. */
export const AUTH_INVALIDATION_CHANNEL = 'auth-invalidate';
/** Message meaning "every merchant" (a change whose merchant is not known, e.g. an activation code). */
const ALL = '*';

/**
 * Drops the merchant's cached authentication state here at once, then tells every other API process.
 * Awaited by the caller before it answers, so once a logout or deletion has answered, other processes
 * have been told; they drop the entries when the message arrives (milliseconds).
 */
export async function invalidateAuth(cache: AuthCache, redis: Redis, merchantId: string | null, log?: Logger): Promise<void> {
  cache.invalidate(merchantId);
  try {
    await redis.publish(AUTH_INVALIDATION_CHANNEL, merchantId ?? ALL);
  } catch (e) {
    // Other processes keep their entries until the TTL ends; say so loudly.
    log?.error('auth invalidation not published', { err: e instanceof Error ? e.message : String(e), merchant_id: merchantId });
  }
}

/**
 * Subscribes `subscriber` (a connection of its own: a subscribed ioredis connection can do nothing else)
 * and applies every invalidation to `cache`. Pub/sub delivers at most once, so while the subscription is
 * not confirmed (start, disconnect, reconnect) the cache serves nothing; it is emptied again when the
 * subscription is back, since messages sent in between were lost.
 */
export async function subscribeAuthInvalidation(subscriber: Redis, cache: AuthCache, log?: Logger): Promise<void> {
  cache.setLive(false);
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === AUTH_INVALIDATION_CHANNEL) cache.invalidate(message === ALL ? null : message);
  });
  subscriber.on('close', () => cache.setLive(false));
  subscriber.on('ready', () => {
    // ioredis re-subscribes on reconnect before 'ready'; confirm before serving again.
    void subscriber.subscribe(AUTH_INVALIDATION_CHANNEL).then(
      () => cache.setLive(true),
      (e) => log?.warn('auth invalidation subscribe failed', { err: e instanceof Error ? e.message : String(e) }),
    );
  });
  try {
    await subscriber.subscribe(AUTH_INVALIDATION_CHANNEL);
    cache.setLive(true);
  } catch (e) {
    // Redis is down: the API still starts and serves without the cache; 'ready' subscribes later.
    log?.warn('auth invalidation not subscribed; auth cache off until Redis answers', { err: e instanceof Error ? e.message : String(e) });
  }
}
