import { t } from 'elysia';
import { TENDER_ROWS } from '@pos/domain/reports/sales-by-tender';
import { DateString } from '../shared.schemas.ts';

/** Schemas of the back-office report routes (`/back-office/reports`). */

export const SalesReportQuery = t.Object({
  from: DateString('from'),
  to: DateString('to'),
  location_id: t.Optional(t.String({ format: 'uuid', error: 'The location id field must be a valid UUID.' })),
});

/** Money in integer cents; see `SalesReport` in @pos/core/reports/sales-report for every field's meaning. */
export const SalesReportResponse = t.Object({
  data: t.Object({
    from: t.String(),
    to: t.String(),
    location_ids: t.Array(t.String()),
    totals: t.Object({ sales_count: t.Integer(), refunds_count: t.Integer(), gross: t.Integer(), refunds: t.Integer(), net: t.Integer() }),
    by_tender: t.Array(t.Object({ label: t.UnionEnum(TENDER_ROWS), amount: t.Integer(), count: t.Integer() })),
    by_vat_rate: t.Array(t.Object({ rate: t.Number(), net: t.Integer(), vat: t.Integer(), gross: t.Integer() })),
  }),
});

export const PosCoverageResponse = t.Object({
  pos_coverage: t.Record(t.String(), t.Object({ pos_provider: t.Nullable(t.String()), pos_connected: t.Boolean() })),
});
