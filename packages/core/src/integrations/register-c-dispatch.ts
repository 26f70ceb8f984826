import { bindTenant, type CentralDb } from '@pos/db';
import { toCents, type RegisterCClient, type RegisterCOrderLine } from '@pos/providers/register-c/register-c-client';
import type { RegisterDispatcher, DispatchOrder, OrderChannel } from './dispatch-register.ts';
import { RegisterDispatchRefusal } from './register-dispatch-refusal.ts';
import { orderSettingsOf, paymentMapOf, type OurPaymentMethod, type RegisterCChannelTarget } from './register-c-admin.ts';
import { registerCClientFor, type RegisterCConfig } from './register-c-access.ts';

/**
 * Order dispatch to register-c (issue 17 item 3): a captured order goes to the register-c location
 * mapped to its location, as the channel's order settings say (a to-go check, or a local check on
 * the configured table), and is paid there with the register-c payment method mapped for how the
 * customer paid (kiosk: `card`, online: `online`). Both calls are idempotent at register-c by
 * reference (the transaction id, and `<id>:pay`), so a re-run finds the same check and payment.
 * Provider failures are left as ProviderError for the dispatch to classify; what no re-run can fix
 * (unlinked items, an unmapped payment method) is a RegisterDispatchRefusal.
 */
type RegisterCChannel = 'online' | 'kiosk';

/** Which order settings a transaction channel uses; marketplace deliveries are not sent to register-c. */
export function registerCChannelOf(channel: OrderChannel | undefined): RegisterCChannel | null {
  if (channel === 'kiosk') return 'kiosk';
  // A table QR order is placed and paid online by the customer, as an online-ordering one.
  if (channel === 'online_ordering' || channel === 'table_qr') return 'online';
  return null;
}

const PAID_WITH: Record<RegisterCChannel, OurPaymentMethod> = { kiosk: 'card', online: 'online' };

export function registerCDispatcher(central: CentralDb, config: RegisterCConfig): RegisterDispatcher {
  return {
    provider: 'register-c',
    async target(tenantDatabase, locationId, channel) {
      const ch = registerCChannelOf(channel);
      if (!ch) return null;
      // The merchant's newest register-c connection, as the administration reads it (registerCAccess).
      const conn = await central
        .selectFrom('integration_connections as c')
        .innerJoin('merchants as m', 'm.id', 'c.merchant_id')
        .select(['c.id', 'c.status', 'c.access_token_encrypted', 'c.token_expires_at', 'c.settings'])
        .where('m.tenant_database', '=', tenantDatabase)
        .where('c.provider', '=', 'register-c')
        .orderBy('c.created_at', 'desc')
        .orderBy('c.id', 'desc')
        .executeTakeFirst();
      if (!conn || conn.status !== 'active') return null;
      const client = await registerCClientFor(central, config, { id: conn.id, accessTokenEncrypted: conn.access_token_encrypted, tokenExpiresAt: conn.token_expires_at });
      if (!client) return null;
      const mapping = await central
        .selectFrom('register_c_mappings')
        .select(['register_c_location_id', 'status', 'order_settings'])
        .where('connection_id', '=', conn.id)
        .where('location_id', '=', locationId)
        .executeTakeFirst();
      if (!mapping || mapping.status !== 'active') return null;
      const settings = orderSettingsOf(mapping.order_settings ?? {})[ch];
      if (!settings) return null;
      const methodId = paymentMapOf((conn.settings ?? {}) as Record<string, unknown>)[PAID_WITH[ch]] ?? null;
      const registerCLocationId = mapping.register_c_location_id;
      return {
        push: (order) => pushOrder({ central, tenantDatabase, locationId, registerCLocationId, client, settings, methodId, paidWith: PAID_WITH[ch] }, order),
      };
    },
  };
}

interface PushTarget {
  readonly central: CentralDb;
  readonly tenantDatabase: string;
  readonly locationId: string;
  readonly registerCLocationId: string;
  readonly client: RegisterCClient;
  readonly settings: RegisterCChannelTarget;
  readonly methodId: string | null;
  readonly paidWith: OurPaymentMethod;
}

async function pushOrder(p: PushTarget, order: DispatchOrder): Promise<{ externalId: string }> {
  const items = await linkedLines(p, order);
  if (!p.methodId) throw new RegisterDispatchRefusal(`The ${p.paidWith} payment method is not mapped to a register-c payment method.`);
  const loc = p.registerCLocationId;
  const profileCode = p.settings.account_profile_code;
  const check =
    p.settings.table_number === null
      ? await p.client.toGoOrder(loc, { reference: order.orderId, profileCode, ...(order.customerName ? { customerName: order.customerName.slice(0, 100) } : {}), items })
      : await p.client.localOrder(loc, { reference: order.orderId, profileCode, tableNumber: p.settings.table_number, items });
  // The check is paid with what we captured for the goods, up to its open balance: a tip (or a fee) is
  // ours, not a line of the check (nor does it pay for a discount of ours the check does not know: that
  // balance stays open for the staff), and register-c refuses a payment above the balance (which used to
  // fail the order for good with its check left open). A check already paid by an earlier run has nothing
  // open: nothing is sent. A free order has nothing to pay; register-c refuses a zero payment.
  const goods = order.paid - order.tip - order.serviceCharge;
  const amount = Math.min(goods, toCents(check.total) - toCents(check.paid));
  if (amount > 0) await p.client.pay(loc, check.id, { reference: `${order.orderId}:pay`, paymentMethodId: p.methodId, amountCents: amount });
  return { externalId: check.id };
}

/** The order's lines as register-c skus (their links at the location); any unlinked item refuses the order. */
async function linkedLines(p: PushTarget, order: DispatchOrder): Promise<RegisterCOrderLine[]> {
  const ids = [...new Set(order.items.map((i) => i.itemId))];
  const links = ids.length
    ? await bindTenant(p.central, p.tenantDatabase).selectFrom('register_c_item_links').select(['item_id', 'sku']).where('location_id', '=', p.locationId).where('item_id', 'in', ids).orderBy('sku').execute()
    : [];
  const skuOf = new Map<string, string>();
  for (const l of links) if (!skuOf.has(l.item_id)) skuOf.set(l.item_id, l.sku);
  const unlinked = [...new Set(order.items.filter((i) => !skuOf.has(i.itemId)).map((i) => i.name))];
  if (unlinked.length) throw new RegisterDispatchRefusal(`No register-c sku is linked at this location for: ${unlinked.join(', ')}.`);
  return order.items.map((i) => ({ sku: skuOf.get(i.itemId)!, quantity: i.qty }));
}
