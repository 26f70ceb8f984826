import { PassThrough, Readable, type Writable } from 'node:stream';
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

/**
 * An amount in cents written in the currency's units with two decimals (`-2.20`): a number the
 * spreadsheet adds up, never text. As a string it would start with `-` when negative and be defused
 * into text (`'-2.20`), and a SUM over the column would skip it.
 */
export class DecimalCents {
  constructor(readonly cents: number) {}
  toString(): string {
    const sign = this.cents < 0 ? '-' : '';
    const abs = Math.abs(Math.round(this.cents));
    return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
  }
}

export type Cell = string | number | boolean | DecimalCents;

/**
 * A spreadsheet opening a CSV runs a cell that starts with = + - @ (or a tab/CR) as a formula: such
 * text is prefixed with `'`. (An XLSX cell says it is text, so the workbook keeps the text as it is.)
 */
export function safeCell(s: string): string {
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

/** The download's reader went away (the client hung up): the export stops reading rows. */
export class ExportAbandoned extends Error {
  constructor() {
    super('The export was abandoned by its reader.');
    this.name = 'ExportAbandoned';
  }
}

/**
 * Writes a row to `from` (piped into `out`, the response); when `from` is full, waits until it drains,
 * or rejects with `ExportAbandoned` once `out` is gone. Waiting for `drain` alone hung for ever when
 * the client hung up: `out` is destroyed, `from` is unpiped and never drains, and the export kept its
 * buffers and its place in the loop.
 */
export async function writeRow(from: Writable, out: Writable, row: unknown): Promise<void> {
  if (out.destroyed) throw new ExportAbandoned();
  if (from.write(row)) return;
  await drainedOrGone(from, out);
}

/** Resolves once `from` drains; rejects with `ExportAbandoned` once `out` (the response) is gone. */
export function drainedOrGone(from: Writable, out: Writable): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const settle = (gone: boolean) => () => {
      from.off('drain', drained);
      out.off('close', closed);
      if (gone) reject(new ExportAbandoned());
      else resolve();
    };
    const drained = settle(false);
    const closed = settle(true);
    from.once('drain', drained);
    out.once('close', closed);
    if (out.destroyed) closed();
  });
}

/** Ends a file's stream after a failure (or the reader's leaving): nothing more is kept for it. */
export function abandon(from: Writable, out: Writable, e: unknown): void {
  from.destroy();
  out.destroy(e instanceof ExportAbandoned ? undefined : e instanceof Error ? e : new Error(String(e)));
}

async function writeCsv<C extends string>(columns: readonly C[], source: AsyncIterable<Record<C, Cell>>, out: PassThrough, csv: Writable): Promise<void> {
  for await (const r of source) await writeRow(csv, out, r);
  csv.end();
}

/** The CSV writer of a table: every text cell defused here, so no caller can forget one; the header is ours. */
function csvWriter<C extends string>(columns: readonly C[], bom: boolean) {
  return stringify({ header: true, columns: [...columns], bom, cast: { boolean: (b) => (b ? 'true' : 'false'), string: safeCell, object: (o) => (o instanceof DecimalCents ? o.toString() : JSON.stringify(o)) } });
}

async function writeXlsx<C extends string>(columns: readonly C[], source: AsyncIterable<Record<C, Cell>>, out: PassThrough, sheet: string): Promise<void> {
  // Loaded on first use: ExcelJS costs the API about 10 MB of resident memory, and exports are rare.
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const ws = wb.addWorksheet(sheet);
  ws.columns = columns.map((key) => ({ header: key, key }));
  for await (const r of source) {
    if (out.destroyed) throw new ExportAbandoned();
    ws.addRow(numericMoney(r)).commit();
  }
  ws.commit();
  await wb.commit();
}

/**
 * The row as workbook cells: `DecimalCents` as numbers (a numeric cell, e.g. -2.2, which the sheet's
 * format shows), text as `workbookText`.
 */
function numericMoney<C extends string>(r: Record<C, Cell>): Record<C, string | number | boolean> {
  const out = {} as Record<C, string | number | boolean>;
  for (const k in r) {
    const v: Cell = r[k];
    out[k] = v instanceof DecimalCents ? v.cents / 100 : typeof v === 'string' ? workbookText(v) : v;
  }
  return out;
}

/**
 * Text a workbook's XML can hold: characters XML 1.0 excludes (controls other than tab and line breaks,
 * U+FFFE, U+FFFF) are dropped, an unpaired surrogate is U+FFFD. One such character in a customer's or an item's
 * name made the whole file unreadable (exceljs drops the controls, not the rest).
 */
export function workbookText(s: string): string {
  // An unpaired surrogate becomes U+FFFD (toWellFormed), which XML holds.
  // eslint-disable-next-line no-control-regex
  return s.toWellFormed().replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
}

/**
 * The file of `rows` under `columns` (the header row), named `<basename>.<format>`. A failure while
 * writing ends the stream with that error (the response is cut short, never a complete-looking file).
 * `bom`: a UTF-8 byte-order mark before a CSV, so a spreadsheet reads accents.
 */
export function exportTable<C extends string>(opts: { basename: string; sheet: string; columns: readonly C[]; rows: AsyncIterable<Record<C, Cell>>; format: ExportFormat; bom?: boolean }): TableFile & { done: Promise<void> } {
  const out = new PassThrough();
  let work: Promise<void>;
  if (opts.format === 'csv') {
    const csv = csvWriter(opts.columns, opts.bom ?? false);
    csv.pipe(out);
    work = writeCsv(opts.columns, opts.rows, out, csv).catch((e) => abandon(csv, out, e));
  } else {
    work = writeXlsx(opts.columns, opts.rows, out, opts.sheet).catch((e) => void out.destroy(e instanceof ExportAbandoned ? undefined : e instanceof Error ? e : new Error(String(e))));
  }
  return {
    filename: `${opts.basename}.${opts.format}`,
    contentType: opts.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    body: Readable.toWeb(out) as unknown as ReadableStream<Uint8Array>,
    // Settles once the file is written or given up (never rejects): what a test waits for.
    done: work,
  };
}
