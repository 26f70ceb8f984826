import type { CentralDb } from '@pos/db';
import { settleOnlinePayment } from '../online-ordering/online-payment.ts';
import { capturePayment, type CaptureDeps } from './capture-payment.ts';
import { onlineVerifyFlight, providerCheckFlight } from './provider-check-flight.ts';
import type { PaymentProviders } from './payment-providers.ts';
import { withPaymentStartLock } from './payment-start-lock.ts';
import { loadTransaction, type TransactionRow } from './transaction-records.ts';

export interface VerifyPaymentDeps extends CaptureDeps {
  readonly db: CentralDb;
  readonly providers: PaymentProviders;
}

/**
 * Asks the provider about a transaction's payment and settles it with the answer (the back office's
 * `verify-payment-status`, the stale payment sweep). An online order (online ordering, table QR) is
 * settled as the storefront's verify settles it (`settleOnlinePayment`: a card-b pre-authorisation is
 * captured first), except that a platform-a card attempt whose answer was lost is not sent again (only
 * the customer's own verify does: it may never have reached the provider); any other (a
 * kiosk's terminal session) is polled under the transaction's start lock, in turn with its starts and
 * cancels. A Complete one answers without a provider call.
 */
export async function verifyTransactionPayment(deps: VerifyPaymentDeps, id: string): Promise<TransactionRow> {
  const t = await loadTransaction(deps.tdb, id);
  if (t.status === 'Complete') return t;
  if (t.channel === 'online_ordering' || t.channel === 'table_qr') {
    // The storefront's single flight (`online_verify_{id}`): a back-office check and the customer's page
    // never ask the provider about one order at once; the one that waits reads what the other stored.
    await providerCheckFlight(
      deps.redis,
      onlineVerifyFlight(id),
      deps.log,
      async () => settleOnlinePayment({ db: deps.db, redis: deps.redis, providers: deps.providers, log: deps.log, now: deps.now }, deps.tdb, deps, await loadTransaction(deps.tdb, id), { customerPresent: false }),
      async () => undefined,
    );
  } else {
    await withPaymentStartLock(deps, id, () => capturePayment(deps, id, { kind: 'poll' }));
  }
  return loadTransaction(deps.tdb, id);
}
