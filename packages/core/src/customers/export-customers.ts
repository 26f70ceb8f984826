import { sql } from 'kysely';
import { stringify } from 'csv-stringify/sync';
import type { TenantDb } from '@pos/db';
import { logActivity } from '../activity/log-activity.ts';
import { safeCell, workbookText } from '../shared/table-export.ts';
import type { BackofficeActor } from './customer-admin.ts';

export const CUSTOMER_EXPORT_COLUMNS = ['id', 'name', 'email', 'phone', 'marketing_consent', 'points', 'lifetime_points', 'created_at'] as const;

/**
 * `GET /customers/export` (EXPORT_CUSTOMERS): every customer as CSV (UTF-8 with a byte-order mark) or
 * XLSX (exceljs), oldest first; cells a spreadsheet would run as a formula are quoted. The export is
 * audited in the activity log (who, when, format, how many rows; no personal data in the log).
 */
export async function exportCustomers(db: TenantDb, actor: BackofficeActor, format: 'csv' | 'xlsx', now: Date): Promise<{ filename: string; contentType: string; body: Uint8Array }> {
  const rows = await db
    .selectFrom('customers as c')
    .leftJoin('loyalty_accounts as a', 'a.customer_id', 'c.id')
    .select(['c.id', 'c.name', 'c.email', 'c.phone', 'c.marketing_consent', 'c.created_at', sql<number>`coalesce(a.points, 0)`.as('points'), sql<number>`coalesce(a.lifetime_points, 0)`.as('lifetime_points')])
    .orderBy('c.created_at')
    .orderBy('c.id')
    .execute();
  const records = rows.map((r) => ({
    id: r.id,
    name: r.name ?? '',
    email: r.email ?? '',
    phone: r.phone ?? '',
    marketing_consent: r.marketing_consent ? 'true' : 'false',
    points: Number(r.points),
    lifetime_points: Number(r.lifetime_points),
    created_at: r.created_at.toISOString(),
  }));
  await logActivity(db, { userId: actor.userId, action: 'exported', subject: 'customer', properties: { format, rows: records.length } });
  const day = now.toISOString().slice(0, 10);
  if (format === 'csv') {
    // Defused in the CSV only: a workbook cell is typed text and keeps the name as it is.
    const text = stringify(records.map((r) => ({ ...r, name: safeCell(r.name), email: safeCell(r.email) })), { header: true, columns: [...CUSTOMER_EXPORT_COLUMNS], bom: true });
    return { filename: `customers-${day}.csv`, contentType: 'text/csv; charset=utf-8', body: new TextEncoder().encode(text) };
  }
  // Loaded on first use: ExcelJS costs the API about 10 MB of resident memory, and exports are rare.
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Customers');
  ws.columns = CUSTOMER_EXPORT_COLUMNS.map((c) => ({ header: c, key: c }));
  for (const r of records) ws.addRow(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' ? workbookText(v) : v])));
  const buf = await wb.xlsx.writeBuffer();
  return { filename: `customers-${day}.xlsx`, contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', body: new Uint8Array(buf as ArrayBuffer) };
}
