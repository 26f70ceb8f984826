import { sql } from 'kysely';
import { uuidIn, type TenantDb } from '@pos/db';
import { isUuid } from '@pos/domain/ids';
import { itemRows, itemTotals, type ItemFigures, type ItemRow, type ItemTotals } from '@pos/domain/reports/item-sales';
import type { Access } from '../auth/access.ts';
import { countedTransactions } from './channel-sales.ts';
import { resolveReportScope, type ReportQuery, type ReportScope } from './report-window.ts';

/**
 * `GET /back-office/reports/products` (VIEW_SALES_REPORTS): what each item sold over the window, every
 * channel together, counted as the sales report counts (the register's settled sales and refunds by
 * business date; the other channels' `Complete` transactions outside test mode by the local date they
 * completed on). Money in integer cents, VAT included, each line's discount taken off; modifiers
 * count with their line. `items` as `itemRows` orders them; `totals` adds them up.
 */
export interface ProductsReport {
  from: string;
  to: string;
  location_ids: string[];
  totals: ItemTotals;
  items: ItemRow[];
}

// A register line is stored JSON: a line whose figures are not numbers counts as 0 (never a failed report).
const num = (key: string) => sql<string>`case when jsonb_typeof(l.value->${key}) = 'number' then (l.value->>${key})::numeric else 0 end`;

type Row = { item_id: string | null; name: string | null; quantity: string; amount: string };
const figures = (rows: Row[]): ItemFigures[] => rows.filter((r) => r.item_id).map((r) => ({ item_id: r.item_id!, name: r.name ?? '', quantity: Number(r.quantity), amount: Number(r.amount) }));

async function registerSold(tdb: TenantDb, w: ReportScope): Promise<ItemFigures[]> {
  const rows = await tdb
    .selectFrom('pos_transactions as pt')
    .innerJoin('pos_orders as o', 'o.id', 'pt.order_id')
    .innerJoin(sql<{ value: unknown }>`jsonb_array_elements(case when jsonb_typeof(o.lines) = 'array' then o.lines else '[]'::jsonb end)`.as('l'), (j) => j.onTrue())
    .where('pt.location_id', 'in', [...w.locationIds])
    .where('pt.business_date', '>=', w.from)
    .where('pt.business_date', '<=', w.to)
    .select([sql<string | null>`l.value->>'item_id'`.as('item_id'), sql<string | null>`max(l.value->>'name')`.as('name'), sql<string>`sum(${num('qty')})`.as('quantity'), sql<string>`sum(${num('line_total')})`.as('amount')])
    .groupBy(sql`l.value->>'item_id'`)
    .execute();
  return figures(rows as Row[]);
}

async function registerRefunded(tdb: TenantDb, w: ReportScope): Promise<ItemFigures[]> {
  const rows = await tdb
    .selectFrom('pos_refunds as r')
    .innerJoin('pos_refund_lines as rl', 'rl.refund_id', 'r.id')
    .innerJoin('pos_transactions as pt', 'pt.id', 'rl.transaction_id')
    .innerJoin('pos_orders as o', 'o.id', 'pt.order_id')
    .innerJoin(sql<{ value: unknown }>`jsonb_array_elements(case when jsonb_typeof(o.lines) = 'array' then o.lines else '[]'::jsonb end)`.as('l'), (j) => j.onTrue())
    .whereRef(sql`l.value->>'uuid'`, '=', 'rl.line_uuid')
    .where('r.location_id', 'in', [...w.locationIds])
    .where('r.business_date', '>=', w.from)
    .where('r.business_date', '<=', w.to)
    .select([sql<string | null>`l.value->>'item_id'`.as('item_id'), sql<string | null>`max(l.value->>'name')`.as('name'), sql<string>`sum(${num('qty')})`.as('quantity'), sql<string>`sum(rl.amount)`.as('amount')])
    .groupBy(sql`l.value->>'item_id'`)
    .execute();
  return figures(rows as Row[]);
}

async function channelSold(tdb: TenantDb, w: ReportScope): Promise<ItemFigures[]> {
  const rows = await countedTransactions(tdb, w)
    .innerJoin('transaction_lines as tl', 'tl.transaction_id', 't.id')
    .select(['tl.item_id', sql<string>`max(tl.name)`.as('name'), sql<string>`sum(tl.qty)`.as('quantity'), sql<string>`sum(tl.total)`.as('amount')])
    .groupBy('tl.item_id')
    .execute();
  return figures(rows as Row[]);
}

export async function productsReport(scope: { tdb: TenantDb; access: Access }, input: ReportQuery): Promise<ProductsReport> {
  const w = await resolveReportScope(scope.tdb, scope.access, input);
  const [sold, refunded, channel] = w.locationIds.length ? await Promise.all([registerSold(scope.tdb, w), registerRefunded(scope.tdb, w), channelSold(scope.tdb, w)]) : [[], [], []];
  const ids = [...new Set([...sold, ...refunded, ...channel].map((f) => f.item_id))].filter(isUuid);
  const names = new Map<string, string>();
  if (ids.length) {
    for (const i of await scope.tdb.selectFrom('items').select(['id', 'name']).where(uuidIn('id', ids)).execute()) names.set(i.id, i.name);
  }
  const items = itemRows([...sold, ...channel], refunded, names);
  return { from: w.from, to: w.to, location_ids: [...w.locationIds], totals: itemTotals(items), items };
}
