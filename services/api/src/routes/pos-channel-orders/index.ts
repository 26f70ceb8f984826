import { Elysia, type AnyElysia } from 'elysia';
import { getChannelOrder, listChannelOrders } from '@pos/core/pos/channel-orders/channel-orders';
import type { ApiDeps } from '../../context.ts';
import { posStaff } from '../../plugins/pos-secured.ts';
import * as S from './pos-channel-orders.schemas.ts';

const tags = ['Register: omni-channel'];
const security = [{ bearer: [] }];

/**
 * The omni-channel order stream (spec 2): staff routes of the register (`auth`, `device-key`,
 * `type:pos`, `tenant:pos`, `X-Pos-Staff-Token`), read-only, for the device's own location.
 * Typed as `AnyElysia` for the app (TS2589).
 */
export function posChannelOrderRoutes(deps: ApiDeps): AnyElysia {
  return new Elysia({ name: 'pos-channel-orders' })
    .use(posStaff(deps))
    .get('/pos/channel-orders', ({ query, tenant, device }) => listChannelOrders(tenant.db, device.location_id, query, deps.clock.now()), {
      query: S.ChannelOrdersQuery,
      response: { 200: S.ChannelOrderList },
      detail: {
        tags,
        security,
        summary: 'Omni-channel order stream: `{data, total, fulfillment, channels}`',
        description:
          'Paid orders of the other channels (kiosk, online, table QR) at this register\'s location, with their kitchen progress. `view` is required: `active` (not yet complete in the kitchen, due within 30 minutes), `scheduled` (due later), `completed` (completed in the kitchen within 24 hours). Optional `channel` (a channel label) and `dining_option` (a fulfillment bucket). Buckets, first match wins: delivery (dining option `Delivery`), self-serve (channel `Kiosk` or `Table Qr Ordering`), dine-in (`For Here`, legacy `Dine In`), pickup (`Pickup`, `Takeout`, `Takeaway`, and anything else). Any other value of a filter is a 422 on its field.',
      },
    })
    .get('/pos/channel-orders/:id', ({ params, tenant, device }) => getChannelOrder(tenant.db, device.location_id, params.id, deps.clock.now()), {
      params: S.ChannelOrderParams,
      response: { 200: S.ChannelOrderDetail },
      detail: {
        tags,
        security,
        summary: 'One channel order with its lines',
        description: 'The same 404 `Unable to locate the order you requested.` for an order of another location or merchant, an unpaid order, a cancelled order, and an order completed more than 24 hours ago.',
      },
    });
}
