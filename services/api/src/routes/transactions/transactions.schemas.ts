import { t } from 'elysia';
import { Strict } from '../catalog/catalog.schemas.ts';
import { Transaction } from '../kiosk-payments/kiosk-payments.schemas.ts';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';
import { TRANSACTION_CHANNELS, TRANSACTION_PROVIDERS } from '@pos/domain/payments/transaction-values';

const Date_ = (f: string) => t.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', maxLength: 10, error: `The ${f} field must be a date (YYYY-MM-DD).` });
/** `a, b or c`: the allowed values as the 422 message lists them. */
const orList = (values: readonly string[]) => `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
const Uuid = t.String({ format: 'uuid', maxLength: 36, error: 'The location_id field must be a valid UUID.' });

const Filters = {
  location_id: t.Optional(Uuid),
  status: t.Optional(
    t.Union(
      [t.Literal('Pending'), t.Literal('Awaiting Payment'), t.Literal('Awaiting Capture'), t.Literal('Awaiting Invoice'), t.Literal('Complete'), t.Literal('Unpaid'), t.Literal('Cancelled')],
      { error: 'The status must be a payment status (Title Case).' },
    ),
  ),
  // Every value the table can hold: marketplace orders are channel `delivery`, provider delivery-a or -b.
  // Literals, not t.UnionEnum: Elysia gives a missing optional UnionEnum query key its first value.
  payment_provider: t.Optional(t.Union(TRANSACTION_PROVIDERS.map((p) => t.Literal(p)), { error: `The payment_provider must be ${orList(TRANSACTION_PROVIDERS)}.` })),
  channel: t.Optional(t.Union(TRANSACTION_CHANNELS.map((c) => t.Literal(c)), { error: `The channel must be ${orList(TRANSACTION_CHANNELS)}.` })),
  from: t.Optional(Date_('from')),
  to: t.Optional(Date_('to')),
  search: t.Optional(t.String({ maxLength: 100, pattern: '^[^\\u0000]*$' })),
  // The group is mounted with admin-vendor-override: these strict queries must declare its key.
  ...vendorIdField('admin-vendor-override: merchant id to act on (internal admins and the merchant\'s reseller)'),
};

export const TransactionsQuery = Strict({
  ...Filters,
  page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })),
  per_page: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
  sort: t.Optional(t.Union([t.Literal('created_at'), t.Literal('-created_at'), t.Literal('total'), t.Literal('-total'), t.Literal('order_no'), t.Literal('-order_no'), t.Literal('status'), t.Literal('-status')])),
});
export const FiltersQuery = Strict(Filters);
/** Any id: one that is not a UUID is not found (404), as on every other `{id}` route. */
export const IdParams = t.Object({ id: PathId() });
export const ReceiptBody = Strict({ email: t.String({ format: 'email', minLength: 3, maxLength: 254, error: 'The email field must be a valid email address.' }) });

export const Datatable = t.Object({ data: t.Array(Transaction), total: Int(), page: Int(), per_page: Int() });
export const Detail = t.Object({
  data: t.Composite([
    t.Omit(Transaction, ['lines']),
    t.Object({
      lines: t.Array(t.Unknown()),
      steps: t.Array(t.Object({ step: t.String(), outcome: t.String(), detail: t.Nullable(t.String()) }), { description: 'post-capture trace, in order' }),
      pos_sync_status: t.Nullable(t.String()),
    }),
  ]),
});
export const Stats = t.Object({
  data: t.Object({
    count: Int(),
    complete: t.Object({ count: Int(), total: Int(), tip_amount: Int(), average: Int() }),
    by_status: t.Record(t.String(), Int()),
    by_provider: t.Record(t.String(), t.Object({ count: Int(), total: Int() })),
    by_channel: t.Record(t.String(), t.Object({ count: Int(), total: Int() }), { description: 'complete money per stored channel (kiosk, online_ordering, table_qr, delivery), every channel listed' }),
  }),
});
export const TransactionResponse = t.Object({ data: Transaction });
export const Success = t.Object({ status: t.Literal('success') });
export const CsvFile = t.Unknown({ description: 'text/csv; charset=utf-8 with a byte-order mark' });
