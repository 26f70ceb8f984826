import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/**
 * Tables a back-office user downloads (items, reports): CSV or XLSX, written by maintained libraries
 * (csv-stringify, exceljs' streaming workbook writer), never by hand, as rows arrive, so memory stays
 * flat for any size.
 */
export type ExportFormat = 'csv' | 'xlsx';

export interface TableFile {
  filename: string;
  contentType: string;
  body: ReadableStream<Uint8Array>;
}

export type Cell = string | number | boolean;

/**
 * A spreadsheet opening a CSV runs a cell that starts with = + - @ (or a tab/CR) as a formula: such
 * text is prefixed with `'`. (An XLSX cell says it is text, so the workbook keeps the text as it is.)
 */
export function safeCell(s: string): string {
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

async function writeCsv<C extends string>(columns: readonly C[], source: AsyncIterable<Record<C, Cell>>, out: PassThrough, bom: boolean): Promise<void> {
  // Every text cell defused here, so no caller can forget one; the header is ours.
  const csv = stringify({ header: true, columns: [...columns], bom, cast: { boolean: (b) => (b ? 'true' : 'false'), string: safeCell } });
  csv.pipe(out);
  for await (const r of source) {
    if (!csv.write(r)) await new Promise((res) => csv.once('drain', res));
  }
  csv.end();
}

async function writeXlsx<C extends string>(columns: readonly C[], source: AsyncIterable<Record<C, Cell>>, out: PassThrough, sheet: string): Promise<void> {
  // Loaded on first use: ExcelJS costs the API about 10 MB of resident memory, and exports are rare.
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const ws = wb.addWorksheet(sheet);
  ws.columns = columns.map((key) => ({ header: key, key }));
  for await (const r of source) ws.addRow(r).commit();
  ws.commit();
  await wb.commit();
}

/**
 * The file of `rows` under `columns` (the header row), named `<basename>.<format>`. A failure while
 * writing ends the stream with that error (the response is cut short, never a complete-looking file).
 * `bom`: a UTF-8 byte-order mark before a CSV, so a spreadsheet reads accents.
 */
export function exportTable<C extends string>(opts: { basename: string; sheet: string; columns: readonly C[]; rows: AsyncIterable<Record<C, Cell>>; format: ExportFormat; bom?: boolean }): TableFile {
  const out = new PassThrough();
  const work = opts.format === 'csv' ? writeCsv(opts.columns, opts.rows, out, opts.bom ?? false) : writeXlsx(opts.columns, opts.rows, out, opts.sheet);
  work.catch((e) => out.destroy(e instanceof Error ? e : new Error(String(e))));
  return {
    filename: `${opts.basename}.${opts.format}`,
    contentType: opts.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    body: Readable.toWeb(out) as unknown as ReadableStream<Uint8Array>,
  };
}
