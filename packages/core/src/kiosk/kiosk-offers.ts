import type Redis from 'ioredis';
import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { localMoment, offerIneligibility, scheduleOpen, type OfferIneligibility } from '@pos/domain/catalog/pricing';
import { activeOffersFor, listOffers } from '../catalog/offers.ts';
import { quoteBasket, type Quote, type QuoteLineInput } from '../catalog/quote-basket.ts';
import { resolveLoyaltyToken } from '../customers/loyalty-tokens.ts';
import { rewardAsOffer } from '../customers/rewards.ts';

const KIOSK = 'kiosk';

/** `GET /kiosk/offers`: the active offers of the kiosk's location that run on the kiosk channel, with whether their schedule is open now. */
export async function listKioskOffers(tdb: TenantDb, locationId: string, now: Date) {
  const location = await tdb.selectFrom('locations').select('timezone').where('id', '=', locationId).executeTakeFirstOrThrow();
  const moment = localMoment(now, location.timezone);
  const offers = await listOffers(tdb, { status: 'active' });
  return offers
    .filter((o) => (o.location_ids === null || o.location_ids.includes(locationId)) && (o.channels.length === 0 || o.channels.includes(KIOSK)))
    .map((o) => ({
      id: o.id,
      name: o.name,
      description: o.description,
      rule: o.rule,
      item_ids: o.item_ids,
      category_ids: o.category_ids,
      min_basket: o.min_basket,
      schedule: o.schedule,
      available_now: scheduleOpen(o.schedule, moment),
    }));
}

export type OfferVerdict = { id: string; name: string; applied: boolean; discount: number; reason: OfferIneligibility | 'not_active' | 'no_discount' | null };

/**
 * `POST /kiosk/offers/validate`: the basket priced by the one pricing function (the quote
 * `create-intent` will charge), and a verdict for each offer asked (`offer_ids`), or for every
 * active offer of the location: applied with its discount, or why not. An offer id that is not an
 * offer of this merchant is a 404; one that is not active at this location answers `not_active`.
 * With `loyalty_token` and `reward_id` the reward is in the quote (its line in `quote.offers`).
 */
export async function validateKioskOffers(
  deps: { tdb: TenantDb; redis: Redis; merchantId: string; now: Date },
  kiosk: { id: string; location_id: string },
  input: { lines: readonly QuoteLineInput[]; offer_ids?: readonly string[]; loyalty_token?: string; reward_id?: string },
): Promise<{ quote: Quote; offers: OfferVerdict[] }> {
  const locationId = kiosk.location_id;
  const asked = input.offer_ids ? [...new Set(input.offer_ids.map((x) => x.toLowerCase()))] : null;
  const named = asked && asked.length > 0 ? await deps.tdb.selectFrom('offers').select(['id', 'name']).where('id', 'in', asked).execute() : [];
  if (asked && named.length !== asked.length) throw errors.notFound('offer');
  // A reward the customer chose is priced exactly as create-intent will price it.
  if (input.reward_id !== undefined && input.loyalty_token === undefined) throw errors.field('reward_id', 'A reward needs the customer\'s loyalty_token.');
  const loyalty = input.loyalty_token !== undefined ? await resolveLoyaltyToken(deps.tdb, input.loyalty_token, kiosk.id, deps.now) : null;
  const reward = input.reward_id !== undefined && loyalty ? [await rewardAsOffer(deps.tdb, { rewardId: input.reward_id, customerId: loyalty.customer_id, locationId })] : [];
  const quote = await quoteBasket(deps, { locationId, channel: KIOSK }, input.lines, reward);
  const location = await deps.tdb.selectFrom('locations').select('timezone').where('id', '=', locationId).executeTakeFirstOrThrow();
  const ctx = { channel: KIOSK, ...localMoment(deps.now, location.timezone) };
  const active = await activeOffersFor(deps.tdb, locationId);
  const pricingLines = quote.lines.map((l) => ({ key: l.key, item_id: l.item_id, category_id: l.category_id, qty: l.qty, unit_price: l.unit_price, vat_rate: l.vat_rate }));
  const subjects = asked ? asked.map((id) => ({ id, name: named.find((n) => n.id === id)!.name })) : active.map((o) => ({ id: o.id, name: o.name }));
  const offers = subjects.map((s): OfferVerdict => {
    const applied = quote.offers.find((o) => o.id === s.id);
    if (applied) return { id: s.id, name: s.name, applied: true, discount: applied.discount, reason: null };
    const offer = active.find((o) => o.id === s.id);
    if (!offer) return { id: s.id, name: s.name, applied: false, discount: 0, reason: 'not_active' };
    return { id: s.id, name: s.name, applied: false, discount: 0, reason: offerIneligibility(offer, pricingLines, ctx, quote.subtotal) ?? 'no_discount' };
  });
  return { quote, offers };
}
