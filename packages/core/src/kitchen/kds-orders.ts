import type Redis from 'ioredis';
import type { Selectable } from 'kysely';
import { withWriteRetry, type TenantDb, type TenantTables } from '@pos/db';
import { errors, type Logger } from '@pos/kernel';
import { kdsOrderTransition, type KdsOrderAction, type KdsOrderStatus } from '@pos/domain/kitchen/kds-order-state';
import { kitchenChannel } from '../payments/payment-events.ts';
import { isUuid } from '../devices/device-records.ts';
import { materialiseKdsSettings } from './kds-profiles.ts';

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
  items: { position: number; name: string; qty: number; status: string; modifiers: unknown[] }[];
}

type TicketRow = Selectable<TenantTables['kitchen_tickets']>;
const iso = (d: Date | null) => (d === null ? null : d.toISOString());

async function views(tdb: TenantDb, rows: TicketRow[]): Promise<KdsOrderView[]> {
  const ids = rows.map((r) => r.id);
  const lines = ids.length ? await tdb.selectFrom('kitchen_ticket_lines').selectAll().where('ticket_id', 'in', ids).orderBy('position').execute() : [];
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
    items: lines.filter((l) => l.ticket_id === r.id).map((l) => ({ position: l.position, name: l.name, qty: l.qty, status: l.status, modifiers: (l.modifiers ?? []) as unknown[] })),
  }));
}

/** The device's station and materialised display settings (read fresh: bindings change without a new token). */
export async function kdsBinding(tdb: TenantDb, device: KdsDevice) {
  const row = await tdb
    .selectFrom('devices')
    .leftJoin('device_profiles as p', (j) => j.onRef('p.id', '=', 'devices.device_profile_id').on('p.type', '=', 'kds'))
    .select(['devices.station_id', 'p.settings'])
    .where('devices.id', '=', device.id)
    .executeTakeFirst();
  return { stationId: row?.station_id ?? null, settings: materialiseKdsSettings(row?.settings as Record<string, unknown> | null | undefined) };
}

/**
 * `GET /kds/orders`: the station's open orders (not complete), prioritised first when the profile
 * sorts by priority, then oldest first. An unbound device sees none.
 */
export async function listKdsOrders(tdb: TenantDb, device: KdsDevice): Promise<KdsOrderView[]> {
  const { stationId, settings } = await kdsBinding(tdb, device);
  if (!stationId) return [];
  let q = tdb.selectFrom('kitchen_tickets').selectAll().where('station_id', '=', stationId).where('status', '<>', 'Complete');
  if (settings.sort === 'priority_first') q = q.orderBy('prioritized', 'desc');
  const rows = await q.orderBy('queued_at').orderBy('id').limit(500).execute();
  return views(tdb, rows);
}

export interface KdsActionDeps {
  readonly tdb: TenantDb;
  readonly tenantDatabase: string;
  readonly redis?: Redis;
  readonly log: Logger;
  readonly now: Date;
}

/**
 * `PUT /kds/{id}/{action}`: one of the eight order actions on a ticket of the device's station
 * (another station's, location's or merchant's ticket is a 404 `Unable to locate the order you
 * requested.`). A refusal is 409 `{message, reason}`; an action already true answers the order
 * unchanged. The recall window comes from the device's KDS profile.
 */
export async function kdsOrderAction(deps: KdsActionDeps, device: KdsDevice, ticketId: string, action: KdsOrderAction): Promise<KdsOrderView> {
  const { stationId, settings } = await kdsBinding(deps.tdb, device);
  if (!stationId || !isUuid(ticketId)) throw errors.notFound('order');
  const { row, changed } = await withWriteRetry(() =>
    deps.tdb.transaction().execute(async (tx) => {
      const current = await tx.selectFrom('kitchen_tickets').selectAll().where('id', '=', ticketId).where('station_id', '=', stationId).forUpdate().executeTakeFirst();
      if (!current) throw errors.notFound('order');
      const d = kdsOrderTransition(
        { status: current.status, held: current.held, prioritized: current.prioritized, completedAt: current.completed_at?.getTime() ?? null },
        action,
        { now: deps.now.getTime(), recallWindowMs: settings.recall_window_minutes * 60_000 },
      );
      if (d.kind === 'refused') throw errors.conflict(d.message, { reason: d.reason });
      if (d.kind === 'unchanged') return { row: current, changed: false };
      const at = deps.now;
      const updated = await tx
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
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row: updated, changed: true };
    }),
  );
  const [view] = await views(deps.tdb, [row]);
  if (changed && deps.redis) {
    try {
      await deps.redis.publish(kitchenChannel(deps.tenantDatabase), JSON.stringify({ type: 'kitchen.ticket', action, location_id: device.location_id, station_id: stationId, order: view }));
    } catch (e) {
      deps.log.warn('kitchen ticket push failed', { ticket_id: row.id, err: e });
    }
  }
  return view!;
}

/**
 * `GET /kds/settings`: the device's materialised settings: its KDS profile's display settings over the
 * defaults, and the station it shows (null while unbound).
 */
export async function kdsSettings(tdb: TenantDb, device: KdsDevice) {
  const row = await tdb.selectFrom('devices').select(['device_profile_id', 'station_id']).where('id', '=', device.id).executeTakeFirstOrThrow();
  const { settings } = await kdsBinding(tdb, device);
  const station = row.station_id ? await tdb.selectFrom('kitchen_stations').select(['id', 'name', 'category_ids', 'is_fallback']).where('id', '=', row.station_id).executeTakeFirst() : undefined;
  const profile = row.device_profile_id ? await tdb.selectFrom('device_profiles').select('id').where('id', '=', row.device_profile_id).where('type', '=', 'kds').executeTakeFirst() : undefined;
  return {
    device_id: device.id,
    location_id: device.location_id,
    kds_profile_id: profile?.id ?? null,
    station: station ? { id: station.id, name: station.name, category_ids: [...station.category_ids].sort(), is_fallback: station.is_fallback } : null,
    settings,
  };
}
