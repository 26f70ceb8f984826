import type Redis from 'ioredis';

/** Between two looks for former queues holding work (a relay of an older build may still write to one during a deploy). */
export const FORMER_QUEUE_SCAN_MS = 60_000;

/** The queue named by a bee-queue job hash key `<prefix>:<queue>:jobs`, or undefined for any other key. */
export function queueOfJobsKey(prefix: string, key: string): string | undefined {
  const head = `${prefix}:`;
  if (!key.startsWith(head) || !key.endsWith(':jobs')) return undefined;
  const name = key.slice(head.length, -':jobs'.length);
  return name.length > 0 && !name.includes(':') ? name : undefined;
}

/**
 * The queues under `prefix` that this build runs no processor on (a queue renamed or retired since the
 * job was written) and that still hold work to run: waiting, delayed (a retry) or active (a worker of
 * the older build stopped mid-job; the stall check puts it back). Failed jobs alone need no processor.
 */
export async function findFormerQueues(redis: Redis, prefix: string, current: ReadonlySet<string>): Promise<string[]> {
  const seen = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*:jobs`, 'COUNT', 1000);
    cursor = next;
    for (const k of keys) {
      const q = queueOfJobsKey(prefix, k);
      if (q !== undefined && !current.has(q)) seen.add(q);
    }
  } while (cursor !== '0');
  const out: string[] = [];
  for (const q of [...seen].sort()) {
    const base = `${prefix}:${q}`;
    const [waiting, delayed, active] = await Promise.all([redis.llen(`${base}:waiting`), redis.zcard(`${base}:delayed`), redis.llen(`${base}:active`)]);
    if (waiting + delayed + active > 0) out.push(q);
  }
  return out;
}
