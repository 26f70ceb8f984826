import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { SALES_CHANNELS, type SalesChannel } from '@pos/domain/reports/sales-channels';
import type { Access } from '../auth/access.ts';
import { MOVEMENT_TYPES } from '../catalog/inventories.ts';
import { DecimalCents, exportTable, type Cell, type ExportFormat, type TableFile } from '../shared/table-export.ts';
import { countedTransactions, reportChannel } from './channel-sales.ts';
import { inventoryReport } from './inventory-report.ts';
import { productsReport } from './products-report.ts';
import { resolveReportScope, type ReportQuery, type ReportScope } from './report-window.ts';

/**
 * `GET /back-office/reports/export`: one report as a table to download. The permission is the
 * exported report's own (the "reporting-export-permission middleware" of spec 1): a caller exports
 * exactly what they may view.
 */
export const REPORT_KINDS = ['sales', 'products', 'inventory'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const REPORT_EXPORTS: Record<ReportKind, { permission: string; sheet: string }> = {
  sales: { permission: 'VIEW_SALES_REPORTS', sheet: 'Sales' },
  products: { permission: 'VIEW_SALES_REPORTS', sheet: 'Items' },
  inventory: { permission: 'VIEW_INVENTORY', sheet: 'Inventory' },
};

export const SALES_EXPORT_COLUMNS = ['date', 'location_id', 'location_name', 'channel', 'sales_count', 'refunds_count', 'gross', 'refunds', 'net', 'tips', 'fees', 'net_eur'] as const;
export const PRODUCTS_EXPORT_COLUMNS = ['item_id', 'name', 'quantity', 'gross', 'refunded_quantity', 'refunds', 'net', 'net_eur'] as const;
export const INVENTORY_EXPORT_COLUMNS = ['item_id', 'item_name', 'location_id', 'location_name', 'opening', ...MOVEMENT_TYPES, 'closing', 'current'] as const;

type Figures = { sales_count: number; refunds_count: number; gross: number; refunds: number; tips: number; fees: number };

/**
 * The sales report's figures per day, location and channel (only the days and channels that sold or
 * refunded something), ordered by date, location name, then channel in `SALES_CHANNELS` order: the
 * rows add up to the sales report's `totals` over the same query.
 */
async function salesRows(tdb: TenantDb, w: ReportScope): Promise<Record<(typeof SALES_EXPORT_COLUMNS)[number], Cell>[]> {
  if (w.locationIds.length === 0) return [];
  const ids = [...w.locationIds];
  const [sales, refunds, channels] = await Promise.all([
    tdb
      .selectFrom('pos_transactions')
      .where('location_id', 'in', ids)
      .where('business_date', '>=', w.from)
      .where('business_date', '<=', w.to)
      .select((eb) => [sql<string>`business_date::text`.as('date'), 'location_id', eb.fn.countAll<string>().as('n'), sql<string>`sum(total)`.as('amount')])
      .groupBy(['business_date', 'location_id'])
      .execute(),
    tdb
      .selectFrom('pos_refunds')
      .where('location_id', 'in', ids)
      .where('business_date', '>=', w.from)
      .where('business_date', '<=', w.to)
      .select((eb) => [sql<string>`business_date::text`.as('date'), 'location_id', eb.fn.countAll<string>().as('n'), sql<string>`sum(amount)`.as('amount')])
      .groupBy(['business_date', 'location_id'])
      .execute(),
    countedTransactions(tdb, w)
      .select((eb) => [
        sql<string>`(t.completed_at at time zone loc.timezone)::date::text`.as('date'),
        't.location_id',
        reportChannel.as('channel'),
        eb.fn.countAll<string>().as('n'),
        sql<string>`sum(t.total - t.tip_amount - t.fees)`.as('amount'),
        sql<string>`sum(t.tip_amount)`.as('tips'),
        sql<string>`sum(t.fees)`.as('fees'),
      ])
      .groupBy([sql`(t.completed_at at time zone loc.timezone)::date`, 't.location_id', reportChannel])
      .execute(),
  ]);
  const acc = new Map<string, { date: string; location_id: string; channel: SalesChannel; f: Figures }>();
  const at = (date: string, location_id: string, channel: SalesChannel) => {
    const k = `${date}|${location_id}|${channel}`;
    let r = acc.get(k);
    if (!r) acc.set(k, (r = { date, location_id, channel, f: { sales_count: 0, refunds_count: 0, gross: 0, refunds: 0, tips: 0, fees: 0 } }));
    return r.f;
  };
  for (const s of sales) {
    const f = at(s.date, s.location_id, 'register');
    f.sales_count += Number(s.n);
    f.gross += Number(s.amount);
  }
  for (const r of refunds) {
    const f = at(r.date, r.location_id, 'register');
    f.refunds_count += Number(r.n);
    f.refunds += Number(r.amount);
  }
  for (const c of channels) {
    const f = at(c.date, c.location_id, c.channel);
    f.sales_count += Number(c.n);
    f.gross += Number(c.amount);
    f.tips += Number(c.tips);
    f.fees += Number(c.fees);
  }
  const names = new Map(w.locations.map((l) => [l.id, l.name]));
  const order = (c: SalesChannel) => SALES_CHANNELS.indexOf(c);
  return [...acc.values()]
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) || (names.get(a.location_id) ?? '').localeCompare(names.get(b.location_id) ?? '') || (a.location_id < b.location_id ? -1 : a.location_id > b.location_id ? 1 : 0) || order(a.channel) - order(b.channel))
    .map((r) => ({
      date: r.date,
      location_id: r.location_id,
      location_name: names.get(r.location_id) ?? '',
      channel: r.channel,
      sales_count: r.f.sales_count,
      refunds_count: r.f.refunds_count,
      gross: r.f.gross,
      refunds: r.f.refunds,
      net: r.f.gross - r.f.refunds,
      tips: r.f.tips,
      fees: r.f.fees,
      net_eur: new DecimalCents(r.f.gross - r.f.refunds),
    }));
}

async function* each<T>(rows: readonly T[]): AsyncGenerator<T> {
  yield* rows;
}

/**
 * The file of one report. Everything that can refuse (the dates, the location, the grant) is checked
 * before the file starts, so a refusal is a 4xx, never a 200 cut short.
 */
export async function exportReport(scope: { tdb: TenantDb; access: Access }, input: ReportQuery & { report: ReportKind; format?: ExportFormat }): Promise<TableFile> {
  const query: ReportQuery = { from: input.from, to: input.to, ...(input.location_id !== undefined ? { location_id: input.location_id } : {}) };
  const format = input.format ?? 'csv';
  const base = { basename: `${input.report}-report-${input.from}-${input.to}`, sheet: REPORT_EXPORTS[input.report].sheet, format, bom: true };
  switch (input.report) {
    case 'sales': {
      const w = await resolveReportScope(scope.tdb, scope.access, query);
      return exportTable({ ...base, columns: SALES_EXPORT_COLUMNS, rows: each(await salesRows(scope.tdb, w)) });
    }
    case 'products': {
      const r = await productsReport(scope, query);
      const rows = r.items.map((i) => ({ item_id: i.item_id, name: i.name, quantity: i.quantity, gross: i.gross, refunded_quantity: i.refunded_quantity, refunds: i.refunds, net: i.net, net_eur: new DecimalCents(i.net) }));
      return exportTable({ ...base, columns: PRODUCTS_EXPORT_COLUMNS, rows: each(rows) });
    }
    case 'inventory': {
      const r = await inventoryReport(scope, query);
      const rows = r.stocks.map((s) => ({ item_id: s.item_id, item_name: s.item_name, location_id: s.location_id, location_name: s.location_name, opening: s.opening, ...s.movements, closing: s.closing, current: s.current }));
      return exportTable({ ...base, columns: INVENTORY_EXPORT_COLUMNS, rows: each(rows) });
    }
  }
}
