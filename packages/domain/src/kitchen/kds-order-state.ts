/**
 * The kitchen-display order state machine (spec 1 section 3, "KDS order"). Pure: a use case asks it
 * what an action does to a kitchen order in a given state and writes the answer. Three answers:
 * - `accepted`: the order becomes `next` (status and flags); `stamps` names the state-change times the
 *   caller records (metrics and reports are computed from them);
 * - `unchanged`: the action is already true of the order (a second tap, a retried request); nothing
 *   to write, the caller answers success;
 * - `refused`: an explicit refusal, HTTP 409 with a stable `reason` and the client message.
 *
 * Statuses: `Queued` -> `In Progress` -> `Ready` -> `Complete`; a cook may skip steps forwards (bump
 * straight to ready or complete) and move a `Ready` order back to `In Progress`. Hold and priority are
 * flags beside the status. Recall brings a completed order back to `Ready` within a time limit, never
 * a cancelled order's.
 * The refusal rules are written in docs/decisions.md, "Kitchen display".
 */
export const KDS_ORDER_STATUSES = ['Queued', 'In Progress', 'Ready', 'Complete'] as const;
export type KdsOrderStatus = (typeof KDS_ORDER_STATUSES)[number];

export const KDS_ORDER_ACTIONS = ['in-progress', 'ready', 'complete', 'hold', 'release', 'prioritize', 'unprioritize', 'recall'] as const;
export type KdsOrderAction = (typeof KDS_ORDER_ACTIONS)[number];

export function isKdsOrderStatus(s: string): s is KdsOrderStatus {
  return (KDS_ORDER_STATUSES as readonly string[]).includes(s);
}

export function isKdsOrderAction(s: string): s is KdsOrderAction {
  return (KDS_ORDER_ACTIONS as readonly string[]).includes(s);
}

export interface KdsOrderState {
  readonly status: KdsOrderStatus;
  readonly held: boolean;
  readonly prioritized: boolean;
  /** When the order last became `Complete` (epoch ms); null while it is not complete. */
  readonly completedAt: number | null;
  /**
   * The paid order behind the ticket was cancelled after it reached the kitchen (a marketplace
   * cancelling it: its tickets were withdrawn, completed). Nothing is to be cooked, so it is never
   * recalled onto the screens.
   */
  readonly orderCancelled?: boolean;
}

/** Default recall window: a completed order may be recalled for 30 minutes. */
export const DEFAULT_RECALL_WINDOW_MS = 30 * 60 * 1000;

export type KdsRefusalReason = 'order_held' | 'order_complete' | 'order_ready' | 'order_not_complete' | 'recall_window_passed' | 'order_cancelled';

export const KDS_REFUSALS: Readonly<Record<KdsRefusalReason, { status: 409; message: string }>> = {
  order_held: { status: 409, message: 'This order is on hold. Release it first.' },
  order_complete: { status: 409, message: 'This order is complete. Recall it first.' },
  order_ready: { status: 409, message: 'This order is ready and cannot be put on hold.' },
  order_not_complete: { status: 409, message: 'Only a completed order can be recalled.' },
  recall_window_passed: { status: 409, message: 'This order was completed too long ago to be recalled.' },
  order_cancelled: { status: 409, message: 'This order was cancelled and cannot be recalled.' },
};

/** Which state-change time an accepted action records. */
export type KdsStamp = 'started' | 'ready' | 'completed' | 'recalled';

export type KdsDecision =
  | { readonly kind: 'accepted'; readonly next: KdsOrderState; readonly stamps: readonly KdsStamp[] }
  | { readonly kind: 'unchanged'; readonly state: KdsOrderState }
  | { readonly kind: 'refused'; readonly status: 409; readonly reason: KdsRefusalReason; readonly message: string };

export interface KdsTransitionOptions {
  /** Now, epoch ms (the recall window is measured against it). */
  readonly now: number;
  /** How long after completion an order may be recalled; defaults to DEFAULT_RECALL_WINDOW_MS. */
  readonly recallWindowMs?: number;
}

const refuse = (reason: KdsRefusalReason): KdsDecision => ({ kind: 'refused', reason, ...KDS_REFUSALS[reason] });
const unchanged = (state: KdsOrderState): KdsDecision => ({ kind: 'unchanged', state });
const accept = (next: KdsOrderState, stamps: readonly KdsStamp[] = []): KdsDecision => ({ kind: 'accepted', next, stamps });

/** Decides one action on a kitchen order. Exhaustive over actions and statuses. */
export function kdsOrderTransition(state: KdsOrderState, action: KdsOrderAction, opts: KdsTransitionOptions): KdsDecision {
  const { status, held } = state;
  // A completed order takes nothing but `complete` (already true) and `recall`.
  if (status === 'Complete' && action !== 'complete' && action !== 'recall') return refuse('order_complete');
  switch (action) {
    case 'in-progress':
      if (status === 'In Progress') return unchanged(state);
      if (held) return refuse('order_held');
      // Queued -> In Progress starts the clock; Ready -> In Progress is a cook taking it back.
      return accept({ ...state, status: 'In Progress' }, status === 'Queued' ? ['started'] : []);
    case 'ready':
      if (status === 'Ready') return unchanged(state);
      if (held) return refuse('order_held');
      return accept({ ...state, status: 'Ready' }, status === 'Queued' ? ['started', 'ready'] : ['ready']);
    case 'complete':
      if (status === 'Complete') return unchanged(state);
      if (held) return refuse('order_held');
      return accept(
        { ...state, status: 'Complete', completedAt: opts.now },
        status === 'Queued' ? ['started', 'ready', 'completed'] : status === 'In Progress' ? ['ready', 'completed'] : ['completed'],
      );
    case 'hold':
      if (held) return unchanged(state);
      if (status === 'Ready') return refuse('order_ready');
      return accept({ ...state, held: true });
    case 'release':
      return held ? accept({ ...state, held: false }) : unchanged(state);
    case 'prioritize':
      return state.prioritized ? unchanged(state) : accept({ ...state, prioritized: true });
    case 'unprioritize':
      return state.prioritized ? accept({ ...state, prioritized: false }) : unchanged(state);
    case 'recall': {
      if (status !== 'Complete') return refuse('order_not_complete');
      if (state.orderCancelled) return refuse('order_cancelled');
      const window = opts.recallWindowMs ?? DEFAULT_RECALL_WINDOW_MS;
      if (state.completedAt === null || opts.now - state.completedAt > window) return refuse('recall_window_passed');
      return accept({ ...state, status: 'Ready', completedAt: null }, ['recalled']);
    }
  }
}

/** True while the order belongs on the kitchen screen (not complete). */
export function isOpenKdsOrder(state: Pick<KdsOrderState, 'status'>): boolean {
  return state.status !== 'Complete';
}

/**
 * The order's status from the statuses of its kitchen tickets (one per station and fire): every ticket
 * complete is `Complete`, every ticket ready or complete is `Ready`, any ticket started is `In Progress`,
 * else `Queued` (the rule of the register's channel-order stream). Null without tickets.
 */
export function orderStatusOfTickets(statuses: readonly KdsOrderStatus[]): KdsOrderStatus | null {
  if (!statuses.length) return null;
  if (statuses.every((s) => s === 'Complete')) return 'Complete';
  if (statuses.every((s) => s === 'Ready' || s === 'Complete')) return 'Ready';
  if (statuses.some((s) => s !== 'Queued')) return 'In Progress';
  return 'Queued';
}

/** Item marks (`PUT /kds/mark-item`, `/kds/mark-modifier`): a line or modifier is pending or done. */
export const KDS_ITEM_STATUSES = ['Queued', 'In Progress', 'Ready'] as const;
export type KdsItemStatus = (typeof KDS_ITEM_STATUSES)[number];

/**
 * Marking a line of an order: refused on a completed or held order (same reasons as the order
 * actions); `unchanged` when the mark is already set. Marking the first line of a `Queued` order
 * `In Progress` or `Ready` starts the order (`orderNext` is `In Progress`); marking does not by itself
 * make the order ready: the cook bumps the order.
 */
export type KdsItemDecision =
  | { readonly kind: 'accepted'; readonly next: KdsItemStatus; readonly orderNext: KdsOrderStatus | null }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'refused'; readonly status: 409; readonly reason: KdsRefusalReason; readonly message: string };

export function kdsMarkItem(order: KdsOrderState, current: KdsItemStatus, target: KdsItemStatus): KdsItemDecision {
  if (order.status === 'Complete') return { kind: 'refused', reason: 'order_complete', ...KDS_REFUSALS.order_complete };
  if (order.held) return { kind: 'refused', reason: 'order_held', ...KDS_REFUSALS.order_held };
  if (current === target) return { kind: 'unchanged' };
  const starts = order.status === 'Queued' && target !== 'Queued';
  return { kind: 'accepted', next: target, orderNext: starts ? 'In Progress' : null };
}
