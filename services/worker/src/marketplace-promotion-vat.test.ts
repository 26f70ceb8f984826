import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { importMarketplaceOrder, type MarketplaceClient } from '@pos/core/integrations/marketplace-orders';
import type { MarketplaceOrder } from '@pos/providers/shared/marketplace-orders';
import { createTestApi, type TestApi } from '../../api/src/testing/harness.ts';

/**
 * A marketplace order with a promotion: the marketplace collected less than lines + fee + tip. The
 * import books the shortfall as `discount` and `total` is what was collected; VAT groups must not stay on
 * the undiscounted lines. Our own pricing (pricing.ts: "VAT groups are on the discounted gross per rate (as
 * the register's order totals)") keeps by_vat_rate gross = goods actually sold = total - fees - tip.
 */
let api: TestApi;
let m: DemoSeedResult;
const store = `probe-vat-${crypto.randomUUID().slice(0, 8)}`;
let connectionId: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('probe-mkt-vat');
  connectionId = Bun.randomUUIDv7();
  const now = new Date();
  await api.deps.db
    .insertInto('integration_connections')
    .values({ id: connectionId, provider: 'delivery-a', external_ref: store, merchant_id: m.merchant.id, location_id: m.locations[0]!.id, status: 'active', settings: JSON.stringify({ auto_accept_orders: false }), connected_at: now, created_at: now, updated_at: now } as never)
    .execute();
}, 60_000);
afterAll(async () => {
  await api.deps.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await api.close();
});

describe('marketplace order with a marketplace promotion', () => {
  test('VAT is computed on what was actually charged for the goods (by_vat_rate gross = total - fees - tip)', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    // One 21 % item we sell on the delivery channel.
    const item = await tdb.selectFrom('items').select(['id', 'name', 'vat_rate']).where('visible', '=', true).where('vat_rate', '=', 21 as never).executeTakeFirstOrThrow();
    await tdb.updateTable('items').set({ channels: ['delivery', 'pos', 'kiosk', 'online_ordering'] as never }).where('id', '=', item.id).execute();
    const order: MarketplaceOrder = {
      id: crypto.randomUUID(), store_id: store, display_id: '42', status: 'CREATED', type: 'DELIVERY', customer: { name: 'Promo Customer' },
      items: [{ external_id: item.id, name: item.name, quantity: 2, unit_price: 1210 }],
      delivery_fee: 0, tip: 0, total: 1210, // 50 % marketplace promotion: 2420 of goods, 1210 collected
      placed_at: new Date().toISOString(), deny_reason: null,
    } as MarketplaceOrder;
    const client: MarketplaceClient = { getOrder: async () => order, acceptOrder: async () => order, denyOrder: async () => order };
    const r = await importMarketplaceOrder(
      { central: api.deps.db, redis: api.deps.redis, log: api.deps.log, now: () => new Date(), clients: { 'delivery-a': client, 'delivery-b': null } as never },
      { provider: 'delivery-a', connectionId, externalOrderId: order.id, eventId: `probe-${order.id}` },
    );
    expect(r.outcome).toBe('imported');
    const t = await tdb.selectFrom('transactions').selectAll().where('id', '=', r.transactionId!).executeTakeFirstOrThrow();
    expect([t.subtotal, t.discount, t.total]).toEqual([2420, 1210, 1210]);
    const groups = (typeof t.by_vat_rate === 'string' ? JSON.parse(t.by_vat_rate) : t.by_vat_rate) as { rate: number; gross: number; vat: number; net: number }[];
    // Observed: [{ rate: 21, gross: 2420, vat: 420, net: 2000 }] and vat 420 on a 1210 sale.
    expect(groups.reduce((s, g) => s + g.gross, 0)).toBe(t.total - t.fees - t.tip_amount);
    expect(t.vat).toBe(210);
    expect(groups).toEqual([{ rate: 21, net: 1000, vat: 210, gross: 1210 }]);
    // The lines carry the promotion, as our own offers do (total = sum(lines.total) = subtotal - discount).
    const lines = await tdb.selectFrom('transaction_lines').select(['gross', 'discount', 'total']).where('transaction_id', '=', t.id).execute();
    expect(lines.map((l) => [Number(l.gross), Number(l.discount), Number(l.total)])).toEqual([[2420, 1210, 1210]]);
  });
});
