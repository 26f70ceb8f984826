import { t } from 'elysia';
import { Int } from '../shared.schemas.ts';
import { Strict, Uuid } from '../catalog/catalog.schemas.ts';
import { LINE_MAX_MODIFIERS, LINE_MAX_VARIANT_GROUPS } from '@pos/core/catalog/line-bounds';

export const QuoteBody = Strict({
  lines: t.Array(
    Strict({
      item_id: Uuid('item id'),
      qty: Int({ minimum: 1, maximum: 999, error: 'The qty must be a whole number between 1 and 999.' }),
      modifier_ids: t.Optional(t.Array(Uuid('modifier id'), { maxItems: LINE_MAX_MODIFIERS })),
      variant_id: t.Optional(t.Nullable(Uuid('variant id'))),
      variant_ids: t.Optional(t.Nullable(t.Array(Uuid('variant id'), { maxItems: LINE_MAX_VARIANT_GROUPS, description: 'one variant of each of the item\'s variant groups (a size and a milk); `variant_id` counts as one more' }))),
    }),
    { minItems: 1, maxItems: 100 },
  ),
  // As create-intent takes it: the quote of the basket about to be paid, checked against the in-house settings.
  dining_option: t.Optional(t.Union([t.Literal('For Here'), t.Literal('Takeaway')], { error: 'The dining_option must be For Here or Takeaway.' })),
});

const VatGroup = t.Object({ rate: t.Number(), net: Int(), vat: Int(), gross: Int() });
export const Quote = t.Object({
  data: t.Object({
    menu_version: Int({ description: 'version of the published catalog the prices come from' }),
    lines: t.Array(
      t.Object({
        key: t.String(),
        item_id: t.String(),
        category_id: t.Nullable(t.String()),
        name: t.String(),
        qty: Int(),
        unit_price: Int({ description: 'item (or variant) price plus modifiers, cents, VAT included' }),
        vat_rate: t.Number(),
        gross: Int(),
        discount: Int(),
        total: Int(),
        modifiers: t.Array(t.Object({ id: t.String(), name: t.String(), price: Int() })),
        variant: t.Nullable(t.Object({ id: t.String(), name: t.String({ description: 'with several variant groups, every chosen name (`Large / Oat milk`)' }), variants: t.Optional(t.Array(t.Object({ id: t.String(), name: t.String() }))) })),
        variants: t.Array(t.Object({ id: t.String(), name: t.String() }), { description: 'the chosen variants, one per variant group, in the item\'s group order' }),
      }),
    ),
    subtotal: Int(),
    discount: Int(),
    vat: Int(),
    total: Int(),
    by_vat_rate: t.Array(VatGroup),
    offers: t.Array(t.Object({ id: t.String(), name: t.String(), discount: Int() })),
  }),
});
