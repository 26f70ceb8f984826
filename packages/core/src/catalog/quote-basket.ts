import type Redis from 'ioredis';
import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { MAX_ORDER_CENTS, MAX_TIP_CENTS } from '@pos/domain/money';
import { localMoment, priceBasket, type PricedBasket, type PricingLine, type PricingOffer } from '@pos/domain/catalog/pricing';
import { itemsOnChannel, readPublishedCatalog } from './published/read-published-catalog.ts';
import { activeOffersFor } from './offers.ts';
import { checkStock } from './stock-availability.ts';
import { chooseVariants } from '@pos/domain/catalog/variants';

const TOO_LARGE = 'The order total is too large.';

/** A basket line as a channel sends it: prices are never taken from the client. */
export interface QuoteLineInput {
  item_id: string;
  qty: number;
  modifier_ids?: string[];
  variant_id?: string | null;
  /** One variant of each of the item's variant groups (a size and a milk); `variant_id` is one more. */
  variant_ids?: string[] | null;
}

/**
 * The variant of a quoted line: the one chosen, or with one of several groups chosen, the first one's id
 * and the names of all (`Large / Oat milk`, what a ticket or receipt shows) with each in `variants`.
 */
export interface QuotedVariant {
  id: string;
  name: string;
  variants?: { id: string; name: string }[];
}

export interface Quote {
  menu_version: number;
  lines: (PricedBasket['lines'][number] & { name: string; modifiers: { id: string; name: string; price: number }[]; variant: QuotedVariant | null; variants: { id: string; name: string }[] })[];
  subtotal: number;
  discount: number;
  vat: number;
  total: number;
  by_vat_rate: { rate: number; net: number; vat: number; gross: number }[];
  offers: { id: string; name: string; discount: number }[];
}

/**
 * Prices a basket of a channel at a location from the published catalog (through the cached reader)
 * and the location's active offers, with the one pricing function. An item not sold on the channel,
 * a modifier outside the item's groups, a selection outside a group's min/max, or an item sold in
 * variants without one chosen is a 422 on its field. A basket wanting more of a tracked item than the
 * location can still sell (its level less other open checkouts' holds) is a 422 `insufficient_stock` on
 * the first line naming it.
 */
export async function quoteBasket(
  deps: { tdb: TenantDb; redis: Redis; merchantId: string; now: Date },
  at: { locationId: string; channel: string },
  lines: readonly QuoteLineInput[],
  /** Offers beyond the location's active ones, priced after them (a loyalty reward the customer chose). */
  extraOffers: readonly PricingOffer[] = [],
): Promise<Quote> {
  const location = await deps.tdb.selectFrom('locations').select(['id', 'timezone']).where('id', '=', at.locationId).executeTakeFirst();
  if (!location) throw errors.notFound('location');
  const catalog = await readPublishedCatalog(deps.tdb, deps.redis, deps.merchantId, location.id);
  const items = itemsOnChannel(catalog.menu, at.channel);
  const problems: Record<string, string[]> = {};
  const pricing: PricingLine[] = [];
  const extras: { name: string; modifiers: { id: string; name: string; price: number }[]; variant: QuotedVariant | null; variants: { id: string; name: string }[] }[] = [];
  lines.forEach((l, i) => {
    const item = items.get(l.item_id.toLowerCase());
    if (!item) {
      problems[`lines.${i}.item_id`] = [`The selected lines.${i}.item_id is not on the menu.`];
      return;
    }
    let unit = item.unit_price;
    let variant: QuotedVariant | null = null;
    let chosenVariants: { id: string; name: string }[] = [];
    // An item sold in variants (sizes...) has no price of its own to fall back on: one of each of its
    // variant groups must be chosen (`chooseVariants`). `variant_id` counts as the first id.
    const ids = [...(l.variant_id ? [l.variant_id] : []), ...(l.variant_ids ?? [])].map((x) => x.toLowerCase());
    const fieldOf = (index: number | undefined) =>
      index === undefined ? `lines.${i}.variant_ids` : l.variant_id ? (index === 0 ? `lines.${i}.variant_id` : `lines.${i}.variant_ids.${index - 1}`) : `lines.${i}.variant_ids.${index}`;
    const choice = chooseVariants(item, ids);
    if (!choice.ok) {
      switch (choice.problem) {
        case 'none_chosen':
          problems[`lines.${i}.variant_id`] = [`Choose a variant of ${item.name}.`];
          break;
        case 'not_a_variant':
          problems[fieldOf(choice.index)] = [`The selected ${fieldOf(choice.index)} is not a variant of this item.`];
          break;
        case 'two_of_a_group':
          problems[fieldOf(choice.index)] = [`Choose one ${choice.group} of ${item.name}.`];
          break;
        case 'group_missing':
          problems[`lines.${i}.variant_ids`] = [`Choose a ${choice.group} of ${item.name}.`];
          break;
        case 'no_price':
          problems[`lines.${i}.variant_ids`] = [`These variants of ${item.name} have no price together.`];
          break;
      }
    } else if (choice.chosen.length > 0) {
      unit = choice.unit_price;
      chosenVariants = [...choice.chosen];
      const [first] = chosenVariants;
      variant = chosenVariants.length === 1 ? { ...first! } : { id: first!.id, name: chosenVariants.map((v) => v.name).join(' / '), variants: chosenVariants.map((v) => ({ ...v })) };
    }
    const chosen: { id: string; name: string; price: number }[] = [];
    const wanted = (l.modifier_ids ?? []).map((x) => x.toLowerCase());
    wanted.forEach((id, k) => {
      const m = item.modifier_groups.flatMap((g) => g.modifiers).find((x) => x.id === id);
      if (!m) problems[`lines.${i}.modifier_ids.${k}`] = [`The selected lines.${i}.modifier_ids.${k} is not a modifier of this item.`];
      else chosen.push(m);
    });
    for (const g of item.modifier_groups) {
      const n = wanted.filter((id) => g.modifiers.some((m) => m.id === id)).length;
      if (n < g.min_select || n > g.max_select) {
        problems[`lines.${i}.modifier_ids`] = [`Choose between ${g.min_select} and ${g.max_select} of ${g.name}.`];
      }
    }
    unit += chosen.reduce((s, m) => s + m.price, 0);
    pricing.push({ key: String(i), item_id: item.id, category_id: item.category_id, qty: l.qty, unit_price: unit, vat_rate: item.vat_rate });
    extras.push({ name: item.name, modifiers: chosen, variant, variants: chosenVariants });
  });
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  // Before pricing: VAT of a gross past 2^53 / 10,000 cents cannot be computed exactly (a RangeError, a 500).
  if (pricing.reduce((sum, l) => sum + l.qty * l.unit_price, 0) > MAX_ORDER_CENTS - MAX_TIP_CENTS) throw errors.validation({ lines: [TOO_LARGE] });
  // Customer channels do not sell what the location no longer holds (less other checkouts' holds).
  await checkStock(deps.tdb, location.id, pricing.map((l, i) => ({ item_id: l.item_id, qty: l.qty, name: extras[i]!.name })), deps.now);
  const offers = await activeOffersFor(deps.tdb, location.id);
  const priced = priceBasket(pricing, [...offers, ...extraOffers], { channel: at.channel, ...localMoment(deps.now, location.timezone) });
  // Room is kept for the largest tip, so an order quoted here can always be stored with it.
  if (priced.subtotal > MAX_ORDER_CENTS - MAX_TIP_CENTS) throw errors.validation({ lines: [TOO_LARGE] });
  return {
    menu_version: catalog.version,
    lines: priced.lines.map((l, i) => ({ ...l, ...extras[i]! })),
    subtotal: priced.subtotal,
    discount: priced.discount,
    vat: priced.by_vat_rate.reduce((s, g) => s + g.vat, 0),
    total: priced.total,
    by_vat_rate: priced.by_vat_rate.map((g) => ({ ...g })),
    offers: priced.offers.map((o) => ({ ...o })),
  };
}

