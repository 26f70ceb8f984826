import type { ExpressionBuilder } from 'kysely';
import type { TenantDb, TenantTables } from '@pos/db';
import { errors } from '@pos/kernel';
import { businessDate, dayBounds, isBusinessDate } from '@pos/domain/business-day/business-day';
import { lateOpenCount, prepStats, prepStatsByHour, type PrepStats } from '@pos/domain/kitchen/kds-metrics';
import type { Access } from '../auth/access.ts';
import { reportableLocations } from '../reports/reportable-locations.ts';
import { kdsBinding, type KdsDevice } from './kds-orders.ts';
import { stationsForCategory } from './stations.ts';

/**
 * Kitchen metrics and reports (issue 14), from the recorded state-change times of kitchen tickets
 * (`queued_at`, `ready_at`): preparation time is queued to ready; "today" is the local calendar date
 * in the location's time zone. Pure arithmetic in `@pos/domain/kitchen/kds-metrics`.
 */

async function locationZone(tdb: TenantDb, locationId: string): Promise<string> {
  const l = await tdb.selectFrom('locations').select('timezone').where('id', '=', locationId).executeTakeFirstOrThrow();
  return l.timezone;
}

/**
 * Not a ticket of a paid order cancelled after it reached the kitchen (a marketplace's cancel withdrew
 * it, `withdraw-tickets.ts`: completed, though nothing was handed over). No sale, so left out of the
 * daily stats, and out of the kitchen's figures over a day likewise. Read from the order, so a ticket
 * completed before the cancel is left out too.
 */
const notOfCancelledOrder = (eb: ExpressionBuilder<TenantTables, 'kitchen_tickets'>) =>
  eb.not(
    eb.exists(
      eb
        .selectFrom('transactions')
        .select('transactions.id')
        .whereRef('transactions.id', '=', 'kitchen_tickets.source_id')
        .where('kitchen_tickets.source', '=', 'transaction')
        .where('transactions.order_status', '=', 'Cancelled'),
    ),
  );

export interface KdsMetricsSummary {
  station_id: string | null;
  date: string;
  time_zone: string;
  orders_waiting: number;
  orders_in_progress: number;
  orders_ready: number;
  late_orders: number;
  late_after_minutes: number;
  completed_today: number;
  average_prep_seconds: number | null;
  p90_prep_seconds: number | null;
}

/**
 * `GET /kds/metrics/summary`: the device's station now: orders waiting (`Queued`), in progress, ready;
 * late orders (open, not ready, waiting longer than the device's `late_after_minutes`); and today's
 * average and p90 preparation time over the tickets made ready today (a cancelled order's left out).
 * An unbound device sees zeros.
 */
export async function kdsMetricsSummary(tdb: TenantDb, device: KdsDevice, now: Date): Promise<KdsMetricsSummary> {
  const { stationId, settings } = await kdsBinding(tdb, device);
  const tz = await locationZone(tdb, device.location_id);
  const date = businessDate(now, tz);
  const lateMs = settings.late_after_minutes * 60_000;
  const base = { station_id: stationId, date, time_zone: tz, late_after_minutes: settings.late_after_minutes };
  if (!stationId) return { ...base, orders_waiting: 0, orders_in_progress: 0, orders_ready: 0, late_orders: 0, completed_today: 0, average_prep_seconds: null, p90_prep_seconds: null };
  const open = await tdb.selectFrom('kitchen_tickets').select(['status', 'queued_at', 'ready_at']).where('station_id', '=', stationId).where('status', '<>', 'Complete').execute();
  const { start, end } = dayBounds(date, tz);
  const today = await tdb
    .selectFrom('kitchen_tickets')
    .select(['status', 'queued_at', 'ready_at'])
    .where('station_id', '=', stationId)
    .where('ready_at', '>=', start)
    .where('ready_at', '<', end)
    .where(notOfCancelledOrder)
    .execute();
  const stats = prepStats(today.map((r) => ({ queuedAt: r.queued_at, readyAt: r.ready_at })), lateMs);
  return {
    ...base,
    orders_waiting: open.filter((r) => r.status === 'Queued').length,
    orders_in_progress: open.filter((r) => r.status === 'In Progress').length,
    orders_ready: open.filter((r) => r.status === 'Ready').length,
    late_orders: lateOpenCount(open.map((r) => ({ queuedAt: r.queued_at, readyAt: r.status === 'Ready' ? r.ready_at : null })), now, lateMs),
    completed_today: today.filter((r) => r.status === 'Complete').length,
    average_prep_seconds: stats.average_prep_seconds,
    p90_prep_seconds: stats.p90_prep_seconds,
  };
}

/** `GET /kds/categories`: the categories the device's station serves (a fallback station also "no category" lines). */
export async function kdsCategories(tdb: TenantDb, device: KdsDevice) {
  const { stationId } = await kdsBinding(tdb, device);
  if (!stationId) return [];
  const station = await tdb.selectFrom('kitchen_stations').select('category_ids').where('id', '=', stationId).executeTakeFirstOrThrow();
  if (!station.category_ids.length) return [];
  return tdb.selectFrom('categories').select(['id', 'name', 'position']).where('id', 'in', station.category_ids).orderBy('position').orderBy('name').orderBy('id').execute();
}

/**
 * `GET /kds/items`: the catalog items whose lines reach the device's station (by category, or through
 * the fallback), each with `open_qty`: the quantity of its lines on the station's open tickets not
 * marked ready yet, neither the ticket (`Ready` or `Complete`) nor the line (what the kitchen still has to make).
 */
export async function kdsItems(tdb: TenantDb, device: KdsDevice) {
  const { stationId } = await kdsBinding(tdb, device);
  if (!stationId) return [];
  const stations = await tdb.selectFrom('kitchen_stations').select(['id', 'category_ids', 'is_fallback']).where('location_id', '=', device.location_id).execute();
  // Routed as `stationsForCategory` routes a line, in the query: the station's categories, and for the
  // fallback station the items no station's category covers. Every such item, never a first page of the
  // whole catalog filtered afterwards (the 2,001st item by name was silently left out).
  const own = stations.find((s) => s.id === stationId)?.category_ids ?? [];
  const isFallback = stations.find((s) => s.is_fallback)?.id === stationId;
  const covered = [...new Set(stations.flatMap((s) => s.category_ids))];
  const items = await tdb
    .selectFrom('items')
    .select(['id', 'name', 'category_id'])
    .where((eb) => {
      const routed = [];
      if (own.length) routed.push(eb('category_id', 'in', own));
      if (isFallback) routed.push(eb.or([eb('category_id', 'is', null), ...(covered.length ? [eb('category_id', 'not in', covered)] : [eb.lit(true)])]));
      return routed.length ? eb.or(routed) : eb.lit(false);
    })
    .where((eb) => eb.or([eb('location_ids', 'is', null), eb(eb.val(device.location_id), '=', eb.fn.any('location_ids'))]))
    .orderBy('name')
    .orderBy('id')
    .execute();
  const mine = items.filter((i) => stationsForCategory(stations, i.category_id).includes(stationId));
  const open = await tdb
    .selectFrom('kitchen_ticket_lines as l')
    .innerJoin('kitchen_tickets as t', 't.id', 'l.ticket_id')
    .select(['l.item_id', 't.source', 't.source_id', (eb) => eb.fn.sum<string>('l.qty').as('qty')])
    .where('t.station_id', '=', stationId)
    // Still to make: a ticket bumped Ready leaves its lines as they were (Queued), so the ticket's status
    // decides first (a recall brings a ticket back to Ready, still made); then a line marked ready.
    .where('t.status', 'in', ['Queued', 'In Progress'])
    .where('l.status', '<>', 'Ready')
    .groupBy(['l.item_id', 't.source', 't.source_id'])
    .execute();
  // VOID lines (a fired register line lowered or removed) carry a negative qty and take back only from
  // their own order (never below nothing there): a void of an espresso already made must not hide
  // another order's espresso still to make.
  const openQty = new Map<string, number>();
  for (const r of open) openQty.set(r.item_id, (openQty.get(r.item_id) ?? 0) + Math.max(0, Number(r.qty)));
  return mine.map((i) => ({ id: i.id, name: i.name, category_id: i.category_id, open_qty: openQty.get(i.id) ?? 0 }));
}

export interface KdsReportInput {
  location_id: string;
  date?: string;
  late_after_minutes?: number;
}

/**
 * `GET /back-office/kds-reports/summary`: one location's kitchen on one local date (default today in
 * its zone): the tickets made ready that day (a cancelled order's left out), in total, per station and
 * per local hour of becoming ready. A location of another merchant is 404, one outside the caller's grant 403.
 */
export async function kdsReportSummary(scope: { tdb: TenantDb; access: Access; now: Date }, input: KdsReportInput) {
  const allowed = (await reportableLocations(scope.tdb, scope.access)).find((l) => l.id === input.location_id.toLowerCase());
  if (!allowed) {
    const exists = await scope.tdb.selectFrom('locations').select('id').where('id', '=', input.location_id).executeTakeFirst();
    if (!exists) throw errors.notFound('location');
    throw errors.insufficientPermissions();
  }
  const tz = allowed.timezone;
  if (input.date !== undefined && !isBusinessDate(input.date)) throw errors.field('date', 'The date field must be a valid date (YYYY-MM-DD).');
  const date = input.date ?? businessDate(scope.now, tz);
  const lateAfter = input.late_after_minutes ?? 15;
  const lateMs = lateAfter * 60_000;
  const { start, end } = dayBounds(date, tz);
  const rows = await scope.tdb
    .selectFrom('kitchen_tickets')
    .select(['station_id', 'queued_at', 'ready_at'])
    .where('location_id', '=', input.location_id)
    .where('ready_at', '>=', start)
    .where('ready_at', '<', end)
    .where(notOfCancelledOrder)
    .execute();
  const stations = await scope.tdb.selectFrom('kitchen_stations').select(['id', 'name']).where('location_id', '=', input.location_id).orderBy('name').orderBy('id').execute();
  const times = (list: typeof rows) => list.map((r) => ({ queuedAt: r.queued_at, readyAt: r.ready_at }));
  const perStation: ({ station_id: string; name: string } & PrepStats)[] = stations.map((s) => ({ station_id: s.id, name: s.name, ...prepStats(times(rows.filter((r) => r.station_id === s.id)), lateMs) }));
  return {
    location_id: input.location_id,
    date,
    time_zone: tz,
    late_after_minutes: lateAfter,
    totals: prepStats(times(rows), lateMs),
    stations: perStation,
    hours: prepStatsByHour(times(rows), tz, lateMs),
  };
}
