import type { TenantDb } from '@pos/db';

/**
 * Runs `request` while a transaction holds what `write` changed (locked, not committed), lets the write
 * commit `holdMs` later, and answers the request's result: a request racing a write in flight, with the
 * write's locks taken first.
 */
export async function whileWriting<T>(tdb: TenantDb, write: (tx: TenantDb) => Promise<void>, request: () => Promise<T>, holdMs = 200): Promise<T> {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const writing = tdb.transaction().execute(async (tx) => {
    await write(tx);
    locked();
    await held;
  });
  await isLocked;
  const answer = request();
  await Bun.sleep(holdMs);
  release();
  await writing;
  return answer;
}
