import { describe, expect, test } from 'bun:test';
import {
  DEFAULT_RECALL_WINDOW_MS,
  KDS_ITEM_STATUSES,
  KDS_ORDER_ACTIONS,
  orderStatusOfTickets,
  KDS_ORDER_STATUSES,
  KDS_REFUSALS,
  isKdsOrderAction,
  isKdsOrderStatus,
  isOpenKdsOrder,
  kdsMarkItem,
  kdsOrderTransition,
  type KdsOrderAction,
  type KdsOrderState,
  type KdsOrderStatus,
} from './kds-order-state.ts';

const NOW = 1_800_000_000_000;
const state = (status: KdsOrderStatus, held = false, prioritized = false, completedAgoMs = 60_000): KdsOrderState => ({
  status,
  held,
  prioritized,
  completedAt: status === 'Complete' ? NOW - completedAgoMs : null,
});

/** What an action gives: a status (with flags `+H` held, `+P` prioritized), `=` unchanged, or a refusal reason. */
function outcome(s: KdsOrderState, a: KdsOrderAction): string {
  const d = kdsOrderTransition(s, a, { now: NOW });
  if (d.kind === 'refused') return d.reason;
  if (d.kind === 'unchanged') return '=';
  return d.next.status + (d.next.held ? '+H' : '') + (d.next.prioritized ? '+P' : '');
}

// Rows: the order's state (status, held?). Prioritized orders are covered separately (the flag is orthogonal).
type Key = `${KdsOrderStatus}${'' | '+H'}`;
const EXPECTED: Record<KdsOrderAction, Record<Key, string>> = {
  'in-progress': { Queued: 'In Progress', 'Queued+H': 'order_held', 'In Progress': '=', 'In Progress+H': '=', Ready: 'In Progress', 'Ready+H': 'order_held', Complete: 'order_complete', 'Complete+H': 'order_complete' },
  ready: { Queued: 'Ready', 'Queued+H': 'order_held', 'In Progress': 'Ready', 'In Progress+H': 'order_held', Ready: '=', 'Ready+H': '=', Complete: 'order_complete', 'Complete+H': 'order_complete' },
  complete: { Queued: 'Complete', 'Queued+H': 'order_held', 'In Progress': 'Complete', 'In Progress+H': 'order_held', Ready: 'Complete', 'Ready+H': 'order_held', Complete: '=', 'Complete+H': '=' },
  hold: { Queued: 'Queued+H', 'Queued+H': '=', 'In Progress': 'In Progress+H', 'In Progress+H': '=', Ready: 'order_ready', 'Ready+H': '=', Complete: 'order_complete', 'Complete+H': 'order_complete' },
  release: { Queued: '=', 'Queued+H': 'Queued', 'In Progress': '=', 'In Progress+H': 'In Progress', Ready: '=', 'Ready+H': 'Ready', Complete: 'order_complete', 'Complete+H': 'order_complete' },
  prioritize: { Queued: 'Queued+P', 'Queued+H': 'Queued+H+P', 'In Progress': 'In Progress+P', 'In Progress+H': 'In Progress+H+P', Ready: 'Ready+P', 'Ready+H': 'Ready+H+P', Complete: 'order_complete', 'Complete+H': 'order_complete' },
  unprioritize: { Queued: '=', 'Queued+H': '=', 'In Progress': '=', 'In Progress+H': '=', Ready: '=', 'Ready+H': '=', Complete: 'order_complete', 'Complete+H': 'order_complete' },
  recall: { Queued: 'order_not_complete', 'Queued+H': 'order_not_complete', 'In Progress': 'order_not_complete', 'In Progress+H': 'order_not_complete', Ready: 'order_not_complete', 'Ready+H': 'order_not_complete', Complete: 'Ready', 'Complete+H': 'Ready+H' },
};

describe('kdsOrderTransition: every action from every state', () => {
  for (const action of KDS_ORDER_ACTIONS) {
    for (const status of KDS_ORDER_STATUSES) {
      for (const held of [false, true]) {
        const key = `${status}${held ? '+H' : ''}` as Key;
        test(`${key} + ${action} -> ${EXPECTED[action][key]}`, () => {
          expect(outcome(state(status, held), action)).toBe(EXPECTED[action][key]);
        });
      }
    }
  }
});

describe('kdsOrderTransition: the priority flag is orthogonal', () => {
  for (const action of KDS_ORDER_ACTIONS) {
    for (const status of KDS_ORDER_STATUSES) {
      for (const held of [false, true]) {
        test(`${status}${held ? '+H' : ''}+P + ${action}`, () => {
          const plain = kdsOrderTransition(state(status, held, false), action, { now: NOW });
          const prio = kdsOrderTransition(state(status, held, true), action, { now: NOW });
          if (action === 'prioritize') {
            // already prioritized: unchanged wherever the plain order was accepted
            expect(prio.kind).toBe(plain.kind === 'accepted' ? 'unchanged' : plain.kind);
          } else if (action === 'unprioritize') {
            if (status === 'Complete') expect(prio.kind).toBe('refused');
            else {
              expect(prio.kind).toBe('accepted');
              if (prio.kind === 'accepted') expect(prio.next).toEqual({ ...state(status, held, false) });
            }
          } else {
            expect(prio.kind).toBe(plain.kind);
            if (prio.kind === 'accepted' && plain.kind === 'accepted') {
              expect(prio.next).toEqual({ ...plain.next, prioritized: true });
              expect(prio.stamps).toEqual(plain.stamps);
            }
          }
        });
      }
    }
  }
});

describe('kdsOrderTransition: refusals', () => {
  test('a refusal is a 409 with the stable reason and message', () => {
    expect(kdsOrderTransition(state('Queued', true), 'ready', { now: NOW })).toEqual({
      kind: 'refused',
      status: 409,
      reason: 'order_held',
      message: 'This order is on hold. Release it first.',
    });
    for (const [reason, r] of Object.entries(KDS_REFUSALS)) {
      expect(r.status).toBe(409);
      expect(r.message.length).toBeGreaterThan(0);
      expect(reason).toMatch(/^[a-z_]+$/);
    }
  });
  test('recall inside the window goes back to Ready and clears the completion time', () => {
    const d = kdsOrderTransition(state('Complete', false, true, DEFAULT_RECALL_WINDOW_MS), 'recall', { now: NOW });
    expect(d).toEqual({ kind: 'accepted', next: { status: 'Ready', held: false, prioritized: true, completedAt: null }, stamps: ['recalled'] });
  });
  test('recall one millisecond after the window is refused', () => {
    expect(outcome(state('Complete', false, false, DEFAULT_RECALL_WINDOW_MS + 1), 'recall')).toBe('recall_window_passed');
  });
  test('the recall window is configurable', () => {
    const s = state('Complete', false, false, 5 * 60_000);
    expect(kdsOrderTransition(s, 'recall', { now: NOW, recallWindowMs: 10 * 60_000 }).kind).toBe('accepted');
    const d = kdsOrderTransition(s, 'recall', { now: NOW, recallWindowMs: 60_000 });
    expect(d.kind === 'refused' && d.reason).toBe('recall_window_passed');
  });
  test('a cancelled order (its tickets withdrawn) is never recalled, inside the window too', () => {
    const s = { ...state('Complete', false, false, 60_000), orderCancelled: true };
    expect(kdsOrderTransition(s, 'recall', { now: NOW })).toEqual({ kind: 'refused', status: 409, reason: 'order_cancelled', message: 'This order was cancelled and cannot be recalled.' });
    expect(outcome({ ...state('Complete', false, false, 60_000), orderCancelled: false }, 'recall')).toBe('Ready');
  });
  test('a complete order without a completion time cannot be recalled', () => {
    expect(outcome({ status: 'Complete', held: false, prioritized: false, completedAt: null }, 'recall')).toBe('recall_window_passed');
  });
});

describe('kdsOrderTransition: recorded times', () => {
  const stamps = (s: KdsOrderState, a: KdsOrderAction) => {
    const d = kdsOrderTransition(s, a, { now: NOW });
    return d.kind === 'accepted' ? d.stamps : null;
  };
  test('starting, readying and completing record their times, skipped steps included', () => {
    expect(stamps(state('Queued'), 'in-progress')).toEqual(['started']);
    expect(stamps(state('Ready'), 'in-progress')).toEqual([]);
    expect(stamps(state('Queued'), 'ready')).toEqual(['started', 'ready']);
    expect(stamps(state('In Progress'), 'ready')).toEqual(['ready']);
    expect(stamps(state('Queued'), 'complete')).toEqual(['started', 'ready', 'completed']);
    expect(stamps(state('In Progress'), 'complete')).toEqual(['ready', 'completed']);
    expect(stamps(state('Ready'), 'complete')).toEqual(['completed']);
    expect(stamps(state('Complete'), 'recall')).toEqual(['recalled']);
    expect(stamps(state('Queued'), 'hold')).toEqual([]);
    expect(stamps(state('Queued'), 'prioritize')).toEqual([]);
  });
  test('complete sets completedAt to now', () => {
    const d = kdsOrderTransition(state('Ready'), 'complete', { now: NOW });
    expect(d.kind === 'accepted' && d.next.completedAt).toBe(NOW);
  });
  test('a full service: queued, started, ready, complete, recalled, complete again', () => {
    let s = state('Queued');
    for (const a of ['in-progress', 'ready', 'complete', 'recall', 'complete'] as const) {
      const d = kdsOrderTransition(s, a, { now: NOW });
      if (d.kind !== 'accepted') throw new Error(`${a} was ${d.kind}`);
      s = d.next;
    }
    expect(s).toEqual({ status: 'Complete', held: false, prioritized: false, completedAt: NOW });
  });
});

describe('kdsMarkItem', () => {
  test('every order state and item mark', () => {
    for (const status of KDS_ORDER_STATUSES) {
      for (const held of [false, true]) {
        for (const current of KDS_ITEM_STATUSES) {
          for (const target of KDS_ITEM_STATUSES) {
            const d = kdsMarkItem(state(status, held), current, target);
            if (status === 'Complete') expect(d.kind === 'refused' && d.reason).toBe('order_complete');
            else if (held) expect(d.kind === 'refused' && d.reason).toBe('order_held');
            else if (current === target) expect(d).toEqual({ kind: 'unchanged' });
            else expect(d).toEqual({ kind: 'accepted', next: target, orderNext: status === 'Queued' && target !== 'Queued' ? 'In Progress' : null });
          }
        }
      }
    }
  });
});

describe('guards', () => {
  test('status and action names', () => {
    expect(KDS_ORDER_STATUSES.every(isKdsOrderStatus)).toBe(true);
    expect(isKdsOrderStatus('complete')).toBe(false);
    expect(KDS_ORDER_ACTIONS.every(isKdsOrderAction)).toBe(true);
    expect(isKdsOrderAction('bump')).toBe(false);
    expect(isOpenKdsOrder({ status: 'Ready' })).toBe(true);
    expect(isOpenKdsOrder({ status: 'Complete' })).toBe(false);
  });
});

describe('orderStatusOfTickets', () => {
  test('an order with tickets at several stations follows the least advanced one, started by any', () => {
    expect(orderStatusOfTickets([])).toBeNull();
    expect(orderStatusOfTickets(['Queued', 'Queued'])).toBe('Queued');
    expect(orderStatusOfTickets(['Queued', 'In Progress'])).toBe('In Progress');
    expect(orderStatusOfTickets(['Ready', 'Queued'])).toBe('In Progress');
    expect(orderStatusOfTickets(['Ready', 'Complete'])).toBe('Ready');
    expect(orderStatusOfTickets(['Ready'])).toBe('Ready');
    expect(orderStatusOfTickets(['Complete', 'Complete'])).toBe('Complete');
  });
});
