import { t } from 'elysia';
import { TENDER_ROWS } from '@pos/domain/reports/sales-by-tender';
import { SALES_CHANNELS } from '@pos/domain/reports/sales-channels';
import { REPORT_KINDS } from '@pos/core/reports/export-report';
import { MOVEMENT_TYPES } from '@pos/core/catalog/inventories';
import { DateString, Int } from '../shared.schemas.ts';

/** Schemas of the back-office report routes (`/back-office/reports`). */

const reportQuery = {
  from: DateString('from'),
  to: DateString('to'),
  location_id: t.Optional(t.String({ format: 'uuid', error: 'The location id field must be a valid UUID.' })),
};

/** Every report takes the same window: `from`, `to` (inclusive, at most 366 days) and an optional `location_id`. */
export const ReportQuery = t.Object(reportQuery);
export const SalesReportQuery = ReportQuery;

export const ReportExportQuery = t.Object({
  // Literals, not t.UnionEnum: Elysia gives a missing UnionEnum query key its first value.
  report: t.Union(REPORT_KINDS.map((k) => t.Literal(k)), { error: `The report field must be one of: ${REPORT_KINDS.join(', ')}.` }),
  ...reportQuery,
  format: t.Optional(t.Union([t.Literal('csv'), t.Literal('xlsx')], { error: 'The format field must be csv or xlsx.' })),
});

const salesFigures = { sales_count: Int(), refunds_count: Int(), gross: Int(), refunds: Int(), net: Int(), tips: Int(), fees: Int() };

/** Money in integer cents; see `SalesReport` in @pos/core/reports/sales-report for every field's meaning. */
export const SalesReportResponse = t.Object({
  data: t.Object({
    from: t.String(),
    to: t.String(),
    location_ids: t.Array(t.String()),
    totals: t.Object(salesFigures),
    by_channel: t.Array(t.Object({ channel: t.UnionEnum(SALES_CHANNELS), ...salesFigures })),
    by_tender: t.Array(t.Object({ label: t.UnionEnum(TENDER_ROWS), amount: Int(), count: Int() })),
    by_vat_rate: t.Array(t.Object({ rate: t.Number(), net: Int(), vat: Int(), gross: Int() })),
  }),
});

export const PosCoverageResponse = t.Object({
  pos_coverage: t.Record(t.String(), t.Object({ pos_provider: t.Nullable(t.String()), pos_connected: t.Boolean() })),
});

const itemFigures = { quantity: Int(), gross: Int(), refunded_quantity: Int(), refunds: Int(), net: Int() };

/** See `ProductsReport` in @pos/core/reports/products-report. */
export const ProductsReportResponse = t.Object({
  data: t.Object({
    from: t.String(),
    to: t.String(),
    location_ids: t.Array(t.String()),
    totals: t.Object(itemFigures),
    items: t.Array(t.Object({ item_id: t.String(), name: t.String(), ...itemFigures })),
  }),
});

/** See `InventoryReport` in @pos/core/reports/inventory-report. */
export const InventoryReportResponse = t.Object({
  data: t.Object({
    from: t.String(),
    to: t.String(),
    location_ids: t.Array(t.String()),
    stocks: t.Array(
      t.Object({
        item_id: t.String(),
        item_name: t.String(),
        location_id: t.String(),
        location_name: t.String(),
        opening: Int(),
        movements: t.Object(Object.fromEntries(MOVEMENT_TYPES.map((m) => [m, Int()])) as Record<(typeof MOVEMENT_TYPES)[number], ReturnType<typeof t.Integer>>),
        closing: Int(),
        current: Int(),
      }),
    ),
  }),
});

export const ReportFile = t.Unknown({ description: 'the file: text/csv (UTF-8 with a byte-order mark), or application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
