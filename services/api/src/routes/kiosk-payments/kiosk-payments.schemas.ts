import { t } from 'elysia';
import { Int } from '../shared.schemas.ts';
import { Strict, Uuid } from '../catalog/catalog.schemas.ts';
import { QuoteBody } from '../kiosk-pricing/kiosk-pricing.schemas.ts';
import { MAX_TIP_CENTS } from '@pos/domain/money';

const KEY_PATTERN = '^idemp_[A-Za-z0-9-]{1,64}_[0-9]{13}$';
const Key = (field: string) => t.String({ minLength: 1, maxLength: 84, pattern: KEY_PATTERN, error: `The ${field} field must be an idempotency key (idemp_{deviceId}_{timestampMs}).` });

/** A new order (`lines`, priced server-side) or a retry of one of this kiosk's transactions (`transaction_id`). */
export const CreateIntentBody = Strict({
  lines: t.Optional(QuoteBody.properties.lines),
  transaction_id: t.Optional(Uuid('transaction id')),
  tip_amount: t.Optional(Int({ minimum: 0, maximum: MAX_TIP_CENTS, error: 'The tip_amount must be a whole number of cents between 0 and 100000.' })),
  loyalty_token: t.Optional(t.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._~-]+$', error: 'The loyalty_token field must be a token.' })),
  reward_id: t.Optional(Uuid('reward id')),
  dining_option: t.Optional(t.Union([t.Literal('For Here'), t.Literal('Takeaway')], { error: 'The dining_option must be For Here or Takeaway.' })),
});
export const SessionStatusQuery = Strict({ idempotency_key: Key('idempotency_key') });
/** Path form: any key-like token; one that names no transaction of this kiosk is a 404 like another merchant's. */
export const DetailsParams = t.Object({
  idempotencyKey: t.String({ minLength: 1, maxLength: 84, pattern: '^[A-Za-z0-9_-]+$', error: 'The idempotencyKey field must be an idempotency key (idemp_{deviceId}_{timestampMs}).' }),
});
export const CancelBody = Strict({ idempotency_key: Key('idempotency_key') });
export const SendReceiptBody = Strict({
  idempotency_key: Key('idempotency_key'),
  email: t.String({ format: 'email', minLength: 3, maxLength: 254, error: 'The email field must be a valid email address.' }),
});
export const Success = t.Object({ status: t.Literal('success') });

export const Status = t.Union(
  [
    t.Literal('Pending'),
    t.Literal('Awaiting Payment'),
    t.Literal('Awaiting Capture'),
    t.Literal('Awaiting Invoice'),
    t.Literal('Complete'),
    t.Literal('Unpaid'),
    t.Literal('Cancelled'),
  ],
  { description: 'payment status, exact Title Case' },
);
const Line = t.Object({
  item_id: t.String(),
  name: t.String(),
  qty: Int(),
  unit_price: Int(),
  vat_rate: t.Number(),
  gross: Int(),
  discount: Int(),
  total: Int(),
  modifiers: t.Array(t.Unknown()),
  variant: t.Unknown(),
});
export const Transaction = t.Object({
  id: t.String(),
  order_no: Int(),
  location_id: t.String(),
  device_id: t.Nullable(t.String()),
  channel: t.String(),
  status: Status,
  order_status: t.Nullable(t.String()),
  payment_provider: t.String({ description: 'stamped provider (spec 3 "Provider choice")' }),
  running_provider: t.String({ description: 'the provider the payment runs on: the stamped one, or platform-a when its active integration overrode it at payment time' }),
  idempotency_key: t.String(),
  all_idempotency_keys: t.Array(t.String()),
  invalid_idempotency_keys: t.Array(t.String()),
  payment_snapshot: t.Record(t.String(), t.Unknown()),
  receipt_no: t.Nullable(Int()),
  subtotal: Int(),
  discount: Int(),
  vat: Int(),
  fees: Int(),
  tip_amount: Int(),
  total: Int({ description: 'cents, VAT included, tip included' }),
  by_vat_rate: t.Array(t.Unknown()),
  is_free: t.Boolean(),
  auto_success: t.Boolean(),
  is_test: t.Boolean({ description: 'a payment test-mode order: no money taken; left out of the transaction stats\' money and the reports' }),
  created_at: t.String(),
  completed_at: t.Nullable(t.String()),
  lines: t.Optional(t.Array(Line)),
});
export const TransactionResponse = t.Object({ data: Transaction });
export const SessionStatusResponse = t.Object({
  data: t.Object({
    transaction_id: t.String(),
    idempotency_key: t.String(),
    status: Status,
    provider_status: t.Nullable(t.Union([t.Literal('succeeded'), t.Literal('authorised'), t.Literal('processing'), t.Literal('failed'), t.Literal('aborted')])),
  }),
});
export const DetailsResponse = t.Object({ data: Transaction, capture: t.Union([t.Literal('dispatched'), t.Literal('not_needed')]) });
