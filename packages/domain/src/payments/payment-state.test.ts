import { describe, expect, test } from 'bun:test';
import { PAYMENT_STATUSES, isPaymentStatus, paymentTransition, type PaymentEvent, type PaymentStatus } from './payment-state.ts';

type Row = Record<PaymentStatus, string>;
const EVENTS: Record<string, PaymentEvent> = {
  start: { kind: 'start' },
  free: { kind: 'capture_free' },
  auto: { kind: 'capture_auto_success' },
  marketplace: { kind: 'capture_marketplace' },
  succeeded: { kind: 'capture_provider', outcome: 'succeeded' },
  authorised: { kind: 'capture_provider', outcome: 'authorised' },
  processing: { kind: 'capture_provider', outcome: 'processing' },
  failed: { kind: 'capture_provider', outcome: 'failed' },
  aborted: { kind: 'capture_provider', outcome: 'aborted' },
  cancel: { kind: 'cancel' },
};

// "=" means unchanged (no write, success answered); a status name means accepted to it; else the refusal reason.
const EXPECTED: Record<keyof typeof EVENTS, Row> = {
  start: { Pending: 'Awaiting Payment', 'Awaiting Payment': 'Awaiting Payment', 'Awaiting Capture': 'payment_authorised', 'Awaiting Invoice': 'payment_invoiced', Complete: 'payment_complete', Unpaid: 'Awaiting Payment', Cancelled: 'payment_cancelled' },
  free: { Pending: 'Complete', 'Awaiting Payment': 'Complete', 'Awaiting Capture': 'Complete', 'Awaiting Invoice': 'Complete', Complete: '=', Unpaid: 'Complete', Cancelled: 'Complete' },
  auto: { Pending: 'Complete', 'Awaiting Payment': 'Complete', 'Awaiting Capture': 'Complete', 'Awaiting Invoice': 'Complete', Complete: '=', Unpaid: 'Complete', Cancelled: 'Complete' },
  marketplace: { Pending: 'Complete', 'Awaiting Payment': 'Complete', 'Awaiting Capture': 'Complete', 'Awaiting Invoice': 'Complete', Complete: '=', Unpaid: 'Complete', Cancelled: '=' },
  succeeded: { Pending: 'payment_not_started', 'Awaiting Payment': 'Complete', 'Awaiting Capture': 'Complete', 'Awaiting Invoice': 'payment_invoiced', Complete: '=', Unpaid: 'Complete', Cancelled: 'Complete' },
  authorised: { Pending: 'payment_not_started', 'Awaiting Payment': 'Awaiting Capture', 'Awaiting Capture': '=', 'Awaiting Invoice': 'payment_invoiced', Complete: '=', Unpaid: 'Awaiting Capture', Cancelled: '=' },
  processing: { Pending: 'payment_not_started', 'Awaiting Payment': '=', 'Awaiting Capture': '=', 'Awaiting Invoice': 'payment_invoiced', Complete: '=', Unpaid: '=', Cancelled: '=' },
  failed: { Pending: 'payment_not_started', 'Awaiting Payment': 'Unpaid', 'Awaiting Capture': '=', 'Awaiting Invoice': 'payment_invoiced', Complete: '=', Unpaid: '=', Cancelled: '=' },
  aborted: { Pending: 'payment_not_started', 'Awaiting Payment': 'Cancelled', 'Awaiting Capture': '=', 'Awaiting Invoice': 'payment_invoiced', Complete: '=', Unpaid: 'Cancelled', Cancelled: '=' },
  cancel: { Pending: 'Cancelled', 'Awaiting Payment': 'Cancelled', 'Awaiting Capture': 'payment_authorised', 'Awaiting Invoice': 'payment_invoiced', Complete: 'payment_complete', Unpaid: 'Cancelled', Cancelled: '=' },
};

describe('paymentTransition: the whole table', () => {
  for (const [name, event] of Object.entries(EVENTS)) {
    for (const status of PAYMENT_STATUSES) {
      test(`${status} + ${name}`, () => {
        const d = paymentTransition(status, event);
        const got = d.kind === 'accepted' ? d.next : d.kind === 'unchanged' ? '=' : d.reason;
        expect(got).toBe(EXPECTED[name as keyof typeof EVENTS]![status]);
        if (d.kind === 'unchanged') expect(d.status).toBe(status);
      });
    }
  }
});

describe('paymentTransition: effects and refusals', () => {
  test('a free capture marks is_free and completes', () => {
    expect(paymentTransition('Pending', { kind: 'capture_free' })).toEqual({ kind: 'accepted', next: 'Complete', effects: { completes: true, markFree: true } });
  });
  test('auto-success marks auto_success and completes', () => {
    expect(paymentTransition('Awaiting Payment', { kind: 'capture_auto_success' })).toEqual({ kind: 'accepted', next: 'Complete', effects: { completes: true, markAutoSuccess: true } });
  });
  test('a provider success completes without marking flags', () => {
    expect(paymentTransition('Awaiting Payment', { kind: 'capture_provider', outcome: 'succeeded' })).toEqual({ kind: 'accepted', next: 'Complete', effects: { completes: true } });
  });
  test('only transitions to Complete carry `completes`', () => {
    for (const event of Object.values(EVENTS)) {
      for (const status of PAYMENT_STATUSES) {
        const d = paymentTransition(status, event);
        if (d.kind === 'accepted') expect(d.effects.completes === true).toBe(d.next === 'Complete');
      }
    }
  });
  test('Complete never leaves Complete, whatever happens', () => {
    for (const event of Object.values(EVENTS)) {
      const d = paymentTransition('Complete', event);
      expect(d.kind === 'accepted' ? d.next : 'not moved').toBe('not moved');
    }
  });
  test('refusals are 409 with the exact message', () => {
    expect(paymentTransition('Complete', { kind: 'cancel' })).toEqual({ kind: 'refused', status: 409, reason: 'payment_complete', message: 'This payment is already complete.' });
    expect(paymentTransition('Cancelled', { kind: 'start' })).toEqual({ kind: 'refused', status: 409, reason: 'payment_cancelled', message: 'This payment was cancelled. Start a new payment.' });
    expect(paymentTransition('Pending', { kind: 'capture_provider', outcome: 'succeeded' })).toEqual({
      kind: 'refused',
      status: 409,
      reason: 'payment_not_started',
      message: 'No payment was started for this transaction.',
    });
  });
  test('status strings are exact Title Case', () => {
    expect(PAYMENT_STATUSES).toEqual(['Pending', 'Awaiting Payment', 'Awaiting Capture', 'Awaiting Invoice', 'Complete', 'Unpaid', 'Cancelled']);
    expect(isPaymentStatus('Unpaid')).toBe(true);
    expect(isPaymentStatus('unpaid')).toBe(false);
    expect(isPaymentStatus('awaiting payment')).toBe(false);
  });
});
