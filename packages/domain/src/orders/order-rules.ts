import type { FieldError } from '../field-error.ts';
import { MAX_CATALOG_PRICE } from '../money.ts';
import { REGISTER_PERMISSIONS, type RegisterPermission } from '../permissions.ts';
import { effectiveUnitPrice, modifierQty, unitDiscount, type LineDiscount, type OrderLine, type OrderModifier } from './line-totals.ts';
import { notOpenRefusal, type OrderState } from './order-state.ts';

/** Largest quantity on one line. */
export const MAX_LINE_QTY = 999;

// Upper bounds of what a register may send (cents): far above any real ticket; an order whose total
// would overflow the integer columns it is stored in is refused as a whole (MAX_ORDER_TOTAL, 422 on
// `lines`), never a 500.
/** Largest unit price of a line: the catalog's own bound (100,000.00), so every item the catalog prices sells on the register too. */
export const MAX_UNIT_PRICE = MAX_CATALOG_PRICE;
/** Largest price of one modifier unit: the catalog's bound, so every modifier the catalog prices sells on the register. */
export const MAX_MODIFIER_PRICE = MAX_CATALOG_PRICE;
/** Largest per-unit discount amount: 10,000.00. */
export const MAX_DISCOUNT_AMOUNT = 1_000_000;
/** Most modifiers on one line. */
export const MAX_LINE_MODIFIERS = 50;
/** Largest order total: 1,000,000.00 (well under the 2^31 of the transaction total column). */
export const MAX_ORDER_TOTAL = 100_000_000;
/** Longest texts on a line. */
export const MAX_ITEM_ID_LENGTH = 64;
export const MAX_PRICE_SOURCE_LENGTH = 40;
export const MAX_MODIFIER_ID_LENGTH = 64;
/** The catalog's bound on a name: a catalog modifier's name is copied onto the line. */
export const MAX_MODIFIER_NAME_LENGTH = 255;

/** The catalog value of `price_source`: the server takes the unit price from the item. */
export const CATALOG_PRICE_SOURCE = 'catalog';

/** The order-level bound (the sum of bounded lines can still be too much), or null. */
export function orderTotalProblem(total: number): FieldError | null {
  return total > MAX_ORDER_TOTAL ? { field: 'lines', message: `The order total may not exceed ${MAX_ORDER_TOTAL} cents.` } : null;
}

/** What `PUT /pos/orders/{clientUuid}` needs to know of the stored order. */
export interface StoredOrderView {
  readonly state: OrderState;
  readonly version: number;
  readonly fired: boolean;
  readonly lines: readonly OrderLine[];
}

export interface UpsertOptions {
  /** The body's `expected_version`; absent or null reads as 0 (a new order). */
  readonly expected_version?: number | null;
}

/**
 * The decision for an order upsert (kind-tagged; handle with an exhaustive switch).
 * `version` is the version to store (CONTRACTS 5: a new order is stored at 1; every accepted change adds 1).
 */
export type UpsertPlan =
  | { readonly kind: 'create'; readonly version: number }
  /** `lines_changed` is false when the lines sent equal the stored ones (other fields may still differ). */
  | { readonly kind: 'update'; readonly version: number; readonly lines_changed: boolean }
  /** An unfired order emptied of its lines becomes VOIDED; the bare resource is returned. */
  | { readonly kind: 'void'; readonly version: number }
  /** 409 business-rule conflict, `reason` `order_fired`, not retryable: a fired order cannot be emptied. */
  | { readonly kind: 'refuse'; readonly reason: 'order_fired'; readonly message: string }
  /** The stored order is SETTLED or VOIDED: nothing can change it. */
  | { readonly kind: 'refuse'; readonly reason: 'not_open'; readonly message: string; readonly state: OrderState }
  /** 409 `{message, current_version}`, `reason` `stale_version`: the client refetches, reapplies, retries once. */
  | { readonly kind: 'stale'; readonly reason: 'stale_version'; readonly message: string; readonly current_version: number };

export const ORDER_FIRED_MESSAGE = 'This order has been sent to the kitchen and cannot be emptied — void it instead.';
export const STALE_VERSION_MESSAGE = 'The order was changed on another register. Reload it and try again.';

/**
 * Decide a full-document upsert. Checks, in order:
 * 1. No stored order: `expected_version` must be 0 or absent (else stale with `current_version` 0);
 *    the order is created at version 1, even with no lines (an empty OPEN draft).
 * 2. Stored order not OPEN (SETTLED, VOIDED): refused `not_open` before the version check, because
 *    a terminal order cannot be changed and a refetch-and-retry would not help.
 * 3. `expected_version` (absent = 0) differs from the stored version: stale.
 * 4. No incoming lines: an unfired order is voided; a fired one is refused `order_fired`.
 * 5. Otherwise an update.
 */
export function planUpsert(stored: StoredOrderView | null, incoming: readonly OrderLine[], opts: UpsertOptions = {}): UpsertPlan {
  const expected = opts.expected_version ?? 0;
  if (stored === null) {
    if (expected !== 0) return { kind: 'stale', reason: 'stale_version', message: STALE_VERSION_MESSAGE, current_version: 0 };
    return { kind: 'create', version: 1 };
  }
  const refused = notOpenRefusal(stored.state);
  if (refused) return { kind: 'refuse', reason: 'not_open', message: refused.message, state: stored.state };
  if (expected !== stored.version) {
    return { kind: 'stale', reason: 'stale_version', message: STALE_VERSION_MESSAGE, current_version: stored.version };
  }
  if (incoming.length === 0) {
    if (stored.fired) return { kind: 'refuse', reason: 'order_fired', message: ORDER_FIRED_MESSAGE };
    return { kind: 'void', version: stored.version + 1 };
  }
  return { kind: 'update', version: stored.version + 1, lines_changed: !sameLines(stored.lines, incoming) };
}

/**
 * A line priced away from the catalog: a non-catalog `price_source` with a unit price other than the
 * item's. Selling below (or above) the catalog is a price change, guarded like a discount.
 */
export function isManualPrice(line: Pick<OrderLine, 'item_id' | 'unit_price' | 'price_source'>, catalogPrice: (itemId: string) => number | undefined): boolean {
  if (line.price_source === CATALOG_PRICE_SOURCE) return false;
  const listed = catalogPrice(line.item_id);
  return listed !== undefined && listed !== line.unit_price;
}

/** The catalog's price of a modifier of an item, or undefined when the modifier is not one of the item's. */
export type ModifierPriceOf = (itemId: string, modifierId: string) => number | undefined;

/**
 * A modifier priced away from the catalog: a catalog modifier (its `id` one of the item's) at a price
 * other than the catalog's, or a free one (no catalog price: a note or extra typed at the register)
 * carrying a price. Either makes the line's price differ from the catalog's, guarded like a discount.
 */
export function isManualModifier(itemId: string, m: OrderModifier, modifierPrice: ModifierPriceOf): boolean {
  const listed = typeof m.id === 'string' ? modifierPrice(itemId, m.id) : undefined;
  return listed === undefined ? m.price > 0 : listed !== m.price;
}

/** The same modifier at the same price (whatever its quantity). */
function samePricedModifier(a: OrderModifier, b: OrderModifier): boolean {
  return (a.id ?? null)?.toLowerCase() === (b.id ?? null)?.toLowerCase() && (a.name ?? null) === (b.name ?? null) && a.price === b.price;
}

/** The same modifier of a line (whatever its price or quantity): by id when it has one, else by name. */
const sameModifierOf = (a: OrderModifier, b: OrderModifier): boolean => (a.id ? (b.id ?? '').toLowerCase() === a.id.toLowerCase() : !b.id && (a.name ?? null) === (b.name ?? null));

/** How many of a modifier a line carries per unit: a modifier listed twice counts twice, each at its qty. */
const unitsOf = (mods: readonly OrderModifier[] | null | undefined, match: (n: OrderModifier) => boolean): number =>
  (mods ?? []).reduce((s, n) => (match(n) ? s + modifierQty(n) : s), 0);

/**
 * A paid modifier of the stored line removed or its quantity lowered: the line is lowered (the kitchen
 * already has it). Counted over every entry of the modifier, so two entries of it becoming one is a loss.
 */
const lostPaidModifier = (old: OrderLine, now: OrderLine): boolean =>
  (old.modifiers ?? []).some((m) => m.price > 0 && unitsOf(now.modifiers, (n) => sameModifierOf(m, n)) < unitsOf(old.modifiers, (o) => o.price > 0 && sameModifierOf(m, o)));

/** Two discounts are the same when both are absent, or type and value match. */
export function sameDiscount(a: LineDiscount | null | undefined, b: LineDiscount | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.type === b.type && a.value === b.value;
}

function sameModifier(a: OrderModifier, b: OrderModifier): boolean {
  return (a.id ?? null) === (b.id ?? null) && (a.name ?? null) === (b.name ?? null) && a.price === b.price && modifierQty(a) === modifierQty(b);
}

/** Line equality on every field that matters (key order, absent vs null vs default qty ignored). */
export function sameLine(a: OrderLine, b: OrderLine): boolean {
  const am = a.modifiers ?? [];
  const bm = b.modifiers ?? [];
  return (
    a.uuid === b.uuid &&
    a.item_id === b.item_id &&
    a.qty === b.qty &&
    a.unit_price === b.unit_price &&
    a.price_source === b.price_source &&
    sameDiscount(a.discount, b.discount) &&
    am.length === bm.length &&
    am.every((m, i) => sameModifier(m, bm[i] as OrderModifier))
  );
}

/** Same lines in the same order. */
export function sameLines(a: readonly OrderLine[], b: readonly OrderLine[]): boolean {
  return a.length === b.length && a.every((l, i) => sameLine(l, b[i] as OrderLine));
}

/** Cents taken off each unit (a pct discount grows with the modifiers). */
const discountPerUnit = (line: OrderLine): number => unitDiscount(effectiveUnitPrice(line), line.discount);

/**
 * The register permissions (CONTRACTS 2) an upsert needs, in catalogue order, without duplicates:
 * Line uuids are matched case-insensitively.
 * - `take_orders`, always;
 * - `apply_discount` when an incoming line carries a discount, a price away from the catalog
 *   (`isManualPrice`) or a manual modifier (`isManualModifier`) that the stored line with the same
 *   uuid does not already carry for the same item at a qty at least as high (and, for a discount, at
 *   least the same cents off each unit; for a modifier, as many at the same price, entries listing it
 *   twice added up): an approval covers what
 *   was approved, never another item or more units. Removing a discount, lowering the qty or keeping
 *   the line unchanged needs nothing;
 * - `remove_fired_line` when the stored order is fired and one of its lines is removed, has its qty
 *   lowered, loses a paid modifier (or some of its quantity), or has its `item_id` replaced (the kitchen already has the old item, so replacing it
 *   is removing it).
 */
export function requiredPermissions(
  stored: Pick<StoredOrderView, 'fired' | 'lines'> | null,
  incoming: readonly OrderLine[],
  catalogPrice: (itemId: string) => number | undefined = () => undefined,
  modifierPrice: ModifierPriceOf = () => undefined,
): RegisterPermission[] {
  const needed = new Set<RegisterPermission>(['take_orders']);
  const key = (uuid: string) => uuid.toLowerCase();
  const before = new Map((stored?.lines ?? []).map((l) => [key(l.uuid), l] as const));
  for (const line of incoming) {
    const old = before.get(key(line.uuid));
    // An approval covers the line it was given for: the same item at no more than the approved qty.
    const covered = old !== undefined && old.item_id === line.item_id && line.qty <= old.qty;
    if (line.discount && !(covered && sameDiscount(old.discount, line.discount) && discountPerUnit(line) <= discountPerUnit(old))) needed.add('apply_discount');
    if (isManualPrice(line, catalogPrice) && !(covered && old.unit_price === line.unit_price)) needed.add('apply_discount');
    for (const m of line.modifiers ?? []) {
      // Covered: the stored line carried at least as many of it at that price (entries and qty added up).
      const approved = covered && unitsOf(line.modifiers, (n) => samePricedModifier(n, m)) <= unitsOf(old.modifiers, (o) => samePricedModifier(o, m));
      if (isManualModifier(line.item_id, m, modifierPrice) && !approved) needed.add('apply_discount');
    }
  }
  if (stored?.fired) {
    const after = new Map(incoming.map((l) => [key(l.uuid), l] as const));
    for (const old of stored.lines) {
      const now = after.get(key(old.uuid));
      if (!now || now.qty < old.qty || now.item_id !== old.item_id || lostPaidModifier(old, now)) needed.add('remove_fired_line');
    }
  }
  return REGISTER_PERMISSIONS.filter((p) => needed.has(p));
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A UUID v4 in canonical 8-4-4-4-12 form: version nibble 4, variant nibble 8, 9, a or b (either case). */
export function isUuidV4(s: unknown): s is string {
  return typeof s === 'string' && UUID_V4.test(s);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** First failing rule for an integer in [min, max] (max optional), or null. */
function intError(field: string, v: unknown, min: number, max?: number): string | null {
  if (v === undefined || v === null) return `The ${field} field is required.`;
  if (!isInt(v)) return `The ${field} field must be an integer.`;
  if (max !== undefined && (v < min || v > max)) return `The ${field} field must be between ${min} and ${max}.`;
  if (v < min) return `The ${field} field must be at least ${min}.`;
  return null;
}

/**
 * Validate the `lines` of an order upsert; an empty result means valid. One error per field (the
 * first failing rule), fields as dot paths, messages in plain English:
 * - `lines` is an array of objects;
 * - `uuid` a UUID v4, unique among the lines (the repeat is reported);
 * - `item_id` a non-empty string of at most 64; `price_source` a string of at most 40;
 * - `qty` an integer 1..999; `unit_price` an integer 0..MAX_UNIT_PRICE;
 * - `modifiers` absent or an array of at most 50 objects with `price` an integer
 *   0..MAX_MODIFIER_PRICE, `qty` absent or an integer 1..999, `id` and `name` absent, null or
 *   strings (64 and 120 at most);
 * - `discount` absent, null, or `{type:'pct', value}` with a whole value 1..100, or
 *   `{type:'amount', value}` with an integer value 1..MAX_DISCOUNT_AMOUNT (cents).
 */
export function validateLines(lines: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const err = (field: string, message: string) => errors.push({ field, message });
  if (!Array.isArray(lines)) {
    err('lines', 'The lines field must be an array.');
    return errors;
  }
  const seen = new Set<string>();
  lines.forEach((line: unknown, i) => {
    const p = `lines.${i}`;
    if (!isObject(line)) {
      err(p, `The ${p} field must be an object.`);
      return;
    }
    if (!isUuidV4(line.uuid)) err(`${p}.uuid`, `The ${p}.uuid field must be a valid UUID v4.`);
    else {
      const key = line.uuid.toLowerCase();
      if (seen.has(key)) err(`${p}.uuid`, `The ${p}.uuid field has a duplicate value.`);
      seen.add(key);
    }
    if (typeof line.item_id !== 'string' || line.item_id.length === 0) err(`${p}.item_id`, `The ${p}.item_id field is required.`);
    else if (line.item_id.length > MAX_ITEM_ID_LENGTH) err(`${p}.item_id`, `The ${p}.item_id field must be at most ${MAX_ITEM_ID_LENGTH} characters.`);
    if (typeof line.price_source !== 'string') err(`${p}.price_source`, `The ${p}.price_source field must be a string.`);
    else if (line.price_source.length > MAX_PRICE_SOURCE_LENGTH) err(`${p}.price_source`, `The ${p}.price_source field must be at most ${MAX_PRICE_SOURCE_LENGTH} characters.`);
    const qty = intError(`${p}.qty`, line.qty, 1, MAX_LINE_QTY);
    if (qty) err(`${p}.qty`, qty);
    const price = intError(`${p}.unit_price`, line.unit_price, 0, MAX_UNIT_PRICE);
    if (price) err(`${p}.unit_price`, price);
    validateModifiers(line.modifiers, `${p}.modifiers`, err);
    validateDiscount(line.discount, `${p}.discount`, err);
  });
  return errors;
}

function validateModifiers(mods: unknown, p: string, err: (field: string, message: string) => void): void {
  if (mods === undefined || mods === null) return;
  if (!Array.isArray(mods)) {
    err(p, `The ${p} field must be an array.`);
    return;
  }
  if (mods.length > MAX_LINE_MODIFIERS) {
    err(p, `The ${p} field must have at most ${MAX_LINE_MODIFIERS} items.`);
    return;
  }
  mods.forEach((m: unknown, j) => {
    const mp = `${p}.${j}`;
    if (!isObject(m)) {
      err(mp, `The ${mp} field must be an object.`);
      return;
    }
    const price = intError(`${mp}.price`, m.price, 0, MAX_MODIFIER_PRICE);
    if (price) err(`${mp}.price`, price);
    if (m.qty !== undefined && m.qty !== null) {
      const q = intError(`${mp}.qty`, m.qty, 1, MAX_LINE_QTY);
      if (q) err(`${mp}.qty`, q);
    }
    for (const [k, max] of [['id', MAX_MODIFIER_ID_LENGTH], ['name', MAX_MODIFIER_NAME_LENGTH]] as const) {
      const v = m[k];
      if (v !== undefined && v !== null && typeof v !== 'string') err(`${mp}.${k}`, `The ${mp}.${k} field must be a string.`);
      else if (typeof v === 'string' && v.length > max) err(`${mp}.${k}`, `The ${mp}.${k} field must be at most ${max} characters.`);
    }
  });
}

function validateDiscount(d: unknown, p: string, err: (field: string, message: string) => void): void {
  if (d === undefined || d === null) return;
  if (!isObject(d)) {
    err(p, `The ${p} field must be an object.`);
    return;
  }
  if (d.type === 'pct') {
    const e = intError(`${p}.value`, d.value, 1, 100);
    if (e) err(`${p}.value`, e === `The ${p}.value field must be an integer.` ? `The ${p}.value field must be a whole percent.` : e);
  } else if (d.type === 'amount') {
    const e = intError(`${p}.value`, d.value, 1, MAX_DISCOUNT_AMOUNT);
    if (e) err(`${p}.value`, e);
  } else {
    err(`${p}.type`, `The ${p}.type field must be pct or amount.`);
  }
}
