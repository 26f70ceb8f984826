import { t } from 'elysia';
import { PathId, Int } from '../shared.schemas.ts';
export { CustomerView } from '../customer-auth/customer-auth.schemas.ts';
import { CustomerView } from '../customer-auth/customer-auth.schemas.ts';

export const Success = t.Object({ status: t.Literal('success') });
export const ProfileResponse = t.Object({ data: CustomerView });

export const PersonalInfoBody = t.Object({
  name: t.Optional(t.Nullable(t.String({ maxLength: 255 }))),
  email: t.Optional(t.Nullable(t.String({ maxLength: 254 }))),
  phone: t.Optional(t.Nullable(t.String({ maxLength: 32 }))),
  marketing_consent: t.Optional(t.Boolean()),
});

export const AddressView = t.Object({
  id: t.String(),
  label: t.Nullable(t.String()),
  line1: t.String(),
  line2: t.Nullable(t.String()),
  postal_code: t.String(),
  city: t.String(),
  country: t.String(),
  is_default: t.Boolean(),
  created_at: t.String(),
});
export const AddressList = t.Object({ data: t.Array(AddressView) });
export const AddressResponse = t.Object({ data: AddressView });

export const AddressBody = t.Object({
  label: t.Optional(t.Nullable(t.String({ maxLength: 50 }))),
  line1: t.String({ minLength: 1, maxLength: 255 }),
  line2: t.Optional(t.Nullable(t.String({ maxLength: 255 }))),
  postal_code: t.String({ minLength: 1, maxLength: 20 }),
  city: t.String({ minLength: 1, maxLength: 100 }),
  country: t.String({ minLength: 2, maxLength: 2, error: 'The country field must be a two-letter country code.', description: 'ISO 3166-1 alpha-2 code' }),
  is_default: t.Optional(t.Boolean()),
});

const Option = t.Object({ value: t.String(), label: t.String() });
export const AddressOptions = t.Object({ data: t.Object({ countries: t.Array(Option), labels: t.Array(Option) }) });

export const AddressParams = t.Object({ addressId: PathId() });
export const SlugParams = t.Object({ slug: t.String({ maxLength: 100 }) });
export const SlugLocationParams = t.Object({ slug: t.String({ maxLength: 100 }), locationId: PathId() });
export const OrderParams = t.Object({ slug: t.String({ maxLength: 100 }), orderId: PathId() });

const Ref = t.Object({ id: t.String(), name: t.String() });
export const LoyaltiesResponse = t.Object({
  data: t.Object({ points: Int(), lifetime_points: Int(), programs: t.Array(t.Object({ location: Ref, points_per_euro: Int() })) }),
});
export const LoyaltyDetailResponse = t.Object({
  data: t.Object({
    location: Ref,
    points_per_euro: Int(),
    points: Int(),
    lifetime_points: Int(),
    rewards: t.Array(t.Object({ id: t.String(), name: t.String(), points: Int(), discount: Int(), available: t.Boolean() })),
    history: t.Array(t.Object({ kind: t.String(), points: Int(), balance_after: Int(), transaction_id: t.Nullable(t.String()), created_at: t.String() })),
  }),
});
export const LocationsResponse = t.Object({
  data: t.Array(t.Object({ id: t.String(), name: t.String(), address: t.Nullable(t.String()), timezone: t.String(), orders: Int() })),
});

export const OrderHistoryBody = t.Object({
  page: t.Optional(Int({ minimum: 1, maximum: 100_000 })),
  per_page: t.Optional(Int({ minimum: 1, maximum: 100 })),
  order_ids: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 50, description: 'guest (no token): the orders this device placed' })),
});

export const OrderSummary = t.Object({
  id: t.String(),
  order_no: Int(),
  channel: t.String(),
  status: t.String(),
  order_status: t.Nullable(t.String()),
  total: Int(),
  location: Ref,
  dining_option: t.Nullable(t.String()),
  created_at: t.String(),
  completed_at: t.Nullable(t.String()),
});
export const OrderPage = t.Object({ data: t.Array(OrderSummary), total: Int(), page: Int(), per_page: Int() });

export const OrderDetail = t.Object({
  id: t.String(),
  order_no: Int(),
  channel: t.String(),
  status: t.String(),
  order_status: t.Nullable(t.String()),
  subtotal: Int(),
  discount: Int(),
  vat: Int(),
  tip_amount: Int(),
  total: Int(),
  location: Ref,
  dining_option: t.Nullable(t.String()),
  customer_id: t.Nullable(t.String()),
  created_at: t.String(),
  completed_at: t.Nullable(t.String()),
  lines: t.Array(t.Object({ position: Int(), item_id: t.String(), name: t.String(), qty: Int(), unit_price: Int(), total: Int(), modifiers: t.Array(t.Unknown()) })),
});
export const OrderDetailResponse = t.Object({ data: OrderDetail });
