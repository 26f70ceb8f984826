import Redis from 'ioredis';
import { spawnSync } from 'node:child_process';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** A Redis connection that fails fast instead of queueing commands forever while Redis is down. */
export function createRedis(url: string = DEFAULT_REDIS_URL, name = 'app'): Redis {
  return new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
}

/** Deletes every key matching `pattern` (SCAN, so Redis is never blocked by one KEYS over a large database). */
export async function deleteMatching(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

async function pingOnce(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  r.on('error', () => {});
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/**
 * DESIGN 4: REDIS_URL unset -> 127.0.0.1:6379; if nothing answers there and `redis-server` is on the
 * PATH, start it; otherwise stop with a message that says what to install.
 */
export async function ensureRedis(url: string | undefined): Promise<string> {
  if (url) return url;
  if (await pingOnce(DEFAULT_REDIS_URL)) return DEFAULT_REDIS_URL;
  const which = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  if (which.status !== 0) {
    throw new Error('Redis is not reachable at 127.0.0.1:6379 and redis-server is not installed: install Redis (e.g. apt-get install redis-server) or set REDIS_URL');
  }
  spawnSync('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    if (await pingOnce(DEFAULT_REDIS_URL)) return DEFAULT_REDIS_URL;
    await Bun.sleep(100);
  }
  throw new Error('Started redis-server but it does not answer on 127.0.0.1:6379');
}
