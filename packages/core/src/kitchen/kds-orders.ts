import type Redis from 'ioredis';
import type { Selectable } from 'kysely';
import { withWriteRetry, type TenantDb, type TenantTables, type TenantTx } from '@pos/db';
import { errors, type Logger } from '@pos/kernel';
import { kdsMarkItem, kdsOrderTransition, orderStatusOfTickets, type KdsItemStatus, type KdsOrderAction, type KdsOrderStatus } from '@pos/domain/kitchen/kds-order-state';
import { materialiseKdsSettings, type KdsDisplaySettings } from './kds-profiles.ts';
import { appendKitchenEvent, publishKitchenEvents, type KitchenEvent } from './kitchen-events.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * The kitchen display's orders (spec 1 "Kitchen display"): a KDS device sees the tickets of the
 * station it is bound to (none while unbound). Order actions run the state machine of
 * `@pos/domain/kitchen/kds-order-state` on the ticket under a row lock, record the state-change
 * times, and publish the new state on the tenant's kitchen channel after the commit.
 */
export interface KdsDevice {
  readonly id: string;
  readonly location_id: string;
}

export interface KdsOrderView {
  id: string;
  station_id: string;
  order_no: string;
  source: 'transaction' | 'pos_order';
  status: KdsOrderStatus;
  held: boolean;
  prioritized: boolean;
  queued_at: string;
  started_at: string | null;
  ready_at: string | null;
  completed_at: string | null;
  customer_arrived_at: string | null;
  estimated_arrival_at: string | null;
  /** When a scheduled order is due; null for an order for now. */
  due_at: string | null;
  items: { position: number; name: string; qty: number; status: string; modifiers: unknown[]; modifier_statuses: string[] }[];
}

/** A kitchen ticket as stored. */
export type TicketRow = Selectable<TenantTables['kitchen_tickets']>;
const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** A kitchen ticket line as stored. */
export type TicketLineRow = Selectable<TenantTables['kitchen_ticket_lines']>;

/** The screen's view of tickets with their lines (inside a transaction too: events carry it). */
export async function ticketViews(tdb: TenantDb | TenantTx, rows: TicketRow[]): Promise<KdsOrderView[]> {
  const ids = rows.map((r) => r.id);
  const lines = ids.length ? await tdb.selectFrom('kitchen_ticket_lines').selectAll().where('ticket_id', 'in', ids).orderBy('position').execute() : [];
  return ticketViewsOf(rows, lines);
}

/** The views of tickets from their rows and lines (pure); each ticket's items in the order of `lines`. */
export function ticketViewsOf(rows: readonly TicketRow[], lines: readonly TicketLineRow[]): KdsOrderView[] {
  const linesOf = new Map<string, TicketLineRow[]>();
  for (const l of lines) {
    const list = linesOf.get(l.ticket_id);
    if (list) list.push(l);
    else linesOf.set(l.ticket_id, [l]);
  }
  return rows.map((r) => ({
    id: r.id,
    station_id: r.station_id,
    order_no: r.order_no,
    source: r.source,
    status: r.status,
    held: r.held,
    prioritized: r.prioritized,
    queued_at: r.queued_at.toISOString(),
    started_at: iso(r.started_at),
    ready_at: iso(r.ready_at),
    completed_at: iso(r.completed_at),
    customer_arrived_at: iso(r.customer_arrived_at),
    estimated_arrival_at: iso(r.estimated_arrival_at),
    due_at: iso(r.due_at),
    items: (linesOf.get(r.id) ?? []).map((l) => {
      const modifiers = (Array.isArray(l.modifiers) ? l.modifiers : []) as unknown[];
      const marks = (Array.isArray(l.modifier_statuses) ? l.modifier_statuses : []) as string[];
      return { position: l.position, name: l.name, qty: l.qty, status: l.status, modifiers, modifier_statuses: modifiers.map((_, i) => marks[i] ?? 'Queued') };
    }),
  }));
}

/** The device's station and materialised display settings (read fresh: bindings change without a new token). */
export async function kdsBinding(tdb: TenantDb, device: KdsDevice) {
  const row = await tdb
    .selectFrom('devices')
    .leftJoin('device_profiles as p', (j) => j.onRef('p.id', '=', 'devices.device_profile_id').on('p.type', '=', 'kds'))
    // Only a station of the device's own location counts (a moved device's old binding shows nothing).
    .leftJoin('kitchen_stations as s', (j) => j.onRef('s.id', '=', 'devices.station_id').onRef('s.location_id', '=', 'devices.location_id'))
    .select(['s.id as station_id', 'devices.kds_settings', 'p.settings'])
    .where('devices.id', '=', device.id)
    .executeTakeFirst();
  // The device's own overrides (`PUT /kds/settings`) over its profile's settings over the defaults.
  const merged = { ...((row?.settings as Record<string, unknown> | null) ?? {}), ...(row?.kds_settings ?? {}) };
  return { stationId: row?.station_id ?? null, settings: materialiseKdsSettings(merged) };
}

/** Most open orders a screen is sent. */
export const KDS_OPEN_ORDERS_LIMIT = 500;

/**
 * `GET /kds/orders`: the station's open orders (not complete), prioritised first when the profile
 * sorts by priority, then oldest first. An unbound device sees none. Past `KDS_OPEN_ORDERS_LIMIT` open
 * orders the newest are sent: a kitchen that never bumps its tickets (a screen used to read orders
 * only) would otherwise see the same 500 stale ones and never a new order.
 */
export async function listKdsOrders(tdb: TenantDb, device: KdsDevice): Promise<KdsOrderView[]> {
  const { stationId, settings } = await kdsBinding(tdb, device);
  if (!stationId) return [];
  const newest = tdb
    .selectFrom('kitchen_tickets')
    .selectAll()
    .where('station_id', '=', stationId)
    .where('status', '<>', 'Complete')
    .orderBy('queued_at', 'desc')
    .orderBy('id', 'desc')
    .limit(KDS_OPEN_ORDERS_LIMIT);
  let q = tdb.selectFrom(newest.as('k')).selectAll();
  if (settings.sort === 'priority_first') q = q.orderBy('k.prioritized', 'desc');
  const rows = (await q.orderBy('k.queued_at').orderBy('k.id').execute()) as TicketRow[];
  return ticketViews(tdb, rows);
}

export interface KdsActionDeps {
  readonly tdb: TenantDb;
  readonly tenantDatabase: string;
  readonly redis?: Redis;
  readonly log: Logger;
  readonly now: Date;
}

/**
 * Changes one ticket of the device's station under a row lock (another station's, location's or
 * merchant's ticket is a 404 `Unable to locate the order you requested.`). `change` writes the change
 * and answers true, or answers false when there is nothing to write (the order is answered unchanged,
 * nothing published). A change is recorded as a kitchen event in the same transaction and published
 * after the commit.
 */
async function changeTicket(
  deps: KdsActionDeps,
  device: KdsDevice,
  ticketId: string,
  action: string,
  change: (tx: TenantTx, current: TicketRow, binding: Awaited<ReturnType<typeof kdsBinding>>, orderCancelled: boolean) => Promise<boolean>,
): Promise<KdsOrderView> {
  const binding = await kdsBinding(deps.tdb, device);
  const stationId = binding.stationId;
  if (!stationId || !isUuid(ticketId)) throw errors.notFound('order');
  const { view, event } = await withWriteRetry(() =>
    deps.tdb.transaction().execute(async (tx) => {
      // A paid order's row is locked before its ticket, the order deleting a transaction takes
      // (`removeKitchenTickets`), so following the order status cannot deadlock with it.
      const source = await tx.selectFrom('kitchen_tickets').select(['source', 'source_id']).where('id', '=', ticketId).where('station_id', '=', stationId).executeTakeFirst();
      const order = source?.source === 'transaction' ? await tx.selectFrom('transactions').select('order_status').where('id', '=', source.source_id).forUpdate().executeTakeFirst() : undefined;
      const current = await tx.selectFrom('kitchen_tickets').selectAll().where('id', '=', ticketId).where('station_id', '=', stationId).forUpdate().executeTakeFirst();
      if (!current) throw errors.notFound('order');
      // Cancelled after it reached the kitchen (a marketplace's cancel withdrew its tickets, `withdraw-tickets.ts`).
      if (!(await change(tx, current, binding, order?.order_status === 'Cancelled'))) return { view: (await ticketViews(tx, [current]))[0]!, event: null };
      const updated = await tx.selectFrom('kitchen_tickets').selectAll().where('id', '=', current.id).executeTakeFirstOrThrow();
      if (updated.status !== current.status) await followOrderStatus(tx, updated, deps.now);
      const [v] = await ticketViews(tx, [updated]);
      const e = await appendKitchenEvent(tx, { action, location_id: updated.location_id, station_id: updated.station_id, order: v! as unknown as KitchenEvent['order'] });
      return { view: v!, event: e };
    }),
  );
  if (event && deps.redis) await publishKitchenEvents(deps.redis, deps.tenantDatabase, [event], deps.log);
  return view;
}

/**
 * Spec 1 section 3 (`in-progress`: order status `In Progress`, `ready`: `Ready`) and spec 3
 * (`order_status`: the kitchen status): a paid order's `order_status` follows its kitchen tickets, by
 * `orderStatusOfTickets` over all its stations (docs/decisions.md "Kitchen display"). The transaction
 * row is locked (by `changeTicket`, before the ticket) ahead of reading its tickets, so two stations
 * changing one order take turns and the second reads the first's committed ticket. A cancelled order stays cancelled; register orders
 * (`pos_order` tickets) have no transaction until they settle.
 */
async function followOrderStatus(tx: TenantTx, ticket: TicketRow, now: Date): Promise<void> {
  if (ticket.source !== 'transaction') return;
  const order = await tx.selectFrom('transactions').select('order_status').where('id', '=', ticket.source_id).forUpdate().executeTakeFirst();
  if (!order || order.order_status === 'Cancelled') return;
  const tickets = await tx.selectFrom('kitchen_tickets').select('status').where('source', '=', 'transaction').where('source_id', '=', ticket.source_id).execute();
  const next = orderStatusOfTickets(tickets.map((t) => t.status));
  if (next === null || next === order.order_status) return;
  await tx.updateTable('transactions').set({ order_status: next, updated_at: now }).where('id', '=', ticket.source_id).execute();
}

/**
 * `PUT /kds/{id}/{action}`: one of the eight order actions on a ticket of the device's station. A
 * refusal is 409 `{message, reason}`; an action already true answers the order unchanged. The recall
 * window comes from the device's settings; a cancelled order's withdrawn ticket is never recalled.
 */
export async function kdsOrderAction(deps: KdsActionDeps, device: KdsDevice, ticketId: string, action: KdsOrderAction): Promise<KdsOrderView> {
  return changeTicket(deps, device, ticketId, action, async (tx, current, { settings }, orderCancelled) => {
    const d = kdsOrderTransition(
      { status: current.status, held: current.held, prioritized: current.prioritized, completedAt: current.completed_at?.getTime() ?? null, orderCancelled },
      action,
      { now: deps.now.getTime(), recallWindowMs: settings.recall_window_minutes * 60_000 },
    );
    if (d.kind === 'refused') throw errors.conflict(d.message, { reason: d.reason });
    if (d.kind === 'unchanged') return false;
    const at = deps.now;
    await tx
      .updateTable('kitchen_tickets')
      .set({
        status: d.next.status,
        held: d.next.held,
        prioritized: d.next.prioritized,
        completed_at: d.next.completedAt === null ? null : at,
        ...(d.stamps.includes('started') ? { started_at: at } : {}),
        ...(d.stamps.includes('ready') ? { ready_at: at } : {}),
        ...(d.stamps.includes('recalled') ? { recalled_at: at } : {}),
        updated_at: at,
      })
      .where('id', '=', current.id)
      .execute();
    return true;
  });
}

export interface KdsMark {
  readonly order_id: string;
  readonly position: number;
  /** For `mark-modifier`: the index of the modifier in the line's `modifiers`. */
  readonly modifier_index?: number;
  readonly status: KdsItemStatus;
}

/**
 * `PUT /kds/mark-item` and `/kds/mark-modifier`: marks a line (or one modifier of a line) `Queued`,
 * `In Progress` or `Ready`. Refused like the order actions on a held or completed order (409); the
 * first mark on a `Queued` order starts it. A position or modifier index the order does not have is a
 * 422 on that field.
 */
export async function kdsMark(deps: KdsActionDeps, device: KdsDevice, mark: KdsMark): Promise<KdsOrderView> {
  const kind = mark.modifier_index === undefined ? 'mark-item' : 'mark-modifier';
  return changeTicket(deps, device, mark.order_id, kind, async (tx, current) => {
    const line = await tx.selectFrom('kitchen_ticket_lines').selectAll().where('ticket_id', '=', current.id).where('position', '=', mark.position).executeTakeFirst();
    if (!line) throw errors.field('position', 'The position does not name a line of this order.');
    const modifiers = (Array.isArray(line.modifiers) ? line.modifiers : []) as unknown[];
    const marks = modifiers.map((_, i) => ((Array.isArray(line.modifier_statuses) ? line.modifier_statuses[i] : undefined) ?? 'Queued') as KdsItemStatus);
    if (mark.modifier_index !== undefined && mark.modifier_index >= modifiers.length) throw errors.field('modifier_index', 'The modifier index does not name a modifier of this line.');
    const currentMark = mark.modifier_index === undefined ? (line.status as KdsItemStatus) : marks[mark.modifier_index]!;
    const d = kdsMarkItem({ status: current.status, held: current.held, prioritized: current.prioritized, completedAt: current.completed_at?.getTime() ?? null }, currentMark, mark.status);
    if (d.kind === 'refused') throw errors.conflict(d.message, { reason: d.reason });
    if (d.kind === 'unchanged') return false;
    const lineUpdate = tx.updateTable('kitchen_ticket_lines').where('ticket_id', '=', current.id).where('position', '=', mark.position);
    if (mark.modifier_index === undefined) await lineUpdate.set({ status: d.next }).execute();
    else await lineUpdate.set({ modifier_statuses: JSON.stringify(marks.map((m, i) => (i === mark.modifier_index ? d.next : m))) }).execute();
    await tx
      .updateTable('kitchen_tickets')
      .set({ ...(d.orderNext ? { status: d.orderNext, started_at: deps.now } : {}), updated_at: deps.now })
      .where('id', '=', current.id)
      .execute();
    return true;
  });
}

/**
 * `POST /kds/customer-arrived` and `/kds/estimated-arrival` (the order id in the body): records the
 * signal on the ticket (arrival now, or the estimated arrival time given) and shows it on the screens.
 * A completed order takes no signal (409 `order_complete`); repeating the same signal changes nothing.
 */
export async function kdsSignal(deps: KdsActionDeps, device: KdsDevice, orderId: string, signal: 'customer-arrived' | 'estimated-arrival', estimatedAt?: Date): Promise<KdsOrderView> {
  return changeTicket(deps, device, orderId, signal, async (tx, current) => {
    if (current.status === 'Complete') throw errors.conflict('This order is complete. Recall it first.', { reason: 'order_complete' });
    if (signal === 'customer-arrived') {
      if (current.customer_arrived_at) return false;
      await tx.updateTable('kitchen_tickets').set({ customer_arrived_at: deps.now, updated_at: deps.now }).where('id', '=', current.id).execute();
      return true;
    }
    if (current.estimated_arrival_at?.getTime() === estimatedAt!.getTime()) return false;
    await tx.updateTable('kitchen_tickets').set({ estimated_arrival_at: estimatedAt!, updated_at: deps.now }).where('id', '=', current.id).execute();
    return true;
  });
}

/**
 * `GET /kds/settings`: the device's materialised settings: its KDS profile's display settings over the
 * defaults, and the station it shows (null while unbound).
 */
export async function kdsSettings(tdb: TenantDb, device: KdsDevice) {
  const row = await tdb.selectFrom('devices').select(['device_profile_id']).where('id', '=', device.id).executeTakeFirstOrThrow();
  const { stationId, settings } = await kdsBinding(tdb, device);
  const overrides = await tdb.selectFrom('devices').select('kds_settings').where('id', '=', device.id).executeTakeFirstOrThrow();
  const station = stationId ? await tdb.selectFrom('kitchen_stations').select(['id', 'name', 'category_ids', 'is_fallback']).where('id', '=', stationId).executeTakeFirst() : undefined;
  const profile = row.device_profile_id ? await tdb.selectFrom('device_profiles').select('id').where('id', '=', row.device_profile_id).where('type', '=', 'kds').executeTakeFirst() : undefined;
  return {
    device_id: device.id,
    location_id: device.location_id,
    kds_profile_id: profile?.id ?? null,
    station: station ? { id: station.id, name: station.name, category_ids: [...station.category_ids].sort(), is_fallback: station.is_fallback } : null,
    settings,
    overrides: materialisedKeys(overrides.kds_settings),
  };
}

/** The device's own overrides, only the known keys (what `PUT /kds/settings` wrote). */
function materialisedKeys(stored: Record<string, unknown> | null): Partial<KdsDisplaySettings> {
  const all = materialiseKdsSettings(stored);
  return Object.fromEntries(Object.keys(stored ?? {}).filter((k) => k in all).map((k) => [k, all[k as keyof KdsDisplaySettings]])) as Partial<KdsDisplaySettings>;
}

/**
 * `PUT /kds/settings`: writes the device's own overrides (merged over what it set before; `null` for
 * a key removes the override, so the profile's value or the default applies again), then answers the
 * materialised settings as `GET /kds/settings` does.
 */
export async function updateKdsSettings(tdb: TenantDb, device: KdsDevice, patch: Partial<Record<keyof KdsDisplaySettings, unknown>>) {
  await tdb.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('devices').select('kds_settings').where('id', '=', device.id).forUpdate().executeTakeFirstOrThrow();
    const next: Record<string, unknown> = { ...(row.kds_settings ?? {}) };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) delete next[k];
      else if (v !== undefined) next[k] = v;
    }
    await tx.updateTable('devices').set({ kds_settings: JSON.stringify(next) }).where('id', '=', device.id).execute();
  });
  return kdsSettings(tdb, device);
}

/** `POST /kds/push-token`: the device's push token (replaced; null clears it). */
export async function setKdsPushToken(tdb: TenantDb, device: KdsDevice, token: string | null, platform: string | null): Promise<void> {
  await tdb.updateTable('devices').set({ kds_push_token: token, kds_push_platform: token === null ? null : platform }).where('id', '=', device.id).execute();
}
