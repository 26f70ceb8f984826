import { PassThrough, Readable, type Writable } from 'node:stream';
import { sql } from 'kysely';
import { stringify } from 'csv-stringify/sync';
import type { TenantDb } from '@pos/db';
import { logActivity } from '../activity/log-activity.ts';
import { drainedOrGone, ExportAbandoned, safeCell, workbookText, writeRow } from '../shared/table-export.ts';
import { merchantDate } from '../shared/merchant-date.ts';
import type { BackofficeActor } from './customer-admin.ts';

export const CUSTOMER_EXPORT_COLUMNS = ['id', 'name', 'email', 'phone', 'marketing_consent', 'points', 'lifetime_points', 'created_at'] as const;
/** Customers read per query: the export holds about one page, whatever the number of customers. */
export const CUSTOMER_EXPORT_PAGE = 500;

interface CustomerRecord {
  id: string;
  name: string;
  email: string;
  phone: string;
  marketing_consent: 'true' | 'false';
  points: number;
  lifetime_points: number;
  created_at: string;
}
interface Cursor {
  at: string;
  id: string;
}

/**
 * One page of customers, oldest first, after `after`. The cursor is the last row's time as PostgreSQL
 * wrote it (microseconds: a JavaScript Date keeps milliseconds, and rows of the same millisecond were
 * skipped at a page's end) and its id; the row comparison is one the (created_at, id) index answers.
 */
async function readPage(db: TenantDb, after: Cursor | null): Promise<{ records: CustomerRecord[]; next: Cursor | null }> {
  let q = db
    .selectFrom('customers as c')
    .leftJoin('loyalty_accounts as a', 'a.customer_id', 'c.id')
    .select(['c.id', 'c.name', 'c.email', 'c.phone', 'c.marketing_consent', 'c.created_at', sql<string>`c.created_at::text`.as('page_at'), sql<number>`coalesce(a.points, 0)`.as('points'), sql<number>`coalesce(a.lifetime_points, 0)`.as('lifetime_points')]);
  if (after) q = q.where(sql<boolean>`(c.created_at, c.id) > (${after.at}::timestamptz, ${after.id}::uuid)`);
  const rows = await q.orderBy('c.created_at').orderBy('c.id').limit(CUSTOMER_EXPORT_PAGE).execute();
  const last = rows.at(-1);
  return {
    records: rows.map((r) => ({
      id: r.id,
      name: r.name ?? '',
      email: r.email ?? '',
      phone: r.phone ?? '',
      marketing_consent: r.marketing_consent ? 'true' : 'false',
      points: Number(r.points),
      lifetime_points: Number(r.lifetime_points),
      created_at: r.created_at.toISOString(),
    })),
    next: last && rows.length === CUSTOMER_EXPORT_PAGE ? { at: last.page_at, id: last.id } : null,
  };
}

/** The pages of the export, the first one already read. */
async function* pages(db: TenantDb, first: Awaited<ReturnType<typeof readPage>>): AsyncGenerator<CustomerRecord[]> {
  let page = first;
  for (;;) {
    yield page.records;
    if (!page.next) return;
    page = await readPage(db, page.next);
  }
}

/** Waits until `out` (the response) has room again, or rejects with `ExportAbandoned` once it is gone. */
async function roomIn(out: Writable): Promise<void> {
  // A turn of the event loop first: the writer's zip stream passes the page's rows on to `out` then.
  await new Promise((resolve) => setImmediate(resolve));
  if (out.destroyed) throw new ExportAbandoned();
  if (!out.writableNeedDrain) return;
  await drainedOrGone(out, out);
}

/** Ends the response after a failure (cut short, never a complete-looking file), or quietly once its reader left. */
const giveUp = (out: PassThrough) => (e: unknown) => void out.destroy(e instanceof ExportAbandoned ? undefined : e instanceof Error ? e : new Error(String(e)));

function writeCsv(rows: AsyncIterable<CustomerRecord[]>, out: PassThrough): Promise<void> {
  return (async () => {
    // The header (after a byte-order mark, so a spreadsheet reads accents), then each page as one
    // chunk: a write per row made the stream's bookkeeping cost more than the rows.
    await writeRow(out, out, `\uFEFF${stringify([], { header: true, columns: [...CUSTOMER_EXPORT_COLUMNS] })}`);
    for await (const page of rows) {
      // Defused in the CSV only: a workbook cell is typed text and keeps the name as it is.
      const text = stringify(
        page.map((r) => ({ ...r, name: safeCell(r.name), email: safeCell(r.email) })),
        { columns: [...CUSTOMER_EXPORT_COLUMNS] },
      );
      if (text) await writeRow(out, out, text);
    }
    out.end();
  })().catch(giveUp(out));
}

function writeXlsx(rows: AsyncIterable<CustomerRecord[]>, out: PassThrough): Promise<void> {
  return (async () => {
    // Loaded on first use: ExcelJS costs the API about 10 MB of resident memory, and exports are rare.
    const { default: ExcelJS } = await import('exceljs');
    // The streaming writer: each row is written out when committed, nothing of the sheet is kept.
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
    const ws = wb.addWorksheet('Customers');
    ws.columns = CUSTOMER_EXPORT_COLUMNS.map((c) => ({ header: c, key: c }));
    for await (const page of rows) {
      for (const r of page) ws.addRow(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' ? workbookText(v) : v]))).commit();
      // A committed row is not held back by the writer's stream: the next page waits for the reader.
      await roomIn(out);
    }
    if (out.destroyed) throw new ExportAbandoned();
    ws.commit();
    // The writer's last write would wait for ever on a response whose reader hung up meanwhile.
    const gone = new Promise<never>((_, reject) => out.once('close', () => reject(new ExportAbandoned())));
    gone.catch(() => undefined);
    await Promise.race([wb.commit(), gone]);
  })().catch(giveUp(out));
}

/**
 * `GET /customers/export` (EXPORT_CUSTOMERS): every customer as CSV (UTF-8 with a byte-order mark) or
 * XLSX (exceljs' streaming writer), oldest first; cells a spreadsheet would run as a formula are quoted.
 * Streamed page by page (`CUSTOMER_EXPORT_PAGE`, keyset on (created_at, id)), each page written as it
 * is read and the next one read once the reader has taken it: memory stays about one page for any
 * number of customers. The first page and the audit are done before the response starts, so a failure
 * there is the API's JSON error, not a cut-off file. The export is audited in the activity log (who,
 * when, format, how many rows; no personal data in the log).
 */
export async function exportCustomers(
  db: TenantDb,
  actor: BackofficeActor,
  format: 'csv' | 'xlsx',
  now: Date,
): Promise<{ filename: string; contentType: string; body: ReadableStream<Uint8Array>; done: Promise<void> }> {
  const day = await merchantDate(db, now);
  const first = await readPage(db, null);
  const rows = first.next ? Number((await db.selectFrom('customers').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n) : first.records.length;
  await logActivity(db, { userId: actor.userId, action: 'exported', subject: 'customer', properties: { format, rows } });
  const out = new PassThrough();
  const work = format === 'csv' ? writeCsv(pages(db, first), out) : writeXlsx(pages(db, first), out);
  return {
    filename: `customers-${day}.${format}`,
    contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    body: Readable.toWeb(out) as unknown as ReadableStream<Uint8Array>,
    // Settles once the file is written or given up (never rejects): what a test waits for.
    done: work,
  };
}
