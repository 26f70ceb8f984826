import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { OutboxRelay } from './outbox-relay.ts';
import { openTestEnv, TEST_REDIS_URL, uniquePrefix, type TestEnv } from './test-support.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await openTestEnv();
});
afterAll(async () => {
  await env.close();
});

/** Outbox rows of a job no relay here knows (`jobs: []` relays nothing), relayed `agoMs` ago or pending. */
async function rows(tag: string, n: number, relayedAgoMs: number | null): Promise<string[]> {
  const r = await sql<{ id: string }>`
    insert into outbox (queue, job, payload, created_at, relayed_at)
    select 'system', 'test.purge', jsonb_build_object('tag', ${tag}::text), now() - interval '30 days',
      ${relayedAgoMs === null ? null : new Date(Date.now() - relayedAgoMs)}::timestamptz
    from generate_series(1, ${n}::int) returning id::text`.execute(env.handle.db);
  return r.rows.map((x) => x.id);
}

async function left(ids: readonly string[]): Promise<number> {
  const r = await env.handle.db.selectFrom('outbox').select((e) => e.fn.countAll<string>().as('n')).where('id', 'in', ids as string[]).executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('outbox retention', () => {
  test('rows relayed longer ago than the retention are deleted, in chunks; recent and pending rows stay', async () => {
    const tag = crypto.randomUUID();
    const day = 24 * 3_600_000;
    const old = await rows(tag, 7, 8 * day);
    const recent = await rows(tag, 2, 3_600_000);
    const pending = await rows(tag, 2, null);
    const relay = new OutboxRelay({ db: env.handle.db, redisUrl: TEST_REDIS_URL, log: env.log, prefix: uniquePrefix(), jobs: [], retentionMs: 7 * day, purgeChunk: 3 });
    // Other files' rows may be past the retention too: at least ours went.
    expect(await relay.purgeRelayed()).toBeGreaterThanOrEqual(7);
    expect(await left(old)).toBe(0);
    expect(await left(recent)).toBe(2);
    expect(await left(pending)).toBe(2);
    expect(await relay.purgeRelayed()).toBe(0);
    await env.handle.db.deleteFrom('outbox').where('id', 'in', [...recent, ...pending]).execute();
  });

  test('a started relay purges at once, then waits for its interval', async () => {
    const tag = crypto.randomUUID();
    const old = await rows(tag, 2, 2 * 3_600_000);
    const relay = new OutboxRelay({ db: env.handle.db, redisUrl: TEST_REDIS_URL, log: env.log, prefix: uniquePrefix(), jobs: [], listen: false, intervalMs: 20, retentionMs: 3_600_000, purgeIntervalMs: 3_600_000 });
    relay.start();
    try {
      for (let i = 0; i < 100 && (await left(old)) > 0; i++) await Bun.sleep(20);
      expect(await left(old)).toBe(0);
      const later = await rows(tag, 1, 2 * 3_600_000);
      await Bun.sleep(200); // ten polls: none purges before the hour
      expect(await left(later)).toBe(1);
      await env.handle.db.deleteFrom('outbox').where('id', 'in', later).execute();
    } finally {
      await relay.stop();
    }
  });
});
