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

export interface FormerQueues {
  /** Holding work to run: waiting, delayed (a retry) or active (a worker of the older build stopped mid-job; the stall check puts it back). */
  withWork: string[];
  /** Holding only failed jobs: no processor needed, but their failed jobs are recorded and purged as any queue's. */
  failedOnly: string[];
}

/**
 * The queues under `prefix` that this build runs no processor on (a queue renamed or retired since the
 * job was written) and that still hold jobs.
 */
export async function findFormerQueues(redis: Redis, prefix: string, current: ReadonlySet<string>): Promise<FormerQueues> {
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
  const out: FormerQueues = { withWork: [], failedOnly: [] };
  for (const q of [...seen].sort()) {
    const base = `${prefix}:${q}`;
    const [waiting, delayed, active, failed] = await Promise.all([redis.llen(`${base}:waiting`), redis.zcard(`${base}:delayed`), redis.llen(`${base}:active`), redis.scard(`${base}:failed`)]);
    if (waiting + delayed + active > 0) out.withWork.push(q);
    else if (failed > 0) out.failedOnly.push(q);
  }
  return out;
}
