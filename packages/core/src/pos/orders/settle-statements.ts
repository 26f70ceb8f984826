import { TenantStatement } from '@pos/db';
import type { OrderRow } from './order-resource.ts';
import type { TillRow } from '../tills/till-queries.ts';

// The two statements of an in-process settle (see settle-in-process.ts). Hand-written SQL, built once
// per schema and sent as named prepared statements: this is the register's hottest path.

/** Everything a settle decides on, read in one statement (no lock is taken). */
export type SettleReadRow = OrderRow & {
  l_pos_tenders: unknown;
  l_timezone: string;
  l_vat_no: string | null;
  l_est_no: string | null;
  f_id: string | null;
  f_fdm_id: string | null;
  f_regime: string | null;
  f_status: 'active' | 'retired' | null;
  f_mode: 'software' | 'remote' | null;
  /** label -> value of the device's counters that an event touches. */
  f_counters: Record<string, number> | null;
  h_seq: number | null;
  h_hash: string | null;
  d_id: string | null;
  d_date: string | null;
  d_status: 'open' | 'closed' | null;
  tw_id: string | null;
  tw_drawer: TillRow['drawer_snapshot'] | null;
  td_id: string | null;
  td_drawer: TillRow['drawer_snapshot'] | null;
};

/**
 * $1 order id, $2 location id (checked by the caller: with it in the WHERE clause a plan made on an
 * empty table scans the location's orders instead of the primary key), $3 the register's ticket counter label, $4 now, $5 staff id, $6 device id.
 * The order with its location, the location's active enrolment, that device's counters and last journal
 * entry, today's business day (by the location's zone) and the open tills the sale could be booked to.
 */
export const readForSettle = new TenantStatement<SettleReadRow>(
  'settle_read',
  `select o.*,
     l.pos_tenders as l_pos_tenders, l.timezone as l_timezone, l.vat_no as l_vat_no, l.est_no as l_est_no,
     f.id as f_id, f.fdm_id as f_fdm_id, f.regime as f_regime, f.status as f_status, f.mode as f_mode,
     (select json_object_agg(c.label, c.value) from $schema.fiscal_counters c
       where c.fdm_id = f.fdm_id and c.label = any (array['seq', 'total', $3::text, 'N', 'S', 'R', 'F', 'T'])) as f_counters,
     h.seq as h_seq, h.hash as h_hash,
     d.id as d_id, d.business_date as d_date, d.status as d_status,
     tw.id as tw_id, tw.drawer_snapshot as tw_drawer,
     td.id as td_id, td.drawer_snapshot as td_drawer
   from $schema.pos_orders o
   join $schema.locations l on l.id = o.location_id
   left join lateral (select id, fdm_id, regime, status, mode from $schema.fdm_devices
     where location_id = l.id and status = 'active' order by created_at desc limit 1) f on true
   left join lateral (select seq, hash from $schema.fiscal_journal where fdm_id = f.fdm_id order by seq desc limit 1) h on true
   left join $schema.pos_business_days d on d.location_id = l.id and d.business_date = ($4::timestamptz at time zone l.timezone)::date
   left join lateral (select id, drawer_snapshot from $schema.pos_tills
     where location_id = l.id and mode = 'staff_wallet' and staff_id = $5::uuid and state = 'open' order by opened_at desc limit 1) tw on true
   left join lateral (select id, drawer_snapshot from $schema.pos_tills
     where location_id = l.id and mode = 'register_drawer' and device_id = $6::uuid and state = 'open' order by opened_at desc limit 1) td on true
   where o.id = $1::uuid and $2::uuid is not null`,
);

/**
 * A register sale moves stock as a platform capture does (capture-payment.ts): each tracked item of the
 * order (a level row at the location) goes down by the quantity sold, also below zero, locked in item
 * order (as captures and stock holds take them), with a `sale` history entry. Lines whose `item_id` is no
 * uuid (a free-text item) track nothing. `guard`: a statement part the sale's write depends on (the settle's
 * journal head), or null. $schema, then the given parameters: the order id, the location id, now.
 */
export function registerSaleStock(p: { order: string; location: string; now: string; guard: string | null }): string {
  const guard = p.guard ? ` and exists (select 1 from ${p.guard})` : '';
  return `s_sold as (select (x->>'item_id')::uuid as item_id, sum((x->>'qty')::int) as qty
    from $schema.pos_orders so cross join jsonb_array_elements(so.lines) x
    where so.id = ${p.order} and x->>'item_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'${guard}
    group by 1),
  s_locked as (select l.item_id, s.qty from $schema.inventory_levels l join s_sold s on s.item_id = l.item_id
    where l.location_id = ${p.location} order by l.item_id for update of l),
  s_levels as (update $schema.inventory_levels l set quantity = l.quantity - k.qty, updated_at = ${p.now}
    from s_locked k where l.item_id = k.item_id and l.location_id = ${p.location} returning l.item_id, l.quantity, k.qty),
  s_history as (insert into $schema.inventory_history (id, item_id, location_id, type, quantity_change, quantity_after, note, user_id, created_at)
    select gen_random_uuid(), v.item_id, ${p.location}, 'sale', -v.qty, v.quantity, 'Register order ' || upper(right(${p.order}::text, 4)), null, ${p.now}
    from s_levels v returning 1)`;
}

/** `registerSaleStock` alone, in the settle's transaction (the settle path whose sale is written by Kysely): $1 order id, $2 location id, $3 now. */
export const sellRegisterStock = new TenantStatement<{ n: string }>(
  'register_sale_stock',
  `with ${registerSaleStock({ order: '$1::uuid', location: '$2::uuid', now: '$3::timestamptz', guard: null })} select count(*) as n from s_levels`,
);

/**
 * The whole settle as one statement (one implicit transaction). The guards lock, in the order every
 * other writer uses (order, business day, till, journal head), and each runs only when the previous
 * one held: the order still OPEN at the version read, the business day still open, the till (when the
 * sale takes cash into one) still open, and the journal head still the one the entry was signed over.
 * Every write reads from the last guard, so when any guard fails nothing is written and no row comes
 * back; the caller reads again and signs over the new head. Locks last for this statement only.
 */
function writeSettle(withTill: boolean): string {
  return `with
  g_order as (select id from $schema.pos_orders where id = $1::uuid and state = 'OPEN' and version = $2 for update),
  g_day as (select id from $schema.pos_business_days where id = $5::uuid and status = 'open' and exists (select 1 from g_order) for share),
  g_till as (${
    withTill
      ? `select id from $schema.pos_tills where id = $6::uuid and state = 'open' and exists (select 1 from g_day) for share`
      : `select 1 as id from g_day where $6::uuid is null`
  }),
  g_head as (select 1 as ok from (select coalesce((select value from $schema.fiscal_counters where fdm_id = $3 and label = 'seq' for update), 0) as v) h
    where h.v = $4 and exists (select 1 from g_till)),
  w_counters as (insert into $schema.fiscal_counters (fdm_id, label, value)
    select $3, x.label, x.value from g_head, unnest($7::text[], $8::bigint[]) as x(label, value)
    on conflict (fdm_id, label) do update set value = excluded.value returning 1),
  w_journal as (insert into $schema.fiscal_journal
      (id, fdm_id, location_id, seq, event_kind, payload, sign_result, status, prev_hash, hash, result_hash, seal, result_seal, subject_type, subject_id, created_at, completed_at)
    select $9::uuid, $3, $10::uuid, $11, $12, $13, $14, 'signed', $15, $16, $17, $18, $19, $20, $21, $22::timestamptz, $22::timestamptz from g_head returning 1),
  w_transaction as (insert into $schema.pos_transactions
      (id, order_id, location_id, device_id, staff_id, total, tender, payment_snapshot, captured_by_platform, fiscal, business_date, till_id, created_at)
    select $23::uuid, $1::uuid, $10::uuid, $24::uuid, $25::uuid, $26, $27::jsonb, $28::jsonb, false, $29::jsonb, $30::date, $6::uuid, $22::timestamptz from g_head returning 1),
  ${registerSaleStock({ order: '$1::uuid', location: '$10::uuid', now: '$22::timestamptz', guard: 'g_head' })}
update $schema.pos_orders set state = 'SETTLED', tender = $27::jsonb, fiscal = $29::jsonb, transaction_id = $23::uuid, settled_at = $22::timestamptz,
    version = $2 + 1, updated_at = $22::timestamptz
  where id = $1::uuid and exists (select 1 from g_head)
  returning *`;
}

export const writeSettleWithTill = new TenantStatement<OrderRow>('settle_write_till', writeSettle(true));
export const writeSettleNoTill = new TenantStatement<OrderRow>('settle_write', writeSettle(false));
