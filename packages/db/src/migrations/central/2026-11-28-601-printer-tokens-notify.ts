import { sql, type Kysely } from 'kysely';

/**
 * Every deleted printer token sends `NOTIFY printer_tokens` with its printer id, however it goes: the
 * poll services cache token owners and drop them on that notice. Revoking and minting notify
 * themselves, but a merchant deleted takes its tokens by cascade, and those tokens stayed good in the
 * poll services' memory for up to their 30 s (polls answered 200 for a merchant that no longer
 * existed). The channel name is `PRINTER_TOKENS_CHANNEL` of @pos/core; identical notices of one
 * transaction are delivered once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function printer_tokens_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('printer_tokens', old.printer_id::text);
      return null;
    end $$`.execute(db);
  await sql`create trigger printer_tokens_notify after delete on printer_tokens for each row execute function printer_tokens_notify()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists printer_tokens_notify on printer_tokens`.execute(db);
  await sql`drop function if exists printer_tokens_notify()`.execute(db);
}
