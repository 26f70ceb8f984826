import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/** A tester's pass over the register's omni-channel stream: what the channels object offers can be filtered on. */
let api: TestApi;
let m: DemoSeedResult;
let pos: string;
let staff: string;

/** A paid delivery marketplace order (what the delivery-a / delivery-b import writes: channel `delivery`). */
async function marketplaceOrder(orderNo: number, dining: 'Delivery' | 'Pickup'): Promise<string> {
  const id = crypto.randomUUID();
  const now = Date.now();
  await bindTenant(api.deps.db, m.merchant.tenant_database)
    .insertInto('transactions')
    .values({
      id,
      location_id: m.locations[0]!.id,
      device_id: null,
      channel: 'delivery',
      order_no: orderNo,
      status: 'Complete',
      order_status: 'Queued',
      payment_provider: 'delivery-b',
      payment_snapshot: JSON.stringify({}),
      idempotency_key: `mkt_delivery-b_${id}`,
      all_idempotency_keys: [`mkt_delivery-b_${id}`],
      receipt_no: orderNo,
      subtotal: 1500,
      discount: 0,
      vat: 85,
      total: 1500,
      by_vat_rate: JSON.stringify([]),
      offers: JSON.stringify([]),
      menu_version: 1,
      customer_id: null,
      loyalty_token: null,
      cart_session_id: null,
      dining_option: dining,
      customer_name: 'Courier customer',
      scheduled_for: null,
      completed_at: new Date(now - 60_000),
      created_at: new Date(now - 61_000),
      updated_at: new Date(now - 60_000),
    } as any)
    .execute();
  return id;
}

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('chorders-adv');
  pos = await api.deviceToken(m, 'pos');
  staff = await api.staffLogin(m, 'cashier', pos);
});
afterAll(() => api.close());

const list = (query: string) => api.call('GET', `/api/pos/channel-orders${query}`, { token: pos, deviceKey: true, staffToken: staff });

describe('GET /pos/channel-orders: marketplace orders', () => {
  test('a delivery marketplace order is counted under a channel the filter accepts (the register offers each channel it is sent as a tab)', async () => {
    const delivered = await marketplaceOrder(901, 'Delivery');
    const pickedUp = await marketplaceOrder(902, 'Pickup');
    const all = await list('?view=active');
    expect({ status: all.status, channels: all.body.channels, fulfillment: all.body.fulfillment, total: all.body.total }).toEqual({
      status: 200,
      channels: { Delivery: 2 },
      fulfillment: { all: 2, delivery: 1, pickup: 1 },
      total: 2,
    });
    for (const channel of Object.keys(all.body.channels)) {
      const r = await list(`?view=active&channel=${encodeURIComponent(channel)}`);
      expect({ channel, status: r.status, ids: r.body.data?.map((o: { id: string }) => o.id).sort() }).toEqual({ channel, status: 200, ids: [delivered, pickedUp].sort() });
    }
    expect((await list('?view=active&channel=Delivery&dining_option=pickup')).body.data.map((o: { id: string; channel: string }) => [o.id, o.channel])).toEqual([[pickedUp, 'Delivery']]);
  });
});
