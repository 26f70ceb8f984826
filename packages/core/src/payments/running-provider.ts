import { sql } from 'kysely';
import { isPaymentProvider, PAYMENT_PROVIDERS, runningPaymentProvider, type PaymentProvider, type TransactionProvider } from '@pos/domain';
import { stampedPaymentProvider, type TransactionRow } from './transaction-records.ts';

type ProviderFields = Pick<TransactionRow, 'payment_provider' | 'payment_snapshot'>;

/**
 * The provider that runs a transaction's payment (spec 3 "Provider choice" rule 2): the one saved at
 * payment start (an active platform-a integration overrode the stamp then), else the stamped one. A
 * marketplace order takes no payment here: 409 (`stampedPaymentProvider`).
 */
export function runningProvider(t: ProviderFields): PaymentProvider {
  const p = transactionProvider(t);
  return isPaymentProvider(p) ? p : stampedPaymentProvider(t);
}

/**
 * The provider the money of a transaction went through, for the back office's figures, filters and
 * export: the running provider, or the marketplace that took the order. `payment_provider` stays the
 * stamp, which an online or kiosk order paid through platform-a does not show.
 */
export function transactionProvider(t: ProviderFields): TransactionProvider {
  return runningPaymentProvider(t.payment_provider, t.payment_snapshot.provider);
}

/** `transactionProvider` in SQL, over `transactions`. */
export function transactionProviderSql() {
  const providers = sql.join(PAYMENT_PROVIDERS.map((p) => sql.lit(p)));
  return sql<TransactionProvider>`(case when transactions.payment_provider in (${providers}) and transactions.payment_snapshot->>'provider' in (${providers}) then transactions.payment_snapshot->>'provider' else transactions.payment_provider end)`;
}
