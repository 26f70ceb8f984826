import { localWallClock } from '../business-day/business-day.ts';
import type { Cents } from '../money.ts';
import { vatGroup, type VatRateTotal } from '../orders/order-totals.ts';

/**
 * The one pricing function of the catalog channels (kiosk quote, online ordering, and any reader of the
 * published catalog): server-side prices plus the offers that apply. Pure, integer cents.
 */

/** A basket line as priced: `unit_price` is the item's price plus its modifiers, VAT included. */
export interface PricingLine {
  readonly key: string;
  readonly item_id: string;
  readonly category_id: string | null;
  readonly qty: number;
  readonly unit_price: Cents;
  /** Whole percent. */
  readonly vat_rate: number;
}

export type OfferRule =
  /** `percent` (1..100) off each eligible line. */
  | { readonly kind: 'percentage'; readonly percent: number }
  /** `amount` cents off the eligible part of the basket, spread over the eligible lines by their value. */
  | { readonly kind: 'amount'; readonly amount: Cents }
  /** For every `buy + get` eligible units, the `get` cheapest are free. */
  | { readonly kind: 'buy_x_get_y'; readonly buy: number; readonly get: number };

/** Days are ISO weekdays (1 = Monday .. 7 = Sunday); `start`/`end` are `HH:MM` in the location's zone. An end at or before the start runs past midnight. */
export interface OfferSchedule {
  readonly days: readonly number[];
  readonly start: string;
  readonly end: string;
}

export interface PricingOffer {
  readonly id: string;
  readonly name: string;
  readonly rule: OfferRule;
  /** Items the offer applies to; with `category_ids` both empty, every item. */
  readonly item_ids: readonly string[];
  readonly category_ids: readonly string[];
  /** Basket subtotal (before discounts) the offer needs; 0 for none. */
  readonly min_basket: Cents;
  /** Channels the offer runs on; empty for every channel. */
  readonly channels: readonly string[];
  readonly schedule: OfferSchedule | null;
}

/** Where and when a basket is priced: the channel and the local wall-clock moment of the location. */
export interface PricingContext {
  readonly channel: string;
  /** ISO weekday, 1 = Monday. */
  readonly weekday: number;
  /** Minutes since local midnight, 0..1439. */
  readonly minute: number;
}

export interface PricedLine extends PricingLine {
  /** qty x unit_price. */
  readonly gross: Cents;
  readonly discount: Cents;
  /** gross - discount, never negative. */
  readonly total: Cents;
}

export interface AppliedOffer {
  readonly id: string;
  readonly name: string;
  readonly discount: Cents;
}

export interface PricedBasket {
  readonly lines: readonly PricedLine[];
  readonly subtotal: Cents;
  readonly discount: Cents;
  /** Sum of the lines' totals; `subtotal - discount`. */
  readonly total: Cents;
  readonly by_vat_rate: readonly VatRateTotal[];
  readonly offers: readonly AppliedOffer[];
}

/** The local moment of `at` in an IANA zone, as the pricing context wants it (whatever the process's own zone). */
export function localMoment(at: Date, timeZone: string): { weekday: number; minute: number } {
  const { weekday, hour, minute } = localWallClock(at, timeZone);
  return { weekday, minute: hour * 60 + minute };
}

const HHMM = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/** `HH:MM` to minutes since midnight, or null when malformed. */
export function parseHhMm(s: string): number | null {
  const m = HHMM.exec(s);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** True when the schedule is open at the context's local moment. */
export function scheduleOpen(schedule: OfferSchedule | null, ctx: Pick<PricingContext, 'weekday' | 'minute'>): boolean {
  if (!schedule) return true;
  const start = parseHhMm(schedule.start);
  const end = parseHhMm(schedule.end);
  if (start === null || end === null) return false;
  const days = new Set(schedule.days);
  if (start < end) return days.has(ctx.weekday) && ctx.minute >= start && ctx.minute < end;
  // Past midnight: the window opened on a listed day, either today after start or yesterday before end.
  const yesterday = ctx.weekday === 1 ? 7 : ctx.weekday - 1;
  return (days.has(ctx.weekday) && ctx.minute >= start) || (days.has(yesterday) && ctx.minute < end);
}

function assertLine(l: PricingLine): void {
  if (!Number.isSafeInteger(l.qty) || l.qty < 1) throw new RangeError(`Invalid qty ${l.qty}`);
  if (!Number.isSafeInteger(l.unit_price) || l.unit_price < 0) throw new RangeError(`Invalid unit price ${l.unit_price}`);
}

function assertRule(r: OfferRule): void {
  switch (r.kind) {
    case 'percentage':
      if (!Number.isInteger(r.percent) || r.percent < 1 || r.percent > 100) throw new RangeError(`Invalid percent ${r.percent}`);
      return;
    case 'amount':
      if (!Number.isSafeInteger(r.amount) || r.amount < 1) throw new RangeError(`Invalid amount ${r.amount}`);
      return;
    case 'buy_x_get_y':
      if (!Number.isInteger(r.buy) || r.buy < 1 || !Number.isInteger(r.get) || r.get < 1) throw new RangeError('Invalid buy/get');
      return;
  }
}

/** True when the offer targets the line (its items or categories; both empty means every item). */
export function offerTargets(offer: Pick<PricingOffer, 'item_ids' | 'category_ids'>, line: Pick<PricingLine, 'item_id' | 'category_id'>): boolean {
  if (offer.item_ids.length === 0 && offer.category_ids.length === 0) return true;
  return offer.item_ids.includes(line.item_id) || (line.category_id !== null && offer.category_ids.includes(line.category_id));
}

/** Why an offer does not apply to a basket, or null when it does (`validate` routes report this). */
export type OfferIneligibility = 'channel' | 'schedule' | 'min_basket' | 'no_eligible_items';

export function offerIneligibility(offer: PricingOffer, lines: readonly PricingLine[], ctx: PricingContext, subtotal: Cents): OfferIneligibility | null {
  if (offer.channels.length > 0 && !offer.channels.includes(ctx.channel)) return 'channel';
  if (!scheduleOpen(offer.schedule, ctx)) return 'schedule';
  if (subtotal < offer.min_basket) return 'min_basket';
  if (!lines.some((l) => offerTargets(offer, l))) return 'no_eligible_items';
  return null;
}

/** Splits `amount` over `weights` proportionally (largest remainder); each share <= its weight when amount <= sum. */
export function spread(amount: Cents, weights: readonly Cents[]): Cents[] {
  const total = weights.reduce((s, w) => s + w, 0);
  if (total <= 0 || amount <= 0) return weights.map(() => 0);
  const a = Math.min(amount, total);
  const shares = weights.map((w) => Math.floor((a * w) / total));
  let left = a - shares.reduce((s, x) => s + x, 0);
  const order = weights
    .map((w, i) => ({ i, frac: (a * w) % total }))
    .sort((x, y) => y.frac - x.frac || x.i - y.i);
  for (const { i, frac } of order) {
    if (left <= 0) break;
    if (frac === 0) continue;
    shares[i]! += 1;
    left -= 1;
  }
  return shares;
}

/** Per-line discount of one offer, given what is left of each line; each entry is within 0..remaining. */
function offerDiscounts(rule: OfferRule, lines: readonly PricingLine[], remaining: readonly Cents[], eligible: readonly boolean[]): Cents[] {
  switch (rule.kind) {
    case 'percentage':
      return remaining.map((r, i) => (eligible[i] ? Math.min(r, Math.round((r * rule.percent) / 100)) : 0));
    case 'amount':
      return spread(
        rule.amount,
        remaining.map((r, i) => (eligible[i] ? r : 0)),
      );
    case 'buy_x_get_y': {
      // Every eligible unit, dearest first; the cheapest `get` of every `buy + get` are free.
      const units: { line: number; price: Cents }[] = [];
      lines.forEach((l, i) => {
        if (eligible[i]) for (let u = 0; u < l.qty; u++) units.push({ line: i, price: l.unit_price });
      });
      units.sort((x, y) => y.price - x.price || x.line - y.line);
      const free = Math.floor(units.length / (rule.buy + rule.get)) * rule.get;
      const freeByLine = lines.map(() => 0);
      for (const u of units.slice(units.length - free)) freeByLine[u.line]! += 1;
      return remaining.map((r, i) => (freeByLine[i]! === 0 ? 0 : Math.min(r, Math.round((r * freeByLine[i]!) / lines[i]!.qty))));
    }
  }
}

/** VAT groups of priced lines: the discounted gross per rate, highest rate first. */
function vatGroupsOf(priced: readonly PricedLine[]): VatRateTotal[] {
  const byRate = new Map<number, Cents>();
  for (const l of priced) byRate.set(l.vat_rate, (byRate.get(l.vat_rate) ?? 0) + l.total);
  return [...byRate.entries()].sort(([a], [b]) => b - a).map(([rate, g]) => vatGroup(rate, g));
}

/**
 * Prices a basket: each line's gross is `qty x unit_price`; every offer that applies (channel, schedule
 * in the location's time, basket minimum on the subtotal before discounts, at least one targeted line)
 * takes its discount from what is left of its lines, in the order given. A discount never takes a line
 * below zero, and `total = sum(lines.total) = subtotal - discount`. VAT groups are on the discounted
 * gross per rate (as the register's order totals).
 */
export function priceBasket(lines: readonly PricingLine[], offers: readonly PricingOffer[], ctx: PricingContext): PricedBasket {
  lines.forEach(assertLine);
  offers.forEach((o) => assertRule(o.rule));
  const gross = lines.map((l) => l.qty * l.unit_price);
  const subtotal = gross.reduce((s, g) => s + g, 0);
  const remaining = [...gross];
  const applied: AppliedOffer[] = [];
  for (const offer of offers) {
    if (offerIneligibility(offer, lines, ctx, subtotal) !== null) continue;
    const eligible = lines.map((l) => offerTargets(offer, l));
    const d = offerDiscounts(offer.rule, lines, remaining, eligible);
    const sum = d.reduce((s, x) => s + x, 0);
    if (sum <= 0) continue;
    d.forEach((x, i) => {
      remaining[i] = remaining[i]! - x;
    });
    applied.push({ id: offer.id, name: offer.name, discount: sum });
  }
  const priced: PricedLine[] = lines.map((l, i) => ({ ...l, gross: gross[i]!, discount: gross[i]! - remaining[i]!, total: remaining[i]! }));
  const total = remaining.reduce((s, r) => s + r, 0);
  const by_vat_rate = vatGroupsOf(priced);
  return { lines: priced, subtotal, discount: subtotal - total, total, by_vat_rate, offers: applied };
}

/**
 * Prices a basket with a discount decided elsewhere on the whole basket (a marketplace's promotion: what
 * it collected falls short of its own line prices). The discount is spread over the lines by their gross
 * (as an `amount` offer), capped at the subtotal; VAT groups are on the discounted gross per rate, as in
 * `priceBasket`, so VAT is due on what was charged for the goods.
 */
export function priceWithBasketDiscount(lines: readonly PricingLine[], discount: Cents): PricedBasket {
  lines.forEach(assertLine);
  const gross = lines.map((l) => l.qty * l.unit_price);
  const subtotal = gross.reduce((s, g) => s + g, 0);
  const shares = spread(Math.max(0, discount), gross);
  const priced: PricedLine[] = lines.map((l, i) => ({ ...l, gross: gross[i]!, discount: shares[i]!, total: gross[i]! - shares[i]! }));
  const total = priced.reduce((s, l) => s + l.total, 0);
  const by_vat_rate = vatGroupsOf(priced);
  return { lines: priced, subtotal, discount: subtotal - total, total, by_vat_rate, offers: [] };
}

/** A marketplace order's money as we book it: the goods priced with its promotion, and the fees and tip it collected. */
export interface PricedMarketplaceOrder extends PricedBasket {
  /** What was collected beyond the goods and the tip: the delivery fee (less a promotion that went beyond the goods), plus any other charge. */
  readonly fees: Cents;
  readonly tip: Cents;
}

/**
 * A marketplace order (its lines at its own prices, its delivery fee and tip, and `total`, what it
 * collected) as the transaction holds it, so that `goods + fees + tip = total` with every figure
 * non-negative, the VAT groups covering the goods:
 * - collected less than lines + fee + tip (a promotion): the shortfall comes off the goods first
 *   (`priceWithBasketDiscount`, capped at the subtotal), then off the delivery fee, then off the tip;
 * - collected more (a charge the order does not itemise, a service or bag fee): the rest is a fee.
 * Amounts are non-negative whole cents (`marketplaceOrderInRange`).
 */
export function priceMarketplaceOrder(lines: readonly PricingLine[], o: { readonly delivery_fee: Cents; readonly tip: Cents; readonly total: Cents }): PricedMarketplaceOrder {
  const gross = lines.reduce((s, l) => s + l.qty * l.unit_price, 0);
  const shortfall = gross + o.delivery_fee + o.tip - o.total;
  const priced = priceWithBasketDiscount(lines, shortfall);
  if (shortfall <= 0) return { ...priced, fees: o.delivery_fee - shortfall, tip: o.tip };
  let rest = shortfall - priced.discount;
  const feeOff = Math.min(rest, o.delivery_fee);
  rest -= feeOff;
  const tipOff = Math.min(rest, o.tip);
  return { ...priced, fees: o.delivery_fee - feeOff, tip: o.tip - tipOff };
}
