import { t } from 'elysia';
import { ApprovalToken, PathId, Int } from '../shared.schemas.ts';

export const TillParams = t.Object({ tillId: PathId({ description: 'the till id' }) });

/**
 * `POST /pos/tills` body. Exactly `mode`, `opening_float`, `drawer_id`, `approval_token` are
 * accepted; any other key (notably `drawer_descriptor`) is 422 naming the accepted keys (checked by
 * the use case, so the message can name them).
 */
export const OpenTillBody = t.Object(
  {
    mode: t.Optional(t.Unknown({ description: '`register_drawer` (a drawer of the location) or `staff_wallet` (the member\'s own wallet)' })),
    opening_float: t.Optional(t.Unknown({ description: 'integer cents, 0 or more: the float the till starts with' })),
    drawer_id: t.Optional(t.Unknown({ description: 'register_drawer: the drawer to hold (required unless exactly one drawer is free); staff_wallet: leave out' })),
    approval_token: t.Optional(t.Unknown({ description: 'from POST /pos/staff/escalate for `open_till`' })),
  },
  { additionalProperties: true },
);

export const MovementBody = t.Object(
  {
    type: t.Optional(t.Unknown({ description: '`paid_in`, `paid_out`, `drawer_open_no_sale`, `float_issue` or `float_return`' })),
    amount: t.Optional(t.Unknown({ description: 'positive integer cents (the server signs it by direction); 0 or absent for drawer_open_no_sale' })),
    reason: t.Optional(t.Unknown({ description: 'free text, kept with the movement' })),
    approval_token: t.Optional(ApprovalToken({ description: 'for `till_paid_out`, `no_sale` or `open_till`' })),
  },
  { additionalProperties: true },
);

export const CountBody = t.Object(
  {
    counted: t.Optional(t.Unknown({ description: 'required integer cents, 0 or more: the cash counted in the till' })),
    counted_close: t.Optional(t.Unknown({ description: 'DEPRECATED name of `counted`, read only when `counted` is absent (logs a deprecation warning)' })),
    approval_token: t.Optional(ApprovalToken()),
  },
  { additionalProperties: true },
);

export const ApprovalBody = t.Optional(t.Object({ approval_token: t.Optional(ApprovalToken({ description: 'from POST /pos/staff/escalate' })) }, { additionalProperties: true }));

export const TillDrawer = t.Object({
  id: t.String(),
  name: t.String(),
  kind: t.Union([t.Literal('physical'), t.Literal('virtual')]),
});

export const Till = t.Object({
  id: t.String(),
  mode: t.Union([t.Literal('register_drawer'), t.Literal('staff_wallet')]),
  state: t.Union([t.Literal('open'), t.Literal('ended'), t.Literal('closed')]),
  drawer: TillDrawer,
  opening_float: Int({ description: 'cents' }),
  opened_at: t.String(),
  staff: t.Object({ id: t.String(), name: t.Union([t.String(), t.Null()]) }),
});

const VarianceLevel = t.Union([t.Literal('none'), t.Literal('minor'), t.Literal('major'), t.Literal('critical')]);

/** Count and close answer: the till beside the flat variance block. */
export const TillCount = t.Object({
  till: Till,
  expected: Int({ description: 'cents: opening float + cash kept on sales - cash refunds + movements' }),
  counted: Int({ description: 'cents' }),
  variance: Int({ description: 'counted - expected, cents (negative = short)' }),
  variance_level: VarianceLevel,
  requires_approval: t.Boolean(),
  approval_permission: t.Union([t.Literal('close_till'), t.Null()]),
});

export const Movement = t.Object({
  id: t.String(),
  till_id: t.String(),
  type: t.String(),
  amount: Int({ description: 'cents, signed by direction: + into the drawer, - out, 0 for a no-sale' }),
  reason: t.Union([t.String(), t.Null()]),
  staff_id: t.String(),
  approved_by: t.Union([t.String(), t.Null()]),
  fiscal: t.Object(
    { digital_signature: t.Optional(t.String()) },
    { description: 'no `digital_signature` while a remote fiscal data module is unreachable: the movement is kept and signed by recovery' },
  ),
  created_at: t.String(),
});
