import { t } from 'elysia';
import { Int, vendorIdField } from '../shared.schemas.ts';
import { Channels, IdParams, ItemIdParams, Name, NO_NUL, Position, Strict, Success, Uuid } from '../catalog/catalog.schemas.ts';

export { IdParams, ItemIdParams, Success };

export const MenuStatus = t.Union([t.Literal('draft'), t.Literal('published'), t.Literal('archived')], { error: 'The selected status is invalid.' });

const MenuFields = {
  id: t.String(),
  name: t.String(),
  location_id: t.String(),
  location: t.Object({ id: t.String(), name: t.String() }),
  status: MenuStatus,
  channels: t.Array(t.String()),
  has_draft: t.Boolean({ description: 'display-group items saved as a draft, pending publish or discard' }),
  published_at: t.Nullable(t.String()),
  display_groups_count: Int(),
  items_count: Int(),
  created_at: t.String(),
  updated_at: t.String(),
};
export const Structure = t.Object({ id: t.String(), name: t.String(), position: Int(), parent_id: t.Nullable(t.String()), item_ids: t.Array(t.String()) });
export const Menu = t.Object(MenuFields);
export const MenuDetail = t.Object({ ...MenuFields, display_groups: t.Array(Structure) });
export const MenuResponse = t.Object({ data: MenuDetail });
export const MenuList = t.Object({ data: t.Array(Menu) });
export const MenuListQuery = t.Object({ ...vendorIdField(), location_id: t.Optional(t.String({ maxLength: 64, pattern: NO_NUL })), status: t.Optional(MenuStatus) });
export const MenuOptions = t.Object({ data: t.Array(t.Object({ value: t.String(), label: t.String(), status: MenuStatus, location_id: t.String() })) });

export const CreateMenuBody = Strict({ name: Name, location_id: Uuid('location id'), channels: t.Optional(Channels) });
export const UpdateMenuBody = Strict({ name: t.Optional(Name), channels: t.Optional(Channels) });

export const GroupItemsBody = Strict({
  groups: t.Array(Strict({ id: Uuid('display group id'), item_ids: t.Array(Uuid('item id'), { maxItems: 1000, description: 'in display order' }) }), { minItems: 1, maxItems: 200 }),
});
export const GroupItemsResponse = t.Object({
  data: t.Object({ menu_id: t.String(), status: MenuStatus, display_groups: t.Array(Structure), draft: t.Nullable(t.Array(Structure)) }),
});

export const MoveItemBody = Strict({ from_display_group_id: Uuid('from display group id'), to_display_group_id: Uuid('to display group id'), position: t.Optional(Position) });
export const AddItemBody = Strict({ display_group_ids: t.Array(Uuid('display group id'), { minItems: 1, maxItems: 100 }) });
export const AddItemResponse = t.Object({ data: t.Object({ item_id: t.String(), display_group_ids: t.Array(t.String()) }) });
export const DisplayGroupResponse = t.Object({
  data: t.Object({ id: t.String(), menu_id: t.String(), name: t.String(), position: Int(), parent_id: t.Nullable(t.String()), item_ids: t.Array(t.String()) }),
});
