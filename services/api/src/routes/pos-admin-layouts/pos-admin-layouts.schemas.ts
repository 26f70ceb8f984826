import { t } from 'elysia';
import { MAX_GRID, MAX_PAGES } from '@pos/domain/pos-layouts/layout-grid';
import { Iso, Text, Uuid } from '../pos-admin/pos-admin.schemas.ts';
import { Int, PathId } from '../shared.schemas.ts';

/** Schemas of a location's register screen layouts (`/back-office/pos/{locationId}/layouts`). */
export const LayoutParams = t.Object({ locationId: PathId(), layoutId: PathId() });

/** A cell's row or column, counted from 0. JSON numbers only (`Int`): a numeric string is a 422. */
const Cell = (field: string) => Int({ minimum: 0, maximum: MAX_GRID - 1, error: `The ${field} field must be a whole number from 0 to ${MAX_GRID - 1}.` });
const Size = (field: string) => Int({ minimum: 1, maximum: MAX_GRID, error: `The ${field} field must be a whole number from 1 to ${MAX_GRID}.` });

const TileBody = t.Object(
  {
    row: Cell('row'),
    column: Cell('column'),
    width: t.Optional(Size('width')),
    height: t.Optional(Size('height')),
    item_id: t.Optional(t.Nullable(Uuid('item id'))),
    category_id: t.Optional(t.Nullable(Uuid('category id'))),
    label: t.Optional(t.Nullable(t.String({ maxLength: 40, error: 'The label may not be greater than 40 characters.' }))),
    color: t.Optional(t.Nullable(t.String({ maxLength: 7, pattern: '^#[0-9a-fA-F]{6}$', error: 'The color must be a hex colour such as #1A2B3C.' }))),
  },
  { additionalProperties: false },
);

const PageBody = t.Object(
  { name: Text('page name', 60), tiles: t.Array(TileBody, { maxItems: MAX_GRID * MAX_GRID, error: `A page holds at most ${MAX_GRID * MAX_GRID} tiles.` }) },
  { additionalProperties: false },
);

/** POST and PUT: the whole layout. `is_default` absent: the location's first layout is the default (POST), unchanged (PUT). */
export const LayoutBody = t.Object(
  {
    name: Text('name', 120),
    is_default: t.Optional(t.Boolean({ error: 'The is default field must be true or false.' })),
    columns: Size('columns'),
    rows: Size('rows'),
    pages: t.Array(PageBody, { minItems: 1, maxItems: MAX_PAGES, error: `The pages field must hold 1 to ${MAX_PAGES} pages.` }),
  },
  { additionalProperties: false },
);

const Tile = t.Object({
  row: t.Integer(),
  column: t.Integer(),
  width: t.Integer(),
  height: t.Integer(),
  item_id: t.Nullable(t.String()),
  category_id: t.Nullable(t.String()),
  label: t.Nullable(t.String()),
  color: t.Nullable(t.String()),
});
export const Layout = t.Object({
  id: t.String(),
  location_id: t.String(),
  name: t.String(),
  is_default: t.Boolean(),
  columns: t.Integer(),
  rows: t.Integer(),
  pages: t.Array(t.Object({ name: t.String(), tiles: t.Array(Tile) })),
  created_at: Iso,
  updated_at: Iso,
});
export const LayoutResponse = t.Object({ data: Layout });
export const LayoutList = t.Object({ data: t.Array(Layout) });
