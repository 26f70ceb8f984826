import { errors } from '@pos/kernel';
import type { PaymentProvider, ProviderOutcome } from '@pos/domain';
import { ProviderError } from '@pos/providers/payments';
import type { PaymentProviders } from './payment-providers.ts';
import { orderReport } from './card-b-order-report.ts';

/** What a provider says about a transaction's payment, with the data saved into `payment_snapshot`. */
export interface ProviderReport {
  readonly outcome: ProviderOutcome;
  readonly snapshot: Record<string, unknown>;
}

/**
 * Translates a provider failure into the kernel's errors (details logged by the caller): the provider
 * refusing the card (HTTP 402, as card-a and platform-a answer a decline) is a 422 `card_declined` the
 * customer can act on; anything else from the provider is a 503 with a stable reason.
 */
export function providerFailure(e: unknown): never {
  if (e instanceof ProviderError && e.status === 402) {
    throw errors.businessRule('The card was declined. Try another card.', { reason: 'card_declined', cause: e });
  }
  if (e instanceof ProviderError) {
    throw errors.unavailable('The payment provider could not be reached. Try again.', { reason: 'provider_error', cause: e });
  }
  throw e;
}

/**
 * The provider refused the request outright (a 4xx other than a timeout or a rate limit): nothing was
 * made there, so a start recorded ahead of it can be put back.
 */
export function isDefiniteRefusal(e: unknown): boolean {
  return e instanceof ProviderError && e.kind === 'http' && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429;
}

/** How long after a card-b start its sale may still reach the terminal: the client's 15 s timeout, doubled. */
export const CARD_B_SALE_IN_FLIGHT_MS = 30_000;

/**
 * True while a card-b session the terminal does not know may still arrive: a start gave up waiting for
 * its sale's answer less than `CARD_B_SALE_IN_FLIGHT_MS` ago (`started_at`, written with the start; a
 * snapshot without it falls back to `fallback`, the row's last update).
 */
export function cardBSaleMayBeOnItsWay(snapshot: Record<string, unknown>, now: Date, fallback?: Date): boolean {
  const at = typeof snapshot.started_at === 'string' ? Date.parse(snapshot.started_at) : (fallback?.getTime() ?? Number.NaN);
  const age = now.getTime() - at;
  // A start time ahead of this clock (another process's clock is ahead) counts as just started.
  return Number.isFinite(age) && age > -CARD_B_SALE_IN_FLIGHT_MS && age < CARD_B_SALE_IN_FLIGHT_MS;
}

export function notConfigured(provider: PaymentProvider): never {
  throw errors.unavailable(`The payment provider ${provider} is not configured.`, { reason: 'provider_not_configured' });
}

/**
 * Asks the provider that runs `snapshot`'s payment how it stands (spec 3: "capture without webhook,
 * card-b: session status polled at the provider"; card-a intent, found through its hosted checkout session while
 * the snapshot has none; platform-a terminal checkout).
 */
export async function pollProvider(providers: PaymentProviders, provider: PaymentProvider, snapshot: Record<string, unknown>, now: Date = new Date()): Promise<ProviderReport> {
  try {
    switch (provider) {
      case 'card-b': {
        const sessionId = typeof snapshot.sessionId === 'string' ? snapshot.sessionId : null;
        const orderCode = typeof snapshot.orderCode === 'string' ? snapshot.orderCode : null;
        if (!sessionId && orderCode) {
          // Online (hosted checkout): no terminal session, the order's transactions tell.
          if (!providers.cardB) notConfigured('card-b');
          const { preauth: _preauth, ...report } = orderReport(await providers.cardB.transactionsOfOrder(orderCode), orderCode);
          return report;
        }
        if (!sessionId) return { outcome: 'processing', snapshot: {} };
        if (!providers.cardB) notConfigured('card-b');
        const s = await providers.cardB.getSession(sessionId).catch((e: unknown) => {
          // A session the terminal never received (a start whose sale did not get through): nothing was taken.
          if (e instanceof ProviderError && e.status === 404) return { state: 'unknown' as const };
          throw e;
        });
        if (s.state === 'unknown') {
          // Unknown shortly after its start: the sale may still be on its way, not a failure yet.
          if (cardBSaleMayBeOnItsWay(snapshot, now)) return { outcome: 'processing', snapshot: {} };
          return { outcome: 'failed', snapshot: { failure_code: 'session_not_found' } };
        }
        if (s.state === 'processing') return { outcome: 'processing', snapshot: {} };
        const outcome: ProviderOutcome = s.success ? 'succeeded' : s.eventId === 1016 ? 'aborted' : 'failed';
        // What the terminal took: the sale amount and its tip (the sale's, plus any added on the terminal).
        return { outcome, snapshot: { transactionId: s.transactionId, orderCode: s.orderCode, eventId: s.eventId, amount: s.amount, ...(s.success ? { captured_amount: s.amount + s.tipAmount } : {}) } };
      }
      case 'card-a': {
        let id = typeof snapshot.id === 'string' ? snapshot.id : null;
        const sessionId = typeof snapshot.sessionId === 'string' ? snapshot.sessionId : null;
        if (!id && !sessionId) return { outcome: 'processing', snapshot: {} };
        if (!providers.cardA) notConfigured('card-a');
        // A hosted checkout session has no intent until the customer pays (card-a API 2022-08-01 on):
        // the session names it then, and the snapshot keeps it from this answer on.
        let found: Record<string, unknown> = {};
        if (!id && sessionId) {
          const cs = await providers.cardA.retrieveCheckoutSession(sessionId);
          if (!cs.payment_intent) return { outcome: 'processing', snapshot: {} };
          id = cs.payment_intent;
          found = { id };
        }
        const pi = await providers.cardA.retrievePaymentIntent(id!);
        const outcome: ProviderOutcome =
          pi.status === 'succeeded'
            ? 'succeeded'
            : pi.status === 'requires_capture'
              ? 'authorised'
              : pi.status === 'canceled'
                ? 'aborted'
                : pi.status === 'requires_payment_method' && pi.last_payment_error
                  ? 'failed'
                  : 'processing';
        // A succeeded intent's `amount` is what was taken, an on-reader tip included (`amount_details.tip`).
        return { outcome, snapshot: { ...found, intent_status: pi.status, amount: pi.amount, ...(pi.status === 'succeeded' ? { captured_amount: pi.amount } : {}), ...(pi.last_payment_error ? { failure_code: pi.last_payment_error.code } : {}) } };
      }
      case 'platform-a': {
        const id = typeof snapshot.checkout_id === 'string' ? snapshot.checkout_id : null;
        const paymentId = typeof snapshot.payment_id === 'string' ? snapshot.payment_id : null;
        if (!id && paymentId) {
          // Online (a card payment, no terminal checkout): the payment tells, as the storefront reads it.
          if (!providers.platformA) notConfigured('platform-a');
          const p = await providers.platformA.getPayment(paymentId);
          const outcome: ProviderOutcome = p.status === 'COMPLETED' ? 'succeeded' : p.status === 'APPROVED' ? 'authorised' : p.status === 'FAILED' || p.status === 'CANCELED' ? 'failed' : 'processing';
          return { outcome, snapshot: { payment_id: p.id, payment_status: p.status } };
        }
        if (!id) return { outcome: 'processing', snapshot: {} };
        if (!providers.platformA) notConfigured('platform-a');
        const c = await providers.platformA.getTerminalCheckout(id);
        const outcome: ProviderOutcome =
          c.status === 'COMPLETED' ? 'succeeded' : c.status === 'CANCELED' ? (c.cancel_reason === 'SELLER_CANCELED' ? 'aborted' : 'failed') : 'processing';
        // What a completed checkout took: its amount and a tip added on the terminal (`tip_money`).
        const taken = c.status === 'COMPLETED' && Number.isSafeInteger(c.amount_money?.amount) ? c.amount_money.amount + (Number.isSafeInteger(c.tip_money?.amount) && c.tip_money!.amount > 0 ? c.tip_money!.amount : 0) : null;
        return { outcome, snapshot: { checkout_status: c.status, payment_ids: [...c.payment_ids], ...(taken !== null ? { captured_amount: taken } : {}), ...(c.cancel_reason ? { cancel_reason: c.cancel_reason } : {}) } };
      }
    }
  } catch (e) {
    providerFailure(e);
  }
}
