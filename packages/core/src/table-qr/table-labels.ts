import type { TenantDb, TenantTx } from '@pos/db';

/**
 * What staff call the table of a table QR order: its section's name and table number ("Terrace 7").
 * Read for the orders bound to a table session; the others are absent from the answer. The kitchen
 * ticket and the receipt carry it, so the food reaches the table the guests ordered from.
 */
export async function tableLabels(db: TenantDb | TenantTx, transactionIds: readonly string[]): Promise<Map<string, string>> {
  if (transactionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('transactions as t')
    .innerJoin('table_sessions as s', 's.id', 't.table_session_id')
    .innerJoin('table_sections as sec', 'sec.id', 's.table_section_id')
    .select(['t.id', 'sec.name', 's.table_number'])
    .where('t.id', 'in', [...new Set(transactionIds)])
    .execute();
  return new Map(rows.map((r) => [r.id, tableLabel(r.name, r.table_number)]));
}

/** "Terrace 7"; a section already named by its number reads the same ("7" stays "Table 7"). */
export function tableLabel(section: string, table: number): string {
  const name = section.trim();
  return name ? `${name} ${table}` : `Table ${table}`;
}
