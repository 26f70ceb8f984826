import { enqueueOutbox, withWriteRetry, type TenantDb } from '@pos/db';
import { AppError, errors } from '@pos/kernel';
import { lineModifierNames, nameWithVariant } from '@pos/domain/catalog/variants';
import { oneLine } from '@pos/domain/printing/text-width';
import { jobMessage, notificationSendJob, orderDispatchJob } from '@pos/kernel/queues/index';
import { loadLines, loadTransaction, registerSyncOf, type TransactionRow } from './transaction-records.ts';
import { cancelKioskPayment } from './cancel-kiosk-payment.ts';
import type { KioskPaymentDeps } from './start-kiosk-payment.ts';
import { removeKitchenTickets } from '../kitchen/remove-tickets.ts';
import { kitchenPublisher } from '../kitchen/kitchen-events.ts';
import { deletePrintJobs } from '../printers/print-jobs.ts';

const money = (c: number) => (c / 100).toFixed(2);

/**
 * A sold line on the mailed receipt: `2 x Latte (Large)  9.00`, then `   + Oat milk` per modifier. Each
 * name on one line (`oneLine`, as the printer prints it): a name's line break could forge a receipt line.
 */
const receiptLines = (l: { qty: number; name: string; variant: unknown; modifiers: unknown; total: number }): string[] => [
  `${l.qty} x ${oneLine(nameWithVariant(l.name, l.variant))}  ${money(l.total)}`,
  ...lineModifierNames(l.modifiers).map((m) => `   + ${oneLine(m)}`),
];

/**
 * Sends the receipt of a completed transaction by e-mail (`notification.send`, template
 * `payment-receipt`, through the outbox). Used by the kiosk's `send-receipt` and the back office's
 * `resend-receipt`. A transaction that is not Complete has no receipt: 409 `no_receipt`.
 */
export async function sendReceipt(tdb: TenantDb, t: TransactionRow, email: string): Promise<void> {
  if (t.status !== 'Complete' || t.receipt_no === null) throw errors.conflict('This transaction has no receipt yet: it is not complete.', { reason: 'no_receipt' });
  const lines = await loadLines(tdb, t.id);
  await enqueueOutbox(
    tdb,
    jobMessage(notificationSendJob, {
      channel: 'email',
      to: email,
      template: 'payment-receipt',
      data: {
        order_no: String(t.order_no),
        receipt_no: String(t.receipt_no),
        total: money(t.total),
        // Line totals are after discounts; with the tip's line they add up to the total. Each line is named
        // as on the printed receipt: the item with its variants, then its modifiers under it.
        lines: [...lines.flatMap(receiptLines), ...(t.tip_amount > 0 ? [`Tip  ${money(t.tip_amount)}`] : [])].join('\n'),
      },
    }),
  );
}

export const ALREADY_SYNCED = 'The order is already at its register.';

/**
 * `retry-sync` ("retry a failed POS sync"): dispatches the completed order to the register again
 * (`order.dispatch`). An order already at a register is 409 `already_synced`: the location's register
 * may have changed since, and a second dispatch would book the paid order at two registers.
 */
export async function retryRegisterSync(tdb: TenantDb, tenantDatabase: string, t: TransactionRow): Promise<void> {
  if (t.status !== 'Complete') throw errors.conflict('Only a complete transaction is sent to the register.', { reason: 'not_complete' });
  if ((await registerSyncOf(tdb, t.id)).status === 'synced') throw errors.conflict(ALREADY_SYNCED, { reason: 'already_synced' });
  await enqueueOutbox(tdb, jobMessage(orderDispatchJob, { tenant_database: tenantDatabase, transaction_id: t.id }));
}

/**
 * `DELETE /transactions/{id}`: only a test-mode transaction is deleted, with its lines, trace, kitchen
 * tickets (the screens are told: `removed` events) and print jobs, in one commit. A
 * kiosk payment still running at its terminal is cancelled there first, as `cancel-action` does:
 * otherwise the terminal stayed busy with a session nobody could cancel any more (every sale refused
 * until it timed out). One the customer paid meanwhile is captured by that cancel, then deleted; a
 * provider that cannot be reached leaves the transaction in place (503).
 */
const PAID_NOT_DELETABLE = 'A transaction paid at a payment provider cannot be deleted.';

/** Captured through a provider session (not the synthetic test or free payment). */
function tookProviderMoney(row: { status: string; payment_snapshot: unknown }): boolean {
  const snapshot = (typeof row.payment_snapshot === 'string' ? JSON.parse(row.payment_snapshot) : row.payment_snapshot) as Record<string, unknown> | null;
  return row.status === 'Complete' && typeof snapshot?.provider === 'string' && snapshot.is_free !== true;
}

export async function deleteTestTransaction(deps: KioskPaymentDeps, id: string): Promise<void> {
  const tdb = deps.tdb;
  const t = await loadTransaction(tdb, id);
  if (!t.is_test) throw errors.conflict('Only a test-mode transaction can be deleted.', { reason: 'not_test_mode' });
  if (t.status === 'Awaiting Payment' && t.channel === 'kiosk' && t.device_id) {
    const device = await tdb.selectFrom('devices').select(['id', 'location_id', 'card_b_terminal_id', 'card_a_reader_id', 'platform_a_device_id']).where('id', '=', t.device_id).executeTakeFirst();
    if (device) {
      await cancelKioskPayment(deps, device, t.idempotency_key).catch((e: unknown) => {
        if (!(e instanceof AppError && e.reason === 'payment_complete')) throw e;
      });
    }
  }
  const removed = await withWriteRetry(() =>
    tdb.transaction().execute(async (tx) => {
      // The row lock first: a post-capture write for it (kitchen items, tickets, the claim) holds a key
      // share lock on it until its commit, so what it wrote is visible to the statements below.
      const row = await tx.selectFrom('transactions').select(['id', 'location_id', 'status', 'payment_snapshot']).where('id', '=', id).where('is_test', '=', true).forUpdate().executeTakeFirst();
      if (!row) return [];
      // A sale a provider really took money for (test mode turned on after it started) is a record, never deleted.
      if (tookProviderMoney(row)) throw errors.conflict(PAID_NOT_DELETABLE, { reason: 'provider_paid' });
      // Tickets have no foreign key to their order (a transaction or a register order): removed here, or the kitchen would still prepare it.
      const events = await removeKitchenTickets(tx, 'transaction', id);
      await deletePrintJobs(tx, [row.location_id], [`order:${id}`]);
      // Its trace has no foreign key (see the transaction-steps-trace migration): deleted in the same statement.
      await tx
        .with('gone', (db) => db.deleteFrom('transactions').where('id', '=', id).returning('id'))
        .deleteFrom('transaction_steps')
        .where('transaction_id', 'in', (eb) => eb.selectFrom('gone').select('id'))
        .execute();
      return events;
    }),
  );
  await kitchenPublisher(deps.redis, deps.tenantDatabase, deps.log)(removed);
}
