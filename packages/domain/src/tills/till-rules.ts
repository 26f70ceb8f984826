import type { FieldError } from '../field-error.ts';
import type { Cents } from '../money.ts';
import type { RegisterPermission } from '../permissions.ts';

/** How cash is held: a register's drawer, or a staff member's own wallet. */
/**
 * The largest amount of cash one till figure may state (an opening float, a movement, a count):
 * 100,000,000 cents, i.e. 1,000,000.00. The columns are bigint, so sums over many sales never overflow;
 * the bound keeps a typo of a few extra digits a 422 instead of a till nobody can count.
 */
export const MAX_TILL_CENTS: Cents = 100_000_000;

export const TILL_MODES = ['register_drawer', 'staff_wallet'] as const;
export type TillMode = (typeof TILL_MODES)[number];
export const isTillMode = (s: unknown): s is TillMode => s === 'register_drawer' || s === 'staff_wallet';

/** open -> ended (stops taking cash) -> closed (counted, frozen). */
export const TILL_STATES = ['open', 'ended', 'closed'] as const;
export type TillState = (typeof TILL_STATES)[number];

/**
 * The client convention of spec 2 section 3 for reading a stored or received till state: the
 * pre-rename `closing` is `ended`; an unknown or absent state is `open`.
 */
export function readTillState(raw: unknown): TillState {
  switch (raw) {
    case 'open':
    case 'ended':
    case 'closed':
      return raw;
    case 'closing':
      return 'ended';
    default:
      return 'open';
  }
}

export const TILL_MOVEMENT_TYPES = ['paid_in', 'paid_out', 'drawer_open_no_sale', 'float_issue', 'float_return'] as const;
export type TillMovementType = (typeof TILL_MOVEMENT_TYPES)[number];
const MOVEMENT_SET: ReadonlySet<string> = new Set(TILL_MOVEMENT_TYPES);
export const isTillMovementType = (s: unknown): s is TillMovementType => typeof s === 'string' && MOVEMENT_SET.has(s);

/**
 * Direction of a movement's cash relative to the drawer: +1 into it, -1 out of it, 0 none.
 * `float_issue` is float cash put INTO the drawer (e.g. a top-up from the safe); `float_return`
 * is float cash taken back OUT of it. `drawer_open_no_sale` opens the drawer and moves no money.
 */
export function movementDirection(type: TillMovementType): 1 | -1 | 0 {
  switch (type) {
    case 'paid_in':
    case 'float_issue':
      return 1;
    case 'paid_out':
    case 'float_return':
      return -1;
    case 'drawer_open_no_sale':
      return 0;
    default: {
      const never: never = type;
      throw new TypeError(`Unknown till movement ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The signed amount the server records for a movement request, whose `amount` is a positive
 * integer of cents (spec 2: "the server signs by direction"): `paid_in` and `float_issue` +,
 * `paid_out` and `float_return` -. `drawer_open_no_sale` moves no money: its amount must be 0 or
 * absent and the result is 0. Throws RangeError for an amount `validateMovement` refuses.
 */
export function signedMovementAmount(type: TillMovementType, positiveCents?: Cents | null): Cents {
  const dir = movementDirection(type);
  if (dir === 0) {
    if (positiveCents !== undefined && positiveCents !== null && positiveCents !== 0) {
      throw new RangeError(`A ${type} movement carries no amount, got ${positiveCents}`);
    }
    return 0;
  }
  if (!Number.isSafeInteger(positiveCents) || (positiveCents as number) < 1) {
    throw new RangeError(`A ${type} movement needs a positive integer amount of cents, got ${positiveCents}`);
  }
  return dir * (positiveCents as number);
}

/**
 * The permission a movement needs beyond the till session: cash going out (`paid_out`, and
 * `float_return`, which takes cash out all the same) -> `till_paid_out`, no-sale -> `no_sale`.
 */
export function movementPermission(type: TillMovementType): RegisterPermission | null {
  switch (type) {
    case 'paid_out':
    case 'float_return':
      return 'till_paid_out';
    case 'drawer_open_no_sale':
      return 'no_sale';
    case 'paid_in':
    case 'float_issue':
      return null;
    default: {
      const never: never = type;
      throw new TypeError(`Unknown till movement ${JSON.stringify(never)}`);
    }
  }
}

/** Validate a movement body `{type, amount, reason?}` (see `signedMovementAmount` for the amount rule). */
export function validateMovement(body: { readonly type?: unknown; readonly amount?: unknown; readonly reason?: unknown }): FieldError[] {
  const errors: FieldError[] = [];
  if (!isTillMovementType(body.type)) {
    errors.push({ field: 'type', message: `The type field must be one of ${TILL_MOVEMENT_TYPES.join(', ')}.` });
  } else if (movementDirection(body.type) === 0) {
    if (body.amount !== undefined && body.amount !== null && body.amount !== 0) {
      errors.push({ field: 'amount', message: 'The amount field must be 0 or absent when the drawer is opened without a sale.' });
    }
  } else if (body.amount === undefined || body.amount === null) {
    errors.push({ field: 'amount', message: 'The amount field is required.' });
  } else if (typeof body.amount !== 'number' || !Number.isSafeInteger(body.amount)) {
    errors.push({ field: 'amount', message: 'The amount field must be an integer.' });
  } else if (body.amount < 1) {
    errors.push({ field: 'amount', message: 'The amount field must be at least 1.' });
  } else if (body.amount > MAX_TILL_CENTS) {
    errors.push({ field: 'amount', message: `The amount field may not be greater than ${MAX_TILL_CENTS}.` });
  }
  if (body.reason !== undefined && body.reason !== null && typeof body.reason !== 'string') {
    errors.push({ field: 'reason', message: 'The reason field must be a string.' });
  }
  return errors;
}

/** A recorded movement. `amount` may be the positive request amount or the already signed one: the type decides the sign. */
export interface TillMovement {
  readonly type: TillMovementType;
  readonly amount?: Cents | null;
}

export interface ExpectedCashInput {
  readonly opening_float: Cents;
  /** Cash taken on sales minus change given (the rounded cash legs). */
  readonly cash_sales_net: Cents;
  /** Cash handed back on refunds, as a magnitude (a signed negative value is read the same). */
  readonly refunds_cash: Cents;
  readonly movements: readonly TillMovement[];
}

/**
 * The cash the drawer should hold: opening float + net cash sales - cash refunds + movements signed
 * by direction (a no-sale counts 0 whatever amount it carries).
 */
export function expectedCash(input: ExpectedCashInput): Cents {
  let cash = input.opening_float + input.cash_sales_net - Math.abs(input.refunds_cash);
  for (const m of input.movements) cash += movementDirection(m.type) * Math.abs(m.amount ?? 0);
  return cash;
}

export type VarianceLevel = 'none' | 'minor' | 'major' | 'critical';

/** Upper bounds (inclusive, cents of |variance|) of the `minor` and `major` levels. */
export const VARIANCE_THRESHOLDS = { minor: 200, major: 1000 } as const;

/**
 * Variance level of `counted - expected` by magnitude (over or short alike):
 * 0 -> `none`; up to 2.00 -> `minor`; up to 10.00 -> `major`; above 10.00 -> `critical`.
 */
export function varianceLevel(variance: Cents): VarianceLevel {
  const v = Math.abs(variance);
  if (v === 0) return 'none';
  if (v <= VARIANCE_THRESHOLDS.minor) return 'minor';
  if (v <= VARIANCE_THRESHOLDS.major) return 'major';
  return 'critical';
}

/** Closing a till whose variance is `major` or `critical` needs `close_till` (CONTRACTS 2). */
export function requiresApproval(level: VarianceLevel): boolean {
  switch (level) {
    case 'none':
    case 'minor':
      return false;
    case 'major':
    case 'critical':
      return true;
    default: {
      const never: never = level;
      throw new TypeError(`Unknown variance level ${JSON.stringify(never)}`);
    }
  }
}

/** The flat variance block of the count and close responses (spec 2 till rule 3). */
export interface CountResult {
  readonly expected: Cents;
  readonly counted: Cents;
  readonly variance: Cents;
  readonly variance_level: VarianceLevel;
  readonly requires_approval: boolean;
  /** `close_till` when approval is required, else null. */
  readonly approval_permission: 'close_till' | null;
}

/**
 * The count outcome: variance = counted - expected (positive = over, negative = short). `flagged` is
 * the till's flagged variance (`flaggedVariance`): once a count needing approval showed the expected
 * cash, every later count of the till needs the approval too (the count is no longer blind).
 */
export function countResult(expected: Cents, counted: Cents, flagged: Cents | null = null): CountResult {
  const variance = counted - expected;
  const variance_level = varianceLevel(variance);
  const requires_approval = requiresApproval(variance_level) || flagged !== null;
  return { expected, counted, variance, variance_level, requires_approval, approval_permission: requires_approval ? 'close_till' : null };
}

/** The till's flagged variance after a count: the first one whose own variance needed approval; kept once set. */
export function flaggedVariance(previous: Cents | null, count: Pick<CountResult, 'variance' | 'variance_level'>): Cents | null {
  if (previous !== null) return previous;
  return requiresApproval(count.variance_level) ? count.variance : null;
}

/**
 * The count is blind: the expected cash is shown only once a count was entered. Returns `expected`
 * when `counted` is a number, else null (hide it).
 */
export function visibleExpected(counted: Cents | null | undefined, expected: Cents): Cents | null {
  return typeof counted === 'number' ? expected : null;
}

/** Count body (`{counted}` required integer >= 0; the deprecated `counted_close` only when `counted` is absent). */
export function readCountBody(body: { readonly counted?: unknown; readonly counted_close?: unknown }):
  | { readonly kind: 'ok'; readonly counted: Cents; readonly deprecated: boolean }
  | { readonly kind: 'invalid'; readonly errors: FieldError[] } {
  const useDeprecated = body.counted === undefined && body.counted_close !== undefined;
  const v = useDeprecated ? body.counted_close : body.counted;
  const fail = (message: string) => ({ kind: 'invalid' as const, errors: [{ field: 'counted', message }] });
  if (v === undefined || v === null) return fail('The counted field is required.');
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) return fail('The counted field must be an integer.');
  if (v < 0) return fail('The counted field must be at least 0.');
  if (v > MAX_TILL_CENTS) return fail(`The counted field may not be greater than ${MAX_TILL_CENTS}.`);
  return { kind: 'ok', counted: v, deprecated: useDeprecated };
}

export type TillAction = 'movement' | 'end' | 'count' | 'close';

/** What the transitions look at: the state and whether a count was entered. */
export interface TillView {
  readonly state: TillState;
  readonly counted: boolean;
}

export type TillRefusalReason = 'till_not_open' | 'till_not_ended' | 'till_not_counted' | 'till_closed';

export type TillTransition =
  | { readonly kind: 'allowed'; readonly state: TillState }
  | { readonly kind: 'refused'; readonly reason: TillRefusalReason; readonly message: string };

const refuse = (reason: TillRefusalReason, message: string): TillTransition => ({ kind: 'refused', reason, message });

/**
 * Till transitions:
 * - `movement` (and taking cash on sales): only while open;
 * - `end`: open -> ended;
 * - `count`: only while ended (a recount before closing replaces the count); stays ended;
 * - `close`: ended and counted -> closed. An open till cannot be closed directly: it must be
 *   ended and counted first (blind count), so no till is ever closed without a count.
 * A closed till is frozen: every action is refused.
 */
export function tillTransition(till: TillView, action: TillAction): TillTransition {
  if (till.state === 'closed') return refuse('till_closed', 'This till is closed.');
  switch (action) {
    case 'movement':
      return till.state === 'open' ? { kind: 'allowed', state: 'open' } : refuse('till_not_open', 'This till has ended and no longer takes cash.');
    case 'end':
      return till.state === 'open' ? { kind: 'allowed', state: 'ended' } : refuse('till_not_open', 'This till has already ended.');
    case 'count':
      return till.state === 'ended' ? { kind: 'allowed', state: 'ended' } : refuse('till_not_ended', 'End the till before counting it.');
    case 'close':
      if (till.state !== 'ended') return refuse('till_not_ended', 'End and count the till before closing it.');
      if (!till.counted) return refuse('till_not_counted', 'Count the till before closing it.');
      return { kind: 'allowed', state: 'closed' };
    default: {
      const never: never = action;
      throw new TypeError(`Unknown till action ${JSON.stringify(never)}`);
    }
  }
}

/** Where a till's cash lives: a drawer (register_drawer) or a staff member (staff_wallet). */
export type Receptacle = { readonly kind: 'drawer'; readonly id: string } | { readonly kind: 'staff'; readonly id: string };

/**
 * The receptacle of a till: the drawer for `register_drawer`, the staff member for `staff_wallet`.
 * Null for a register_drawer till without a drawer id (the server must pick or offer candidates).
 */
export function receptacleOf(mode: TillMode, ids: { readonly drawer_id?: string | null; readonly staff_id: string }): Receptacle | null {
  switch (mode) {
    case 'register_drawer':
      return ids.drawer_id ? { kind: 'drawer', id: ids.drawer_id } : null;
    case 'staff_wallet':
      return { kind: 'staff', id: ids.staff_id };
    default: {
      const never: never = mode;
      throw new TypeError(`Unknown till mode ${JSON.stringify(never)}`);
    }
  }
}

/** An existing till as the conflict rule sees it. */
export interface ExistingTill {
  readonly id: string;
  readonly receptacle: Receptacle;
  readonly state: TillState;
}

const sameReceptacle = (a: Receptacle, b: Receptacle) => a.kind === b.kind && a.id === b.id;

/** A till holds its receptacle until it is closed: open, or ended but not closed. */
export const holdsReceptacle = (state: TillState): boolean => state !== 'closed';

/**
 * The till that blocks opening a new one on `receptacle` (409 `till_conflict`), or null: any other
 * till on the same receptacle that is open, or ended and not yet closed.
 */
export function receptacleConflict(receptacle: Receptacle, existing: readonly ExistingTill[]): ExistingTill | null {
  return existing.find((t) => holdsReceptacle(t.state) && sameReceptacle(t.receptacle, receptacle)) ?? null;
}

/** Drawer ids (input order kept) that no unclosed till holds: the candidates of a 409 till conflict. */
export function freeDrawers(drawerIds: readonly string[], existing: readonly ExistingTill[]): string[] {
  return drawerIds.filter((id) => receptacleConflict({ kind: 'drawer', id }, existing) === null);
}
