import { Elysia, type AnyElysia } from 'elysia';
import { createKioskIntent } from '@pos/core/payments/create-kiosk-intent';
import { cancelKioskPayment } from '@pos/core/payments/cancel-kiosk-payment';
import { getKioskPaymentDetails, getKioskSessionStatus } from '@pos/core/payments/kiosk-payment-queries';
import { findKioskTransactionByKey, transactionView } from '@pos/core/payments/transaction-records';
import { sendReceipt } from '@pos/core/payments/transaction-actions';
import type { KioskPaymentDeps } from '@pos/core/payments/start-kiosk-payment';
import type { ApiDeps } from '../../context.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { secured } from '../../plugins/secured.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import * as S from './kiosk-payments.schemas.ts';
import { mailboxKey } from '@pos/core/shared/mailbox';

const doc = (summary: string, description: string) => ({ tags: ['Kiosk'], security: [{ bearer: [] }], summary, description });

/**
 * Kiosk payment routes (spec 3 "Payment routes", spec 1 "Kiosk": device-key, type:kiosk, tenant:kiosk).
 * Typed as `AnyElysia` for the app: the app's route type is at the compiler's depth limit (TS2589);
 * the handlers are still checked against their schemas here.
 */
export function kioskPaymentRoutes(deps: ApiDeps): AnyElysia {
  return kioskPaymentRoutesTyped(deps);
}

function kioskPaymentRoutesTyped(deps: ApiDeps) {
  const useCase = (tenant: TenantContext): KioskPaymentDeps & { merchantId: string } => ({
    tdb: tenant.db,
    tenantDatabase: tenant.merchant.tenant_database,
    merchantId: tenant.merchant.id,
    redis: deps.redis,
    providers: deps.payments,
    log: deps.log,
    now: () => deps.clock.now(),
  });
  return new Elysia({ name: 'kiosk-payments' })
    .use(secured(deps, { types: ['kiosk'], deviceKey: true }))
    .post(
      '/kiosk/payment/create-intent',
      async ({ tenant, device, body }) => {
        const r = await createKioskIntent(useCase(tenant), device!, body);
        return { data: transactionView(r.transaction, r.lines) };
      },
      {
        body: S.CreateIntentBody,
        response: { 200: S.TransactionResponse },
        detail: doc(
          'Create the transaction and start the terminal payment',
          'A new order (`lines`: item ids, quantities, modifiers; prices come from the published menu, never from the client) or a retry (`transaction_id`). Starts the payment on the device\'s terminal: card-b sale (a 409 from a busy terminal mints a new idempotency key and retries), card-a reader, or platform-a terminal checkout (422 `terminal_not_configured` without a terminal device). A free order or auto-success mode completes at once.',
        ),
      },
    )
    .get(
      '/kiosk/payment/session-status',
      async ({ tenant, device, query }) => {
        const r = await getKioskSessionStatus(useCase(tenant), device!, query.idempotency_key);
        return { data: { transaction_id: r.transaction.id, idempotency_key: r.transaction.idempotency_key, status: r.transaction.status, provider_status: r.provider_status } };
      },
      { query: S.SessionStatusQuery, response: { 200: S.SessionStatusResponse }, detail: doc('Poll the terminal payment session', 'Any key of the transaction (current or earlier) finds it; the provider is asked while the payment is open.') },
    )
    .get(
      '/kiosk/payment/details/:idempotencyKey',
      async ({ tenant, device, params }) => {
        const r = await getKioskPaymentDetails(useCase(tenant), device!, params.idempotencyKey);
        return { data: transactionView(r.transaction, r.lines), capture: r.capture };
      },
      { params: S.DetailsParams, response: { 200: S.DetailsResponse }, detail: doc('Payment details after payment', 'Answers the transaction and, while its payment is open, dispatches an asynchronous capture (run by the worker).') },
    )
    .post(
      '/kiosk/payment/send-receipt',
      async ({ tenant, device, body }) => {
        await throttle(deps.redis, deps.env, [[THROTTLES.kioskReceiptDevice, device!.id]]);
        const t = await findKioskTransactionByKey(tenant.db, device!.id, body.idempotency_key);
        await throttle(deps.redis, deps.env, [
          [THROTTLES.kioskReceiptTransaction, `${tenant.merchant.id}:${t.id}`],
          [THROTTLES.receiptRecipient, mailboxKey(body.email)],
        ]);
        await sendReceipt(tenant.db, t, body.email);
        return { status: 'success' as const };
      },
      {
        body: S.SendReceiptBody,
        response: { 200: S.Success },
        detail: doc(
          'Send the receipt',
          'E-mails the receipt of a complete transaction of this kiosk (409 `no_receipt` before completion). Throttled (429): `kiosk-receipt` 10 per minute per device, 5 per hour per transaction, and 10 per hour per recipient inbox (back-office resends included).',
        ),
      },
    )
    .post(
      '/kiosk/payment/cancel-action',
      async ({ tenant, device, body }) => {
        const t = await cancelKioskPayment(useCase(tenant), device!, body.idempotency_key);
        return { data: transactionView(t) };
      },
      {
        body: S.CancelBody,
        response: { 200: S.TransactionResponse },
        detail: doc('Cancel the terminal action', 'platform-a: the terminal checkout is cancelled; card-b: every key not yet invalid is aborted and marked invalid; card-a: the reader action and the intent are cancelled. The status becomes `Cancelled`; a completed payment is a 409.'),
      },
    );
}
