import type { Selectable } from 'kysely';
import type { TenantDb, TenantTables } from '@pos/db';
import { errors } from '@pos/kernel';
import { isPrinterOnline } from '@pos/domain/printing/printer-rules';
import { pendingJobCounts } from './print-jobs.ts';
import { effectiveSettings, profileSettingsOf, type EffectivePrinterSettings } from './printer-settings.ts';
import { isUuid } from '@pos/domain/ids';

export type PrinterRow = Selectable<TenantTables['printers']>;

/**
 * What the register and the back office see of a printer; `online` follows the 2 x interval + 5 s rule.
 * `paper_width_mm` and `poll_interval_seconds` are the ones it prints and polls with (its profile's when bound).
 */
export interface PrinterView {
  id: string;
  location_id: string;
  mac: string;
  ip: string | null;
  model: string | null;
  device_name: string | null;
  serial: string | null;
  paper_width_mm: number | null;
  mac_source: string;
  state: 'unconfigured' | 'configured' | 'paired' | 'retired';
  name: string | null;
  role: 'receipt' | 'kitchen';
  station_id: string | null;
  printer_profile_id: string | null;
  poll_interval_seconds: number;
  online: boolean;
  last_poll_at: string | null;
  pending_jobs: number;
  created_at: string;
}

export function toView(p: PrinterRow, pending: number, now: Date, settings: Pick<EffectivePrinterSettings, 'paper_width_mm' | 'poll_interval_seconds'> = p): PrinterView {
  return {
    id: p.id,
    location_id: p.location_id,
    mac: p.mac,
    ip: p.ip,
    model: p.model,
    device_name: p.device_name,
    serial: p.serial,
    paper_width_mm: settings.paper_width_mm,
    mac_source: p.mac_source,
    state: p.state,
    name: p.name,
    role: p.role,
    station_id: p.station_id,
    printer_profile_id: p.printer_profile_id,
    poll_interval_seconds: settings.poll_interval_seconds,
    online: isPrinterOnline(p.last_poll_at, settings.poll_interval_seconds, now),
    last_poll_at: p.last_poll_at?.toISOString() ?? null,
    pending_jobs: pending,
    created_at: p.created_at.toISOString(),
  };
}

export async function toViews(tdb: TenantDb, rows: readonly PrinterRow[], now: Date): Promise<PrinterView[]> {
  const [pending, profiles] = await Promise.all([
    pendingJobCounts(
      tdb,
      rows.map((r) => r.id),
    ),
    profileSettingsOf(tdb, rows),
  ]);
  return rows.map((r) => toView(r, pending.get(r.id) ?? 0, now, effectiveSettings(r, profiles)));
}

/** A live (not retired) printer of the bound merchant, optionally only at one location; else 404. */
export async function findPrinter(tdb: TenantDb, id: string, locationId?: string): Promise<PrinterRow> {
  let q = tdb.selectFrom('printers').selectAll().where('id', '=', isUuid(id) ? id : '00000000-0000-0000-0000-000000000000').where('state', '<>', 'retired');
  if (locationId) q = q.where('location_id', '=', locationId);
  const p = await q.executeTakeFirst();
  if (!p) throw errors.notFound('printer');
  return p;
}

export async function listPrinters(tdb: TenantDb, filter: { locationIds: readonly string[] | 'all'; state?: 'unconfigured' | 'paired' | 'configured' }, now: Date): Promise<PrinterView[]> {
  if (filter.locationIds !== 'all' && filter.locationIds.length === 0) return [];
  let q = tdb.selectFrom('printers').selectAll().where('state', '<>', 'retired');
  if (filter.locationIds !== 'all') q = q.where('location_id', 'in', filter.locationIds);
  if (filter.state) q = q.where('state', '=', filter.state);
  const rows = await q.orderBy('created_at').orderBy('id').limit(500).execute();
  return toViews(tdb, rows, now);
}
