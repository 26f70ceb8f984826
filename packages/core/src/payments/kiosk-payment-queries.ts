import { enqueueOutbox } from '@pos/db';
import { jobMessage, paymentCaptureJob } from '@pos/kernel/queues/index';
import type { ProviderOutcome } from '@pos/domain';
import type { KioskDevice } from './kiosk-device.ts';
import { pollProvider } from './provider-outcome.ts';
import { claimCaptureDispatch, releaseCaptureDispatch } from './capture-dispatch.ts';
import type { KioskPaymentDeps } from './start-kiosk-payment.ts';
import { runningProvider } from './running-provider.ts';
import { findKioskTransactionByKey, loadLines, type TransactionLineRow, type TransactionRow } from './transaction-records.ts';

const SETTLED = new Set(['Complete', 'Cancelled']);

/**
 * `GET /kiosk/payment/session-status`: the kiosk polls its terminal payment. Asks the provider while
 * the payment is open; a settled transaction answers from the database without a provider call.
 * Writes nothing (capture is the details route's and the webhooks' job).
 */
export async function getKioskSessionStatus(deps: KioskPaymentDeps, device: KioskDevice, key: string): Promise<{ transaction: TransactionRow; provider_status: ProviderOutcome | null }> {
  const t = await findKioskTransactionByKey(deps.tdb, device.id, key);
  if (SETTLED.has(t.status) || t.status === 'Pending') return { transaction: t, provider_status: null };
  const report = await pollProvider(deps.providers, runningProvider(t), t.payment_snapshot, deps.now());
  return { transaction: t, provider_status: report.outcome };
}

/**
 * `GET /kiosk/payment/details/{idempotencyKey}`: the transaction with its lines; an open payment gets
 * an asynchronous capture (`payment.capture` through the outbox, run by the worker).
 */
export async function getKioskPaymentDetails(deps: KioskPaymentDeps, device: KioskDevice, key: string): Promise<{ transaction: TransactionRow; lines: TransactionLineRow[]; capture: 'dispatched' | 'not_needed' }> {
  const t = await findKioskTransactionByKey(deps.tdb, device.id, key);
  let capture: 'dispatched' | 'not_needed' = 'not_needed';
  if (!SETTLED.has(t.status) && t.status !== 'Pending') {
    // One capture job in flight per transaction, however often the kiosk polls: a poll while one is
    // queued or running answers `dispatched` (it is) without queuing another provider call.
    if (await claimCaptureDispatch(deps.redis, deps.log, deps.tenantDatabase, t.id)) {
      try {
        await enqueueOutbox(deps.tdb, jobMessage(paymentCaptureJob, { tenant_database: deps.tenantDatabase, transaction_id: t.id }));
      } catch (e) {
        await releaseCaptureDispatch(deps.redis, deps.log, deps.tenantDatabase, t.id);
        throw e;
      }
    }
    capture = 'dispatched';
  }
  return { transaction: t, lines: await loadLines(deps.tdb, t.id), capture };
}
