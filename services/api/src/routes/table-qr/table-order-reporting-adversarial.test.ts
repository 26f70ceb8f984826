import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Kysely } from 'kysely';
import { bindTenant } from '@pos/db';
import * as migration540 from '@pos/db/migrations/tenant/2026-12-01-540-table-qr-channel';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { backgroundCapturesSettled } from '../../testing/background-captures.ts';

/**
 * A table QR order placed through the storefront payment route must be a `table_qr` order wherever the
 * channel is read: the stored column (the back-office channel filter, stats and export), and the
 * register's omni-channel stream (label `Table Qr Ordering`, fulfilment `self_serve`).
 */
let api: TestApi;
let a: DemoSeedResult;
let owner: string;
let tableOrder: string;
let pickupOrder: string;

const loc0 = () => a.locations[0]!.id;
const tdb = () => bindTenant(api.deps.db, a.merchant.tenant_database);
const pay = (body: Record<string, unknown>) => api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/payment`, { body });

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('table-reporting');
  owner = await api.ownerToken(a);
  await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ test_mode: true }) }).where('id', '=', loc0()).execute();
  await api.call('PUT', `/api/back-office/qr-ordering/${loc0()}`, { token: owner, body: { enabled: true } });
  const s = await api.call('POST', '/api/back-office/table-sections', { token: owner, body: { location_id: loc0(), name: 'Patio', tables: 4 } });
  if (s.status !== 201) throw new Error(`section ${s.status} ${s.text}`);
  const scan = await api.call('GET', `/api/table-qr-ordering/${loc0()}/${s.body.data.id}/3`);
  if (scan.status !== 200) throw new Error(`scan ${scan.status} ${scan.text}`);
  const line = { item_id: a.items[1]!.id, qty: 1 };
  const t = await pay({ lines: [line], table_session_id: scan.body.data.id });
  const p = await pay({ lines: [line] });
  if (t.status !== 200 || p.status !== 200) throw new Error(`pay ${t.status} ${t.text} / ${p.status} ${p.text}`);
  tableOrder = t.body.data.transaction_id;
  pickupOrder = p.body.data.transaction_id;
  await backgroundCapturesSettled(api.deps.db, a.merchant.tenant_database);
}, 60_000);
afterAll(async () => {
  await backgroundCapturesSettled(api.deps.db, a.merchant.tenant_database);
  await api.close();
});

describe('table QR orders carry the table_qr channel', () => {
  test('the stored channel column is table_qr for a table order, online_ordering for a pickup order', async () => {
    const rows = await tdb().selectFrom('transactions').select(['id', 'channel', 'status']).where('id', 'in', [tableOrder, pickupOrder]).execute();
    expect(Object.fromEntries(rows.map((r) => [r.id, r.channel]))).toEqual({ [tableOrder]: 'table_qr', [pickupOrder]: 'online_ordering' });
  });

  test('the back-office channel filter: table_qr lists the table order only, online_ordering the pickup order only', async () => {
    const list = async (channel: string) => (await api.call('GET', `/api/back-office/transactions/datatable?channel=${channel}`, { token: owner })).body.data.map((r: { id: string }) => r.id);
    expect(await list('table_qr')).toEqual([tableOrder]);
    expect(await list('online_ordering')).toEqual([pickupOrder]);
    const stats = await api.call('GET', '/api/back-office/transactions/stats?channel=table_qr', { token: owner });
    expect(stats).toMatchObject({ status: 200, body: { data: { count: 1, by_status: { Complete: 1 } } } });
  });

  test('the stats count the table order\'s money under by_channel.table_qr, every channel always listed', async () => {
    // Payment test mode is no money for the stats: here the two orders stand for real sales.
    await tdb().updateTable('transactions').set({ is_test: false }).where('id', 'in', [tableOrder, pickupOrder]).execute();
    try {
      const totals = await tdb().selectFrom('transactions').select(['id', 'total']).where('id', 'in', [tableOrder, pickupOrder]).execute();
      const total = (id: string) => totals.find((t) => t.id === id)!.total;
      const stats = (await api.call('GET', '/api/back-office/transactions/stats', { token: owner })).body.data;
      expect(stats.by_channel).toEqual({
        delivery: { count: 0, total: 0 },
        kiosk: { count: 0, total: 0 },
        online_ordering: { count: 1, total: total(pickupOrder) },
        table_qr: { count: 1, total: total(tableOrder) },
      });
    } finally {
      await tdb().updateTable('transactions').set({ is_test: true }).where('id', 'in', [tableOrder, pickupOrder]).execute();
    }
  });

  test('the register stream shows the table order as Table Qr Ordering, self-serve, and filters on it', async () => {
    const device = await api.deviceToken(a, 'pos');
    const staff = await api.staffLogin(a, 'manager', device);
    const stream = async (q: string) => (await api.call('GET', `/api/pos/channel-orders?view=active${q}`, { token: device, deviceKey: true, staffToken: staff })).body;
    const all = await stream('');
    const row = all.data.find((r: { id: string }) => r.id === tableOrder);
    expect(row).toMatchObject({ channel: 'Table Qr Ordering', fulfillment: 'self_serve' });
    expect(all.channels).toMatchObject({ 'Table Qr Ordering': 1, 'Online Ordering': 1 });
    expect((await stream('&channel=Table%20Qr%20Ordering')).data.map((r: { id: string }) => r.id)).toEqual([tableOrder]);
  });

  test('migration 540 moves table orders stored on online_ordering (marked in the snapshot) to table_qr, and nothing else', async () => {
    const db = tdb() as unknown as Kysely<any>;
    await migration540.down(db);
    expect((await tdb().selectFrom('transactions').select('channel').where('id', '=', tableOrder).executeTakeFirstOrThrow()).channel).toBe('online_ordering');
    await migration540.up(db);
    const rows = await tdb().selectFrom('transactions').select(['id', 'channel']).where('id', 'in', [tableOrder, pickupOrder]).execute();
    expect(Object.fromEntries(rows.map((r) => [r.id, r.channel]))).toEqual({ [tableOrder]: 'table_qr', [pickupOrder]: 'online_ordering' });
  });
});
