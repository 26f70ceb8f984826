import { t } from 'elysia';
import { PathId, Int } from '../shared.schemas.ts';

export const ChannelOrdersQuery = t.Object({
  view: t.Optional(t.String({ maxLength: 20, description: 'required: `active`, `scheduled` or `completed`' })),
  channel: t.Optional(t.String({ maxLength: 40, description: '`Kiosk`, `Online Ordering`, `Table Qr Ordering` or `Delivery`' })),
  dining_option: t.Optional(t.String({ maxLength: 20, description: 'fulfillment bucket: `all`, `dine_in`, `self_serve`, `pickup` or `delivery`' })),
  page: t.Optional(t.Numeric({ minimum: 1, maximum: 1_000_000, description: 'page number, from 1' })),
  per_page: t.Optional(t.Numeric({ minimum: 1, maximum: 100, description: 'rows per page, 1-100 (default 25)' })),
});
export const ChannelOrderParams = t.Object({ id: PathId({ description: 'transaction id' }) });

const KitchenStatus = t.Union([t.Literal('Queued'), t.Literal('In Progress'), t.Literal('Ready'), t.Literal('Complete')]);
const Bucket = t.Union([t.Literal('dine_in'), t.Literal('self_serve'), t.Literal('pickup'), t.Literal('delivery')]);
const summaryFields = {
  id: t.String(),
  order_no: Int(),
  channel: t.String({ description: '`Kiosk`, `Online Ordering`, `Table Qr Ordering`, `Delivery`' }),
  dining_option: t.Nullable(t.String()),
  delivery_address: t.Nullable(t.Record(t.String(), t.String(), { description: 'a Delivery order: `{line1, line2?, city, postal_code, country, instructions?}`' })),
  fulfillment: Bucket,
  customer_name: t.Nullable(t.String()),
  customer_email: t.Nullable(t.String({ description: 'a storefront order: the e-mail the customer gave' })),
  customer_phone: t.Nullable(t.String({ description: 'a storefront order: the phone number the customer gave' })),
  kitchen_status: KitchenStatus,
  payment_status: t.Literal('Complete'),
  total: Int({ description: 'cents' }),
  item_count: Int(),
  paid_at: t.String(),
  scheduled_for: t.Nullable(t.String()),
  completed_at: t.Nullable(t.String({ description: 'when the kitchen completed it' })),
  table: t.Nullable(t.String({ description: 'a table QR order: its section and table (`Terrace 7`), where staff take it' })),
};
const Counts = (description: string) => t.Record(t.String(), Int(), { description });
export const ChannelOrderList = t.Object({
  data: t.Array(t.Object(summaryFields)),
  total: Int({ description: 'rows behind the page, every filter applied' }),
  fulfillment: Counts('orders of the view per bucket (and `all`) under the channel filter; keys sorted, zero counts omitted, `{}` when empty'),
  channels: Counts('orders of the view per channel under the dining_option filter; keys sorted, zero counts omitted, `{}` when empty'),
});
export const ChannelOrderDetail = t.Object({
  ...summaryFields,
  view: t.Union([t.Literal('active'), t.Literal('scheduled'), t.Literal('completed')]),
  receipt_no: t.Nullable(Int()),
  subtotal: Int(),
  discount: Int(),
  vat: Int(),
  tip_amount: Int(),
  lines: t.Array(t.Object({ name: t.String(), qty: Int(), unit_price: Int(), total: Int(), modifiers: t.Unknown(), variant: t.Unknown() })),
});
