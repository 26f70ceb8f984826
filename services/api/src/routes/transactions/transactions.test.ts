import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { sql } from 'kysely';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { makeMember } from '../team/team.test-support.ts';
import { TRANSACTION_CHANNELS, TRANSACTION_PROVIDERS } from '@pos/domain/payments/transaction-values';

/** Back-office transactions (spec 1 "Transactions and reports") over kiosk payments on the card-b simulator. */
let sim: CardBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let kiosk: string;
const CREDS = { CARD_B_CLIENT_ID: 'bo-tx', CARD_B_CLIENT_SECRET: 'bo-tx-secret' };
const made: { id: string; key: string; total: number }[] = [];

beforeAll(async () => {
  sim = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: sim.url } });
  m = await api.seed('bo-tx');
  owner = await api.ownerToken(m);
  kiosk = await api.deviceToken(m, 'kiosk');
  // Three sales: two paid (the second verified from the back office), one cancelled.
  for (const qty of [1, 2, 3]) {
    const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty }] } });
    made.push({ id: r.body.data.id, key: r.body.data.idempotency_key, total: r.body.data.total });
    if (qty === 3) await api.call('POST', '/api/kiosk/payment/cancel-action', { token: kiosk, deviceKey: true, body: { idempotency_key: r.body.data.idempotency_key } });
    else await sim.complete(r.body.data.idempotency_key);
  }
});
afterAll(async () => {
  await api.close();
  await sim.stop();
});

const bo = (method: string, path: string, o: { body?: unknown; token?: string } = {}) => api.call(method, `/api/back-office/transactions${path}`, { token: o.token ?? owner, body: o.body });

describe('back-office transactions', () => {
  test('verify-payment-status asks the provider and settles once; the data table filters, sorts and pages', async () => {
    const v = await bo('POST', `/${made[0]!.id}/verify-payment-status`);
    expect(v.status).toBe(200);
    expect(v.body.data).toMatchObject({ id: made[0]!.id, status: 'Complete', receipt_no: 1, order_status: 'Queued' });
    expect((await bo('POST', `/${made[0]!.id}/verify-payment-status`)).body.data.receipt_no).toBe(1);
    expect((await bo('POST', `/${made[1]!.id}/verify-payment-status`)).body.data).toMatchObject({ status: 'Complete', receipt_no: 2 });

    const all = await bo('GET', '/datatable?sort=total');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, page: 1, per_page: 25 });
    expect(all.body.data.map((t: any) => t.total)).toEqual(made.map((x) => x.total));
    const complete = await bo('GET', '/datatable?status=Complete&sort=-order_no&per_page=1&page=2');
    expect(complete.body).toMatchObject({ total: 2, page: 2, per_page: 1 });
    expect(complete.body.data.map((t: any) => t.id)).toEqual([made[0]!.id]);
    expect((await bo('GET', `/datatable?search=${made[2]!.key.slice(-13)}`)).body.data.map((t: any) => t.status)).toEqual(['Cancelled']);
    expect((await bo('GET', `/datatable?location_id=${m.locations[1]!.id}`)).body.total).toBe(0);
    expect((await bo('GET', '/datatable?from=2000-01-01&to=2000-01-02')).body.total).toBe(0);
    expect((await bo('GET', '/datatable?status=complete')).status).toBe(422);
    expect((await bo('GET', '/datatable?per_page=101')).status).toBe(422);
    expect((await bo('GET', '/datatable?unknown=1')).status).toBe(422);
  });

  test('a from or to that is not a calendar date is a 422 on the data table, the stats and the export (the export before it streams)', async () => {
    for (const [query, field] of [
      ['from=2026-13-45', 'from'],
      ['from=2026-02-30', 'from'],
      ['to=0000-00-00', 'to'],
      ['from=2026-01-01&to=2026-00-10', 'to'],
    ] as const) {
      for (const path of ['/datatable', '/stats', '/export']) {
        const r = await bo('GET', `${path}?${query}`);
        expect({ path, query, status: r.status, body: r.body }).toEqual({ path, query, status: 422, body: { message: expect.any(String), errors: { [field]: [`The ${field} field must be a valid date (YYYY-MM-DD).`] } } });
      }
    }
    expect((await bo('GET', '/datatable?from=2028-02-29&to=2028-02-29')).body.total).toBe(0);
  });

  test('stats, detail with the trace, and the CSV export', async () => {
    const s = await bo('GET', '/stats');
    expect(s.body.data).toEqual({
      count: 3,
      complete: { count: 2, total: made[0]!.total + made[1]!.total, tip_amount: 0, average: Math.round((made[0]!.total + made[1]!.total) / 2) },
      by_status: { Complete: 2, Cancelled: 1 },
      by_provider: { 'card-b': { count: 2, total: made[0]!.total + made[1]!.total } },
      by_channel: { kiosk: { count: 2, total: made[0]!.total + made[1]!.total }, online_ordering: { count: 0, total: 0 }, table_qr: { count: 0, total: 0 }, delivery: { count: 0, total: 0 } },
    });
    const d = await bo('GET', `/${made[0]!.id}`);
    expect(d.status).toBe(200);
    expect(d.body.data).toMatchObject({ id: made[0]!.id, status: 'Complete', pos_sync_status: null, lines: [{ name: m.items[0]!.name, qty: 1 }] });
    expect(d.body.data.steps).toEqual([{ step: 'capture', outcome: 'poll', detail: null }]);

    const csv = await bo('GET', '/export');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="transactions-\d{4}-\d{2}-\d{2}\.csv"$/);
    // UTF-8 byte-order mark first (a decoded text drops it), so a spreadsheet reads accents.
    const raw = new Uint8Array(await (await api.app.handle(new Request('http://localhost/api/back-office/transactions/export', { headers: { authorization: `Bearer ${owner}` } }))).arrayBuffer());
    expect([...raw.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = csv.text.trim().split('\n');
    expect(rows[0]).toBe('id,created_at,completed_at,location_id,channel,order_no,receipt_no,status,payment_provider,subtotal,discount,vat,tip_amount,total,total_eur,is_free,auto_success,running_provider,fees,is_test,order_status');
    expect(rows.length).toBe(4);
    const first = rows.find((r) => r.startsWith(made[0]!.id))!.split(',');
    expect([first[7], first[13], first[14]]).toEqual(['Complete', String(made[0]!.total), (made[0]!.total / 100).toFixed(2)]);
    expect((await bo('GET', '/export?status=Cancelled')).text.trim().split('\n').length).toBe(2);
  });

  test('resend-receipt and retry-sync queue their jobs; refusals for an incomplete transaction', async () => {
    expect((await bo('POST', `/${made[0]!.id}/resend-receipt`, { body: { email: 'guest@example.com' } })).body).toEqual({ status: 'success' });
    const mail = await api.deps.db.selectFrom('outbox').select('payload').where('job', '=', 'notification.send').execute();
    expect(mail.some((r) => (r.payload as any).to === 'guest@example.com' && (r.payload as any).template === 'payment-receipt' && (r.payload as any).data.receipt_no === '1')).toBe(true);
    expect((await bo('POST', `/${made[2]!.id}/resend-receipt`, { body: { email: 'guest@example.com' } })).body).toEqual({ message: 'This transaction has no receipt yet: it is not complete.', reason: 'no_receipt' });
    expect((await bo('POST', `/${made[0]!.id}/resend-receipt`, { body: { email: 'nope' } })).status).toBe(422);
    expect((await bo('POST', `/${made[0]!.id}/retry-sync`)).body).toEqual({ status: 'success' });
    expect((await bo('POST', `/${made[2]!.id}/retry-sync`)).body.reason).toBe('not_complete');
    // the kiosk's own send-receipt
    const k = await api.call('POST', '/api/kiosk/payment/send-receipt', { token: kiosk, deviceKey: true, body: { idempotency_key: made[1]!.key, email: 'kiosk@example.com' } });
    expect(k.body).toEqual({ status: 'success' });
  });

  test('DELETE only a test-mode transaction; permissions and location grants; another merchant is 404', async () => {
    expect((await bo('DELETE', `/${made[2]!.id}`)).body).toEqual({ message: 'Only a test-mode transaction can be deleted.', reason: 'not_test_mode' });
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    await tdb.updateTable('transactions').set({ is_test: true }).where('id', '=', made[2]!.id).execute();
    await tdb.insertInto('transaction_steps').values({ transaction_id: made[2]!.id, step: 'reread', outcome: 'ok', detail: null }).onConflict((oc) => oc.doNothing()).execute();
    expect((await bo('DELETE', `/${made[2]!.id}`)).body).toEqual({ status: 'success' });
    expect((await bo('GET', `/${made[2]!.id}`)).status).toBe(404);
    // Its trace goes with it (the steps have no foreign key to cascade).
    expect(await tdb.selectFrom('transaction_steps').select('step').where('transaction_id', '=', made[2]!.id).execute()).toEqual([]);

    // A test-mode kiosk payment still running at the terminal: cancelled there first, so the terminal is free again.
    const running = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
    expect(running.body.data.status).toBe('Awaiting Payment');
    await tdb.updateTable('transactions').set({ is_test: true }).where('id', '=', running.body.data.id).execute();
    expect((await bo('DELETE', `/${running.body.data.id}`)).body).toEqual({ status: 'success' });
    expect(sim.session(running.body.data.idempotency_key)!.state).toBe('aborted');
    expect((await bo('GET', `/${running.body.data.id}`)).status).toBe(404);
    const next = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
    expect(next.body.data.status).toBe('Awaiting Payment');
    await api.call('POST', '/api/kiosk/payment/cancel-action', { token: kiosk, deviceKey: true, body: { idempotency_key: next.body.data.idempotency_key } });

    const none = await limitedUserToken(api, m, [], m.locations.map((l) => l.id));
    for (const [method, path] of [['GET', '/datatable'], ['GET', '/stats'], ['GET', '/export'], ['GET', `/${made[0]!.id}`], ['POST', `/${made[0]!.id}/retry-sync`], ['POST', `/${made[0]!.id}/verify-payment-status`], ['DELETE', `/${made[0]!.id}`]] as const) {
      const r = await bo(method, path, { token: none });
      expect([path, r.status, r.body]).toEqual([path, 403, { message: 'Unauthorized: Insufficient permissions' }]);
    }
    const viewer = await limitedUserToken(api, m, ['VIEW_TRANSACTIONS'], m.locations.map((l) => l.id));
    expect((await bo('GET', '/datatable', { token: viewer })).status).toBe(200);
    expect((await bo('GET', '/export', { token: viewer })).status).toBe(403);
    const elsewhere = await limitedUserToken(api, m, ['VIEW_TRANSACTIONS'], [m.locations[1]!.id]);
    expect((await bo('GET', '/datatable', { token: elsewhere })).body.total).toBe(0);
    expect((await bo('GET', `/${made[0]!.id}`, { token: elsewhere })).status).toBe(404);
    const other = await api.seed('bo-tx-other');
    const otherOwner = await api.ownerToken(other);
    expect((await bo('GET', `/${made[0]!.id}`, { token: otherOwner })).body).toEqual({ message: 'Unable to locate the transaction you requested.' });
    expect((await bo('GET', '/datatable', { token: otherOwner })).body.total).toBe(0);
  });

  test('a payment counts on the day it completed, as in the sales report: an order started at 23:59 and paid at 00:00 is the next day\'s in the data table, stats and report; an unpaid one is its start day\'s', async () => {
    const n = await api.seed('bo-tx-midnight');
    const nOwner = await api.ownerToken(n);
    const nKiosk = await api.deviceToken(n, 'kiosk');
    const start = async () => (await api.call('POST', '/api/kiosk/payment/create-intent', { token: nKiosk, deviceKey: true, body: { lines: [{ item_id: n.items[0]!.id, qty: 1 }] } })).body.data;
    const paid = await start();
    await sim.complete(paid.idempotency_key);
    expect((await api.call('POST', `/api/back-office/transactions/${paid.id}/verify-payment-status`, { token: nOwner })).body.data.status).toBe('Complete');
    const cancelled = await start();
    await api.call('POST', '/api/kiosk/payment/cancel-action', { token: nKiosk, deviceKey: true, body: { idempotency_key: cancelled.idempotency_key } });
    // Brussels (CET): started 23:59:30 on 9 March, paid 00:00:10 on 10 March.
    const tdb = bindTenant(api.deps.db, n.merchant.tenant_database);
    await tdb.updateTable('transactions').set({ created_at: new Date('2026-03-09T22:59:30Z'), completed_at: new Date('2026-03-09T23:00:10Z') }).where('id', '=', paid.id).execute();
    await tdb.updateTable('transactions').set({ created_at: new Date('2026-03-09T22:59:30Z') }).where('id', '=', cancelled.id).execute();
    const day = async (d: string) => {
      const q = `from=${d}&to=${d}`;
      const list = await api.call('GET', `/api/back-office/transactions/datatable?${q}`, { token: nOwner });
      const stats = await api.call('GET', `/api/back-office/transactions/stats?${q}`, { token: nOwner });
      const report = await api.call('GET', `/api/back-office/reports/sales?${q}`, { token: nOwner });
      return {
        listed: list.body.data.map((t: { id: string }) => t.id).sort(),
        by_status: stats.body.data.by_status,
        kiosk: stats.body.data.by_channel.kiosk,
        report: report.body.data.by_channel.find((c: { channel: string }) => c.channel === 'kiosk').sales_count,
      };
    };
    expect(await day('2026-03-10')).toEqual({ listed: [paid.id], by_status: { Complete: 1 }, kiosk: { count: 1, total: paid.total }, report: 1 });
    expect(await day('2026-03-09')).toEqual({ listed: [cancelled.id], by_status: { Cancelled: 1 }, kiosk: { count: 0, total: 0 }, report: 0 });
  });

  test('an id that is not a UUID is not found (404), on every route that takes one', async () => {
    const notFound = { message: 'Unable to locate the transaction you requested.' };
    for (const id of ['not-a-uuid', '123']) {
      for (const [method, path, body] of [['GET', `/${id}`], ['DELETE', `/${id}`], ['POST', `/${id}/resend-receipt`, { email: 'guest@example.test' }], ['POST', `/${id}/retry-sync`], ['POST', `/${id}/verify-payment-status`]] as const) {
        const r = await bo(method, path, { body });
        expect([method, path, r.status, r.body]).toEqual([method, path, 404, notFound]);
      }
    }
  });

  test('admin-vendor-override: vendor_id lets an internal admin read another merchant\'s data table, stats and export; anyone else is refused', async () => {
    const other = await api.seed('bo-tx-admin');
    const admin = await makeMember(api, other, ['VIEW_TRANSACTIONS', 'EXPORT_TRANSACTION_REPORTS'], { allLocations: true });
    const refused = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    const paths = ['/datatable?sort=order_no', '/stats', '/export?status=Complete'];
    const read = async (path: string, token: string) => {
      const r = await bo('GET', path, { token });
      return { status: r.status, body: (r.headers.get('content-type') ?? '').startsWith('text/csv') ? r.text : r.body };
    };
    // Not an internal admin (nor this merchant's reseller): vendor_id is refused, not ignored.
    for (const path of paths) expect(await read(`${path}${path.includes('?') ? '&' : '?'}vendor_id=${m.merchant.id}`, admin.token)).toEqual(refused);
    expect(await read(`/stats?vendor_id=${other.merchant.id}`, owner)).toEqual(refused);

    await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('id', '=', admin.userId).execute();
    for (const path of paths) {
      const mine = await read(path, owner);
      expect(mine.status).toBe(200);
      expect([path, await read(`${path}${path.includes('?') ? '&' : '?'}vendor_id=${m.merchant.id}`, admin.token)]).toEqual([path, mine]);
    }
    expect((await read('/datatable', owner)).body.total).toBeGreaterThan(0);
    // Without vendor_id the admin reads its own merchant, which has none.
    expect((await read('/datatable', admin.token)).body.total).toBe(0);
    expect((await read('/datatable?vendor_id=not-a-merchant', admin.token))).toEqual(refused);
  });

  test('marketplace orders (channel delivery, provider delivery-a or delivery-b) are filtered on the data table, the stats and the export; the filters accept every value the table can hold', async () => {
    const table = sql.raw(`"${m.merchant.tenant_database}".transactions`);
    // Two marketplace orders, stored as the marketplace import stores them (no device).
    const rows = await sql<{ id: string; total: number }>`
      insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(t) || jsonb_build_object('id', gen_random_uuid(), 'channel', 'delivery', 'payment_provider', p.provider, 'status', p.status,
        'device_id', null, 'order_no', 700000 + p.n, 'receipt_no', case when p.status = 'Complete' then 700000 + p.n end, 'idempotency_key', 'mkt_' || p.provider || '_' || p.n, 'all_idempotency_keys', jsonb_build_array('mkt_' || p.provider || '_' || p.n)))).*
      from ${table} t, (values ('delivery-a', 'Complete', 1), ('delivery-b', 'Pending', 2)) p(provider, status, n) where t.id = ${made[0]!.id} order by p.n returning id, total`.execute(api.deps.db);
    const [paid, pending] = rows.rows;
    const total = Number(paid!.total);

    const delivery = await bo('GET', '/datatable?channel=delivery&sort=order_no');
    expect(delivery.status).toBe(200);
    expect(delivery.body.total).toBe(2);
    expect(delivery.body.data.map((t: any) => [t.id, t.channel, t.payment_provider, t.status])).toEqual([
      [paid!.id, 'delivery', 'delivery-a', 'Complete'],
      [pending!.id, 'delivery', 'delivery-b', 'Pending'],
    ]);
    expect((await bo('GET', '/datatable?payment_provider=delivery-b')).body.data.map((t: any) => t.id)).toEqual([pending!.id]);
    expect((await bo('GET', '/stats?channel=delivery')).body).toEqual({
      data: { count: 2, complete: { count: 1, total, tip_amount: 0, average: total }, by_status: { Complete: 1, Pending: 1 }, by_provider: { 'delivery-a': { count: 1, total } }, by_channel: { kiosk: { count: 0, total: 0 }, online_ordering: { count: 0, total: 0 }, table_qr: { count: 0, total: 0 }, delivery: { count: 1, total } } },
    });
    expect((await bo('GET', '/stats?payment_provider=delivery-a')).body.data.count).toBe(1);
    const csv = (await bo('GET', '/export?channel=delivery')).text.trim().split('\n').slice(1).map((l) => l.split(','));
    expect(csv.map((c) => [c[0], c[4], c[8]]).sort()).toEqual([[paid!.id, 'delivery', 'delivery-a'], [pending!.id, 'delivery', 'delivery-b']].sort());
    expect((await bo('GET', '/export?payment_provider=delivery-b')).text.trim().split('\n').slice(1).map((l) => l.split(',')[0])).toEqual([pending!.id]);

    // A value the table cannot hold is a 422 naming every allowed one.
    const badChannel = 'The channel must be kiosk, online_ordering, table_qr or delivery.';
    const badProvider = 'The payment_provider must be card-a, card-b, platform-a, delivery-a or delivery-b.';
    for (const path of ['/datatable', '/stats', '/export']) {
      expect([path, (await bo('GET', `${path}?channel=phone`)).body]).toEqual([path, { message: badChannel, errors: { channel: [badChannel] } }]);
      expect([path, (await bo('GET', `${path}?payment_provider=cash`)).body]).toEqual([path, { message: badProvider, errors: { payment_provider: [badProvider] } }]);
    }
    // The lists are the table's check constraints: a value added there must be added to them.
    const allowed = async (constraint: string) => {
      const r = await sql<{ def: string }>`select pg_get_constraintdef(c.oid) as def from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = ${m.merchant.tenant_database} and c.conname = ${constraint}`.execute(api.deps.db);
      return [...r.rows[0]!.def.matchAll(/'([^']+)'/g)].map((x) => x[1]).sort();
    };
    expect(await allowed('transactions_channel_check')).toEqual([...TRANSACTION_CHANNELS].sort());
    expect(await allowed('transactions_payment_provider_check')).toEqual([...TRANSACTION_PROVIDERS].sort());
  });

  test('from and to are dates at the location (Brussels), as in the sales report: the data table, the stats and the export agree', async () => {
    const table = sql.raw(`"${m.merchant.tenant_database}".transactions`);
    // 00:30 on 29 March in Brussels (23:30 UTC the day before), and 01:30 on 30 March (23:30 UTC on the 29th).
    const copies = [
      { id: crypto.randomUUID(), at: '2026-03-28T23:30:00Z', total: 1000, no: 900001 },
      { id: crypto.randomUUID(), at: '2026-03-29T23:30:00Z', total: 7, no: 900002 },
    ];
    for (const c of copies) {
      await sql`
        insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(t) || jsonb_build_object('id', ${c.id}::uuid, 'order_no', ${c.no}::int, 'receipt_no', ${c.no}::int, 'total', ${c.total}::int,
          'idempotency_key', t.idempotency_key || ${`d${c.no}`}::text, 'all_idempotency_keys', jsonb_build_array(t.idempotency_key || ${`d${c.no}`}::text), 'created_at', ${c.at}::timestamptz, 'completed_at', ${c.at}::timestamptz))).*
        from ${table} t where t.id = ${made[0]!.id}`.execute(api.deps.db);
    }
    try {
      // Before: UTC dates, so "29 March" listed the 30th's 7 cents and hid the 29th's 1000.
      const day = 'from=2026-03-29&to=2026-03-29';
      expect((await bo('GET', `/datatable?${day}`)).body.data.map((t: any) => t.id)).toEqual([copies[0]!.id]);
      expect((await bo('GET', `/stats?${day}`)).body.data).toMatchObject({ complete: { count: 1, total: 1000 } });
      const exported = (await bo('GET', `/export?${day}`)).text.replace(/^\uFEFF/, '').trim().split('\n').slice(1);
      expect(exported.map((l) => l.split(',')[0])).toEqual([copies[0]!.id]);
      expect((await bo('GET', '/datatable?from=2026-03-30&to=2026-03-30')).body.data.map((t: any) => t.id)).toEqual([copies[1]!.id]);
      expect((await bo('GET', '/datatable?from=2026-03-28&to=2026-03-28')).body.total).toBe(0);
      // A merchant over two zones: each location's own dates. 03:30 UTC on the 30th is 23:30 on the 29th in New York.
      const ny = { id: crypto.randomUUID(), at: '2026-03-30T03:30:00Z', total: 55, no: 900003 };
      copies.push(ny);
      await sql`
        insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(t) || jsonb_build_object('id', ${ny.id}::uuid, 'order_no', ${ny.no}::int, 'receipt_no', ${ny.no}::int, 'total', ${ny.total}::int, 'location_id', ${m.locations[1]!.id}::uuid,
          'idempotency_key', t.idempotency_key || 'ny'::text, 'all_idempotency_keys', jsonb_build_array(t.idempotency_key || 'ny'::text), 'created_at', ${ny.at}::timestamptz, 'completed_at', ${ny.at}::timestamptz))).*
        from ${table} t where t.id = ${made[0]!.id}`.execute(api.deps.db);
      const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
      await tdb.updateTable('locations').set({ timezone: 'America/New_York' }).where('id', '=', m.locations[1]!.id).execute();
      try {
        expect((await bo('GET', `/datatable?${day}&sort=total`)).body.data.map((t: any) => t.id)).toEqual([ny.id, copies[0]!.id]);
        expect((await bo('GET', '/datatable?from=2026-03-30&to=2026-03-30')).body.data.map((t: any) => t.id)).toEqual([copies[1]!.id]);
        expect((await bo('GET', `/stats?${day}`)).body.data).toMatchObject({ complete: { count: 2, total: 1055 } });
      } finally {
        await tdb.updateTable('locations').set({ timezone: 'Europe/Brussels' }).where('id', '=', m.locations[1]!.id).execute();
      }
      // The sales report counts the same sale for that date.
      const report = await api.call('GET', `/api/back-office/reports/sales?${day}`, { token: owner });
      expect(report.status).toBe(200);
      expect(report.body.data.totals).toMatchObject({ sales_count: 1, gross: 1000 });
    } finally {
      await sql`delete from ${table} where id in (${sql.join(copies.map((c) => c.id))})`.execute(api.deps.db);
    }
  });

  test('the export pages through more rows than a page, newest first, each row once (ties on created_at broken by id), on the (created_at, id) index', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const table = sql.raw(`"${m.merchant.tenant_database}".transactions`);
    // 1,200 copies of a transaction, three at each second, so pages end inside a run of equal times.
    await sql`
      insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(t) || jsonb_build_object('id', gen_random_uuid(), 'order_no', 800000 + g, 'receipt_no', 800000 + g,
        'idempotency_key', t.idempotency_key || 'e' || g, 'all_idempotency_keys', jsonb_build_array(t.idempotency_key || 'e' || g), 'created_at', now() - make_interval(secs => g / 3)))).*
      from ${table} t, generate_series(1, 1200) g where t.id = ${made[0]!.id}`.execute(api.deps.db);
    const expected = await tdb.selectFrom('transactions').select(['id']).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    expect(expected.length).toBeGreaterThan(1200);
    const lines = (await bo('GET', '/export')).text.replace(/^\uFEFF/, '').trim().split('\n').slice(1);
    expect(lines.map((l) => l.split(',')[0])).toEqual(expected.map((r) => r.id));
    // The page's condition is one the index answers (on a table this small the planner would rather scan it: told not to).
    const plan = await api.deps.db.transaction().execute(async (tx) => {
      await sql`set local enable_seqscan = off`.execute(tx);
      await sql`set local enable_sort = off`.execute(tx);
      return sql<{ 'QUERY PLAN': string }>`explain select id from ${table} where (created_at, id) < (now(), '00000000-0000-0000-0000-000000000000'::uuid) order by created_at desc, id desc limit 500`.execute(tx);
    });
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index (Only )?Scan Backward using transactions_created_id[\s\S]*Index Cond: \(ROW\(created_at, id\) < ROW\(/);
  });
});

describe('the mailed receipt', () => {
  test('send-receipt and resend-receipt name the variant with the item and list its modifiers under it, as the printed receipt does', async () => {
    const admin = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
    const item = (name: string) => m.items.find((i) => i.name === name)!;
    const size = (await admin('POST', '/variant-groups', { item_id: item('Spaghetti bolognese').id, name: 'Size', variants: [{ name: 'Small', unit_price: 1150 }, { name: 'Large', unit_price: 1650 }] })).body.data;
    const sauces = (await admin('POST', '/modifier-groups', { name: 'Sauces', min_select: 0, max_select: 2, modifiers: [{ name: 'Andalouse', price: 70 }] })).body.data;
    expect((await admin('PUT', `/items/${item('Fries with mayonnaise').id}`, { modifier_group_ids: [sauces.id] })).status).toBe(200);
    try {
      const c = await api.call('POST', '/api/kiosk/payment/create-intent', {
        token: kiosk,
        deviceKey: true,
        body: { lines: [{ item_id: item('Fries with mayonnaise').id, qty: 1, modifier_ids: [sauces.modifiers[0].id] }, { item_id: item('Spaghetti bolognese').id, qty: 2, variant_ids: [size.variants[0].id] }] },
      });
      expect(c.body.data.total).toBe(2765);
      await sim.complete(c.body.data.idempotency_key);
      expect((await bo('POST', `/${c.body.data.id}/verify-payment-status`)).body.data.status).toBe('Complete');
      const lines = '1 x Fries with mayonnaise  4.65\n   + Andalouse\n2 x Spaghetti bolognese (Small)  23.00';
      // Inboxes of this run only (the outbox is in the central database, kept between runs).
      const inbox = (n: string) => `${n}-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const [kioskTo, officeTo] = [inbox('kiosk'), inbox('office')];
      const mailed = async (to: string) => (await api.deps.db.selectFrom('outbox').select('payload').where(sql<string>`payload->>'to'`, '=', to).execute()).map((r) => (r.payload as any).data);
      const k = await api.call('POST', '/api/kiosk/payment/send-receipt', { token: kiosk, deviceKey: true, body: { idempotency_key: c.body.data.idempotency_key, email: kioskTo } });
      expect(k.body).toEqual({ status: 'success' });
      expect((await bo('POST', `/${c.body.data.id}/resend-receipt`, { body: { email: officeTo } })).body).toEqual({ status: 'success' });
      const receiptNo = String((await bo('GET', `/${c.body.data.id}`)).body.data.receipt_no);
      const data = { order_no: String(c.body.data.order_no), receipt_no: receiptNo, total: '27.65', lines };
      expect(await mailed(kioskTo)).toEqual([data]);
      expect(await mailed(officeTo)).toEqual([data]);
    } finally {
      await admin('PUT', `/items/${item('Fries with mayonnaise').id}`, { modifier_group_ids: [] });
      await admin('DELETE', `/variant-groups/${size.id}`);
    }
  });

  test('a line break in a modifier name cannot forge a line of the mailed receipt (it is mailed on one line, as printed)', async () => {
    const admin = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
    const fries = m.items.find((i) => i.name === 'Fries with mayonnaise')!;
    const forged = (await admin('POST', '/modifier-groups', { name: 'Forged', min_select: 0, max_select: 1, modifiers: [{ name: 'Andalouse\nTotal: 0.01', price: 0 }] })).body.data;
    expect((await admin('PUT', `/items/${fries.id}`, { modifier_group_ids: [forged.id] })).status).toBe(200);
    try {
      const c = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: fries.id, qty: 1, modifier_ids: [forged.modifiers[0].id] }] } });
      await sim.complete(c.body.data.idempotency_key);
      expect((await bo('POST', `/${c.body.data.id}/verify-payment-status`)).body.data.status).toBe('Complete');
      const to = `forged-${crypto.randomUUID().slice(0, 8)}@example.com`;
      expect((await bo('POST', `/${c.body.data.id}/resend-receipt`, { body: { email: to } })).body).toEqual({ status: 'success' });
      const [mail] = (await api.deps.db.selectFrom('outbox').select('payload').where(sql<string>`payload->>'to'`, '=', to).execute()).map((r) => (r.payload as any).data);
      expect(mail.lines).toBe('1 x Fries with mayonnaise  3.95\n   + Andalouse Total: 0.01');
    } finally {
      await admin('PUT', `/items/${fries.id}`, { modifier_group_ids: [] });
    }
  });
});
