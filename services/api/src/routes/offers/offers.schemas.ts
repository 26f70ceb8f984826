import { t } from 'elysia';
import { Int, vendorIdField } from '../shared.schemas.ts';
import { Channels, IdParams, MAX_PRICE, Name, Strict, Success, Text, Uuid } from '../catalog/catalog.schemas.ts';

export { IdParams, Success };

export const OfferStatus = t.Union([t.Literal('inactive'), t.Literal('active'), t.Literal('archived')], { error: 'The selected status is invalid.' });

export const Rule = t.Union(
  [
    Strict({ kind: t.Literal('percentage'), percent: Int({ minimum: 1, maximum: 100, description: 'percent off each eligible line' }) }),
    Strict({ kind: t.Literal('amount'), amount: Int({ minimum: 1, maximum: MAX_PRICE, description: 'cents off the eligible part of the basket' }) }),
    Strict({ kind: t.Literal('buy_x_get_y'), buy: Int({ minimum: 1, maximum: 100 }), get: Int({ minimum: 1, maximum: 100 }) }),
  ],
  { error: 'The rule must be {kind: percentage, percent 1-100}, {kind: amount, amount in cents} or {kind: buy_x_get_y, buy, get}.' },
);

const HhMm = t.String({ maxLength: 5, pattern: '^([01]?[0-9]|2[0-3]):[0-5][0-9]$', error: 'The time must be HH:MM.' });
export const Schedule = Strict({
  days: t.Array(Int({ minimum: 1, maximum: 7 }), { minItems: 1, maxItems: 7, description: 'ISO weekdays, 1 = Monday' }),
  start: HhMm,
  end: HhMm,
});

export const Offer = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.Nullable(t.String()),
  status: OfferStatus,
  rule: t.Unknown({ description: 'as in the body' }),
  item_ids: t.Array(t.String()),
  category_ids: t.Array(t.String()),
  min_basket: Int(),
  channels: t.Array(t.String()),
  location_ids: t.Nullable(t.Array(t.String())),
  schedule: t.Nullable(t.Unknown()),
  created_at: t.String(),
  updated_at: t.String(),
});
export const OfferResponse = t.Object({ data: Offer });
export const OfferList = t.Object({ data: t.Array(Offer) });
export const OfferListQuery = t.Object({ ...vendorIdField(), status: t.Optional(OfferStatus) });

const fields = {
  description: t.Optional(t.Nullable(Text(2000))),
  category_ids: t.Optional(t.Array(Uuid('category id'), { maxItems: 200 })),
  min_basket: t.Optional(Int({ minimum: 0, maximum: MAX_PRICE, description: 'basket subtotal in cents the offer needs; 0 for none' })),
  channels: t.Optional(Channels),
  location_ids: t.Optional(t.Nullable(t.Array(Uuid('location id'), { maxItems: 500, description: 'null: every location' }))),
  schedule: t.Optional(t.Nullable(Schedule)),
};
export const CreateOfferBody = Strict({
  name: Name,
  rule: Rule,
  item_ids: t.Array(Uuid('item id'), { maxItems: 1000, description: 'items the offer applies to; with category_ids both empty, every item' }),
  ...fields,
});
export const UpdateOfferBody = Strict({ name: t.Optional(Name), rule: t.Optional(Rule), item_ids: t.Optional(t.Array(Uuid('item id'), { maxItems: 1000 })), ...fields });
