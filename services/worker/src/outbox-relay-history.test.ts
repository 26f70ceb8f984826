import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { FAN_OUT_JOB } from '@pos/kernel/queues/index';
import { markPending } from './outbox-relay.ts';
import { openTestEnv, type TestEnv } from './test-support.ts';

/**
 * The outbox keeps relayed rows for a week (`OUTBOX_RETENTION_MS`): a poll must find its pending rows
 * through the pending index and update them by id, never reading the week behind them.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await openTestEnv();
});
afterAll(async () => {
  await env.close();
});

/** The plan of the relay's marking statement, as EXPLAIN (FORMAT JSON) gives it, flattened to its nodes. */
function nodesOf(plan: unknown): { 'Node Type': string; 'Relation Name'?: string }[] {
  const out: { 'Node Type': string; 'Relation Name'?: string }[] = [];
  const walk = (n: { 'Node Type': string; 'Relation Name'?: string; Plans?: unknown[] }) => {
    out.push(n);
    for (const c of n.Plans ?? []) walk(c as typeof n);
  };
  walk((plan as { Plan: Parameters<typeof walk>[0] }[])[0]!.Plan);
  return out;
}

describe('a relay poll beside a week of relayed rows', () => {
  test('reads the outbox through its indexes only: no scan of the whole table', async () => {
    await env.handle.db
      .transaction()
      .execute(async (trx) => {
        // A week of history (relayed), then a backlog (a burst, or the relay back after an outage) that the
        // table's statistics have seen; rolled back, so other tests never see any of it.
        await sql`insert into outbox (queue, job, payload, relayed_at)
          select 'system', 'test.history', '{"n":1}'::jsonb, now() - interval '1 day' from generate_series(1, 30000)`.execute(trx);
        await sql`insert into outbox (queue, job, payload) select 'system', 'test.history', '{"n":2}'::jsonb from generate_series(1, 3000)`.execute(trx);
        await sql`analyze outbox`.execute(trx).catch(() => undefined);
        const statement = markPending(['test.history', FAN_OUT_JOB], 500).compile(trx);
        const { rows } = await trx.executeQuery<{ 'QUERY PLAN': unknown }>({ ...statement, sql: `explain (format json) ${statement.sql}` });
        const nodes = nodesOf(rows[0]!['QUERY PLAN']);
        expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'outbox')).toEqual([]);
        // And it still marks pending rows only, oldest first, a batch at a time.
        const marked = await markPending(['test.history'], 500).execute(trx);
        expect(marked.rows.length).toBe(500);
        expect(marked.rows.every((r) => (r.payload as { n: number }).n === 2)).toBe(true);
        const ids = marked.rows.map((r) => Number(r.id));
        const { rows: first } = await sql<{ id: string }>`select id from outbox where job = 'test.history' and payload->>'n' = '2' order by id limit 500`.execute(trx);
        expect(ids.sort((a, b) => a - b)).toEqual(first.map((r) => Number(r.id)));
        throw new Error('rollback');
      })
      .catch((e: unknown) => {
        if (!(e instanceof Error && e.message === 'rollback')) throw e;
      });
  });
});
