import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { importMarketplaceOrder, type MarketplaceClient } from '@pos/core/integrations/marketplace-orders';
import type { MarketplaceOrder } from '@pos/providers/shared/marketplace-orders';

/** Probe 7: back-office transactions (spec 1 "Transactions and reports", spec 3 transaction fields). */
let sim: CardBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let kiosk: string;
const CREDS = { CARD_B_CLIENT_ID: 'p7-tx', CARD_B_CLIENT_SECRET: 'p7-tx-secret' };
const made: { id: string; key: string; total: number }[] = [];

beforeAll(async () => {
  sim = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: sim.url } });
  m = await api.seed('p7-tx');
  owner = await api.ownerToken(m);
  kiosk = await api.deviceToken(m, 'kiosk');
  for (const qty of [1, 2, 3, 4]) {
    const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty }] } });
    made.push({ id: r.body.data.id, key: r.body.data.idempotency_key, total: r.body.data.total });
    if (qty === 4) await api.call('POST', '/api/kiosk/payment/cancel-action', { token: kiosk, deviceKey: true, body: { idempotency_key: r.body.data.idempotency_key } });
    else {
      await sim.complete(r.body.data.idempotency_key);
      await api.call('POST', `/api/back-office/transactions/${r.body.data.id}/verify-payment-status`, { token: owner });
    }
  }
});
afterAll(async () => {
  await api.close();
  await sim.stop();
});

const bo = (method: string, path: string, o: { body?: unknown; token?: string } = {}) => api.call(method, `/api/back-office/transactions${path}`, { token: o.token ?? owner, body: o.body });
const csvRows = (text: string) => text.replace(/^\uFEFF/, '').trim().split('\n').slice(1).map((l) => l.split(','));

describe('back-office transactions', () => {
  test('to=9999-12-31 (a valid calendar date) on the data table, stats and export is answered, never a 500', async () => {
    for (const path of ['/datatable', '/stats', '/export']) {
      const r = await bo('GET', `${path}?from=2000-01-01&to=9999-12-31`);
      expect([path, r.status]).toEqual([path, 200]);
    }
  });

  test('data table, stats and export agree for the same filter', async () => {
    for (const q of ['', 'status=Complete', 'status=Cancelled', `location_id=${m.locations[0]!.id}`, 'search=1', 'search=idemp', 'channel=kiosk&payment_provider=card-b', 'from=2000-01-01&to=2100-01-01']) {
      const dt = await bo('GET', `/datatable?per_page=100&${q}`);
      const st = await bo('GET', `/stats?${q}`);
      const ex = csvRows((await bo('GET', `/export?${q}`)).text);
      expect([q, dt.body.total, ex.length]).toEqual([q, st.body.data.count, st.body.data.count]);
      const complete = dt.body.data.filter((t: any) => t.status === 'Complete');
      expect([q, st.body.data.complete.total]).toEqual([q, complete.reduce((a: number, t: any) => a + t.total, 0)]);
    }
  });

  test('another merchant\'s transaction id is 404 on every action and nothing is written', async () => {
    const other = await api.seed('p7-tx-other');
    const otherOwner = await api.ownerToken(other);
    for (const [method, path, body] of [['GET', `/${made[0]!.id}`], ['POST', `/${made[0]!.id}/resend-receipt`, { email: 'a@example.com' }], ['POST', `/${made[0]!.id}/retry-sync`], ['POST', `/${made[0]!.id}/verify-payment-status`], ['DELETE', `/${made[0]!.id}`]] as const) {
      const r = await bo(method, path, { token: otherOwner, body });
      expect([path, r.status]).toEqual([path, 404]);
    }
    expect((await bo('GET', `/${made[0]!.id}`)).status).toBe(200);
  });

  test('search with a LIKE wildcard is literal', async () => {
    expect((await bo('GET', '/datatable?search=%25')).body.total).toBe(0);
    expect((await bo('GET', '/datatable?search=_')).body.total).toBe(made.filter((x) => x.key.includes('_')).length);
  });

  test('the page past the end is empty with the right total; paging with sort=status covers every row once', async () => {
    const last = await bo('GET', '/datatable?page=100000&per_page=100');
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ data: [], total: 4, page: 100000, per_page: 100 });
    const seen: string[] = [];
    for (let p = 1; p <= 4; p++) seen.push(...(await bo('GET', `/datatable?sort=status&per_page=1&page=${p}`)).body.data.map((t: any) => t.id));
    expect(seen.sort()).toEqual(made.map((x) => x.id).sort());
  });

  test('stats: tips are summed and separate; average in integer cents', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    await tdb.updateTable('transactions').set({ tip_amount: 150 }).where('id', '=', made[0]!.id).execute();
    const s = (await bo('GET', '/stats')).body.data;
    expect(s.complete.tip_amount).toBe(150);
    expect(Number.isInteger(s.complete.average)).toBe(true);
    await tdb.updateTable('transactions').set({ tip_amount: 0 }).where('id', '=', made[0]!.id).execute();
  });

  test('the export of a filter matching nothing is a header-only CSV', async () => {
    const r = await bo('GET', '/export?from=2001-01-01&to=2001-01-01');
    expect(r.status).toBe(200);
    expect(r.text.replace(/^\uFEFF/, '').trim().split('\n').length).toBe(1);
  });

  test('DELETE a test-mode transaction twice at once: never a 500, the row is gone', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    await tdb.updateTable('transactions').set({ is_test: true }).where('id', '=', made[3]!.id).execute();
    const [a, b] = await Promise.all([bo('DELETE', `/${made[3]!.id}`), bo('DELETE', `/${made[3]!.id}`)]);
    expect([a.status, b.status].every((s) => s === 200 || s === 404)).toBe(true);
    expect((await bo('GET', `/${made[3]!.id}`)).status).toBe(404);
  });

  test('verify-payment-status three times at once captures once: one receipt number, one capture step', async () => {
    const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
    await sim.complete(r.body.data.idempotency_key);
    const all = await Promise.all([1, 2, 3].map(() => bo('POST', `/${r.body.data.id}/verify-payment-status`)));
    expect(all.map((x) => x.status)).toEqual([200, 200, 200]);
    const receipts = new Set(all.map((x) => x.body.data.receipt_no));
    expect(receipts.size).toBe(1);
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const counter = await tdb.selectFrom('transaction_counters').select('value').where('name', '=', 'receipt_no').where('location_id', '=', r.body.data.location_id).executeTakeFirstOrThrow();
    expect(counter.value).toBe([...receipts][0]);
    const steps = await tdb.selectFrom('transaction_steps').select('step').where('transaction_id', '=', r.body.data.id).where('step', '=', 'capture').execute();
    expect(steps.length).toBe(1);
  });

  test('transaction stats leave test-mode transactions out of the complete money, as the sales report does', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const before = (await bo('GET', '/stats?status=Complete')).body.data.complete;
    await tdb.updateTable('transactions').set({ is_test: true }).where('id', '=', made[1]!.id).execute();
    const after = (await bo('GET', '/stats?status=Complete')).body.data.complete;
    await tdb.updateTable('transactions').set({ is_test: false }).where('id', '=', made[1]!.id).execute();
    expect({ count: after.count, total: after.total }).toEqual({ count: before.count - 1, total: before.total - made[1]!.total });
  });

  test('a test-mode transaction says so in the detail, the data table and the export, whose non-test Complete rows add up to the stats', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    await tdb.updateTable('transactions').set({ is_test: true }).where('id', '=', made[1]!.id).execute();
    try {
      expect((await bo('GET', `/${made[1]!.id}`)).body.data.is_test).toBe(true);
      expect((await bo('GET', `/${made[0]!.id}`)).body.data.is_test).toBe(false);
      const rows = (await bo('GET', '/datatable?per_page=100&status=Complete')).body.data as { id: string; is_test: boolean }[];
      expect(rows.find((r) => r.id === made[1]!.id)!.is_test).toBe(true);
      const stats = (await bo('GET', '/stats?status=Complete')).body.data.complete;
      const text = (await bo('GET', '/export?status=Complete')).text.replace(/^\uFEFF/, '').trim().split('\n');
      const header = text[0]!.split(',');
      const cells = text.slice(1).map((l) => l.split(','));
      const real = cells.filter((c) => c[header.indexOf('is_test')] === 'false');
      expect(cells.find((c) => c[header.indexOf('id')] === made[1]!.id)![header.indexOf('is_test')]).toBe('true');
      expect({ count: real.length, total: real.reduce((s, c) => s + Number(c[header.indexOf('total')]), 0) }).toEqual({ count: stats.count, total: stats.total });
    } finally {
      await tdb.updateTable('transactions').set({ is_test: false }).where('id', '=', made[1]!.id).execute();
    }
  });

  test('detail money adds up: lines + tip + fees = total = subtotal - discount + tip + fees; VAT groups cover the goods', async () => {
    const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 3 }, { item_id: m.items[1]!.id, qty: 1 }], tip_amount: 125 } });
    await sim.complete(r.body.data.idempotency_key);
    await bo('POST', `/${r.body.data.id}/verify-payment-status`);
    const d = (await bo('GET', `/${r.body.data.id}`)).body.data;
    const lines = d.lines.reduce((a: number, l: any) => a + l.total, 0);
    const groups = (typeof d.by_vat_rate === 'string' ? JSON.parse(d.by_vat_rate) : d.by_vat_rate ?? []) as any[];
    expect({
      status: d.status,
      tip: d.tip_amount,
      linesPlus: lines + d.tip_amount + d.fees,
      formula: d.subtotal - d.discount + d.tip_amount + d.fees,
      vat: groups.reduce((a, g) => a + g.vat, 0),
      gross: groups.reduce((a, g) => a + g.gross, 0),
    }).toEqual({ status: 'Complete', tip: 125, linesPlus: d.total, formula: d.total, vat: d.vat, gross: d.total - d.tip_amount - d.fees });
  });

  test('a member whose grant lacks the location gets 404 on every action and nothing is written', async () => {
    const elsewhere = await limitedUserToken(api, m, ['VIEW_TRANSACTIONS', 'EXPORT_TRANSACTION_REPORTS'], [m.locations[1]!.id]);
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    await tdb.updateTable('transactions').set({ is_test: true }).where('id', '=', made[2]!.id).execute();
    const outbox = async () => Number((await api.deps.db.selectFrom('outbox').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await outbox();
    for (const [method, path, body] of [['POST', `/${made[2]!.id}/resend-receipt`, { email: 'x@example.com' }], ['POST', `/${made[2]!.id}/retry-sync`], ['POST', `/${made[2]!.id}/verify-payment-status`], ['DELETE', `/${made[2]!.id}`]] as const) {
      const r = await bo(method, path, { token: elsewhere, body });
      expect([path, r.status]).toEqual([path, 404]);
    }
    expect(await outbox()).toBe(before);
    expect((await bo('GET', `/${made[2]!.id}`)).status).toBe(200);
    expect(csvRows((await bo('GET', '/export', { token: elsewhere })).text).length).toBe(0);
    expect((await bo('GET', '/stats', { token: elsewhere })).body.data.count).toBe(0);
    await tdb.updateTable('transactions').set({ is_test: false }).where('id', '=', made[2]!.id).execute();
  });

  test('a status with a space is accepted as %20 and as + (form encoding)', async () => {
    const a = await bo('GET', '/datatable?status=Awaiting%20Payment');
    const b = await bo('GET', '/datatable?status=Awaiting+Payment');
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.total).toBe(a.body.total);
  });

  test('an upper-case id in the path names the same transaction', async () => {
    const r = await bo('GET', `/${made[0]!.id.toUpperCase()}`);
    expect([r.status, r.body.data?.id]).toEqual([200, made[0]!.id]);
  });
});

describe('back-office transactions: a marketplace order with fees', () => {
  test('an export row adds up like the detail: subtotal - discount + tip_amount + fees = total', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const now = new Date();
    const connectionId = Bun.randomUUIDv7();
    const store = `tx-fees-${crypto.randomUUID().slice(0, 8)}`;
    await api.deps.db
      .insertInto('integration_connections')
      .values({ id: connectionId, provider: 'delivery-a', external_ref: store, merchant_id: m.merchant.id, location_id: m.locations[0]!.id, status: 'active', settings: JSON.stringify({ auto_accept_orders: false }), connected_at: now, created_at: now, updated_at: now } as never)
      .execute();
    try {
      const espresso = m.items.find((i) => i.name === 'Espresso')!;
      const order = {
        id: crypto.randomUUID(), store_id: store, display_id: '7', status: 'CREATED', type: 'DELIVERY', customer: { name: 'Fee Customer' },
        items: [{ external_id: espresso.id, name: 'Espresso', quantity: 2, unit_price: espresso.unit_price }],
        delivery_fee: 299, tip: 50, total: 2 * espresso.unit_price + 299 + 50, placed_at: now.toISOString(), deny_reason: null,
      } as MarketplaceOrder;
      const client: MarketplaceClient = { getOrder: async () => order, acceptOrder: async () => order, denyOrder: async () => order };
      await tdb.updateTable('items').set({ channels: ['delivery', 'pos', 'kiosk', 'online_ordering', 'qr_ordering'] as never }).where('id', '=', espresso.id).execute();
      const r = await importMarketplaceOrder(
        { central: api.deps.db, redis: api.deps.redis, log: api.deps.log, now: () => new Date(), clients: { 'delivery-a': client, 'delivery-b': null } as never },
        { provider: 'delivery-a', connectionId, externalOrderId: order.id, eventId: `tx-fees-${order.id}` },
      );
      expect(r.outcome).toBe('imported');
      const d = (await bo('GET', `/${r.transactionId}`)).body.data;
      expect([d.subtotal, d.discount, d.tip_amount, d.fees, d.total]).toEqual([2 * espresso.unit_price, 0, 50, 299, order.total]);
      const text = (await bo('GET', '/export?channel=delivery')).text.replace(/^\uFEFF/, '').trim().split('\n');
      const header = text[0]!.split(',');
      const row = text.slice(1).map((l) => l.split(',')).find((c) => c[header.indexOf('id')] === r.transactionId)!;
      const col = (name: string) => Number(row[header.indexOf(name)]);
      expect([col('subtotal'), col('discount'), col('tip_amount'), col('fees'), col('total')]).toEqual([d.subtotal, d.discount, d.tip_amount, d.fees, d.total]);
      expect(col('subtotal') - col('discount') + col('tip_amount') + col('fees')).toBe(col('total'));
    } finally {
      await api.deps.db.deleteFrom('integration_connections').where('id', '=', connectionId).execute();
    }
  });
});

describe('back-office transactions: a marketplace order its marketplace cancelled after paying', () => {
  test('is no sale in the stats (complete money, by provider), as in the sales report; the data table still lists it', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const now = new Date();
    const connectionId = Bun.randomUUIDv7();
    const store = `tx-cancel-${crypto.randomUUID().slice(0, 8)}`;
    await api.deps.db
      .insertInto('integration_connections')
      .values({ id: connectionId, provider: 'delivery-b', external_ref: store, merchant_id: m.merchant.id, location_id: m.locations[0]!.id, status: 'active', settings: JSON.stringify({ auto_accept_orders: false }), connected_at: now, created_at: now, updated_at: now } as never)
      .execute();
    try {
      const espresso = m.items.find((i) => i.name === 'Espresso')!;
      await tdb.updateTable('items').set({ channels: ['delivery', 'pos', 'kiosk', 'online_ordering', 'qr_ordering'] as never }).where('id', '=', espresso.id).execute();
      const order = {
        id: crypto.randomUUID(), store_id: store, display_id: '8', status: 'ACCEPTED', type: 'DELIVERY', customer: { name: 'Cancelled Customer' },
        items: [{ external_id: espresso.id, name: 'Espresso', quantity: 3, unit_price: espresso.unit_price }],
        delivery_fee: 0, tip: 0, total: 3 * espresso.unit_price, placed_at: now.toISOString(), deny_reason: null,
      } as MarketplaceOrder;
      const client: MarketplaceClient = { getOrder: async () => order, acceptOrder: async () => order, denyOrder: async () => order };
      const deps = { central: api.deps.db, redis: api.deps.redis, log: api.deps.log, now: () => new Date(), clients: { 'delivery-a': null, 'delivery-b': client } as never };
      const before = (await bo('GET', '/stats')).body.data;
      const r = await importMarketplaceOrder(deps, { provider: 'delivery-b', connectionId, externalOrderId: order.id, eventId: `tx-c1-${order.id}` });
      expect(r.outcome).toBe('imported');
      const paid = (await bo('GET', '/stats')).body.data;
      expect(paid.complete.total - before.complete.total).toBe(order.total);
      order.status = 'CANCELED';
      await importMarketplaceOrder(deps, { provider: 'delivery-b', connectionId, externalOrderId: order.id, eventId: `tx-c2-${order.id}` });
      const row = await tdb.selectFrom('transactions').select(['status', 'order_status']).where('id', '=', r.transactionId!).executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'Complete', order_status: 'Cancelled' });
      const after = (await bo('GET', '/stats')).body.data;
      expect(after.complete).toEqual(before.complete);
      expect(after.by_provider).toEqual(before.by_provider);
      expect((await bo('GET', '/stats?channel=delivery&payment_provider=delivery-b')).body.data.complete).toEqual({ count: 0, total: 0, tip_amount: 0, average: 0 });
      expect((await bo('GET', '/datatable?channel=delivery&per_page=100')).body.data.map((t: { id: string }) => t.id)).toContain(r.transactionId);
      // The export says which Complete rows are no sale, so its rows add up to the stats.
      const text = (await bo('GET', '/export')).text.replace(/^\uFEFF/, '').trim().split('\n');
      const header = text[0]!.split(',');
      expect(header.at(-1)).toBe('order_status');
      const rows = text.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [header[i]!, v])));
      expect(rows.find((x) => x.id === r.transactionId)).toMatchObject({ status: 'Complete', order_status: 'Cancelled', channel: 'delivery' });
      const sale = rows.filter((x) => x.status === 'Complete' && x.is_test === 'false' && !(x.channel === 'delivery' && x.order_status === 'Cancelled'));
      expect(sale.reduce((a, x) => a + Number(x.total), 0)).toBe(after.complete.total);
    } finally {
      await api.deps.db.deleteFrom('integration_connections').where('id', '=', connectionId).execute();
    }
  });
});

describe('back-office transactions: a date range that ends before it starts', () => {
  test('is 422 on `to` on the data table, stats and export (as the sales report answers), not an empty list', async () => {
    for (const path of ['/datatable', '/stats', '/export']) {
      const r = await bo('GET', `${path}?from=2026-03-02&to=2026-03-01`);
      expect([path, r.status, r.body]).toEqual([path, 422, { message: 'The to field must be a date after or equal to from.', errors: { to: ['The to field must be a date after or equal to from.'] } }]);
    }
    expect((await bo('GET', '/stats?from=2026-03-01&to=2026-03-01')).status).toBe(200);
  });
});

describe('back-office transactions: resend-receipt is no mail relay', () => {
  test('5 receipt mails per transaction an hour and 10 per recipient an hour; then 429 and nothing queued', async () => {
    const { sql } = await import('kysely');
    const queued = async (to: string) => (await api.deps.db.selectFrom('outbox').select('id').where(sql<string>`payload->>'to'`, '=', to).where(sql<string>`payload->>'template'`, '=', 'payment-receipt').execute()).length;
    const victim = `victim-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const send = (id: string, email: string) => bo('POST', `/${id}/resend-receipt`, { body: { email } });
    for (let i = 0; i < 5; i++) expect((await send(made[0]!.id, victim)).status).toBe(200);
    // The same transaction to another address: the transaction's five are spent.
    expect(await send(made[0]!.id, `other-${crypto.randomUUID().slice(0, 8)}@example.com`)).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.' } });
    for (let i = 0; i < 5; i++) expect((await send(made[1]!.id, victim)).status).toBe(200);
    // Another transaction, the same address: the address's ten are spent.
    expect(await send(made[2]!.id, victim.toUpperCase())).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.' } });
    expect(await queued(victim)).toBe(10);
    // The kiosk's send-receipt counts toward the same inbox; a sub-address is that inbox. Before: not counted at all.
    expect(await api.call('POST', '/api/kiosk/payment/send-receipt', { token: kiosk, deviceKey: true, body: { idempotency_key: made[2]!.key, email: victim.replace('@', '+kiosk@') } })).toMatchObject({
      status: 429,
      body: { message: 'Too Many Attempts.' },
    });
    expect(await queued(victim.replace('@', '+kiosk@'))).toBe(0);
  });
});
