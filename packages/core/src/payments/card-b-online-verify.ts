import type { ProviderOutcome } from '@pos/domain';
import { ProviderError } from '@pos/providers/payments';
import { capturePayment, type CaptureDeps, type CaptureResult } from './capture-payment.ts';
import { orderReport } from './card-b-order-report.ts';
import { notConfigured, providerFailure } from './provider-outcome.ts';
import type { TransactionRow } from './transaction-records.ts';

/**
 * The card-b legacy online path (hosted checkout by `orderCode`, spec 3 "Verification": "the legacy
 * path retrieves the transaction by `orderCode`, saves details in `payment_snapshot`, and captures when
 * the status is unpaid and the payment is a pre-authorisation"). The order's transactions are asked of
 * the provider: a charge (or an earlier capture) is a paid order; a pre-authorisation alone is
 * captured at the provider here, then the payment is captured locally exactly once.
 */
/**
 * Verifies and settles an online card-b transaction. Answers the capture's result, or null while the
 * order is not paid yet. Callers hold the online webhook lock; the provider refuses a second capture
 * of one pre-authorisation (409), after which the order's capture is read back.
 */
export async function verifyCardBOnline(deps: CaptureDeps, t: TransactionRow): Promise<CaptureResult | null> {
  const orderCode = typeof t.payment_snapshot.orderCode === 'string' ? t.payment_snapshot.orderCode : null;
  if (!orderCode) throw new Error('order_code_missing');
  if (t.status === 'Complete') return { status: 'Complete', completed: false, changed: false };
  const cardB = deps.providers?.cardB;
  if (!cardB) notConfigured('card-b');
  // The provider's failures as the other providers' (503 `provider_error`, 422 `card_declined`): its own
  // status (a 401 of its token, a 404 of the order) must not reach the caller as ours.
  const transactions = () => cardB.transactionsOfOrder(orderCode).catch(providerFailure);
  let report = orderReport(await transactions(), orderCode);
  if (report.outcome === 'authorised' && report.preauth) {
    try {
      await cardB.capturePreauthorisation(report.preauth.transactionId, report.preauth.amount);
    } catch (e) {
      // Captured already (another verify won at the provider): read the capture back below.
      if (!(e instanceof ProviderError && e.status === 409)) providerFailure(e);
    }
    report = orderReport(await transactions(), orderCode);
  }
  if (report.outcome === 'processing' || report.outcome === 'authorised') return null;
  const outcome: ProviderOutcome = report.outcome;
  return capturePayment(deps, t.id, { kind: 'webhook', outcome, data: { ...report.snapshot, verified: 'order' } });
}
