import { Elysia } from 'elysia';
import { listTransactions } from '@pos/core/payments/list-transactions';
import { transactionStats } from '@pos/core/payments/transaction-stats';
import { exportTransactions } from '@pos/core/payments/export-transactions';
import { loadVisibleTransaction } from '@pos/core/payments/transaction-scope';
import { deleteTestTransaction, retryRegisterSync, sendReceipt } from '@pos/core/payments/transaction-actions';
import { verifyTransactionPayment } from '@pos/core/payments/verify-transaction-payment';
import { listSteps } from '@pos/core/payments/post-capture';
import { loadLines, loadTransaction, registerSyncOf, transactionView } from '@pos/core/payments/transaction-records';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import { sha256 } from '@pos/core/accounts/account-tokens';
import * as S from './transactions.schemas.ts';
import { mailboxKey } from '@pos/core/shared/mailbox';

const doc = (summary: string, perm: string, description?: string) => ({
  detail: { tags: ['Transactions'], summary, description: [`Permission: ${perm}.`, description].filter(Boolean).join(' '), security: [{ bearer: [] }] },
});

/** Spec 1 "Transactions and reports": `/back-office/transactions/...`, limited to the caller's locations. */
export function transactionRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'transactions', prefix: '/back-office/transactions' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/datatable', async ({ tenant, access, query }) => listTransactions(tenant.db, await access(), query), {
      query: S.TransactionsQuery,
      response: { 200: S.Datatable },
      transform: [permission('VIEW_TRANSACTIONS')],
      ...doc('Transactions data table', 'VIEW_TRANSACTIONS', 'Filters location_id, status, payment_provider, channel, from and to (dates, inclusive, local to each transaction\'s location; a transaction counts on the date it completed, else the date it was created, as in the sales report), search (an order or receipt number, or part of an idempotency key); sort created_at, total, order_no, status (`-` descending); page, per_page (max 100).'),
    })
    .get('/stats', async ({ tenant, access, query }) => ({ data: await transactionStats(tenant.db, await access(), query) }), {
      query: S.FiltersQuery,
      response: { 200: S.Stats },
      transform: [permission('VIEW_TRANSACTIONS')],
      ...doc('Transaction statistics', 'VIEW_TRANSACTIONS', 'Counts by status; count, total, tips and average of complete transactions; complete totals by provider and by channel (`by_channel`, every channel listed). Same filters as the data table.'),
    })
    .get(
      '/export',
      async ({ tenant, access, query }) => {
        const file = await exportTransactions(tenant.db, await access(), query, deps.clock.now());
        return new Response(file.body, { headers: { 'content-type': file.contentType, 'content-disposition': `attachment; filename="${file.filename}"` } });
      },
      {
        query: S.FiltersQuery,
        response: { 200: S.CsvFile },
        transform: [permission('EXPORT_TRANSACTION_REPORTS')],
        ...doc('Export transactions as CSV', 'EXPORT_TRANSACTION_REPORTS', 'Streamed CSV with a header row and a byte-order mark; money in cents and in major units (`total_eur`); the last column, `order_status`, marks a marketplace order cancelled after paying (`Complete` and `Cancelled`: no sale in the stats). Same filters as the data table.'),
      },
    )
    .get(
      '/:id',
      async ({ tenant, access, params }) => {
        const t = await loadVisibleTransaction(tenant.db, await access(), params.id);
        const view = transactionView(t, await loadLines(tenant.db, t.id));
        return { data: { ...view, lines: view.lines ?? [], steps: await listSteps(tenant.db, t.id), pos_sync_status: (await registerSyncOf(tenant.db, t.id)).status } };
      },
      { params: S.IdParams, response: { 200: S.Detail }, transform: [permission('VIEW_TRANSACTIONS')], ...doc('Transaction detail', 'VIEW_TRANSACTIONS', 'With its lines and the post-capture trace.') },
    )
    .post(
      '/:id/resend-receipt',
      async ({ auth, tenant, access, params, body }) => {
        const t = await loadVisibleTransaction(tenant.db, await access(), params.id);
        await throttle(deps.redis, deps.env, [
          [THROTTLES.kioskReceiptTransaction, `${tenant.merchant.id}:${t.id}`],
          [THROTTLES.receiptRecipient, mailboxKey(body.email)],
          [THROTTLES.receiptResendUser, auth.userId],
          [THROTTLES.receiptResendMerchant, tenant.merchant.id],
        ]);
        await sendReceipt(tenant.db, t, body.email);
        return { status: 'success' as const };
      },
      { params: S.IdParams, body: S.ReceiptBody, response: { 200: S.Success }, transform: [permission('VIEW_TRANSACTIONS')], ...doc('Resend the receipt by e-mail', 'VIEW_TRANSACTIONS', 'Only a complete transaction has a receipt (409 `no_receipt`). Throttled (429 `Too Many Attempts.`): 5 receipt mails per transaction an hour (kiosk sends included), 10 per recipient inbox an hour (kiosk sends included; sub-addresses such as `name+tag@` count as their inbox), 30 per user and 100 per merchant an hour.') },
    )
    .post(
      '/:id/retry-sync',
      async ({ auth, tenant, access, params }) => {
        const t = await loadVisibleTransaction(tenant.db, await access(), params.id);
        // Each call queues a dispatch job: per transaction and per user (a 404 counts nothing).
        await throttle(deps.redis, deps.env, [
          [THROTTLES.transactionRetrySync, `${tenant.merchant.id}:${t.id}`],
          [THROTTLES.transactionRetrySyncUser, auth.userId],
        ]);
        await retryRegisterSync(tenant.db, tenant.merchant.tenant_database, t);
        return { status: 'success' as const };
      },
      { params: S.IdParams, response: { 200: S.Success }, transform: [permission('VIEW_TRANSACTIONS')], ...doc('Retry the register sync', 'VIEW_TRANSACTIONS', 'Queues the register dispatch of a complete transaction again; one already at its register is 409 `already_synced` (the location\'s register may have changed since). Throttled (429 `Too Many Attempts.`): 5 a minute per transaction, 30 a minute per user.') },
    )
    .post(
      '/:id/verify-payment-status',
      async ({ auth, tenant, access, params }) => {
        const t = await loadVisibleTransaction(tenant.db, await access(), params.id);
        // Each call may ask a provider: per transaction and per user (a 404 counts nothing).
        await throttle(deps.redis, deps.env, [
          [THROTTLES.transactionVerify, `${tenant.merchant.id}:${t.id}`],
          [THROTTLES.transactionVerifyUser, auth.userId],
        ]);
        const verified = await verifyTransactionPayment({ db: deps.db, tdb: tenant.db, tenantDatabase: tenant.merchant.tenant_database, redis: deps.redis, providers: deps.payments, log: deps.log, now: () => deps.clock.now() }, t.id);
        return { data: transactionView(verified) };
      },
      {
        params: S.IdParams,
        response: { 200: S.TransactionResponse },
        transform: [permission('VIEW_TRANSACTIONS')],
        ...doc('Recheck the payment at the provider and settle if paid', 'VIEW_TRANSACTIONS', 'Captures exactly once (the same capture as the kiosk and the webhooks). An online order is settled as the storefront\'s verify settles it (a card-b pre-authorisation captured first, a platform-a card attempt whose answer was lost sent again as it was); a kiosk one is polled in turn with its starts and cancels (409 `payment_starting` while one runs). A complete one answers without a provider call. Throttled (429 `Too Many Attempts.`): 10 a minute per transaction, 60 a minute per user.'),
      },
    )
    .delete(
      '/:id',
      async ({ tenant, access, params }) => {
        await loadVisibleTransaction(tenant.db, await access(), params.id);
        await deleteTestTransaction({ tdb: tenant.db, tenantDatabase: tenant.merchant.tenant_database, redis: deps.redis, providers: deps.payments, log: deps.log, now: () => deps.clock.now() }, params.id);
        return { status: 'success' as const };
      },
      { params: S.IdParams, response: { 200: S.Success }, transform: [permission('VIEW_TRANSACTIONS')], ...doc('Delete a test-mode transaction', 'VIEW_TRANSACTIONS', 'Any other transaction is a 409 `not_test_mode`. A kiosk payment still running at its terminal is cancelled there first.') },
    );
}
