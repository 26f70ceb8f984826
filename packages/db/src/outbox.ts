import type { Kysely, Transaction } from 'kysely';
import type { CentralTables } from './central-types.ts';

/** Anything that can write the central outbox inside the caller's transaction (tenant-bound or not). */
type AnyTx = Transaction<any> | Kysely<any>;

export interface OutboxMessage {
  queue: string;
  job: string;
  payload: Record<string, unknown>;
}

/**
 * Writes after-commit work into `public.outbox` in the caller's transaction; the worker relays it to
 * bee-queue, so a Redis hiccup loses nothing. Explicit `public` because tenant-bound instances carry
 * their own schema.
 */
export async function enqueueOutbox(tx: AnyTx, msg: OutboxMessage): Promise<void> {
  await (tx as unknown as Kysely<CentralTables>)
    .withSchema('public')
    .insertInto('outbox')
    .values({ queue: msg.queue, job: msg.job, payload: JSON.stringify(msg.payload) })
    .execute();
}
