import { t } from 'elysia';
import { Int } from '../shared.schemas.ts';

export const RefundBody = t.Object({
  transaction_id: t.String({ maxLength: 64, description: 'the sale transaction (`transaction_id` of the settled order)', error: 'The transaction_id field is required.' }),
  mode: t.Union([t.Literal('full'), t.Literal('partial')], { error: 'The mode field must be full or partial.', description: '`full`: every line not yet refunded; `partial`: the lines named in `line_uuids`' }),
  line_uuids: t.Optional(
    t.Union([t.Array(t.String({ maxLength: 64 }), { maxItems: 500 }), t.Null()], { error: 'The line_uuids field must be an array of line uuids.', description: 'partial only: the uuids of the sale lines to refund' }),
  ),
  approval_token: t.Optional(t.String({ maxLength: 200, description: 'from POST /pos/staff/escalate for `refund`' })),
});

const VatGroup = t.Object({ rate: t.Number(), net: Int(), vat: Int(), gross: Int() });

export const Refund = t.Object({
  refund: t.Object({
    id: t.String(),
    transaction_id: t.String(),
    order_id: t.String(),
    mode: t.Union([t.Literal('full'), t.Literal('partial')]),
    amount: Int({ description: 'cents handed back in cash: the lines less `rounding`' }),
    rounding: Int({ description: "the refunded lines' totals - the cash handed back: the sale's cash rounding, settled by the refund that completes the sale" }),
    lines: t.Array(t.Object({ uuid: t.String(), item_id: t.String(), name: t.String(), qty: Int(), amount: Int({ description: 'cents' }) })),
    by_vat_rate: t.Array(VatGroup),
    till_id: t.String({ description: 'the open till the cash left' }),
    business_date: t.String({ description: 'the business day the refund is booked on' }),
    fiscal: t.Object({ short_signature: t.Optional(t.String()), digital_signature: t.String(), verification_url: t.Optional(t.String()) }),
    created_at: t.String(),
  }),
});
