import { readFileSync } from 'node:fs';
import pg from 'pg';
import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { cardBSimUrl, E2E, registerASimUrl } from '../support/stack-env.ts';

/**
 * Issue 17: the kiosk's location is connected to a register-a store (the register-a simulator, a separate
 * process) through the back office; a kiosk order paid on the card-b terminal is captured by the worker and
 * dispatched to that store once, in major units (`retry-sync` of it then is 409 `already_synced`).
 */
async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('a captured kiosk order is found once in the register-a store, in major units, even when dispatched twice', async ({ request }) => {
  const seed = loadSeed();
  const { token } = await (await request.post('/api/login', { data: seed.backoffice })).json();
  const bo = { authorization: `Bearer ${token}` };
  const kioskDevice = seed.devices.find((d) => d.id === seed.kiosk.device_id)!;
  const locationId = kioskDevice.location_id;

  // The back office connects the location: the pasted token, then the store.
  const setup = await (await request.post(registerASimUrl('/_sim/setup'), { data: { stores: 1 } })).json();
  const store = setup.storeIds[0] as string;
  const enabled = await request.post(`/api/back-office/register-a/${locationId}/enable`, { headers: bo, data: { token: setup.token } });
  expect(enabled.status()).toBe(200);
  const selected = await request.post(`/api/back-office/register-a/${locationId}/stores/select`, { headers: bo, data: { store_id: store } });
  expect((await selected.json()).data).toMatchObject({ status: 'active', store_id: store, connected: true });

  // The kiosk sells and the customer pays at the card-b terminal.
  const code = (await (await request.post(`/api/back-office/devices/${seed.kiosk.device_id}/new-activation-code`, { headers: bo })).json()).data.activation_code;
  const act = await (await request.post('/api/device-auth/activate', { data: { activation_code: code } })).json();
  const kiosk = { authorization: `Bearer ${act.token}`, 'x-client-api-key': E2E.env.DEVICE_API_KEY };
  const espresso = seed.items.find((i) => i.name === 'Espresso')!;
  const t = (await (await request.post('/api/kiosk/payment/create-intent', { headers: kiosk, data: { lines: [{ item_id: espresso.id, qty: 3 }] } })).json()).data;
  const key = encodeURIComponent(t.idempotency_key);
  expect((await request.post(cardBSimUrl(`/_sim/sessions/${key}/complete`))).status()).toBe(200);
  await request.get(`/api/kiosk/payment/details/${key}`, { headers: kiosk });
  const done = await eventually(
    async () => (await (await request.get(`/api/kiosk/payment/details/${key}`, { headers: kiosk })).json()).data,
    (d) => d.status === 'Complete',
  );
  expect(done.status).toBe('Complete');

  // Only this order is looked at: an earlier suite's order still in its dispatch retries may land here too.
  const storeOrders = async () => ((await (await request.get(registerASimUrl(`/_sim/stores/${store}/orders`))).json()).data as any[]).filter((o) => o.orderId === t.id);
  const orders = await eventually(storeOrders, (o) => o.length > 0);
  expect(orders.length).toBe(1);
  expect(orders[0]).toMatchObject({ orderId: t.id, total: t.total / 100, status: 'not_acked', orderIsAlreadyPaid: true, testOrder: false, decimalDigits: 2 });
  expect(orders[0].payment.amount).toBe(t.total / 100);
  expect(orders[0].items).toEqual([{ name: 'Espresso', quantity: 3, price: espresso.unit_price / 100, modifiers: [] }]);

  const db = new pg.Client({ connectionString: readFileSync(E2E.databaseUrlFile, 'utf8') });
  await db.connect();
  try {
    const schema = seed.merchant.tenant_database;
    const sync = await eventually(
      async () => (await db.query(`select status as pos_sync_status, detail as pos_sync_detail from "${schema}".transaction_register_sync where transaction_id = $1`, [t.id])).rows[0],
      (r) => r?.pos_sync_status === 'synced',
    );
    expect(sync).toEqual({ pos_sync_status: 'synced', pos_sync_detail: `register-a order ${orders[0].id}` });
    // `retry-sync` ("retry a failed POS sync") of an order at its register: 409, nothing sent again.
    for (let i = 0; i < 2; i++) {
      const retry = await request.post(`/api/back-office/transactions/${t.id}/retry-sync`, { headers: bo });
      expect({ status: retry.status(), body: await retry.json() }).toEqual({ status: 409, body: { message: 'The order is already at its register.', reason: 'already_synced' } });
    }
    // The simulator's signed `store.orders` webhook reached the API and was verified with the stored applicationId.
    const hooks = await eventually(
      async () => (await db.query(`select status, merchant_id, event_type from webhook_logs where provider = 'register-a' and raw_body like $1`, [`%${t.id}%`])).rows,
      (r) => r.length > 0,
    );
    expect(hooks[0]).toMatchObject({ status: 'processed', merchant_id: seed.merchant.id, event_type: 'store.orders' });
  } finally {
    await db.end();
  }
  await new Promise((r) => setTimeout(r, 3000));
  const after = await storeOrders();
  expect(after.map((o) => o.id)).toEqual([orders[0].id]);

  // orders/verify finds it in the store.
  const verify = await (await request.post(`/api/back-office/register-a/${locationId}/orders/verify`, { headers: bo })).json();
  expect(verify.data.found).toContain(t.id);
  expect(verify.data.missing).toEqual([]);

  // Disconnected again: later suites' kiosk orders are not sent to the simulator.
  expect((await request.delete(`/api/back-office/register-a/${locationId}`, { headers: bo })).status()).toBe(200);
});
