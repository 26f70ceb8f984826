import { TenantStatement } from '@pos/db';
import { CAPTURED_COLUMNS, CAPTURED_LINE_COLUMNS, type CapturedLine, type CapturedTransaction } from './captured-order.ts';
import { FINALISE_COLUMNS, type FinaliseTransaction } from '../customers/finalise-steps.ts';
import type { OrderChannel } from '../integrations/dispatch-register.ts';

/**
 * The post-capture steps as one statement each for a whole batch of transactions (issue 12 item 10):
 * a worker job carries up to `batch` rows of one step, and each step writes them set-based. A
 * data-modifying CTE is one round trip and one implicit transaction, so a lock it takes is held for
 * the rest of one statement. Rows are written in a fixed order (transaction id, or the spec's order
 * within a transaction) so two batches never lock the same rows in opposite orders. Sent as named
 * prepared statements, built once per tenant schema.
 */

/**
 * $1 transaction ids. The transactions (the columns the sequence reads: `CAPTURED_COLUMNS`) with their
 * lines (`CAPTURED_LINE_COLUMNS`, as one JSON array in position order); records the `reread` step of
 * each Complete one (once). JSON built as text (`json_build_object`), not as jsonb: nothing is parsed
 * twice, and the driver reads one document per transaction instead of every column of the wide row.
 */
export const rereadStatement = new TenantStatement<CapturedTransaction & { pc_lines: CapturedLine[] }>(
  'pc_reread',
  `with t as (select ${CAPTURED_COLUMNS.join(', ')} from $schema.transactions where id = any($1::uuid[])),
   s as (insert into $schema.transaction_steps (transaction_id, step, outcome)
     select id, 'reread', 'ok' from t where status = 'Complete' order by id
     on conflict (transaction_id, step) do nothing)
   select t.*, (select coalesce(json_agg(json_build_object(${CAPTURED_LINE_COLUMNS.map((c) => `'${c}', l.${c}`).join(', ')}) order by l.position), '[]'::json)
       from $schema.transaction_lines l where l.transaction_id = t.id) as pc_lines
   from t`,
);

/**
 * $1 the claims as a JSON array of `{ id, captured, queued }` (a transaction, the detail of its
 * `payment_captured` and that of its `queue_jobs`: the jobs queued, in order), $2 the fan-out row's
 * payload for all of them, `{ messages }` (each transaction's follow-up jobs in turn, in claim order, each
 * in the spec's order), $3 and $4 the fan-out row's queue and job, $5 the transaction of each message
 * (the same order). Records `payment_captured` and the claim `queue_jobs` of each; only the transactions
 * whose claim is new get their jobs (one post-capture sequence per transaction), all of them in one
 * fan-out outbox row: one row per batch instead of one per transaction, each of which was an insert, a
 * relay's update and three index entries. When every claim is new (a first run: the usual case) the
 * payload is stored as it came, parsed once; otherwise the messages of the transactions claimed are
 * taken from it in their order. Building the row from per-transaction message arrays on every batch
 * (`jsonb_agg` of 400 messages) cost the database 5.3 ms per 100 transactions, storing the payload as
 * sent 1.5 ms (twenty-first session). A transaction deleted since its re-read (a test-mode one) gets
 * neither; the others' rows are locked (key share) until the statement ends, so a DELETE waits for it
 * and then finds the trace it must remove (`live`: the ids still there).
 */
export const queueJobsStatement = new TenantStatement<{ won: string[]; live: string[]; queued: number }>(
  'pc_queue_jobs_once',
  `with c as (
     select * from rows from (json_to_recordset($1::json) as (id uuid, captured text, queued text)) with ordinality as c(id, captured, queued, n)),
   live as (select id from $schema.transactions where id in (select id from c) order by id for key share),
   claim as (
     insert into $schema.transaction_steps (transaction_id, step, outcome, detail)
     select c.id, v.step, 'ok', case when v.k = 1 then c.captured else c.queued end
     from c join live on live.id = c.id
     cross join (values (1, 'payment_captured'), (2, 'queue_jobs')) as v(k, step)
     order by c.n, v.k
     on conflict (transaction_id, step) do nothing returning transaction_id, step),
   won as (select transaction_id as id from claim where step = 'queue_jobs'),
   ob as (insert into public.outbox (queue, job, payload)
     select $3::text, $4::text, case when (select count(*) from won) = (select count(*) from c) then $2::jsonb
       else (select jsonb_build_object('messages', jsonb_agg(m.msg order by m.k))
         from jsonb_array_elements($2::jsonb -> 'messages') with ordinality as m(msg, k)
         where ($5::uuid[])[m.k] in (select id from won)) end
     where exists (select 1 from won)
     returning id)
   select array(select id::text from won) as won, array(select id::text from live) as live, (select count(*) from ob)::int as queued`,
);

/**
 * $1 transaction ids, $2 the detail recorded. The register dispatch of transactions whose location has no
 * register: counts each transaction's kitchen item documents and lines; those whose every line has its
 * document get the step `register_dispatch` with outcome `not_configured` and the detail. Answers one row
 * per transaction found. No `transaction_register_sync` row is written for them: that row is what a
 * dispatch that reached a register client ended with, and "no register" is the step's own record
 * (`registerSyncOf` reads it there), one row and one foreign-key check less per sequence. A row left by an
 * earlier dispatch that did not reach a register (the register since removed, `retry-sync`) is updated,
 * locked in id order first, and so is that dispatch's step; an order a register took stays recorded as
 * synced there (a sweep's re-run must not open it to `retry-sync` and a second register) (the latest outcome replaces the one before, as `dispatchCaptured`'s upsert does;
 * a re-run with the same outcome writes nothing).
 * The transactions are locked (key share) when read: a test-mode DELETE committed meanwhile leaves its
 * transaction out, and one still running waits for this statement and then removes the step.
 */
export const dispatchStatement = new TenantStatement<{ id: string; kitchen: number; lines: number; cancelled: boolean }>(
  'pc_dispatch_none',
  `with c as (
     select t.id,
       (select count(*) from $schema.kitchen_items k where k.transaction_id = t.id)::int as kitchen,
       (select count(*) from $schema.transaction_lines l where l.transaction_id = t.id)::int as lines,
       t.order_status is not distinct from 'Cancelled' as cancelled
     from $schema.transactions t where t.id = any($1::uuid[]) order by t.id for key share of t),
   ok as (select id from c where c.kitchen >= c.lines or c.cancelled),
   held as (select transaction_id, status from $schema.transaction_register_sync where transaction_id in (select id from ok) order by transaction_id for update),
   u as (update $schema.transaction_register_sync set status = 'not_configured', detail = $2::text, updated_at = now()
     where transaction_id in (select transaction_id from held where status <> 'synced')),
   s as (insert into $schema.transaction_steps (transaction_id, step, outcome, detail)
     select ok.id, 'register_dispatch', 'not_configured', $2::text from ok
     where ok.id not in (select transaction_id from held where status = 'synced') order by ok.id
     on conflict (transaction_id, step) do update set outcome = excluded.outcome, detail = excluded.detail
       where (transaction_steps.outcome, transaction_steps.detail) is distinct from (excluded.outcome, excluded.detail))
   select id::text, kitchen, lines, cancelled from c`,
);

/**
 * $1 transaction ids, $2 the tenant schema's name, $3 the register providers (`REGISTER_PROVIDERS`).
 * The transactions' locations and channels, only when their merchant has an active connection of a
 * register provider: without one no dispatcher can find a register (`RegisterDispatcher.target`), so
 * the batch asks none of them. One prepared statement instead of one lookup per dispatcher (each a
 * central query built and planned on every batch: a quarter of a sequence's CPU, twentieth session).
 */
export const registerCandidatesStatement = new TenantStatement<{ id: string; location_id: string; channel: OrderChannel }>(
  'pc_register_candidates',
  `select t.id, t.location_id, t.channel from $schema.transactions t
   where t.id = any($1::uuid[])
     and exists (select 1 from public.integration_connections c join public.merchants m on m.id = c.merchant_id
       where m.tenant_database = $2 and c.status = 'active' and split_part(c.provider, ':', 1) = any($3::text[]))`,
);

/**
 * $1 transaction ids. Adds each transaction to its location's daily stats for its local date (the
 * location's zone), once: its `daily_stats` step is the claim (written once; only the transactions
 * whose step this statement wrote are added). One upsert per (location, day), taken in key order, so
 * batches touching the same days never wait on each other in a cycle. Answers the ids found.
 */
export const dailyStatsStatement = new TenantStatement<{ id: string }>(
  'pc_daily_stats_claim',
  `with t as (
     select t.id, t.location_id, t.total, (coalesce(t.completed_at, t.created_at) at time zone l.timezone)::date as d
     from $schema.transactions t join $schema.locations l on l.id = t.location_id where t.id = any($1::uuid[])),
   claim as (insert into $schema.transaction_steps (transaction_id, step, outcome, detail)
     select t.id, 'daily_stats', 'ok', to_char(t.d, 'YYYY-MM-DD') from t order by t.id
     on conflict (transaction_id, step) do nothing returning transaction_id),
   g as (select t.location_id, t.d, count(*)::int as n, sum(t.total)::bigint as s from t join claim on claim.transaction_id = t.id group by t.location_id, t.d),
   up as (insert into $schema.daily_stats (location_id, date, transactions, total)
     select location_id, d, n, s from g order by location_id, d
     on conflict (location_id, date) do update set transactions = daily_stats.transactions + excluded.transactions, total = daily_stats.total + excluded.total)
   select id::text from t`,
);

/**
 * $1 the steps as a JSON array of `{ id, step, outcome, detail }`, written in array order; a step
 * already recorded for its transaction is left as it is, and one of a transaction that is gone (a
 * deleted test-mode one) is not written (the trace has no foreign key). One JSON document rather than
 * an array per column: details are often JSON themselves, whose quotes an array would escape one by one.
 */
export const recordStepsStatement = new TenantStatement<never>(
  'pc_record_steps_json',
  `insert into $schema.transaction_steps (transaction_id, step, outcome, detail)
   select x.id, x.step, x.outcome, x.detail
   from rows from (json_to_recordset($1::json) as (id uuid, step text, outcome text, detail text)) with ordinality as x(id, step, outcome, detail, n)
   where exists (select 1 from $schema.transactions t where t.id = x.id)
   order by x.n
   on conflict (transaction_id, step) do nothing`,
);

/**
 * $1 the kitchen item documents as a JSON array, one per line (transaction, position, location, order
 * number, item, name, quantity, unit price, total, modifiers); a line that has its document keeps it.
 * Only the lines of transactions still there are written, their rows locked (key share) first: a
 * test-mode DELETE committed since the re-read would otherwise fail the whole batch's statement on the
 * foreign key, and one still running waits for this statement (its cascade then takes the documents).
 * One JSON document rather than an array per column: the modifiers are JSON already.
 */
export const kitchenItemsStatement = new TenantStatement<never>(
  'pc_kitchen_items',
  `with x as (select * from json_to_recordset($1::json)
     as x(transaction_id uuid, position int, location_id uuid, order_no int, item_id uuid, name text, qty int, unit_price int, total int, modifiers jsonb)),
   live as (select id from $schema.transactions where id in (select transaction_id from x) order by id for key share)
   insert into $schema.kitchen_items (transaction_id, position, location_id, order_no, item_id, name, qty, unit_price, total, modifiers)
   select x.transaction_id, x.position, x.location_id, x.order_no, x.item_id, x.name, x.qty, x.unit_price, x.total, x.modifiers from x join live on live.id = x.transaction_id
   on conflict (transaction_id, position) do nothing`,
);

/** $1 transaction ids. The columns the deferred finalisation reads (`FINALISE_COLUMNS`) of those still there. */
export const finaliseReadStatement = new TenantStatement<FinaliseTransaction>(
  'pc_finalise_read',
  `select ${FINALISE_COLUMNS.join(', ')} from $schema.transactions where id = any($1::uuid[])`,
);
