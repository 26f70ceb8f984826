import { CompiledQuery, sql, type Kysely } from 'kysely';
import { poolOf } from '@pos/db';

/** One statement as it reached PostgreSQL: its text and bound values. */
export interface SentQuery {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Every statement `run` sends over `db`'s connection pool, in order: a route's exact SQL and values,
 * called through the API as a client calls it (no copy of the query in the test to drift from it).
 */
export async function sentQueries(db: Kysely<any>, run: () => Promise<unknown>): Promise<SentQuery[]> {
  const pool = poolOf(db);
  if (!pool) throw new Error('sentQueries needs a database made by createDatabase');
  const seen: SentQuery[] = [];
  const wrapped = new Map<{ query: QueryFn }, QueryFn>();
  const connect = pool.connect;
  const wrap = (client: { query: QueryFn }) => {
    if (wrapped.has(client)) return;
    const query = client.query;
    wrapped.set(client, query);
    client.query = function (this: unknown, ...args: unknown[]) {
      const [first, values] = args;
      if (typeof first === 'string') seen.push({ sql: first, parameters: Array.isArray(values) ? values : [] });
      else if (first && typeof first === 'object' && 'text' in first) {
        const q = first as { text: string; values?: unknown[] };
        seen.push({ sql: q.text, parameters: q.values ?? [] });
      }
      return query.apply(this, args);
    };
  };
  pool.connect = (async (...args: unknown[]) => {
    if (args.length) return (connect as QueryFn).apply(pool, args);
    const client = await (connect as () => Promise<unknown>).call(pool);
    wrap(client as unknown as { query: QueryFn });
    return client;
  }) as typeof pool.connect;
  try {
    await run();
  } finally {
    pool.connect = connect;
    for (const [client, query] of wrapped) client.query = query;
  }
  return seen;
}

/**
 * The plan PostgreSQL chooses for a sent statement with its values bound (as the route runs it), with
 * sequential scans (and, when asked, sorts) discouraged: on a test-sized table the planner would rather
 * read the table whole, and the question is whether an index answers the statement's condition.
 */
export async function planOf(db: Kysely<any>, q: SentQuery, opts: { sort?: boolean; format?: 'text' | 'json' } = {}): Promise<string> {
  return db.transaction().execute(async (tx) => {
    await sql`set local enable_seqscan = off`.execute(tx);
    if (opts.sort === false) await sql`set local enable_sort = off`.execute(tx);
    const explain = opts.format === 'json' ? 'explain (format json) ' : 'explain ';
    const r = await tx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain + q.sql, [...q.parameters]));
    return opts.format === 'json' ? JSON.stringify(r.rows[0]!['QUERY PLAN']) : r.rows.map((row) => String(row['QUERY PLAN'])).join('\n');
  });
}

/** Matches a plan that reads `index` (an index, index-only or bitmap index scan). */
export const usesIndex = (index: string) => new RegExp(`(Index (Only )?Scan (Backward )?using ${index} |Bitmap Index Scan on ${index}\\b)`);
