import type Redis from 'ioredis';
import type { CentralDb } from '@pos/db';

/** `check-user-activity`: records when a back-office user was last active, at most once a minute. */
export async function recordUserActivity(db: CentralDb, redis: Redis, userId: string, now: Date): Promise<void> {
  const first = await redis.set(`user-activity:${userId}`, '1', 'EX', 60, 'NX');
  if (first) await db.updateTable('users').set({ last_active_at: now }).where('id', '=', userId).execute();
}
