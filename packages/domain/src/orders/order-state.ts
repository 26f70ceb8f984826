/**
 * Register order states (spec 2 section 3). There is no fired state: `fired` is a flag on an OPEN
 * order. SETTLING is a settlement in flight with a remote fiscal module (tender frozen, sale not yet
 * signed): it ends SETTLED when the module signs, or OPEN again when it refuses. SETTLED and VOIDED
 * are terminal.
 */
export const ORDER_STATES = ['OPEN', 'SETTLING', 'SETTLED', 'VOIDED'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

const ORDER_STATE_SET: ReadonlySet<string> = new Set(ORDER_STATES);
export const isOrderState = (s: unknown): s is OrderState => typeof s === 'string' && ORDER_STATE_SET.has(s);

/**
 * What can happen to an order after it exists (the upsert itself is `planUpsert`). `settle` is the
 * whole settlement (OPEN -> SETTLED); with a remote module it runs in three steps: `begin_settle`
 * (OPEN -> SETTLING), then `finish_settle` (SETTLING -> SETTLED) or `revert_settle` (SETTLING -> OPEN).
 */
export type OrderAction = 'fire' | 'settle' | 'void' | 'begin_settle' | 'finish_settle' | 'revert_settle';

/** The part of an order the transitions look at. */
export interface OrderStateView {
  readonly state: OrderState;
  readonly fired: boolean;
  readonly line_count: number;
}

export type OrderRefusalReason = 'not_open' | 'empty_order';

export type OrderTransition =
  | { readonly kind: 'allowed'; readonly state: OrderState; readonly fired: boolean }
  | { readonly kind: 'refused'; readonly reason: OrderRefusalReason; readonly message: string };

const NOT_OPEN: Record<Exclude<OrderState, 'OPEN'>, string> = {
  SETTLING: 'This order is being settled and can no longer be changed.',
  SETTLED: 'This order is settled and can no longer be changed.',
  VOIDED: 'This order is voided and can no longer be changed.',
};

/** Refusal for any change to a non-OPEN order, or null when the order is OPEN. */
export function notOpenRefusal(state: OrderState): Extract<OrderTransition, { kind: 'refused' }> | null {
  switch (state) {
    case 'OPEN':
      return null;
    case 'SETTLING':
    case 'SETTLED':
    case 'VOIDED':
      return { kind: 'refused', reason: 'not_open', message: NOT_OPEN[state] };
    default: {
      const never: never = state;
      throw new TypeError(`Unknown order state ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The next state for an action, or a refusal:
 * - `fire`: only an OPEN order with at least one line; stays OPEN, `fired` becomes true. Firing an
 *   already fired order is allowed (it sends lines added since), `fired` stays true.
 * - `settle`: only OPEN -> SETTLED (the tender rules decide whether the legs cover the total; an
 *   empty order has total 0 and is left to them). `fired` is kept.
 * - `void`: only OPEN -> VOIDED, fired or not (the route needs `void_order`).
 * - `begin_settle`: OPEN -> SETTLING; `finish_settle` SETTLING -> SETTLED; `revert_settle` SETTLING -> OPEN.
 * A SETTLING order takes no other change (409 `not_open`).
 */
export function orderTransition(order: OrderStateView, action: OrderAction): OrderTransition {
  if (action === 'finish_settle' || action === 'revert_settle') {
    if (order.state !== 'SETTLING') return notOpenRefusal(order.state) ?? { kind: 'refused', reason: 'not_open', message: 'This order is not being settled.' };
    return { kind: 'allowed', state: action === 'finish_settle' ? 'SETTLED' : 'OPEN', fired: order.fired };
  }
  const refused = notOpenRefusal(order.state);
  if (refused) return refused;
  switch (action) {
    case 'fire':
      if (order.line_count < 1) {
        return { kind: 'refused', reason: 'empty_order', message: 'An order without lines cannot be sent to the kitchen.' };
      }
      return { kind: 'allowed', state: 'OPEN', fired: true };
    case 'settle':
      return { kind: 'allowed', state: 'SETTLED', fired: order.fired };
    case 'begin_settle':
      return { kind: 'allowed', state: 'SETTLING', fired: order.fired };
    case 'void':
      return { kind: 'allowed', state: 'VOIDED', fired: order.fired };
    default: {
      const never: never = action;
      throw new TypeError(`Unknown order action ${JSON.stringify(never)}`);
    }
  }
}
