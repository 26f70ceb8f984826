import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';
import { acquireLock } from '../webhooks/redis-lock.ts';

/** One provider call of at most 15 s fits; a second first call waits this long for the first. */
const LOCK_MS = 30_000;
const WAIT_MS = 20_000;

/**
 * The provider object a profile row points at (a billing profile's card-a customer, a payment profile's
 * connected account), made at most once with no database transaction open across the provider call
 * (DESIGN section 2: a slow provider would hold a connection and the row's lock meanwhile):
 * - first calls of one row take turns under a Redis lock and read the row again inside it;
 * - without the lock (Redis away, or the first outlived the wait) the create carries an idempotency key
 *   of the row and the request, so calls running at once get the provider's first object back, not a second;
 * - the id is stored under the row lock in `store`, which answers the id the row holds in the end (one
 *   stored by another call first wins).
 */
export async function providerObjectOnce(
  deps: { readonly redis: Redis; readonly log: Logger },
  o: {
    readonly lockName: string;
    /** The id the row holds now (404 when the row is gone). */
    readonly stored: () => Promise<string | null>;
    readonly create: (idempotencyKey: string) => Promise<string>;
    /** The request that creates it, as the provider fingerprints it (another request, another key). */
    readonly request: unknown;
    readonly store: (id: string) => Promise<string>;
  },
): Promise<string> {
  const before = await o.stored();
  if (before) return before;
  const lock = await acquireLock(deps.redis, o.lockName, LOCK_MS, WAIT_MS, deps.log);
  try {
    const now = await o.stored();
    if (now) return now;
    // Under the lock the calls of a row take turns: a key of this attempt alone (card-a replays a key's
    // answer for 24 hours, a failure included, so a fixed key would keep a refused or failed first call
    // failing for a day). Without it (Redis away) calls may overlap: a key of the row and the request,
    // so they get card-a's one object back.
    const request = createHash('sha256').update(JSON.stringify(o.request)).digest('hex').slice(0, 32);
    const key = lock.held ? `${o.lockName}_${request}_${crypto.randomUUID()}` : `${o.lockName}_${request}`;
    return await o.store(await o.create(key));
  } finally {
    await lock.release();
  }
}
