import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { TenantDb } from '@pos/db';
import { isUuid } from '@pos/domain/ids';

/**
 * `GET /items/export`: the merchant's items as CSV or XLSX, streamed (rows are read from the database
 * in pages of `PAGE` by id and written as they come, so memory stays flat for any catalog size).
 * Written by maintained libraries (csv-stringify, exceljs' streaming workbook writer), never by hand.
 */
export type ExportFormat = 'csv' | 'xlsx';

export const EXPORT_COLUMNS = ['id', 'name', 'sku', 'category', 'unit_price_cents', 'price', 'vat_rate', 'allergens', 'dietary', 'channels', 'visible', 'created_at'] as const;

const PAGE = 500;

export interface ItemExport {
  filename: string;
  contentType: string;
  body: ReadableStream<Uint8Array>;
}

type Row = Record<(typeof EXPORT_COLUMNS)[number], string | number | boolean>;

/** A spreadsheet would run a cell that starts with = + - @ (or a tab/CR) as a formula: such text is prefixed with `'`. */
export function safeCell(s: string): string {
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

async function* rows(tdb: TenantDb, q: { search?: string; category_id?: string }): AsyncGenerator<Row> {
  let after: string | null = null;
  for (;;) {
    let qb = tdb
      .selectFrom('items')
      .leftJoin('categories', 'categories.id', 'items.category_id')
      .select(['items.id', 'items.name', 'items.sku', 'categories.name as category', 'items.unit_price', 'items.vat_rate', 'items.allergens', 'items.dietary', 'items.channels', 'items.visible', 'items.created_at']);
    if (q.category_id !== undefined) qb = isUuid(q.category_id) ? qb.where('items.category_id', '=', q.category_id) : qb.where((eb) => eb.val(false));
    if (q.search?.trim()) qb = qb.where('items.name', 'ilike', `%${q.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    if (after) qb = qb.where('items.id', '>', after);
    const page = await qb.orderBy('items.id').limit(PAGE).execute();
    for (const r of page) {
      yield {
        id: r.id,
        name: safeCell(r.name),
        sku: safeCell(r.sku ?? ''),
        category: safeCell(r.category ?? ''),
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

async function writeCsv(source: AsyncGenerator<Row>, out: PassThrough): Promise<void> {
  const csv = stringify({ header: true, columns: [...EXPORT_COLUMNS], cast: { boolean: (b) => (b ? 'true' : 'false') } });
  csv.pipe(out);
  for await (const r of source) {
    if (!csv.write(r)) await new Promise((res) => csv.once('drain', res));
  }
  csv.end();
}

async function writeXlsx(source: AsyncGenerator<Row>, out: PassThrough): Promise<void> {
  // Loaded on first use: ExcelJS costs the API about 10 MB of resident memory, and exports are rare.
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const ws = wb.addWorksheet('Items');
  ws.columns = EXPORT_COLUMNS.map((key) => ({ header: key, key }));
  for await (const r of source) ws.addRow(r).commit();
  ws.commit();
  await wb.commit();
}

export function exportItems(tdb: TenantDb, q: { format?: ExportFormat; search?: string; category_id?: string }, now: Date): ItemExport {
  const format = q.format ?? 'csv';
  const out = new PassThrough();
  const stamp = now.toISOString().slice(0, 10);
  const work = format === 'csv' ? writeCsv(rows(tdb, q), out) : writeXlsx(rows(tdb, q), out);
  work.catch((e) => out.destroy(e instanceof Error ? e : new Error(String(e))));
  return {
    filename: `items-${stamp}.${format}`,
    contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    body: Readable.toWeb(out) as unknown as ReadableStream<Uint8Array>,
  };
}
