import { describe, expect, test } from 'bun:test';
import { prng } from '../testing/prng.ts';
import {
  countResult,
  expectedCash,
  flaggedVariance,
  freeDrawers,
  isTillMode,
  movementPermission,
  readCountBody,
  readTillState,
  receptacleConflict,
  receptacleOf,
  requiresApproval,
  signedMovementAmount,
  tillTransition,
  TILL_MOVEMENT_TYPES,
  validateMovement,
  varianceLevel,
  visibleExpected,
  type ExistingTill,
  type VarianceLevel,
} from './till-rules.ts';

describe('readTillState', () => {
  test('client convention', () => {
    expect(readTillState('open')).toBe('open');
    expect(readTillState('ended')).toBe('ended');
    expect(readTillState('closed')).toBe('closed');
    expect(readTillState('closing')).toBe('ended');
    expect(readTillState('CLOSED')).toBe('open');
    expect(readTillState('suspended')).toBe('open');
    expect(readTillState(undefined)).toBe('open');
    expect(readTillState(null)).toBe('open');
    expect(readTillState(3)).toBe('open');
  });

  test('modes', () => {
    expect(isTillMode('register_drawer')).toBe(true);
    expect(isTillMode('staff_wallet')).toBe(true);
    expect(isTillMode('wallet')).toBe(false);
  });
});

describe('movements', () => {
  test('signed by direction', () => {
    expect(signedMovementAmount('paid_in', 500)).toBe(500);
    expect(signedMovementAmount('paid_out', 500)).toBe(-500);
    expect(signedMovementAmount('float_issue', 2000)).toBe(2000);
    expect(signedMovementAmount('float_return', 2000)).toBe(-2000);
    expect(signedMovementAmount('drawer_open_no_sale')).toBe(0);
    expect(signedMovementAmount('drawer_open_no_sale', 0)).toBe(0);
    expect(signedMovementAmount('drawer_open_no_sale', null)).toBe(0);
  });

  test('bad amounts throw', () => {
    expect(() => signedMovementAmount('drawer_open_no_sale', 100)).toThrow(RangeError);
    expect(() => signedMovementAmount('paid_in', 0)).toThrow(RangeError);
    expect(() => signedMovementAmount('paid_in', -5)).toThrow(RangeError);
    expect(() => signedMovementAmount('paid_out', 1.5)).toThrow(RangeError);
    expect(() => signedMovementAmount('paid_out')).toThrow(RangeError);
  });

  test('permissions', () => {
    expect(TILL_MOVEMENT_TYPES.map((t) => [t, movementPermission(t)])).toEqual([
      ['paid_in', null],
      ['paid_out', 'till_paid_out'],
      ['drawer_open_no_sale', 'no_sale'],
      ['float_issue', null],
      ['float_return', 'till_paid_out'],
    ]);
  });

  test('validateMovement', () => {
    expect(validateMovement({ type: 'paid_in', amount: 100, reason: 'tips' })).toEqual([]);
    expect(validateMovement({ type: 'drawer_open_no_sale' })).toEqual([]);
    expect(validateMovement({ type: 'drawer_open_no_sale', amount: 0 })).toEqual([]);
    expect(validateMovement({ type: 'drawer_open_no_sale', amount: 5 })).toEqual([
      { field: 'amount', message: 'The amount field must be 0 or absent when the drawer is opened without a sale.' },
    ]);
    expect(validateMovement({ type: 'paid_out' })).toEqual([{ field: 'amount', message: 'The amount field is required.' }]);
    expect(validateMovement({ type: 'paid_out', amount: '5' })).toEqual([{ field: 'amount', message: 'The amount field must be an integer.' }]);
    expect(validateMovement({ type: 'paid_out', amount: 0 })).toEqual([{ field: 'amount', message: 'The amount field must be at least 1.' }]);
    expect(validateMovement({ type: 'tip', amount: 1, reason: 5 })).toEqual([
      { field: 'type', message: 'The type field must be one of paid_in, paid_out, drawer_open_no_sale, float_issue, float_return.' },
      { field: 'reason', message: 'The reason field must be a string.' },
    ]);
  });
});

describe('expectedCash', () => {
  test('float + net cash sales - refunds + signed movements', () => {
    expect(
      expectedCash({
        opening_float: 10_000,
        cash_sales_net: 4_550,
        refunds_cash: 450,
        movements: [
          { type: 'paid_in', amount: 1_000 },
          { type: 'paid_out', amount: 300 },
          { type: 'drawer_open_no_sale' },
          { type: 'float_issue', amount: 5_000 },
          { type: 'float_return', amount: 2_000 },
        ],
      }),
    ).toBe(10_000 + 4_550 - 450 + 1_000 - 300 + 5_000 - 2_000);
  });

  test('already signed movement amounts and refunds read the same', () => {
    const positive = expectedCash({ opening_float: 0, cash_sales_net: 0, refunds_cash: 100, movements: [{ type: 'paid_out', amount: 300 }] });
    const signed = expectedCash({ opening_float: 0, cash_sales_net: 0, refunds_cash: -100, movements: [{ type: 'paid_out', amount: -300 }] });
    expect(positive).toBe(-400);
    expect(signed).toBe(-400);
  });
});

describe('variance', () => {
  test('levels at the thresholds', () => {
    const cases: [number, VarianceLevel][] = [
      [0, 'none'],
      [1, 'minor'],
      [-1, 'minor'],
      [200, 'minor'],
      [-200, 'minor'],
      [201, 'major'],
      [1000, 'major'],
      [-1000, 'major'],
      [1001, 'critical'],
      [-50_000, 'critical'],
    ];
    expect(cases.map(([v]) => [v, varianceLevel(v)])).toEqual(cases);
  });

  test('approval for major and critical', () => {
    expect(requiresApproval('none')).toBe(false);
    expect(requiresApproval('minor')).toBe(false);
    expect(requiresApproval('major')).toBe(true);
    expect(requiresApproval('critical')).toBe(true);
  });

  test('countResult', () => {
    expect(countResult(10_000, 9_500)).toEqual({
      expected: 10_000,
      counted: 9_500,
      variance: -500,
      variance_level: 'major',
      requires_approval: true,
      approval_permission: 'close_till',
    });
    expect(countResult(10_000, 10_150)).toEqual({
      expected: 10_000,
      counted: 10_150,
      variance: 150,
      variance_level: 'minor',
      requires_approval: false,
      approval_permission: null,
    });
  });

  test('a count needing approval flags its variance; later counts keep needing close_till', () => {
    const first = countResult(10_000, 8_000);
    expect(flaggedVariance(null, first)).toBe(-2_000);
    expect(flaggedVariance(null, countResult(10_000, 10_150))).toBeNull();
    const recount = countResult(10_000, 10_000, -2_000);
    expect(recount).toEqual({ expected: 10_000, counted: 10_000, variance: 0, variance_level: 'none', requires_approval: true, approval_permission: 'close_till' });
    expect(flaggedVariance(-2_000, recount)).toBe(-2_000);
    expect(flaggedVariance(-2_000, countResult(10_000, 12_000))).toBe(-2_000);
  });

  test('property: level is monotonic in |variance| and symmetric', () => {
    const order = ['none', 'minor', 'major', 'critical'];
    const r = prng(5);
    for (let i = 0; i < 2000; i++) {
      const a = r.int(0, 3000);
      const b = a + r.int(0, 3000);
      expect(order.indexOf(varianceLevel(a))).toBeLessThanOrEqual(order.indexOf(varianceLevel(b)));
      expect(varianceLevel(-a)).toBe(varianceLevel(a));
    }
  });

  test('blind count: expected hidden until counted', () => {
    expect(visibleExpected(null, 5000)).toBeNull();
    expect(visibleExpected(undefined, 5000)).toBeNull();
    expect(visibleExpected(0, 5000)).toBe(5000);
  });

  test('count body: counted, else deprecated counted_close', () => {
    expect(readCountBody({ counted: 100 })).toEqual({ kind: 'ok', counted: 100, deprecated: false });
    expect(readCountBody({ counted: 0, counted_close: 5 })).toEqual({ kind: 'ok', counted: 0, deprecated: false });
    expect(readCountBody({ counted_close: 5 })).toEqual({ kind: 'ok', counted: 5, deprecated: true });
    expect(readCountBody({})).toEqual({ kind: 'invalid', errors: [{ field: 'counted', message: 'The counted field is required.' }] });
    expect(readCountBody({ counted: -1 })).toEqual({ kind: 'invalid', errors: [{ field: 'counted', message: 'The counted field must be at least 0.' }] });
    expect(readCountBody({ counted: 1.5 })).toEqual({ kind: 'invalid', errors: [{ field: 'counted', message: 'The counted field must be an integer.' }] });
  });
});

describe('tillTransition', () => {
  test('open: movements and end; no count, no direct close', () => {
    const open = { state: 'open', counted: false } as const;
    expect(tillTransition(open, 'movement')).toEqual({ kind: 'allowed', state: 'open' });
    expect(tillTransition(open, 'end')).toEqual({ kind: 'allowed', state: 'ended' });
    expect(tillTransition(open, 'count')).toEqual({ kind: 'refused', reason: 'till_not_ended', message: 'End the till before counting it.' });
    expect(tillTransition(open, 'close')).toEqual({ kind: 'refused', reason: 'till_not_ended', message: 'End and count the till before closing it.' });
  });

  test('ended: count (and recount), close once counted, no cash', () => {
    const ended = { state: 'ended', counted: false } as const;
    expect(tillTransition(ended, 'movement')).toEqual({ kind: 'refused', reason: 'till_not_open', message: 'This till has ended and no longer takes cash.' });
    expect(tillTransition(ended, 'end')).toEqual({ kind: 'refused', reason: 'till_not_open', message: 'This till has already ended.' });
    expect(tillTransition(ended, 'count')).toEqual({ kind: 'allowed', state: 'ended' });
    expect(tillTransition(ended, 'close')).toEqual({ kind: 'refused', reason: 'till_not_counted', message: 'Count the till before closing it.' });
    expect(tillTransition({ state: 'ended', counted: true }, 'count')).toEqual({ kind: 'allowed', state: 'ended' });
    expect(tillTransition({ state: 'ended', counted: true }, 'close')).toEqual({ kind: 'allowed', state: 'closed' });
  });

  test('closed is frozen', () => {
    for (const action of ['movement', 'end', 'count', 'close'] as const) {
      expect(tillTransition({ state: 'closed', counted: true }, action)).toEqual({ kind: 'refused', reason: 'till_closed', message: 'This till is closed.' });
    }
  });
});

describe('receptacles', () => {
  const tills: ExistingTill[] = [
    { id: 't1', receptacle: { kind: 'drawer', id: 'd1' }, state: 'open' },
    { id: 't2', receptacle: { kind: 'drawer', id: 'd2' }, state: 'ended' },
    { id: 't3', receptacle: { kind: 'drawer', id: 'd3' }, state: 'closed' },
    { id: 't4', receptacle: { kind: 'staff', id: 's1' }, state: 'open' },
  ];

  test('receptacleOf', () => {
    expect(receptacleOf('register_drawer', { drawer_id: 'd1', staff_id: 's1' })).toEqual({ kind: 'drawer', id: 'd1' });
    expect(receptacleOf('register_drawer', { staff_id: 's1' })).toBeNull();
    expect(receptacleOf('staff_wallet', { drawer_id: 'd1', staff_id: 's1' })).toEqual({ kind: 'staff', id: 's1' });
  });

  test('open and ended-not-closed tills block their receptacle; closed ones do not', () => {
    expect(receptacleConflict({ kind: 'drawer', id: 'd1' }, tills)?.id).toBe('t1');
    expect(receptacleConflict({ kind: 'drawer', id: 'd2' }, tills)?.id).toBe('t2');
    expect(receptacleConflict({ kind: 'drawer', id: 'd3' }, tills)).toBeNull();
    expect(receptacleConflict({ kind: 'drawer', id: 'd4' }, tills)).toBeNull();
    expect(receptacleConflict({ kind: 'staff', id: 's1' }, tills)?.id).toBe('t4');
    expect(receptacleConflict({ kind: 'staff', id: 'd1' }, tills)).toBeNull();
    expect(receptacleConflict({ kind: 'drawer', id: 's1' }, tills)).toBeNull();
  });

  test('freeDrawers lists the candidates', () => {
    expect(freeDrawers(['d4', 'd1', 'd2', 'd3'], tills)).toEqual(['d4', 'd3']);
  });
});
