import type { CentralDb } from '@pos/db';
import type { RegisterBChannel, RegisterBClient } from '@pos/providers/register-b/register-b-client';
import type { DispatchOrder, OrderChannel, RegisterDispatcher } from './dispatch-register.ts';
import { REGISTER_B } from './register-b-admin.ts';

/**
 * Order dispatch to register-b (issue 17 item 3): register-b is connected per merchant (its account is
 * the connection's `external_ref`) and each location is mapped to one of the account's branches
 * (`register_b_mappings`). A captured order is placed at the mapped branch with our transaction id as
 * register-b's order id, which register-b keeps idempotent, so a re-run finds the same order. Provider
 * failures are left as ProviderError for the dispatch to classify.
 */
const CHANNEL: Record<OrderChannel, RegisterBChannel> = { kiosk: 'kiosk', online_ordering: 'online', table_qr: 'table', delivery: 'delivery' };

export function registerBDispatcher(central: CentralDb, client: RegisterBClient): RegisterDispatcher {
  return {
    provider: REGISTER_B,
    async target(tenantDatabase, locationId) {
      // The merchant's newest register-b connection, as the administration reads it (merchantConnection).
      const conn = await central
        .selectFrom('integration_connections as c')
        .innerJoin('merchants as m', 'm.id', 'c.merchant_id')
        .select(['c.id', 'c.status', 'c.external_ref', 'c.merchant_id'])
        .where('m.tenant_database', '=', tenantDatabase)
        .where('c.provider', '=', REGISTER_B)
        .orderBy('c.created_at', 'desc')
        .orderBy('c.id', 'desc')
        .executeTakeFirst();
      if (!conn || conn.status !== 'active') return null;
      const mapping = await central
        .selectFrom('register_b_mappings')
        .select('branch_id')
        .where('merchant_id', '=', conn.merchant_id)
        .where('connection_id', '=', conn.id)
        .where('location_id', '=', locationId)
        .executeTakeFirst();
      if (!mapping) return null;
      const accountId = conn.external_ref;
      const branchId = mapping.branch_id;
      return {
        async push(order) {
          const r = await client.placeOrder(accountId, branchId, order.orderId, registerBOrderOf(order));
          return { externalId: r.order.id };
        },
      };
    },
  };
}

/** The register-b order of a dispatch order (cents; the client sends major units). */
export function registerBOrderOf(order: DispatchOrder) {
  const lines = order.lines.map((l) => {
    const mods = (l.modifiers ?? []).map((m) => m.name).filter(Boolean);
    // register-b lines carry no modifiers: their names go with the line, within its 200 characters.
    const name = (mods.length ? `${l.name} (${mods.join(', ')})` : l.name).slice(0, 200);
    return { name, quantity: l.quantity, unitPrice: l.unitPrice };
  });
  return {
    channel: CHANNEL[order.channel],
    customerName: order.customerName ? order.customerName.slice(0, 200) : null,
    lines,
    subtotal: lines.reduce((a, l) => a + l.quantity * l.unitPrice, 0),
    discount: order.discountTotal,
    tip: order.tip,
    serviceCharge: order.serviceCharge,
    total: order.paid,
  };
}
