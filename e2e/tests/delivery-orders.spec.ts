import { readFileSync } from 'node:fs';
import pg from 'pg';
import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { deliveryASimUrl, E2E, E2E_DELIVERY_A_STORES } from '../support/stack-env.ts';

/**
 * Issue 17: a delivery-a order. The location is connected to the marketplace store through the back
 * office (auto-accept on); the delivery-a simulator (a separate process) places an order and sends its
 * signed webhook to the running API, twice; the worker reads the order through the marketplace's API,
 * accepts it there, captures it as paid by the marketplace, and the kitchen display lists it once.
 */
async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
}

test('a signed delivery-a order webhook, delivered twice, reaches the kitchen display once', async ({ request }) => {
  const seed = loadSeed();
  const location = seed.locations[0]!.id;
  const store = E2E_DELIVERY_A_STORES[0];
  const { token } = await (await request.post('/api/login', { data: seed.backoffice })).json();
  const owner = { authorization: `Bearer ${token}` };

  const enabled = await request.post(`/api/back-office/delivery-a/${location}`, { headers: owner, data: { store_id: store, link_code: `LINK-${store}`, auto_accept_orders: true } });
  expect(enabled.status()).toBe(200);
  expect((await enabled.json()).data).toMatchObject({ enabled: true, store_id: store, settings: { auto_accept_orders: true } });

  // A kitchen display of this suite's own, bound to the seed's station (no route sells a device subscription yet: set in the database).
  const kdsLocation = seed.devices.find((d) => d.id === seed.kds.device_id)!.location_id;
  const created = await request.post('/api/back-office/devices', { headers: owner, data: { name: 'Kitchen screen delivery e2e', type: 'kds', location_id: kdsLocation } });
  expect(created.status()).toBe(201);
  const kdsDevice = (await created.json()).data as { id: string; activation_code: string };
  expect((await request.post(`/api/back-office/devices/${kdsDevice.id}/station`, { headers: owner, data: { station_id: seed.kds.station_id } })).status()).toBe(200);
  const db = new pg.Client({ connectionString: readFileSync(E2E.databaseUrlFile, 'utf8') });
  await db.connect();
  try {
    await db.query(`update "${seed.merchant.tenant_database}".devices set subscription_active_until = now() + interval '1 day' where id = $1`, [kdsDevice.id]);
    const kdsToken = (await (await request.post('/api/device-auth/activate', { data: { activation_code: kdsDevice.activation_code } })).json()).token as string;
    const kds = { authorization: `Bearer ${kdsToken}`, 'x-client-api-key': E2E.env.DEVICE_API_KEY };

    const [first, second] = [seed.items[0]!, seed.items[1]!];
    const placed = await request.post(deliveryASimUrl(`/_sim/stores/${store}/orders`), {
      data: {
        customer_name: 'E2E Marketplace',
        items: [
          { external_id: first.id, name: first.name, quantity: 2, unit_price: 300 },
          { external_id: second.id, name: second.name, quantity: 1, unit_price: 450 },
        ],
        delivery_fee: 199,
      },
    });
    expect(placed.status()).toBe(201);
    const { order, event_id, webhook_status } = (await placed.json()) as { order: { id: string; total: number }; event_id: string; webhook_status: number };
    expect(webhook_status).toBe(200);
    expect(order.total).toBe(1249);
    // The marketplace delivers the same signed event again.
    const again = await request.post(deliveryASimUrl(`/_sim/webhooks/${event_id}/redeliver`));
    expect((await again.json()).webhook_status).toBe(200);

    const q = `select id, order_no, status, channel, payment_provider, total, external_status from "${seed.merchant.tenant_database}".transactions where external_provider = 'delivery-a' and external_order_id = $1`;
    const rows = await eventually(async () => (await db.query(q, [order.id])).rows, (r) => r[0]?.status === 'Complete');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'Complete', channel: 'delivery', payment_provider: 'delivery-a', total: 1249, external_status: 'ACCEPTED' });
    const orderNo = String(rows[0].order_no);

    const onScreen = await eventually(
      async () => ((await (await request.get('/api/kds/orders', { headers: kds })).json()).data as { id: string; order_no: string; status: string }[]).filter((o) => o.order_no === orderNo),
      (list) => list.length > 0,
    );
    expect(onScreen).toHaveLength(1);
    expect(onScreen[0]!.status).toBe('Queued');
    // Still once after everything settled; the marketplace saw one acceptance.
    await new Promise((r) => setTimeout(r, 1000));
    const later = ((await (await request.get('/api/kds/orders', { headers: kds })).json()).data as { order_no: string }[]).filter((o) => o.order_no === orderNo);
    expect(later).toHaveLength(1);
    expect((await db.query(q, [order.id])).rows).toHaveLength(1);
    const tickets = await db.query(`select count(*)::int as n from "${seed.merchant.tenant_database}".kitchen_tickets where source = 'transaction' and source_id = $1`, [rows[0].id]);
    expect(tickets.rows[0].n).toBe(1);
    const calls = await (await request.get(deliveryASimUrl(`/_sim/orders/${order.id}/calls`))).json();
    expect(calls).toEqual({ accepts: 1, denies: [] });
  } finally {
    await db.end();
  }
});
