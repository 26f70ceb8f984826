import { sql, type Kysely } from 'kysely';

/**
 * Runs `work` while this process holds the PostgreSQL advisory lock named `key` (session level, taken
 * without waiting), for work that calls out to a provider between its statements and so cannot hold a
 * transaction open (DESIGN section 2): one connection is set aside holding the lock, idle, while `work`
 * runs on the others. Answers `{ held: false }` at once when another session holds it. The lock goes
 * with the connection if the process dies.
 */
export async function withSessionLock<T>(db: Kysely<any>, key: string, work: () => Promise<T>): Promise<{ held: true; value: T } | { held: false }> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(hashtextextended(${key}, 0)) as locked`.execute(conn);
    if (!rows[0]?.locked) return { held: false } as const;
    try {
      return { held: true, value: await work() } as const;
    } finally {
      await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(conn);
    }
  });
}
