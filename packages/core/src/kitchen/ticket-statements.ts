import { TenantStatement } from '@pos/db';

/**
 * $1 the planned tickets as one JSON array, in the order their events are numbered: `{ ord, id,
 * location_id, station_id, source, source_id, fire_no, order_no, status, held, prioritized, at, due_at, lines,
 * payload }` (`lines` the ticket's lines, `payload` its `created` event without `seq`, built from the
 * same row and lines). In one statement: the tickets (one
 * already written for its order, fire and station is skipped), the lines of the new ones, each
 * location's event counter moved by its number of new tickets, and their `created` events, numbered
 * as `appendKitchenEvents` numbers them (the k-th new ticket of n at a location gets the moved counter
 * - n + k). $2 true (the post-capture listener): a transaction's ticket is written only while the
 * transaction exists, its row locked (key share) until the commit, so a test-mode DELETE committed
 * first leaves no ticket for it, and one running meanwhile waits and then removes the ticket with the
 * transaction (no foreign key would). So does an order cancelled since the listener read it (a
 * marketplace's cancel, which locks the row `for update`): one committed first, or while this waits (the
 * row is read again after the wait), leaves no ticket; one coming after waits and withdraws the tickets
 * (`withdrawKitchenTickets`). Likewise every ticket is written only while its station exists,
 * the station row key-share locked until the commit: a station delete (which locks it `for update`
 * before it looks for open tickets) committed first leaves no ticket for it (the statement waits for
 * it, then finds the row gone), and one coming after waits and then sees the ticket (409). Answers each new ticket with its event's number. As one statement, outside a transaction it
 * commits as it ends: the counter rows are never held locked while the client sends the next statement
 * (other batches of the location queued on them while it did).
 */
export const createTicketsStatement = new TenantStatement<{ id: string; seq: number }>(
  'kitchen_tickets_create',
  `with x as (
     select * from json_to_recordset($1::json)
       as x(ord int, id uuid, location_id uuid, station_id uuid, source text, source_id uuid, fire_no int, order_no text, status text, held boolean, prioritized boolean, at timestamptz, due_at timestamptz, lines json, payload jsonb)),
   live as (select id from $schema.transactions where $2::boolean and id in (select source_id from x where source = 'transaction') and order_status is distinct from 'Cancelled' order by id for key share),
   st as (select id from $schema.kitchen_stations where id in (select station_id from x) order by id for key share),
   t as (insert into $schema.kitchen_tickets (id, location_id, station_id, source, source_id, fire_no, order_no, status, held, prioritized, queued_at, updated_at, due_at)
     select id, location_id, station_id, source, source_id, fire_no, order_no, status, held, prioritized, at, at, due_at from x
     where (not $2::boolean or x.source <> 'transaction' or x.source_id in (select id from live)) and x.station_id in (select id from st) order by ord
     on conflict on constraint kitchen_tickets_once do nothing
     returning id),
   f as (select x.ord, x.id, x.location_id, x.station_id, x.lines, x.payload,
       row_number() over (partition by x.location_id order by x.ord) as k,
       count(*) over (partition by x.location_id) as n
     from x join t on t.id = x.id),
   l as (insert into $schema.kitchen_ticket_lines (ticket_id, position, item_id, line_ref, category_id, name, qty, modifiers)
     select f.id, y.position, y.item_id, y.line_ref, y.category_id, y.name, y.qty, y.modifiers
     from f cross join lateral json_to_recordset(f.lines) as y(position int, item_id uuid, line_ref text, category_id uuid, name text, qty int, modifiers jsonb)
     order by f.ord, y.position),
   cur as (insert into $schema.kitchen_event_cursors (location_id, last_seq)
     select location_id, max(n) from f group by location_id order by location_id
     on conflict (location_id) do update set last_seq = kitchen_event_cursors.last_seq + excluded.last_seq
     returning location_id, last_seq),
   ev as (insert into $schema.kitchen_events (location_id, seq, station_id, ticket_id, action, payload)
     select f.location_id, cur.last_seq - f.n + f.k, f.station_id, f.id, 'created', f.payload || jsonb_build_object('seq', cur.last_seq - f.n + f.k)
     from f join cur on cur.location_id = f.location_id order by f.ord
     returning ticket_id, seq)
   select ticket_id::text as id, seq from ev`,
);

/** $1 location ids. Their kitchen stations in id order, as routing reads them (`routeKitchenTickets`): prepared, since each post-capture batch reads them. */
export const locationStationsStatement = new TenantStatement<{ id: string; location_id: string; category_ids: string[]; is_fallback: boolean }>(
  'kitchen_location_stations',
  `select id, location_id, category_ids, is_fallback from $schema.kitchen_stations where location_id = any($1::uuid[]) order by id`,
);
