import { describe, expect, test } from 'bun:test';
import { isOrderState, notOpenRefusal, ORDER_STATES, orderTransition } from './order-state.ts';

describe('order states', () => {
  test('the four states', () => {
    expect(ORDER_STATES).toEqual(['OPEN', 'SETTLING', 'SETTLED', 'VOIDED']);
    expect(isOrderState('SETTLING')).toBe(true);
    expect(isOrderState('OPEN')).toBe(true);
    expect(isOrderState('open')).toBe(false);
    expect(isOrderState('FIRED')).toBe(false);
    expect(isOrderState(undefined)).toBe(false);
  });

  test('fire: OPEN with lines; stays OPEN, fired true; refiring is allowed', () => {
    expect(orderTransition({ state: 'OPEN', fired: false, line_count: 2 }, 'fire')).toEqual({ kind: 'allowed', state: 'OPEN', fired: true });
    expect(orderTransition({ state: 'OPEN', fired: true, line_count: 1 }, 'fire')).toEqual({ kind: 'allowed', state: 'OPEN', fired: true });
    expect(orderTransition({ state: 'OPEN', fired: false, line_count: 0 }, 'fire')).toEqual({
      kind: 'refused',
      reason: 'empty_order',
      message: 'An order without lines cannot be sent to the kitchen.',
    });
  });

  test('settle and void: only OPEN', () => {
    expect(orderTransition({ state: 'OPEN', fired: true, line_count: 1 }, 'settle')).toEqual({ kind: 'allowed', state: 'SETTLED', fired: true });
    expect(orderTransition({ state: 'OPEN', fired: false, line_count: 1 }, 'void')).toEqual({ kind: 'allowed', state: 'VOIDED', fired: false });
    expect(orderTransition({ state: 'OPEN', fired: true, line_count: 1 }, 'void')).toEqual({ kind: 'allowed', state: 'VOIDED', fired: true });
  });

  test('nothing leaves SETTLED or VOIDED', () => {
    for (const action of ['fire', 'settle', 'void'] as const) {
      expect(orderTransition({ state: 'SETTLED', fired: true, line_count: 1 }, action)).toEqual({
        kind: 'refused',
        reason: 'not_open',
        message: 'This order is settled and can no longer be changed.',
      });
      expect(orderTransition({ state: 'VOIDED', fired: false, line_count: 1 }, action)).toEqual({
        kind: 'refused',
        reason: 'not_open',
        message: 'This order is voided and can no longer be changed.',
      });
    }
    expect(notOpenRefusal('OPEN')).toBeNull();
  });

  test('unknown actions and states throw', () => {
    expect(() => orderTransition({ state: 'OPEN', fired: false, line_count: 1 }, 'refund' as never)).toThrow(TypeError);
    expect(() => notOpenRefusal('FIRED' as never)).toThrow(TypeError);
  });

  test('SETTLING: entered from OPEN only, left only to SETTLED or back to OPEN; nothing else touches it', () => {
    expect(orderTransition({ state: 'OPEN', fired: true, line_count: 1 }, 'begin_settle')).toEqual({ kind: 'allowed', state: 'SETTLING', fired: true });
    expect(orderTransition({ state: 'SETTLING', fired: true, line_count: 1 }, 'finish_settle')).toEqual({ kind: 'allowed', state: 'SETTLED', fired: true });
    expect(orderTransition({ state: 'SETTLING', fired: false, line_count: 1 }, 'revert_settle')).toEqual({ kind: 'allowed', state: 'OPEN', fired: false });
    for (const action of ['fire', 'settle', 'void', 'begin_settle'] as const) {
      expect(orderTransition({ state: 'SETTLING', fired: false, line_count: 1 }, action)).toEqual({ kind: 'refused', reason: 'not_open', message: 'This order is being settled and can no longer be changed.' });
    }
    expect(orderTransition({ state: 'OPEN', fired: false, line_count: 1 }, 'finish_settle')).toMatchObject({ kind: 'refused', reason: 'not_open' });
    expect(orderTransition({ state: 'SETTLED', fired: false, line_count: 1 }, 'revert_settle')).toMatchObject({ kind: 'refused', reason: 'not_open' });
  });
});
