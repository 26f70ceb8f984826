import { sql, type Kysely } from 'kysely';

/**
 * Every statement that inserts outbox rows sends `NOTIFY outbox_pending` (delivered at commit, once per
 * transaction however many rows), so the worker's relay picks after-commit work up at once instead of
 * on its next poll. A trigger rather than a call in `enqueueOutbox`: no extra round trip, and writers
 * that insert rows some other way wake the relay too. The channel name is `OUTBOX_CHANNEL` of @pos/db.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function outbox_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('outbox_pending', '');
      return null;
    end $$`.execute(db);
  await sql`create trigger outbox_notify after insert on outbox for each statement execute function outbox_notify()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists outbox_notify on outbox`.execute(db);
  await sql`drop function if exists outbox_notify()`.execute(db);
}
