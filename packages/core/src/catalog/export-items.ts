import type { TenantDb } from '@pos/db';
import { isUuid } from '@pos/domain/ids';
import { exportTable, type Cell, type ExportFormat, type TableFile } from '../shared/table-export.ts';
import { merchantDate } from '../shared/merchant-date.ts';

export const EXPORT_COLUMNS = ['id', 'name', 'sku', 'category', 'unit_price_cents', 'price', 'vat_rate', 'allergens', 'dietary', 'channels', 'visible', 'created_at'] as const;

const PAGE = 500;

export type ItemExport = TableFile;

type Row = Record<(typeof EXPORT_COLUMNS)[number], Cell>;

/** The datatable's filters (`GET /items/datatable`), so an export holds the rows the table showed. */
export interface ItemExportQuery {
  format?: ExportFormat;
  search?: string;
  category_id?: string;
  visible?: boolean;
  channel?: string;
}

async function* rows(tdb: TenantDb, q: ItemExportQuery): AsyncGenerator<Row> {
  let after: string | null = null;
  for (;;) {
    let qb = tdb
      .selectFrom('items')
      .leftJoin('categories', 'categories.id', 'items.category_id')
      .select(['items.id', 'items.name', 'items.sku', 'categories.name as category', 'items.unit_price', 'items.vat_rate', 'items.allergens', 'items.dietary', 'items.channels', 'items.visible', 'items.created_at']);
    if (q.category_id !== undefined) qb = isUuid(q.category_id) ? qb.where('items.category_id', '=', q.category_id) : qb.where((eb) => eb.val(false));
    if (q.visible !== undefined) qb = qb.where('items.visible', '=', q.visible);
    if (q.channel !== undefined) qb = qb.where((eb) => eb(eb.val(q.channel), '=', eb.fn.any('items.channels')));
    // Name or sku, as the datatable searches.
    if (q.search?.trim()) {
      const like = `%${q.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      qb = qb.where((eb) => eb.or([eb('items.name', 'ilike', like), eb('items.sku', 'ilike', like)]));
    }
    if (after) qb = qb.where('items.id', '>', after);
    const page = await qb.orderBy('items.id').limit(PAGE).execute();
    for (const r of page) {
      yield {
        id: r.id,
        name: r.name,
        sku: r.sku ?? '',
        category: r.category ?? '',
        unit_price_cents: r.unit_price,
        price: (r.unit_price / 100).toFixed(2),
        vat_rate: r.vat_rate,
        allergens: r.allergens.join('|'),
        dietary: r.dietary.join('|'),
        channels: r.channels.join('|'),
        visible: r.visible,
        created_at: r.created_at.toISOString(),
      };
    }
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.id;
  }
}

/**
 * `GET /items/export`: the merchant's items as CSV or XLSX, streamed (rows are read from the database
 * in pages of `PAGE` by id and written as they come, so memory stays flat for any catalog size).
 */
export async function exportItems(tdb: TenantDb, q: ItemExportQuery, now: Date): Promise<ItemExport> {
  // A byte-order mark, as every other CSV export: a spreadsheet reads "Café" as UTF-8.
  return exportTable({ basename: `items-${await merchantDate(tdb, now)}`, sheet: 'Items', columns: EXPORT_COLUMNS, rows: rows(tdb, q), format: q.format ?? 'csv', bom: true });
}
