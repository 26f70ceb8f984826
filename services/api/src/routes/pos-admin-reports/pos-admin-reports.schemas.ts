import { t } from 'elysia';
import { TENDER_ROWS } from '@pos/domain/reports/sales-by-tender';
import { DateString, Paging, PathId, Int } from '../shared.schemas.ts';
import { Iso, vendorId } from '../pos-admin/pos-admin.schemas.ts';

/** Schemas of business days, Z reports, the fiscal journal export and fiscal status per location. */
export const BusinessDayParams = t.Object({ locationId: PathId(), businessDayId: PathId() });

export const PagingQuery = t.Object({
  ...vendorId,
  ...Paging,
});

const BusinessDayFields = {
  id: t.String(),
  business_date: t.String(),
  status: t.String(),
  z_report_no: t.Nullable(Int()),
  opened_at: Iso,
  closed_at: t.Nullable(Iso),
};
export const BusinessDayList = t.Object({ data: t.Array(t.Object(BusinessDayFields)), total: Int(), page: Int(), per_page: Int() });

const TenderRow = t.Object({ label: t.UnionEnum(TENDER_ROWS), amount: Int(), count: Int() });
export const BusinessDayResponse = t.Object({
  data: t.Object({
    ...BusinessDayFields,
    location_id: t.String(),
    /** The Z report JSON verbatim as stored at close (decimal major units); null while open. */
    z_report: t.Unknown(),
    /** The day's sales per tender row, integer cents, gross of refunds. */
    sales_by_tender: t.Array(TenderRow),
    refunds: t.Object({ count: Int(), amount: Int() }),
  }),
});

export const FiscalEventsQuery = t.Object({ ...vendorId, from: t.Optional(DateString('from')), to: t.Optional(DateString('to')) });

const FiscalEvent = t.Object({
  id: t.String(),
  fdm_id: t.String(),
  seq: Int(),
  event_kind: t.String(),
  /** The canonical event text the entry's hash covers. */
  payload: t.String(),
  status: t.String(),
  sign_result: t.Unknown(),
  sign_error: t.Unknown(),
  prev_hash: t.String(),
  hash: t.String(),
  result_hash: t.Nullable(t.String()),
  subject_type: t.Nullable(t.String()),
  subject_id: t.Nullable(t.String()),
  created_at: Iso,
  completed_at: t.Nullable(Iso),
});
const Verification = t.Union([
  t.Object({ ok: t.Literal(true), count: Int(), pending: Int(), failed: Int(), last_seq: Int() }),
  t.Object({ ok: t.Literal(false), seq: Int(), problem: t.String(), detail: t.String() }),
]);
export const FiscalEventsResponse = t.Object({
  data: t.Array(
    t.Object({
      fdm_id: t.String(),
      mode: t.Nullable(t.String()),
      status: t.Nullable(t.String()),
      entries: t.Array(FiscalEvent),
      verification: Verification,
    }),
  ),
});

export const FiscalLocationsResponse = t.Object({
  fiscal_locations: t.Record(
    t.String(),
    t.Object({ regime: t.Nullable(t.Literal('gks')), mandated: t.Boolean(), signing: t.Boolean(), has_fiscal_history: t.Boolean() }),
  ),
});
