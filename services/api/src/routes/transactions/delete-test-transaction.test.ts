import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { createRedis } from '@pos/kernel';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { runPostCapture } from '@pos/core/payments/post-capture';
import { kitchenChannel } from '@pos/core/payments/payment-events';
import { kitchenEventsAfter, latestKitchenSeq } from '@pos/core/kitchen/kitchen-events';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * `DELETE /back-office/transactions/{id}` of a captured test-mode kiosk order whose kitchen ticket is
 * on the screens: the ticket, its lines, its events and its print jobs go in the same commit, the
 * screens are told (`removed`), and the KDS no longer lists or acts on the order.
 */
let sim: CardBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let owner: string;
let kiosk: string;
let kds: string;
const CREDS = { CARD_B_CLIENT_ID: 'bo-del', CARD_B_CLIENT_SECRET: 'bo-del-secret' };

beforeAll(async () => {
  sim = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: sim.url } });
  m = await api.seed('bo-del');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
  kiosk = await api.deviceToken(m, 'kiosk');
  kds = await api.deviceToken(m, 'kds');
});
afterAll(async () => {
  await api.close();
  await sim.stop();
});

describe('DELETE of a test-mode transaction with a kitchen ticket', () => {
  test('removes the ticket, its lines, events and print jobs; the screens get `removed`; the KDS no longer lists or acts on it', async () => {
    const location = m.locations[0]!.id;
    const at = { last_reported_at: new Date(), created_at: new Date(), updated_at: new Date() };
    const receiptPrinter = crypto.randomUUID();
    const kitchenPrinter = crypto.randomUUID();
    await tdb
      .insertInto('printers')
      .values([
        { id: receiptPrinter, location_id: location, mac: '00:11:62:AB:01:01', state: 'paired', role: 'receipt', name: 'Counter', ...at },
        { id: kitchenPrinter, location_id: location, mac: '00:11:62:AB:01:02', state: 'paired', role: 'kitchen', station_id: m.kds.station_id, name: 'Kitchen', ...at },
      ])
      .execute();
    // A kiosk order at a location in payment test mode (completed as the synthetic test payment, no
    // terminal sale), through its post-capture sequence (what the worker runs).
    const espresso = m.items.find((i) => i.name === 'Espresso')!.id;
    await tdb.insertInto('inventory_levels').values({ item_id: espresso, location_id: location, quantity: 50 }).onConflict((oc) => oc.columns(['item_id', 'location_id']).doUpdateSet({ quantity: 50 })).execute();
    await tdb.updateTable('locations').set({ payment_settings: JSON.stringify({ test_mode: true }) }).where('id', '=', location).execute();
    const intent = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: espresso, qty: 2 }] } });
    const id: string = intent.body.data.id;
    expect(intent.body.data.status).toBe('Complete');
    expect(sim.session(intent.body.data.idempotency_key)).toBeUndefined();
    // A test-mode order sold nothing: the stock stays as it was (and its DELETE has nothing to give back).
    expect(await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', espresso).where('location_id', '=', location).executeTakeFirstOrThrow()).toEqual({ quantity: 50 });
    expect(await tdb.selectFrom('inventory_history').select('type').where('item_id', '=', espresso).where('note', '=', `Order ${intent.body.data.order_no}`).execute()).toEqual([]);
    const before = await latestKitchenSeq(tdb, location);
    await runPostCapture(tdb, m.merchant.tenant_database, id, false);
    const ticket = await tdb.selectFrom('kitchen_tickets').select(['id', 'station_id']).where('source', '=', 'transaction').where('source_id', '=', id).executeTakeFirstOrThrow();
    const kdsCall = (method: string, path: string) => api.call(method, `/api/kds${path}`, { token: kds, deviceKey: true });
    expect((await kdsCall('GET', '/orders')).body.data.map((o: { id: string }) => o.id)).toContain(ticket.id);
    expect((await kdsCall('PUT', `/${ticket.id}/in-progress`)).status).toBe(200);
    const started = await latestKitchenSeq(tdb, location);
    expect(await tdb.selectFrom('print_jobs').select('source_key').where('printer_id', 'in', [receiptPrinter, kitchenPrinter]).orderBy('source_key').execute()).toEqual([{ source_key: `order:${id}` }, { source_key: `ticket:${ticket.id}` }]);

    const sub = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'delete-test');
    const pushed: unknown[] = [];
    await sub.subscribe(kitchenChannel(m.merchant.tenant_database));
    sub.on('message', (_c, msg) => pushed.push(JSON.parse(msg)));
    try {
      expect((await api.call('DELETE', `/api/back-office/transactions/${id}`, { token: owner })).body).toEqual({ status: 'success' });
      const removed = { type: 'kitchen.ticket', seq: started + 1, action: 'removed', location_id: location, station_id: ticket.station_id, order: { id: ticket.id } };
      await Bun.sleep(200);
      expect(pushed).toEqual([removed]);

      // Nothing of the order is left for the kitchen but the notice that it is gone.
      expect(await tdb.selectFrom('kitchen_tickets').select('id').where('source_id', '=', id).execute()).toEqual([]);
      expect(await tdb.selectFrom('kitchen_ticket_lines').select('position').where('ticket_id', '=', ticket.id).execute()).toEqual([]);
      expect(await tdb.selectFrom('kitchen_items').select('position').where('transaction_id', '=', id).execute()).toEqual([]);
      expect(await tdb.selectFrom('kitchen_events').select(['action', 'payload']).where('ticket_id', '=', ticket.id).execute()).toEqual([{ action: 'removed', payload: removed as never }]);
      expect(await tdb.selectFrom('print_jobs').select('source_key').where('printer_id', 'in', [receiptPrinter, kitchenPrinter]).execute()).toEqual([]);
      expect(await tdb.selectFrom('transaction_steps').select('step').where('transaction_id', '=', id).execute()).toEqual([]);

      // The KDS neither lists nor acts on it.
      expect((await kdsCall('GET', '/orders')).body.data.map((o: { id: string }) => o.id)).not.toContain(ticket.id);
      for (const action of ['ready', 'hold', 'complete']) {
        expect(await kdsCall('PUT', `/${ticket.id}/${action}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the order you requested.' } });
      }
      // A screen that saw the start catches up with the removal; one from before the ticket reloads (its events are gone).
      expect(await kitchenEventsAfter(tdb, location, started)).toEqual({ events: [removed as never], complete: true, latest: started + 1 });
      expect(await kitchenEventsAfter(tdb, location, before)).toEqual({ events: [], complete: false, latest: started + 1 });
      expect((await api.call('GET', `/api/back-office/transactions/${id}`, { token: owner })).status).toBe(404);
    } finally {
      sub.disconnect();
    }
  });
});
