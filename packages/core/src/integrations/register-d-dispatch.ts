import type { CentralDb } from '@pos/db';
import type { RegisterDClient, RegisterDOrderInput } from '@pos/providers/register-d/register-d-client';
import type { DispatchOrder, OrderChannel, RegisterDispatcher } from './dispatch-register.ts';
import { REGISTER_D, registerDProvider } from './register-d-admin.ts';

/**
 * Order dispatch to register-d (issue 17 item 3): a captured kiosk or online order goes through the
 * transport to the site of the location's active `register-d:<vendor>` connection (any configured
 * vendor; the administration lets one vendor be active per location). The transaction id is the
 * transport's order id, so a re-run answers the order already received instead of a second one.
 * Provider failures stay ProviderError for the dispatch to classify.
 */
export interface RegisterDDispatchConfig {
  readonly client: RegisterDClient;
  /** The configured vendor words (REGISTER_D_VENDORS); a connection of another vendor is not used. */
  readonly vendors: readonly string[];
}

/** The orders we sell ourselves (kiosk, online, table QR); marketplace deliveries are not sent, as with register-c. */
const SENT: ReadonlySet<OrderChannel> = new Set<OrderChannel>(['kiosk', 'online_ordering', 'table_qr']);

export function registerDDispatcher(central: CentralDb, config: RegisterDDispatchConfig): RegisterDispatcher {
  return {
    provider: REGISTER_D,
    async target(tenantDatabase, locationId, channel) {
      if (channel !== undefined && !SENT.has(channel)) return null;
      if (config.vendors.length === 0) return null;
      const conn = await central
        .selectFrom('integration_connections as c')
        .innerJoin('merchants as m', 'm.id', 'c.merchant_id')
        .select(['c.provider', 'c.external_ref'])
        .where('m.tenant_database', '=', tenantDatabase)
        .where('c.location_id', '=', locationId)
        .where('c.provider', 'in', config.vendors.map(registerDProvider))
        .where('c.status', '=', 'active')
        .orderBy('c.created_at', 'desc')
        .orderBy('c.id', 'desc')
        .executeTakeFirst();
      if (!conn) return null;
      const vendor = conn.provider.slice(REGISTER_D.length + 1);
      const siteId = conn.external_ref;
      return {
        async push(order) {
          const o = await config.client.putOrder(vendor, siteId, order.orderId, registerDOrderOf(order));
          return { externalId: o.id };
        },
      };
    },
  };
}

/** The transport's order body, in cents; modifier names ride on the line name (the transport has no modifiers). */
export function registerDOrderOf(order: DispatchOrder): RegisterDOrderInput {
  const lines = order.lines.map((l) => {
    const mods = (l.modifiers ?? []).map((m) => m.name).filter(Boolean);
    const name = mods.length ? `${l.name} (${mods.join(', ')})` : l.name;
    return { name: name.slice(0, 200), quantity: l.quantity, unit_price: l.unitPrice };
  });
  return {
    channel: order.channel,
    customer_name: order.customerName ? order.customerName.slice(0, 100) : null,
    lines,
    totals: {
      subtotal: lines.reduce((a, l) => a + l.quantity * l.unit_price, 0),
      tip: order.tip,
      service_charge: order.serviceCharge,
      discount: order.discountTotal,
      total: order.paid,
    },
  };
}
