import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { CHANNEL_LABELS, FULFILLMENT_BUCKETS, fulfillmentBucket, sortedCounts, type FulfillmentBucket } from '@pos/domain/orders/fulfillment-bucket';
import { isUuid } from '@pos/domain/ids';
import { tableLabel } from '../../table-qr/table-labels.ts';

/**
 * The omni-channel order stream of a register's location (spec 2 "Omni-channel order stream"): the
 * paid orders of the other channels (kiosk, online, table QR; the register's own orders are
 * `GET /pos/orders`), with their kitchen progress read from the kitchen tickets.
 *
 * Views: `active` (paid, not yet complete in the kitchen, due now), `scheduled` (paid, due later than
 * the lead time), `completed` (complete in the kitchen within the last 24 hours). An unpaid or
 * cancelled order is in no view.
 */
export const CHANNEL_ORDER_VIEWS = ['active', 'scheduled', 'completed'] as const;
export type ChannelOrderView = (typeof CHANNEL_ORDER_VIEWS)[number];
/** A scheduled order moves to `active` this long before its time, so the kitchen can start it. */
export const SCHEDULED_LEAD_MS = 30 * 60 * 1000;
/** A completed order stays visible (list and detail) this long after the kitchen completed it. */
export const COMPLETED_VISIBLE_MS = 24 * 60 * 60 * 1000;
/** A paid order never completed in the kitchen leaves the stream this long after payment (unless scheduled later): it was abandoned. */
export const STALE_AFTER_MS = 48 * 60 * 60 * 1000;
export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

type ChannelKey = keyof typeof CHANNEL_LABELS;
const CHANNEL_VALUES = Object.values(CHANNEL_LABELS) as string[];
const BUCKET_FILTERS = ['all', ...FULFILLMENT_BUCKETS] as const;

export interface ChannelOrdersInput {
  readonly view?: string;
  readonly channel?: string;
  readonly dining_option?: string;
  readonly page?: number;
  readonly per_page?: number;
}

export interface ChannelOrderSummary {
  id: string;
  order_no: number;
  channel: string;
  dining_option: string | null;
  /** Where a Delivery order goes (`DeliveryAddress`); null for every other order. */
  delivery_address: Record<string, string> | null;
  fulfillment: FulfillmentBucket;
  customer_name: string | null;
  /** The storefront order's contact, as the customer gave it; null when not given (or another channel). */
  customer_email: string | null;
  customer_phone: string | null;
  kitchen_status: 'Queued' | 'In Progress' | 'Ready' | 'Complete';
  payment_status: 'Complete';
  total: number;
  item_count: number;
  paid_at: string;
  scheduled_for: string | null;
  completed_at: string | null;
  /** A table QR order's table ("Terrace 7"), where staff take it; null for every other order. */
  table: string | null;
}

/**
 * Every paid, uncancelled order of the location with its kitchen progress (one row per order). The
 * kitchen progress and the item count are read per order shown (its tickets by `kitchen_tickets_once`,
 * its lines by their primary key): a derived table of every ticket of the location and every line of
 * the merchant, grouped and then joined, read all 600k lines and 778k tickets of a busy merchant on
 * each poll of the register, 2-3.9 s a call (twenty-sixth session).
 */
function streamRows(db: TenantDb, locationId: string, now: Date) {
  return db
    .selectFrom('transactions as t')
    // Aggregates without grouping: one row per order each (`n` 0 without a ticket, `qty` null without a line).
    .crossJoinLateral((eb) =>
      eb
        .selectFrom('kitchen_tickets as kt')
        .select([
          sql<number>`count(*)::int`.as('n'),
          sql<number>`(count(*) filter (where kt.status = 'Complete'))::int`.as('done'),
          sql<number>`(count(*) filter (where kt.status in ('Ready', 'Complete')))::int`.as('ready'),
          sql<number>`(count(*) filter (where kt.status <> 'Queued'))::int`.as('started'),
          sql<Date | null>`max(kt.completed_at)`.as('last_completed_at'),
        ])
        .where('kt.source', '=', 'transaction')
        .whereRef('kt.source_id', '=', 't.id')
        .where('kt.location_id', '=', locationId)
        .as('k'),
    )
    .crossJoinLateral((eb) => eb.selectFrom('transaction_lines as l').select(sql<number | null>`sum(l.qty)::int`.as('qty')).whereRef('l.transaction_id', '=', 't.id').as('q'))
    .leftJoin('table_sessions as ts', 'ts.id', 't.table_session_id')
    .leftJoin('table_sections as sec', 'sec.id', 'ts.table_section_id')
    .select([
      'sec.name as table_section',
      'ts.table_number',
      't.id',
      't.order_no',
      't.channel',
      't.dining_option',
      't.delivery_address',
      't.customer_name',
      't.customer_email',
      't.customer_phone',
      't.total',
      't.completed_at as paid_at',
      't.scheduled_for',
      sql<number>`coalesce(q.qty, 0)`.as('item_count'),
      sql<ChannelOrderSummary['kitchen_status']>`case
        when k.n = 0 then coalesce(t.order_status, 'Queued')
        when k.done = k.n then 'Complete'
        when k.ready = k.n then 'Ready'
        when k.started > 0 then 'In Progress'
        else 'Queued' end`.as('kitchen_status'),
      sql<Date | null>`case when k.n > 0 and k.done = k.n then k.last_completed_at when k.n = 0 and t.order_status = 'Complete' then t.updated_at else null end`.as('kitchen_completed_at'),
    ])
    .where('t.location_id', '=', locationId)
    .where('t.status', '=', 'Complete')
    .where(sql<string>`coalesce(t.order_status, '')`, '<>', 'Cancelled')
    // Bounded by time so the stream never scans a location's whole history: orders paid within the
    // stale limit, or due recently or later.
    .where((eb) => eb.or([eb('t.completed_at', '>=', new Date(now.getTime() - STALE_AFTER_MS)), eb('t.scheduled_for', '>=', new Date(now.getTime() - COMPLETED_VISIBLE_MS))]));
}

type StreamRow = Awaited<ReturnType<ReturnType<typeof streamRows>['execute']>>[number];

function viewOf(r: StreamRow, now: Date): ChannelOrderView | null {
  if (r.kitchen_status === 'Complete') {
    const at = r.kitchen_completed_at ?? r.paid_at;
    return at && now.getTime() - at.getTime() <= COMPLETED_VISIBLE_MS ? 'completed' : null;
  }
  if (r.scheduled_for && r.scheduled_for.getTime() - now.getTime() > SCHEDULED_LEAD_MS) return 'scheduled';
  return 'active';
}

const labelOf = (channel: string) => CHANNEL_LABELS[channel as ChannelKey] ?? channel;
const bucketOf = (r: StreamRow) => fulfillmentBucket({ kind: 'channel', channel: labelOf(r.channel), dining_option: r.dining_option });

function summary(r: StreamRow): ChannelOrderSummary {
  return {
    id: r.id,
    order_no: r.order_no,
    channel: labelOf(r.channel),
    dining_option: r.dining_option,
    delivery_address: (r.delivery_address ?? null) as Record<string, string> | null,
    fulfillment: bucketOf(r),
    customer_name: r.customer_name,
    customer_email: r.customer_email,
    customer_phone: r.customer_phone,
    kitchen_status: r.kitchen_status,
    payment_status: 'Complete',
    total: r.total,
    item_count: r.item_count,
    paid_at: (r.paid_at ?? new Date(0)).toISOString(),
    scheduled_for: r.scheduled_for ? r.scheduled_for.toISOString() : null,
    completed_at: r.kitchen_completed_at ? r.kitchen_completed_at.toISOString() : null,
    table: r.table_section !== null && r.table_number !== null ? tableLabel(r.table_section, r.table_number) : null,
  };
}

/**
 * `GET /pos/channel-orders`: one page of a view, `{data, total, fulfillment, channels}`. `total`
 * counts the rows behind the page (every filter applied); `fulfillment` counts the view's orders per
 * bucket (with `all`) under the `channel` filter, `channels` per channel label under the
 * `dining_option` filter, so each tab shows what choosing it would list. Both are plain objects with
 * sorted keys and no zero counts. Order: active by payment time (oldest first, the kitchen's queue),
 * scheduled by due time, completed newest first.
 */
export async function listChannelOrders(db: TenantDb, locationId: string, input: ChannelOrdersInput, now: Date) {
  if (input.view === undefined || input.view === '') throw errors.field('view', 'The view field is required.');
  if (!(CHANNEL_ORDER_VIEWS as readonly string[]).includes(input.view)) throw errors.field('view', 'The selected view is invalid. Accepted: active, scheduled, completed.');
  if (input.channel !== undefined && !CHANNEL_VALUES.includes(input.channel)) throw errors.field('channel', `The selected channel is invalid. Accepted: ${CHANNEL_VALUES.join(', ')}.`);
  if (input.dining_option !== undefined && !(BUCKET_FILTERS as readonly string[]).includes(input.dining_option)) {
    throw errors.field('dining_option', `The selected dining_option is invalid. Accepted: ${BUCKET_FILTERS.join(', ')}.`);
  }
  const view = input.view as ChannelOrderView;
  const page = Math.max(1, Math.trunc(input.page ?? 1));
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Math.trunc(input.per_page ?? DEFAULT_PER_PAGE)));

  const inView = (await streamRows(db, locationId, now).execute()).filter((r) => viewOf(r, now) === view);
  const channelOk = (r: StreamRow) => input.channel === undefined || labelOf(r.channel) === input.channel;
  const bucketOk = (r: StreamRow) => input.dining_option === undefined || input.dining_option === 'all' || bucketOf(r) === input.dining_option;

  const fulfillment = new Map<string, number>();
  for (const r of inView.filter(channelOk)) {
    fulfillment.set('all', (fulfillment.get('all') ?? 0) + 1);
    fulfillment.set(bucketOf(r), (fulfillment.get(bucketOf(r)) ?? 0) + 1);
  }
  const channels = new Map<string, number>();
  for (const r of inView.filter(bucketOk)) channels.set(labelOf(r.channel), (channels.get(labelOf(r.channel)) ?? 0) + 1);

  const time = (r: StreamRow) =>
    view === 'completed' ? -(r.kitchen_completed_at ?? r.paid_at ?? new Date(0)).getTime() : view === 'scheduled' ? r.scheduled_for!.getTime() : (r.paid_at ?? new Date(0)).getTime();
  const rows = inView.filter((r) => channelOk(r) && bucketOk(r)).sort((a, b) => time(a) - time(b) || a.order_no - b.order_no || (a.id < b.id ? -1 : 1));
  return {
    data: rows.slice((page - 1) * perPage, page * perPage).map(summary),
    total: rows.length,
    fulfillment: sortedCounts(fulfillment),
    channels: sortedCounts(channels),
  };
}

/**
 * `GET /pos/channel-orders/{id}`: one order of the stream with its lines. The same 404 for an order
 * of another location (or merchant), an unpaid, a cancelled, and a completed order older than 24
 * hours: the register learns nothing about orders it may not show.
 */
export async function getChannelOrder(db: TenantDb, locationId: string, id: string, now: Date) {
  const notFound = () => errors.notFound('order');
  if (!isUuid(id)) throw notFound();
  const r = await streamRows(db, locationId, now).where('t.id', '=', id.toLowerCase()).executeTakeFirst();
  if (!r || viewOf(r, now) === null) throw notFound();
  const t = await db.selectFrom('transactions').select(['receipt_no', 'subtotal', 'discount', 'vat', 'tip_amount']).where('id', '=', r.id).executeTakeFirstOrThrow();
  const lines = await db.selectFrom('transaction_lines').select(['name', 'qty', 'unit_price', 'total', 'modifiers', 'variant']).where('transaction_id', '=', r.id).orderBy('position').execute();
  return {
    ...summary(r),
    view: viewOf(r, now)!,
    receipt_no: t.receipt_no,
    subtotal: t.subtotal,
    discount: t.discount,
    vat: t.vat,
    tip_amount: t.tip_amount,
    lines: lines.map((l) => ({ name: l.name, qty: l.qty, unit_price: l.unit_price, total: l.total, modifiers: l.modifiers, variant: l.variant })),
  };
}
