import { Elysia } from 'elysia';
import { refundSale } from '@pos/core/pos/refunds/refund-sale';
import type { ApiDeps } from '../../context.ts';
import { posStaff } from '../../plugins/pos-secured.ts';
import * as S from './pos-refunds.schemas.ts';
import { queueRefundReceipt } from '@pos/core/printers/print-dispatch';
import { afterCommit } from '../print-hooks.ts';

const tags = ['Register: refunds'];
const security = [{ bearer: [] }];

/** `POST /pos/refunds` (spec 2 "Refund rules"). */
export function posRefundRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'pos-refunds' })
    .use(posStaff(deps))
    .post(
      '/pos/refunds',
      async ({ body, tenant, authorizer, actor }) => {
        const out = await refundSale(
          tenant.db,
          deps.fiscal,
          deps.log,
          actor,
          authorizer(body.approval_token),
          { transaction_id: body.transaction_id, mode: body.mode, line_uuids: body.line_uuids ?? null },
          deps.clock.now(),
        );
        await afterCommit(deps, 'refund receipt', () => queueRefundReceipt(tenant.db, out.refund.id, deps.clock.now()));
        return out;
      },
      {
        body: S.RefundBody,
        response: { 200: S.Refund },
        detail: {
          tags,
          security,
          summary: 'Signed cash refund of a settled sale (`refund`)',
          description:
            'Always hands back cash from the caller\'s open till and signs one negative CASH line. Unknown transaction or another location\'s: 404. 422 `card_paid` for a payment captured by the platform; 422 `tender_mismatch` when the payment snapshot and the frozen tender disagree (nothing refunded, error logged); `partial` needs `line_uuids` (each a line of the sale, 422 on `line_uuids.N`), `full` refunds every line not yet refunded. A line is refunded once: 409 `already_refunded` with `line_uuids`. No open till: 409 `no_open_till`. After the day\'s Z close: 409 `business_day_closed`. A remote fiscal module that does not answer: 503 `fiscal_unreachable`, the refund kept; the same request from the same register then resumes it (200 once signed, 503 while unreachable, 422 `fiscal_refused` if refused), needing no second approval. Answers `{refund: {id, transaction_id, order_id, mode, amount, lines, by_vat_rate, till_id, business_date, fiscal, created_at}}`.',
        },
      },
    );
}
