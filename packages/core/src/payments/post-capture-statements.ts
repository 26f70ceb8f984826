import { TenantStatement } from '@pos/db';
import type { TransactionLineRow, TransactionRow } from './transaction-records.ts';

/**
 * The post-capture steps as one statement each (issue 12 item 10): each was a handful of round trips
 * (several inside a transaction that held a shared row lock across them); a data-modifying CTE is one
 * round trip and one implicit transaction, so a lock it takes is held for the rest of one statement.
 * Sent as named prepared statements, built once per tenant schema.
 */

/**
 * $1 transaction id. The transaction with its lines (as JSON, in position order; `vat_rate` as text,
 * as the driver gives numerics); records the `reread` step when it is Complete (once).
 */
export const rereadStatement = new TenantStatement<TransactionRow & { pc_lines: TransactionLineRow[] }>(
  'pc_reread',
  `with t as (select * from $schema.transactions where id = $1::uuid),
   s as (insert into $schema.transaction_steps (transaction_id, step, outcome)
     select id, 'reread', 'ok' from t where status = 'Complete'
     on conflict (transaction_id, step) do nothing)
   select t.*, (select coalesce(jsonb_agg(to_jsonb(l) || jsonb_build_object('vat_rate', l.vat_rate::text) order by l.position), '[]'::jsonb)
       from $schema.transaction_lines l where l.transaction_id = t.id) as pc_lines
   from t`,
);

/**
 * $1 transaction id, $2 detail of `payment_captured`, $3/$4/$5 queue, job and payload of the outbox
 * rows, $6/$7/$8 step, outcome and detail of the steps recorded with them, each in the spec's order.
 * Records `payment_captured` and the claim `queue_jobs`; only the run whose claim is new writes the
 * outbox rows and their steps (one post-capture sequence per transaction). The rows and steps are
 * inserted in array order (`ordinality`), so outbox ids and step numbers follow the spec's order,
 * after the claim's step (the inserts read the claim, so it is written first).
 */
export const queueJobsStatement = new TenantStatement<{ claimed: number; queued: number }>(
  'pc_queue_jobs',
  `with claim as (
     insert into $schema.transaction_steps (transaction_id, step, outcome, detail)
     values ($1::uuid, 'payment_captured', 'ok', $2::text), ($1::uuid, 'queue_jobs', 'ok', null)
     on conflict (transaction_id, step) do nothing returning step),
   won as (select 1 as w from claim where step = 'queue_jobs'),
   ob as (insert into public.outbox (queue, job, payload)
     select o.q, o.j, o.p from unnest($3::text[], $4::text[], $5::jsonb[]) with ordinality as o(q, j, p, n) cross join won
     order by o.n returning id),
   st as (insert into $schema.transaction_steps (transaction_id, step, outcome, detail)
     select $1::uuid, x.s, x.oc, x.d from unnest($6::text[], $7::text[], $8::text[]) with ordinality as x(s, oc, d, n) cross join won
     order by x.n
     on conflict (transaction_id, step) do nothing returning seq)
   select (select count(*) from won)::int as claimed, (select count(*) from ob)::int as queued`,
);

/**
 * $1 transaction id. The register dispatch: counts the kitchen item documents and the lines; when
 * every line has its document, records that no register is configured (sync status and step).
 */
export const dispatchStatement = new TenantStatement<{ found: boolean; kitchen: number; lines: number }>(
  'pc_dispatch',
  `with c as (
     select exists (select 1 from $schema.transactions where id = $1::uuid) as found,
       (select count(*) from $schema.kitchen_items where transaction_id = $1::uuid)::int as kitchen,
       (select count(*) from $schema.transaction_lines where transaction_id = $1::uuid)::int as lines),
   u as (update $schema.transactions set pos_sync_status = 'not_configured', pos_sync_detail = 'No register is configured for this location.'
     where id = $1::uuid and (select found and kitchen >= lines from c) returning id),
   s as (insert into $schema.transaction_steps (transaction_id, step, outcome, detail)
     select u.id, 'register_dispatch', 'not_configured', (select kitchen from c) || ' kitchen items' from u
     on conflict (transaction_id, step) do nothing)
   select found, kitchen, lines from c`,
);

/**
 * $1 transaction id. Adds the transaction to its location's daily stats for its local date (the
 * location's zone), once: the claim row decides. The day's row is locked only for this statement.
 */
export const dailyStatsStatement = new TenantStatement<{ found: number; claimed: number }>(
  'pc_daily_stats',
  `with t as (
     select t.id, t.location_id, t.total, (coalesce(t.completed_at, t.created_at) at time zone l.timezone)::date as d
     from $schema.transactions t join $schema.locations l on l.id = t.location_id where t.id = $1::uuid),
   claim as (insert into $schema.daily_stats_counted (transaction_id) select id from t
     on conflict (transaction_id) do nothing returning transaction_id),
   up as (insert into $schema.daily_stats (location_id, date, transactions, total)
     select t.location_id, t.d, 1, t.total from t join claim on claim.transaction_id = t.id
     on conflict (location_id, date) do update set transactions = daily_stats.transactions + 1, total = daily_stats.total + excluded.total),
   st as (insert into $schema.transaction_steps (transaction_id, step, outcome, detail)
     select t.id, 'daily_stats', 'ok', to_char(t.d, 'YYYY-MM-DD') from t join claim on claim.transaction_id = t.id
     on conflict (transaction_id, step) do nothing)
   select (select count(*) from t)::int as found, (select count(*) from claim)::int as claimed`,
);
