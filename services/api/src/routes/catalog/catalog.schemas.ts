import { t, type TSchema } from 'elysia';
import { Int, vendorIdField } from '../shared.schemas.ts';
import { MAX_CATALOG_PRICE } from '@pos/domain/money';

/**
 * Schemas of the catalog routes (spec 1 "Items, categories, modifiers, variants, display groups",
 * "Menus", "Offers", "Content, inventories, tax rates"). Every string has a maxLength, every array a
 * maxItems, every number bounds; bodies refuse unknown keys. Path ids are plain strings: one that is
 * not a UUID is a 404 like any unknown id.
 */
export const MAX_PRICE = MAX_CATALOG_PRICE; // 100 000.00 in cents

export const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });
export const ItemIdParams = t.Object({ itemId: t.String({ maxLength: 64 }) });
export const Success = t.Object({ status: t.Literal('success') });
export const Uuid = (field: string) => t.String({ format: 'uuid', maxLength: 36, error: `The ${field} field must be a valid UUID.` });
const Iso = t.String();
export const Strict = <P extends Record<string, TSchema>>(props: P) => t.Object(props, { additionalProperties: false });

/** No NUL characters (PostgreSQL text cannot hold them): such a string is a 422, never a 500. */
export const NO_NUL = '^[^\\u0000]*$';
const name = (max = 255) =>
  t.String({ minLength: 1, maxLength: max, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$', error: `The name field is required, may not be blank and may not be greater than ${max} characters.` });
export const Name = name();
/** Free text up to `max` characters. */
export const Text = (max: number) => t.String({ maxLength: max, pattern: NO_NUL, error: `The field may not be greater than ${max} characters.` });
export const Search = t.String({ maxLength: 255, pattern: NO_NUL });
export const Price = (field = 'unit price') => Int({ minimum: 0, maximum: MAX_PRICE, error: `The ${field} must be a whole number of cents between 0 and ${MAX_PRICE}.` });
export const Position = Int({ minimum: 0, maximum: 100_000 });

export const Channel = t.Union([t.Literal('pos'), t.Literal('kiosk'), t.Literal('online_ordering'), t.Literal('qr_ordering'), t.Literal('delivery')], {
  error: 'The selected channel is invalid.',
});
export const Channels = t.Array(Channel, { maxItems: 5 });

export const Option = t.Object({ value: t.String(), label: t.String() });
export const OptionList = t.Object({ data: t.Array(Option) });

/** The data-table query shared by every `…/datatable` route. */
export const DatatableQuery = {
  ...vendorIdField(),
  page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })),
  per_page: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
  search: t.Optional(Search),
  sort: t.Optional(t.String({ maxLength: 40, pattern: NO_NUL, description: 'column name, `-column` for descending' })),
};
export const Datatable = <T extends TSchema>(row: T) => t.Object({ data: t.Array(row), total: Int(), page: Int(), per_page: Int() });

// ---- items -------------------------------------------------------------------------------------

export const Item = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.Nullable(t.String()),
  sku: t.Nullable(t.String()),
  unit_price: Int({ description: 'cents, VAT included' }),
  vat_rate: t.Number({ description: 'whole percent' }),
  category_id: t.Nullable(t.String()),
  category: t.Nullable(t.Object({ id: t.String(), name: t.String() })),
  allergens: t.Array(t.String()),
  dietary: t.Array(t.String()),
  channels: t.Array(t.String()),
  location_ids: t.Nullable(t.Array(t.String())),
  visible: t.Boolean(),
  allow_negative_stock: t.Boolean(),
  image_content_id: t.Nullable(t.String()),
  modifier_group_ids: t.Array(t.String()),
  variant_groups: t.Array(t.Object({ id: t.String(), name: t.String() })),
  created_at: Iso,
  updated_at: Iso,
});
export const ItemResponse = t.Object({ data: Item });
export const ItemDatatable = Datatable(Item);
export const ItemDatatableQuery = t.Object({
  ...DatatableQuery,
  category_id: t.Optional(t.String({ maxLength: 64, pattern: NO_NUL })),
  visible: t.Optional(t.Boolean()),
  channel: t.Optional(Channel),
});
export const ItemOptionsQuery = t.Object({ ...vendorIdField(), search: t.Optional(Search), category_id: t.Optional(t.String({ maxLength: 64, pattern: NO_NUL })) });
export const ItemOptions = t.Object({ data: t.Array(t.Object({ value: t.String(), label: t.String(), unit_price: Int() })) });

const itemFields = {
  description: t.Optional(t.Nullable(Text(2000))),
  sku: t.Optional(t.Nullable(Text(64))),
  allergens: t.Optional(t.Array(t.String({ maxLength: 40, pattern: NO_NUL }), { maxItems: 14, description: 'slugs of /allergens-options' })),
  dietary: t.Optional(t.Array(t.String({ maxLength: 40, pattern: NO_NUL }), { maxItems: 40, description: 'slugs of /dietary-preferences-options and /dietary-supplements-options' })),
  channels: t.Optional(Channels),
  location_ids: t.Optional(t.Nullable(t.Array(Uuid('location id'), { maxItems: 500, description: 'null: every location' }))),
  visible: t.Optional(t.Boolean()),
  allow_negative_stock: t.Optional(t.Boolean()),
  image_content_id: t.Optional(t.Nullable(Uuid('image content id'))),
  modifier_group_ids: t.Optional(t.Array(Uuid('modifier group id'), { maxItems: 50, description: 'in display order' })),
};
const VatRate = Int({ minimum: 0, maximum: 100, description: 'whole percent, one of /tax-rate-options' });

export const CreateItemBody = Strict({
  name: Name,
  unit_price: Price(),
  vat_rate: VatRate,
  category_id: t.Nullable(Uuid('category id'), { description: 'required key; null for no category' }),
  ...itemFields,
});
export const UpdateItemBody = Strict({
  name: t.Optional(Name),
  unit_price: t.Optional(Price()),
  vat_rate: t.Optional(VatRate),
  category_id: t.Optional(t.Nullable(Uuid('category id'))),
  ...itemFields,
});

export const ExportQuery = t.Object({
  ...vendorIdField(),
  format: t.Optional(t.Union([t.Literal('csv'), t.Literal('xlsx')], { error: 'The format must be csv or xlsx.' })),
  search: t.Optional(Search),
  category_id: t.Optional(t.String({ maxLength: 64, pattern: NO_NUL })),
  visible: t.Optional(t.Boolean()),
  channel: t.Optional(Channel),
});

/** The export answers the file itself (text/csv or the xlsx type), as an attachment. */
export const ExportFile = t.Unknown({ description: 'the file: text/csv, or application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });

// ---- categories --------------------------------------------------------------------------------

export const Category = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.Nullable(t.String()),
  position: Int(),
  items_count: Int(),
  created_at: Iso,
  updated_at: Iso,
});
export const CategoryResponse = t.Object({ data: Category });
export const CategoryDatatable = Datatable(Category);
export const CategoryDatatableQuery = t.Object(DatatableQuery);
export const CreateCategoryBody = Strict({ name: Name, description: t.Optional(t.Nullable(Text(2000))), position: t.Optional(Position) });
export const UpdateCategoryBody = Strict({ name: t.Optional(Name), description: t.Optional(t.Nullable(Text(2000))), position: t.Optional(Position) });

// ---- modifier groups ---------------------------------------------------------------------------

const Selection = (field: string) => Int({ minimum: 0, maximum: 100, error: `The ${field} must be a whole number between 0 and 100.` });
export const Modifier = t.Object({ id: t.String(), name: t.String(), price: Int(), position: Int() });
export const ModifierGroup = t.Object({
  id: t.String(),
  name: t.String(),
  min_select: Int(),
  max_select: Int(),
  position: Int(),
  modifiers: t.Array(Modifier),
  items_count: Int(),
  created_at: Iso,
  updated_at: Iso,
});
export const ModifierGroupResponse = t.Object({ data: ModifierGroup });
export const ModifierGroupList = t.Object({ data: t.Array(ModifierGroup) });
const ModifierInput = Strict({ id: t.Optional(Uuid('modifier id')), name: Name, price: Price('modifier price') });
export const CreateModifierGroupBody = Strict({
  name: Name,
  min_select: Selection('min select'),
  max_select: Int({ minimum: 1, maximum: 100, error: 'The max select must be a whole number between 1 and 100.' }),
  modifiers: t.Array(ModifierInput, { maxItems: 100, description: 'in display order; `id` keeps an existing modifier of this group' }),
});
export const UpdateModifierGroupBody = Strict({
  name: t.Optional(Name),
  min_select: t.Optional(Selection('min select')),
  max_select: t.Optional(Int({ minimum: 1, maximum: 100, error: 'The max select must be a whole number between 1 and 100.' })),
  modifiers: t.Optional(t.Array(ModifierInput, { maxItems: 100 })),
});
export const ReorderBody = Strict({ ids: t.Array(Uuid('id'), { minItems: 1, maxItems: 500, description: 'modifier group ids in the new order' }) });
export const ModifierList = t.Object({
  data: t.Array(t.Object({ id: t.String(), name: t.String(), price: Int(), modifier_group_id: t.String(), modifier_group: t.String() })),
});

// ---- variant groups ----------------------------------------------------------------------------

export const VariantGroup = t.Object({
  id: t.String(),
  item_id: t.String(),
  name: t.String(),
  variants: t.Array(t.Object({ id: t.String(), name: t.String(), unit_price: Int(), position: Int() })),
  created_at: Iso,
  updated_at: Iso,
});
export const VariantGroupResponse = t.Object({ data: VariantGroup });
const VariantInput = Strict({ id: t.Optional(Uuid('variant id')), name: Name, unit_price: Price() });
export const CreateVariantGroupBody = Strict({ item_id: Uuid('item id'), name: Name, variants: t.Array(VariantInput, { minItems: 1, maxItems: 50 }) });
export const UpdateVariantGroupBody = Strict({ name: t.Optional(Name), variants: t.Optional(t.Array(VariantInput, { minItems: 1, maxItems: 50 })) });

// ---- display groups ----------------------------------------------------------------------------

export const DisplayGroup = t.Object({
  id: t.String(),
  menu_id: t.String(),
  name: t.String(),
  position: Int(),
  parent_id: t.Nullable(t.String()),
  item_ids: t.Array(t.String()),
});
export const DisplayGroupResponse = t.Object({ data: DisplayGroup });
export const DisplayGroupList = t.Object({ data: t.Array(DisplayGroup) });
export const DisplayGroupListQuery = t.Object({ ...vendorIdField(), menu_id: t.Optional(t.String({ maxLength: 64, pattern: NO_NUL })) });
export const CreateDisplayGroupBody = Strict({ menu_id: Uuid('menu id'), name: Name, position: t.Optional(Position), parent_id: t.Optional(t.Nullable(Uuid('parent id'))) });
export const UpdateDisplayGroupBody = Strict({ name: t.Optional(Name), position: t.Optional(Position), parent_id: t.Optional(t.Nullable(Uuid('parent id'))) });

// ---- tax rates ---------------------------------------------------------------------------------

export const TaxRate = t.Object({ id: t.String(), name: t.String(), rate: Int(), country: t.String(), is_custom: t.Boolean(), created_at: Iso });
export const TaxRateResponse = t.Object({ data: TaxRate });
export const TaxRateDatatable = Datatable(TaxRate);
export const TaxRateDatatableQuery = t.Object({ ...DatatableQuery, is_custom: t.Optional(t.Boolean()) });
export const TaxRateOptions = t.Object({ data: t.Array(t.Object({ value: Int(), label: t.String(), id: t.Nullable(t.String()), is_custom: t.Boolean() })) });
const Rate = Int({ minimum: 0, maximum: 100, error: 'The rate must be a whole percent between 0 and 100.' });
const Country = t.String({ minLength: 2, maxLength: 2, pattern: '^[A-Za-z]{2}$', error: 'The country must be a two-letter country code.' });
export const CreateTaxRateBody = Strict({ name: Name, rate: Rate, country: t.Optional(Country) });
export const UpdateTaxRateBody = Strict({ name: t.Optional(Name), rate: t.Optional(Rate), country: t.Optional(Country) });
