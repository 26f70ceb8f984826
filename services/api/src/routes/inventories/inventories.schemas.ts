import { t } from 'elysia';
import { Int, vendorIdField } from '../shared.schemas.ts';
import { DatatableQuery, NO_NUL, Strict, Text, Uuid } from '../catalog/catalog.schemas.ts';

export const MovementType = t.Union([t.Literal('restock'), t.Literal('sale'), t.Literal('waste'), t.Literal('adjustment'), t.Literal('count')], { error: 'The selected type is invalid.' });

const Entry = t.Object({
  id: t.String(),
  item_id: t.String(),
  location_id: t.String(),
  type: MovementType,
  quantity_change: Int(),
  quantity_after: Int(),
  note: t.Nullable(t.String()),
  user_id: t.Nullable(t.String()),
  created_at: t.String(),
});
export const OverviewQuery = t.Object({
  ...vendorIdField(),
  page: DatatableQuery.page,
  per_page: DatatableQuery.per_page,
  search: DatatableQuery.search,
  location_id: t.Optional(t.String({ maxLength: 64, pattern: NO_NUL })),
  item_id: t.Optional(t.String({ maxLength: 64, pattern: NO_NUL })),
});
export const Overview = t.Object({
  data: t.Array(
    t.Object({ item_id: t.String(), item_name: t.String(), location_id: t.String(), location_name: t.String(), quantity: Int(), allow_negative_stock: t.Boolean(), updated_at: t.String() }),
  ),
  total: Int(),
  page: Int(),
  per_page: Int(),
  history: t.Nullable(t.Array(Entry)),
});
export const MovementBody = Strict({
  item_id: Uuid('item id'),
  location_id: Uuid('location id'),
  type: MovementType,
  quantity: Int({ minimum: -1_000_000, maximum: 1_000_000, description: 'units moved: at least 1 for restock (adds), sale and waste (remove); signed for adjustment; for count, the stock counted' }),
  note: t.Optional(t.Nullable(Text(500))),
});
export const MovementResponse = t.Object({ data: t.Object({ entry: Entry, quantity: Int() }) });
export const DeleteBody = Strict({ ids: t.Array(Uuid('id'), { minItems: 1, maxItems: 200 }) });
export const DeleteResponse = t.Object({ status: t.Literal('success'), deleted: Int() });
