import { sql, type Kysely, type Transaction } from 'kysely';
import pg from 'pg';
import { poolOf } from './database.ts';
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

/**
 * Writes a scheduled run of `msg.job` unless a run of it with the same payload (apart from the keys in
 * `ignore`, e.g. the scheduled time `at`) is still pending, i.e. not yet relayed. While Redis is away the
 * relay leaves rows pending, and a schedule writing a row every interval piled up one run per interval
 * (an hour: 240 heartbeats, 60 fiscal recoveries, 12 payment sweeps), all run back to back once Redis
 * was back although one of each covers the same ground. Answers whether a row was written.
 */
export async function enqueueOutboxUnlessPending(db: Kysely<any>, msg: OutboxMessage, ignore: readonly string[] = ['at']): Promise<boolean> {
  const payload = JSON.stringify(msg.payload);
  const r = await sql`
    insert into public.outbox (queue, job, payload)
    select ${msg.queue}, ${msg.job}, ${payload}::jsonb
    where not exists (
      select 1 from public.outbox
      where relayed_at is null and job = ${msg.job} and payload - ${[...ignore]}::text[] = ${payload}::jsonb - ${[...ignore]}::text[])`.execute(db);
  return Number(r.numAffectedRows ?? 0n) > 0;
}

/** The channel the outbox trigger notifies after a commit that wrote outbox rows (migration 2026-11-24-601). */
export const OUTBOX_CHANNEL = 'outbox_pending';

export interface OutboxListener {
  /** True while the LISTEN connection is up (while it is not, the relay's poll is the only wake-up). */
  readonly listening: boolean;
  close(): Promise<void>;
}

/**
 * Calls `onPending` whenever a transaction that wrote outbox rows commits, from any process: a
 * dedicated connection (outside the pool) runs `LISTEN outbox_pending`. Notifications are a wake-up
 * only, never the record: a lost one (connection down, reconnecting) costs a poll interval, not a
 * row. Reconnects with a growing pause (up to `maxBackoffMs`) and calls `onPending` once it is back.
 */
export function listenOutbox(db: object, onPending: () => void, opts: { maxBackoffMs?: number; onError?: (err: Error) => void } = {}): OutboxListener {
  const pool = poolOf(db);
  if (!pool) throw new Error('listenOutbox needs a handle made by createDatabase');
  const maxBackoff = opts.maxBackoffMs ?? 5000;
  let client: pg.Client | undefined;
  let closed = false;
  let listening = false;
  let backoff = 100;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = async (): Promise<void> => {
    if (closed) return;
    const c = new pg.Client({ ...pool.options, application_name: 'outbox-listener' } as pg.ClientConfig);
    client = c;
    const retry = (err: Error) => {
      if (client !== c) return;
      listening = false;
      client = undefined;
      c.end().catch(() => {});
      if (closed) return;
      opts.onError?.(err);
      timer = setTimeout(() => void connect(), backoff);
      backoff = Math.min(backoff * 2, maxBackoff);
    };
    c.on('error', retry);
    c.on('end', () => retry(new Error('outbox listener connection ended')));
    c.on('notification', (n) => {
      if (n.channel === OUTBOX_CHANNEL) onPending();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (client !== c) return;
      listening = true;
      backoff = 100;
      onPending(); // rows may have been committed while no one listened
    } catch (e) {
      retry(e instanceof Error ? e : new Error(String(e)));
    }
  };
  void connect();

  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      listening = false;
      await c?.end().catch(() => {});
    },
  };
}
