/**
 * The payment status machine of a transaction (spec 3 section 3). Pure: a use case asks it what an
 * event does to a transaction in a given status. Three answers:
 * - `accepted`: the status becomes `next` (which may equal the current one, e.g. a retry that keeps
 *   `Awaiting Payment`), with the flags the transition sets;
 * - `unchanged`: nothing to write, and the caller answers success (a second capture after the
 *   webhook won, a cancel of a cancelled transaction, a poll still processing);
 * - `refused`: an explicit refusal with the HTTP status, a stable `reason` and the client message.
 *
 * Decisions the spec leaves open (transitions out of `Unpaid`, the status set by cancel-action, late
 * provider success after a cancel) are written in docs/decisions.md, "Payments".
 */
export const PAYMENT_STATUSES = ['Pending', 'Awaiting Payment', 'Awaiting Capture', 'Awaiting Invoice', 'Complete', 'Unpaid', 'Cancelled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export function isPaymentStatus(s: string): s is PaymentStatus {
  return (PAYMENT_STATUSES as readonly string[]).includes(s);
}

/** What a provider reported about a payment, normalised across providers. */
export type ProviderOutcome =
  /** paid and captured (card-b `StatusId` F / session success, card-a `succeeded`, platform-a `COMPLETED`) */
  | 'succeeded'
  /** authorised, not captured yet (card-a `requires_capture`) */
  | 'authorised'
  /** still at the terminal (card-b 202, card-a `in_progress`/`processing`, platform-a `PENDING`/`IN_PROGRESS`) */
  | 'processing'
  /** declined, timed out or failed at the terminal; may still succeed on a retry */
  | 'failed'
  /** aborted or cancelled at the provider (card-b 1016, platform-a `CANCELED`) */
  | 'aborted';

export type PaymentEvent =
  /** The provider payment was started successfully (terminal sale, reader action, terminal checkout). */
  | { readonly kind: 'start' }
  /** Capture of a free order (total 0): completes whatever the status. */
  | { readonly kind: 'capture_free' }
  /** Capture in auto-success mode (development flag): completes whatever the status. */
  | { readonly kind: 'capture_auto_success' }
  /** A marketplace order (delivery-a, delivery-b) paid by the marketplace: completes a Pending order; a cancelled one stays cancelled. */
  | { readonly kind: 'capture_marketplace' }
  /** Capture with what the provider reported (webhook data or a poll of the session). */
  | { readonly kind: 'capture_provider'; readonly outcome: ProviderOutcome }
  /** `cancel-action`: the kiosk cancels the terminal action. */
  | { readonly kind: 'cancel' };

export type PaymentRefusalReason = 'payment_complete' | 'payment_cancelled' | 'payment_not_started' | 'payment_authorised' | 'payment_invoiced';

export const PAYMENT_REFUSALS: Readonly<Record<PaymentRefusalReason, { status: 409; message: string }>> = {
  payment_complete: { status: 409, message: 'This payment is already complete.' },
  payment_cancelled: { status: 409, message: 'This payment was cancelled. Start a new payment.' },
  payment_not_started: { status: 409, message: 'No payment was started for this transaction.' },
  payment_authorised: { status: 409, message: 'This payment is authorised and awaiting capture; it cannot be cancelled here.' },
  payment_invoiced: { status: 409, message: 'This transaction awaits an invoice settlement and takes no terminal payment.' },
};

/** Flags a transition sets on the transaction besides its status. */
export interface PaymentEffects {
  /** `is_free` marked (free order). */
  readonly markFree?: true;
  /** `auto_success` marked. */
  readonly markAutoSuccess?: true;
  /** Becoming Complete: receipt number, order status `Queued`, stock, loyalty, post-capture sequence. */
  readonly completes?: true;
}

export type PaymentDecision =
  | { readonly kind: 'accepted'; readonly next: PaymentStatus; readonly effects: PaymentEffects }
  | { readonly kind: 'unchanged'; readonly status: PaymentStatus }
  | { readonly kind: 'refused'; readonly status: 409; readonly reason: PaymentRefusalReason; readonly message: string };

const refuse = (reason: PaymentRefusalReason): PaymentDecision => ({ kind: 'refused', reason, ...PAYMENT_REFUSALS[reason] });
const accept = (next: PaymentStatus, effects: PaymentEffects = {}): PaymentDecision => ({ kind: 'accepted', next, effects });
const unchanged = (status: PaymentStatus): PaymentDecision => ({ kind: 'unchanged', status });
const COMPLETE: PaymentEffects = { completes: true };

/** Decides one event on a transaction in `status`. Exhaustive over events and statuses. */
export function paymentTransition(status: PaymentStatus, event: PaymentEvent): PaymentDecision {
  switch (event.kind) {
    case 'start':
      switch (status) {
        case 'Pending':
        case 'Awaiting Payment': // a kiosk retry (new key) keeps the status
        case 'Unpaid': // attempted but not verified: the kiosk may try again
          return accept('Awaiting Payment');
        case 'Complete':
          return refuse('payment_complete');
        case 'Cancelled':
          return refuse('payment_cancelled');
        case 'Awaiting Capture':
          return refuse('payment_authorised');
        case 'Awaiting Invoice':
          return refuse('payment_invoiced');
      }
    case 'capture_free':
      return status === 'Complete' ? unchanged(status) : accept('Complete', { ...COMPLETE, markFree: true });
    case 'capture_auto_success':
      return status === 'Complete' ? unchanged(status) : accept('Complete', { ...COMPLETE, markAutoSuccess: true });
    case 'capture_marketplace':
      return status === 'Complete' || status === 'Cancelled' ? unchanged(status) : accept('Complete', COMPLETE);
    case 'capture_provider':
      return captureWithOutcome(status, event.outcome);
    case 'cancel':
      switch (status) {
        case 'Pending':
        case 'Awaiting Payment':
        case 'Unpaid':
          return accept('Cancelled');
        case 'Cancelled':
          return unchanged(status);
        case 'Complete':
          return refuse('payment_complete');
        case 'Awaiting Capture':
          return refuse('payment_authorised');
        case 'Awaiting Invoice':
          return refuse('payment_invoiced');
      }
  }
}

function captureWithOutcome(status: PaymentStatus, outcome: ProviderOutcome): PaymentDecision {
  // A second capture (webhook after poll, poll after webhook, two workers) is a no-op answering success.
  if (status === 'Complete') return unchanged(status);
  if (status === 'Awaiting Invoice') return refuse('payment_invoiced');
  if (status === 'Pending') return refuse('payment_not_started');
  switch (outcome) {
    case 'succeeded':
      // Money taken wins: a late success after a cancel (the abort lost the race at the terminal) or
      // after a failed attempt completes the transaction.
      return accept('Complete', COMPLETE);
    case 'authorised':
      return status === 'Awaiting Capture' ? unchanged(status) : status === 'Cancelled' ? unchanged(status) : accept('Awaiting Capture');
    case 'processing':
      return unchanged(status);
    case 'failed':
      return status === 'Awaiting Payment' ? accept('Unpaid') : unchanged(status);
    case 'aborted':
      return status === 'Cancelled' ? unchanged(status) : status === 'Awaiting Capture' ? unchanged(status) : accept('Cancelled');
  }
}

/** True once no provider event can change the status any more. */
export function isFinalPaymentStatus(status: PaymentStatus): boolean {
  return status === 'Complete';
}
