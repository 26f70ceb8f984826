import { t } from 'elysia';
import { Paging, PathId, vendorIdField, Int } from '../shared.schemas.ts';
import { CustomerView } from '../customer-auth/customer-auth.schemas.ts';
import { AddressBody, AddressView, OrderDetail, OrderPage } from '../customer-account/customer-account.schemas.ts';
export { AddressBody, OrderPage };

export const VendorQuery = t.Object({ ...vendorIdField() });
export const IdParams = t.Object({ id: PathId() });
export const AddressParams = t.Object({ id: PathId(), addressId: PathId() });
export const Success = t.Object({ status: t.Literal('success') });

export const DatatableQuery = t.Object({
  ...Paging,
  search: t.Optional(t.String({ maxLength: 255, description: 'matches name, e-mail or phone' })),
  marketing_consent: t.Optional(t.Union([t.Literal('true'), t.Literal('false')], { error: 'The marketing_consent field must be true or false.' })),
  ...vendorIdField(),
});
export const PagedOrdersQuery = t.Object({ ...Paging, ...vendorIdField() });

const Row = t.Composite([CustomerView, t.Object({ points: Int() })]);
export const Datatable = t.Object({ data: t.Array(Row), total: Int(), page: Int(), per_page: Int() });

export const ExportQuery = t.Object({
  format: t.Optional(t.Union([t.Literal('csv'), t.Literal('xlsx')], { error: 'The format field must be csv or xlsx.' })),
  ...vendorIdField(),
});
export const FileResponse = t.Any({ description: 'the file (text/csv or XLSX)' });

export const CustomerBody = t.Object({
  name: t.Optional(t.Nullable(t.String({ maxLength: 255 }))),
  email: t.Optional(t.Nullable(t.String({ maxLength: 254 }))),
  phone: t.Optional(t.Nullable(t.String({ maxLength: 32 }))),
  marketing_consent: t.Optional(t.Boolean()),
});
export const CustomerResponse = t.Object({ data: CustomerView });

const Note = t.Object({ id: t.String(), user_id: t.Nullable(t.String()), note: t.String(), created_at: t.String() });
export const DetailResponse = t.Object({
  data: t.Composite([CustomerView, t.Object({ loyalty: t.Object({ points: Int(), lifetime_points: Int() }), addresses: t.Array(AddressView), notes: t.Array(Note) })]),
});
export const NoteBody = t.Object({ note: t.String({ minLength: 1, maxLength: 2000 }) });
export const NoteResponse = t.Object({ data: Note });
export const MarketingBody = t.Object({ marketing_consent: t.Boolean() });
export const AddressResponse = t.Object({ data: AddressView });
export const AddressList = t.Object({ data: t.Array(AddressView) });
export const OrderDetailResponse = t.Object({ data: OrderDetail });

export const GiftCards = t.Object({
  data: t.Array(t.Object({ id: t.String(), last4: t.String(), balance: Int(), initial_balance: Int(), status: t.String(), expires_at: t.Nullable(t.String()), created_at: t.String() })),
});
export const Redemptions = t.Object({
  data: t.Array(t.Object({ id: t.String(), reward: t.Nullable(t.Object({ id: t.String(), name: t.Nullable(t.String()) })), points: Int(), transaction_id: t.Nullable(t.String()), created_at: t.String() })),
});
export const Timeline = t.Object({
  data: t.Array(t.Object({ id: t.String(), kind: t.String(), transaction_id: t.Nullable(t.String()), detail: t.Unknown(), created_at: t.String() })),
});
