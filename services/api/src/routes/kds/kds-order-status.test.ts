import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// Spec 1 section 3: `PUT /kds/{id}/in-progress` sets the order status `In Progress`, `/ready` `Ready`;
// spec 3: the transaction's `order_status` is the kitchen status. With tickets at several stations the
// order follows all of them (docs/decisions.md "Kitchen display").
let api: TestApi;
let a: DemoSeedResult;
let kds: string;
let tdb: TenantDb;
let owner: string;
const call = (method: string, path: string, token = kds) => api.call(method, path, { token, deviceKey: true });
let orderNo = 7000;

async function paidOrder(orderStatus = 'Queued'): Promise<string> {
  const tx = crypto.randomUUID();
  const no = ++orderNo;
  await tdb
    .insertInto('transactions')
    .values({ id: tx, location_id: a.locations[0]!.id, device_id: null, channel: 'kiosk', order_no: no, status: 'Complete', order_status: orderStatus, payment_provider: 'card-a', payment_snapshot: JSON.stringify({}), idempotency_key: `kos-${tx}`, all_idempotency_keys: [`kos-${tx}`], receipt_no: no, subtotal: 990, discount: 0, vat: 56, total: 990, by_vat_rate: JSON.stringify([{ rate: 6, net: 934, vat: 56, gross: 990 }]), offers: JSON.stringify([]), menu_version: null, customer_id: null, loyalty_token: null, cart_session_id: null, completed_at: new Date() } as never)
    .execute();
  return tx;
}

async function tickets(tx: string) {
  const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
  return createKitchenTickets(tdb, { source: 'transaction', sourceId: tx, locationId: a.locations[0]!.id, orderNo: String(orderNo), at: new Date(), lines: [{ position: 0, item_id: a.items[0]!.id, category_id: cat.id, name: 'Burger', qty: 1, modifiers: [] }] });
}

const orderStatus = async (tx: string) => (await tdb.selectFrom('transactions').select('order_status').where('id', '=', tx).executeTakeFirstOrThrow()).order_status;

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('kds-order-status');
  kds = await api.deviceToken(a, 'kds');
  tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
  owner = await api.ownerToken(a);
});
afterAll(() => api.close());

describe('the order status follows the kitchen display', () => {
  test('in-progress, ready, complete and recall set the order status of the paid order (spec 1 section 3)', async () => {
    const tx = await paidOrder();
    const [t] = await tickets(tx);
    expect((await call('PUT', `/api/kds/${t!.id}/in-progress`)).status).toBe(200);
    expect(await orderStatus(tx)).toBe('In Progress');
    expect((await call('PUT', `/api/kds/${t!.id}/ready`)).status).toBe(200);
    expect(await orderStatus(tx)).toBe('Ready');
    expect((await call('PUT', `/api/kds/${t!.id}/complete`)).status).toBe(200);
    expect(await orderStatus(tx)).toBe('Complete');
    expect((await call('PUT', `/api/kds/${t!.id}/recall`)).status).toBe(200);
    expect(await orderStatus(tx)).toBe('Ready');
  });

  test('the first item mark starts the order', async () => {
    const tx = await paidOrder();
    const [t] = await tickets(tx);
    const r = await api.call('PUT', '/api/kds/mark-item', { token: kds, deviceKey: true, body: { order_id: t!.id, position: 0, status: 'In Progress' } });
    expect(r.status, r.text).toBe(200);
    expect(await orderStatus(tx)).toBe('In Progress');
  });

  test('an order with tickets at two stations is ready only when both are, complete only when both are', async () => {
    const loc = a.locations[0]!.id;
    const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
    const bar = await api.call('POST', '/api/back-office/devices/stations', { token: owner, body: { location_id: loc, name: 'Bar', category_ids: [cat.id] } });
    expect(bar.status).toBe(201);
    const tx = await paidOrder();
    const made = await tickets(tx);
    expect(made.length).toBe(2);
    const mine = made.find((t) => t.station_id === a.kds.station_id)!;
    const theirs = made.find((t) => t.station_id === bar.body.data.id)!;
    expect((await call('PUT', `/api/kds/${mine.id}/ready`)).status).toBe(200);
    expect(await orderStatus(tx)).toBe('In Progress');
    // The other station's screen, as its device would act (ticket row changed the same way).
    await tdb.updateTable('kitchen_tickets').set({ status: 'Ready', ready_at: new Date() }).where('id', '=', theirs.id).execute();
    expect((await call('PUT', `/api/kds/${mine.id}/complete`)).status).toBe(200);
    expect(await orderStatus(tx)).toBe('Ready');
    await api.call('DELETE', `/api/back-office/devices/stations/${bar.body.data.id}`, { token: owner });
  });

  test('a cancelled order stays cancelled', async () => {
    const tx = await paidOrder('Cancelled');
    const [t] = await tickets(tx);
    expect((await call('PUT', `/api/kds/${t!.id}/in-progress`)).status).toBe(200);
    expect(await orderStatus(tx)).toBe('Cancelled');
  });
});
