import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { CentralTables } from './central-types.ts';

// int8 (bigserial, count(*)) as number: our counts and ids stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
// date columns (business dates) stay 'YYYY-MM-DD' strings: a Date would shift them by the process zone.
pg.types.setTypeParser(1082, (v) => v);

/** The central database: only central tables are typed here, so tenant tables cannot be reached. */
export type CentralDb = Kysely<CentralTables>;

export interface DatabaseHandle {
  readonly db: CentralDb;
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

let queries = 0;
/**
 * Statements sent to PostgreSQL by this process (every pooled client's `query`), each one round trip:
 * the figure the bench reads through /metrics to count round trips per settle instead of estimating.
 */
export const dbQueryCount = (): number => queries;

/** The pool behind each handle's Kysely, for code that needs its own dialect over the same connections (migrator). */
const pools = new WeakMap<object, pg.Pool>();
export const poolOf = (db: object): pg.Pool | undefined => pools.get(db);

/** `idleTimeoutMillis`: how long an idle pooled connection is kept (pg's default, 10 s, when unset); `maxLifetimeSeconds`: how long any is (1800). */
export function createDatabase(url: string, opts: { max?: number; applicationName?: string; idleTimeoutMillis?: number; maxLifetimeSeconds?: number } = {}): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    ...(opts.idleTimeoutMillis !== undefined ? { idleTimeoutMillis: opts.idleTimeoutMillis } : {}),
    // A backend keeps the catalog entries of every tenant schema it touched (2-4 MB per merchant whose
    // tables it opened) until it ends: connections are replaced after half an hour so a long-running
    // process serving many merchants does not hold them all in every backend.
    maxLifetimeSeconds: opts.maxLifetimeSeconds ?? 1800,
    application_name: opts.applicationName ?? 'ordering-platform',
    // PostgreSQL's own plan choice (plan_cache_mode auto). `force_generic_plan` here once spared the named
    // hot-path statements (TenantStatement) their first five custom plans per connection, but it applies
    // to unnamed statements too, so every query planned blind to its values: a one-day sales report took
    // 1.2 s instead of 49 ms at a busy merchant's size (twenty-sixth session).
  });
  // An idle client error (server restart) must not crash the process; the pool replaces the client.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    // A checked-out client has no idle listener: a server error while it runs no query (between two
    // statements of a transaction, a backend terminated) is emitted on the client and, unheard, ended the
    // process. The broken client fails its next query, and the pool drops it when it is released.
    client.on('error', () => {});
    const query = client.query;
    client.query = function (this: pg.PoolClient, ...args: unknown[]) {
      queries++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof client.query;
  });
  const db = new Kysely<CentralTables>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return {
    db,
    pool,
    close: () => db.destroy(),
  };
}
