import { t } from 'elysia';
import { ApprovalToken, Int } from '../shared.schemas.ts';

export const ApprovalBody = t.Optional(t.Object({ approval_token: t.Optional(ApprovalToken({ description: 'from POST /pos/staff/escalate for `close_business_day`' })) }, { additionalProperties: true }));

export const BusinessDay = t.Object({
  business_date: t.String({ description: 'YYYY-MM-DD on the location\'s wall calendar' }),
  status: t.Union([t.Literal('open'), t.Literal('closed')]),
  location_id: t.String(),
  opened_at: t.Union([t.String(), t.Null()], { description: 'first booking of the day, null while it has none' }),
  closed_at: t.Union([t.String(), t.Null()]),
  sales_count: Int(),
  open_tills: Int({ description: 'tills opened before the end of the day and not closed yet (they block the Z close)' }),
  z_report_no: t.Union([Int(), t.Null()]),
});

const Major = t.Number({ description: 'decimal major units' });
const TenderRow = t.Object({ label: t.String(), amount: Major, count: Int() });
const Turnover = t.Object({
  sales_count: Int(),
  refunds_count: Int(),
  gross: Major,
  refunds: Major,
  net: Major,
  by_vat_rate: t.Array(t.Object({ rate: t.Number(), net: Major, vat: Major, gross: Major })),
  by_tender: t.Array(TenderRow),
});
const UserTurnover = t.Object({
  staff_id: t.String(),
  name: t.Union([t.String(), t.Null()]),
  sales_count: Int(),
  refunds_count: Int(),
  gross: Major,
  refunds: Major,
  net: Major,
  by_tender: t.Array(TenderRow),
});

export const XReport = t.Object({ turnover_x: Turnover, user_x: t.Array(UserTurnover) });

export const BusinessDayClose = t.Composite([
  BusinessDay,
  t.Object({
    z_report: t.Object({
      report_number: Int(),
      business_date: t.String(),
      turnover_z: Turnover,
      user_z: t.Array(UserTurnover),
      fiscal: t.Optional(t.Object({ digital_signature: t.String(), fdm_id: t.String(), journal_id: t.String(), journal_seq: Int(), fdm_ref: t.Unknown() })),
    }),
  }),
]);
