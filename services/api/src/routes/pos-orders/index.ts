import { Elysia } from 'elysia';
import { kitchenPublisher } from '@pos/core/kitchen/kitchen-events';
import { upsertOrder } from '@pos/core/pos/orders/upsert-order';
import { getOrder } from '@pos/core/pos/orders/get-order';
import { listOrders } from '@pos/core/pos/orders/list-orders';
import { fireOrder } from '@pos/core/pos/orders/fire-order';
import { voidOrder } from '@pos/core/pos/orders/void-order';
import { settleOrder } from '@pos/core/pos/orders/settle-order';
import type { ApiDeps } from '../../context.ts';
import { posStaff } from '../../plugins/pos-secured.ts';
import * as S from './pos-orders.schemas.ts';
import { queueSaleReceipt } from '@pos/core/printers/print-dispatch';
import { afterCommit } from '../print-hooks.ts';

const tags = ['Register: orders'];
const security = [{ bearer: [] }];

/** Register orders (spec 2 "Order rules", "States and transitions"): staff routes of `/pos/orders`. */
export function posOrderRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'pos-orders' })
    .use(posStaff(deps))
    .get('/pos/orders', ({ query, tenant, device }) => listOrders(tenant.db, { locationId: device.location_id }, query), {
      query: S.ListOrdersQuery,
      response: { 200: S.OrderList },
      detail: {
        tags,
        security,
        summary: 'Orders of this register location by state: `{data, total}`',
        description:
          '`state` is required: `open`, `settling` (orders whose settlement is in flight with a remote fiscal data module, state SETTLING) or `settled`; any other value is 422 on `state`. Newest change first.',
      },
    })
    .put(
      '/pos/orders/:clientUuid',
      ({ params, body, tenant, authorizer, actor }) =>
        upsertOrder(
          tenant.db,
          actor,
          authorizer(body.approval_token),
          {
            clientUuid: params.clientUuid,
            expected_version: body.expected_version,
            order_profile: body.order_profile,
            table_number: body.table_number,
            lines: body.lines,
          },
          deps.clock.now(),
        ),
      {
        params: S.OrderParams,
        body: S.UpsertOrderBody,
        response: { 200: S.Order },
        detail: {
          tags,
          security,
          summary: 'Create or replace an order (full document; the server prices it)',
          description:
            'Create with `expected_version` 0 or absent (stored at version 1). The document the server returned may be sent back as is: its server-owned keys (`client_uuid`, `version`, `state`, `fired`, `totals`, `tender`, `fiscal`, `transaction_id`, timestamps) are ignored; any other unknown key is 422. Stale version: 409 `{message, reason: stale_version, current_version}`. Emptying an unfired order voids it (200, state VOIDED); emptying a fired one is 409 `order_fired`. Permissions: `take_orders`; `apply_discount` for a new or changed discount; `remove_fired_line` for removing, lowering or replacing a line of a fired order.',
        },
      },
    )
    .get('/pos/orders/:clientUuid', ({ params, tenant, device }) => getOrder(tenant.db, { locationId: device.location_id }, params.clientUuid), {
      params: S.OrderParams,
      response: { 200: S.Order },
      detail: { tags, security, summary: 'One order of this register location' },
    })
    .post(
      '/pos/orders/:clientUuid/fire',
      ({ params, body, tenant, authorizer, actor }) =>
        fireOrder(tenant.db, deps.fiscal, actor, authorizer(body?.approval_token), params.clientUuid, deps.clock.now(), kitchenPublisher(deps.redis, tenant.merchant.tenant_database, deps.log)),
      {
        params: S.OrderParams,
        body: S.ApprovalBody,
        response: { 200: S.Order },
        detail: { tags, security, summary: 'Send an OPEN order with lines to the kitchen (`take_orders`): `fired` true, version + 1' },
      },
    )
    .post(
      '/pos/orders/:clientUuid/void',
      ({ params, body, tenant, authorizer, actor }) =>
        voidOrder(tenant.db, deps.fiscal, actor, authorizer(body?.approval_token), { clientUuid: params.clientUuid, reason: body?.reason ?? null }, deps.clock.now(), kitchenPublisher(deps.redis, tenant.merchant.tenant_database, deps.log)),
      {
        params: S.OrderParams,
        body: S.VoidBody,
        response: { 200: S.Order },
        detail: { tags, security, summary: 'Void an OPEN order (`void_order`); the optional `reason` is recorded in the activity log; a fired order sends the kitchen VOID lines for everything fired' },
      },
    )
    .post(
      '/pos/orders/:clientUuid/settle',
      async ({ params, body, tenant, device, authorizer, actor }) => {
        const order = await settleOrder(
          tenant.db,
          deps.fiscal,
          actor,
          authorizer(body.approval_token),
          { clientUuid: params.clientUuid, body },
          deps.clock.now(),
        );
        if (order.state === 'SETTLED') await afterCommit(deps, 'sale receipt', () => queueSaleReceipt(tenant.db, order.client_uuid, deps.clock.now(), device.location_id));
        return order;
      },
      {
        params: S.OrderParams,
        body: S.SettleBody,
        response: { 200: S.Order },
        detail: {
          tags,
          security,
          summary: 'Settle an OPEN order (`settle`): tender legs, fiscal signature, transaction',
          description:
            'Body `{amount_tendered}` (one cash leg) or `{tenders:[{method, funding?, amount?, amount_tendered?, provider?}]}` (`provider` is the issuer pick, `issuer` an alias; any other leg key is 422 on that field; an amount is at most 100000000 cents, what a drawer holds). A tender refusal is 422 with the verbatim message, `reason` (the refusal code) and the field; the order stays OPEN. A second settle is 409 `not_open`. Without an active fiscal enrolment: 422 `fiscal_not_enrolled`. Answers the bare order with `tender {amount_tendered?, change?}`, `fiscal {short_signature, digital_signature, verification_url}` and `transaction_id`.',
        },
      },
    );
}
