import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { defineJob, QUEUES } from '@pos/kernel/queues/index';
import { OutboxRelay, outboxJobId } from './outbox-relay.ts';
import { dropPrefix, openTestEnv, TEST_REDIS_URL, uniquePrefix, type TestEnv } from './test-support.ts';

/**
 * Two worker processes relay the same outbox (DESIGN 2 "After-commit work"): each row must reach
 * bee-queue once. Each relay writes to its own queue prefix here, so a row relayed by both shows up
 * twice instead of being hidden by bee-queue's job-id deduplication or the done markers.
 */
let env: TestEnv;
const prefixes = [uniquePrefix(), uniquePrefix()];
// A job only these relays know: the relays of other tests sharing the database leave its rows alone.
const job = defineJob({ name: `test.relay-once-${crypto.randomUUID().slice(0, 8)}`, queue: QUEUES.system, version: 1, payload: Type.Object({ n: Type.Integer() }) });
const written: { id: number; created_at: Date }[] = [];

beforeAll(async () => {
  env = await openTestEnv();
});
afterAll(async () => {
  await env.handle.db.deleteFrom('outbox').where('job', '=', job.name).execute();
  for (const p of prefixes) await dropPrefix(env.redis, p);
  await env.close();
});

describe('two outbox relays on one backlog', () => {
  test('every row is relayed exactly once, by one relay or the other, and marked relayed', async () => {
    const N = 600;
    const rows = await env.handle.db
      .insertInto('outbox')
      .values(Array.from({ length: N }, (_, n) => ({ queue: job.queue, job: job.name, payload: JSON.stringify({ n }) as never })))
      .returning(['id', 'created_at'])
      .execute();
    for (const r of rows) written.push({ id: Number(r.id), created_at: r.created_at });

    // Small polls and two loops each: four polls in flight at once, racing for the same rows.
    const relays = prefixes.map((prefix) => new OutboxRelay({ db: env.handle.db, redisUrl: TEST_REDIS_URL, log: env.log, prefix, jobs: [job], listen: false, intervalMs: 5, batchSize: 7, loops: 2 }));
    for (const r of relays) r.start();
    try {
      const until = Date.now() + 60_000;
      for (;;) {
        const left = await env.handle.db.selectFrom('outbox').select((eb) => eb.fn.countAll<string>().as('n')).where('job', '=', job.name).where('relayed_at', 'is', null).executeTakeFirstOrThrow();
        if (Number(left.n) === 0) break;
        if (Date.now() > until) throw new Error(`${left.n} rows still pending`);
        await Bun.sleep(50);
      }
    } finally {
      for (const r of relays) await r.stop();
    }

    const ids = written.map((r) => outboxJobId(r));
    const held = await Promise.all(prefixes.map(async (p) => new Set(await env.redis.hkeys(`${p}:${job.queue}:jobs`))));
    const byBoth = ids.filter((id) => held[0]!.has(id) && held[1]!.has(id));
    const byNone = ids.filter((id) => !held[0]!.has(id) && !held[1]!.has(id));
    expect({ byBoth: byBoth.length, byNone: byNone.length }).toEqual({ byBoth: 0, byNone: 0 });
    // Each relay's queue holds only rows of this backlog, once each (bee-queue's waiting list counts every add).
    const waiting = await Promise.all(prefixes.map((p) => env.redis.llen(`${p}:${job.queue}:waiting`)));
    expect(waiting[0]! + waiting[1]!).toBe(N);
    // Both took part (otherwise the race was not run).
    expect(held[0]!.size).toBeGreaterThan(0);
    expect(held[1]!.size).toBeGreaterThan(0);
    const after = await env.handle.db.selectFrom('outbox').select(['attempts']).where('job', '=', job.name).where('relayed_at', 'is not', null).execute();
    expect(after).toHaveLength(N);
    expect(after.every((r) => r.attempts === 0)).toBe(true);
  }, 90_000);
});
