import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { CompiledQuery, sql } from 'kysely';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { createTestApi, type TestApi } from '../testing/harness.ts';
import { planOf, sentQueries, usesIndex, type SentQuery } from '../testing/query-plans.ts';

// The read indexes of migrations 2026-12-05-200-read-indexes (tenant) and 2026-12-05-201-webhook-log-indexes
// (central), found at a busy merchant's size (778k kitchen tickets, 100k customers, 2M webhook log rows;
// twenty-sixth session): each route's own statement, as it sends it, is answered by its index. On tables
// this small the planner would rather read them whole, so sequential scans are discouraged (`planOf`).
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let kds: string;
let tdb: TenantDb;
let locationId: string;

const kdsCall = (path: string) => api.call('GET', path, { token: kds, deviceKey: true });
const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });

/** The one statement of `sent` that reads `table` and matches `where`. */
function statementOn(sent: SentQuery[], table: string, where: RegExp): SentQuery {
  const found = sent.filter((q) => q.sql.includes(`"${table}"`) && where.test(q.sql));
  expect(found.map((q) => q.sql)).toHaveLength(1);
  return found[0]!;
}

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('readidx');
  owner = await api.ownerToken(m);
  kds = await api.deviceToken(m, 'kds');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  locationId = (await tdb.selectFrom('kitchen_stations').select('location_id').where('id', '=', m.kds.station_id).executeTakeFirstOrThrow()).location_id;
  const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
  // Open tickets and tickets made ready today, so each route has rows to answer with.
  for (let i = 0; i < 3; i++) {
    const made = await createKitchenTickets(tdb, {
      source: 'transaction',
      sourceId: crypto.randomUUID(),
      locationId,
      orderNo: String(100 + i),
      at: new Date(),
      lines: [{ position: 0, item_id: m.items[0]!.id, category_id: cat.id, name: 'Espresso', qty: 1, modifiers: [] }],
    });
    if (i === 0) await tdb.updateTable('kitchen_tickets').set({ status: 'Complete', ready_at: new Date(), completed_at: new Date() }).where('id', 'in', made.map((t) => t.id)).execute();
  }
});
afterAll(async () => {
  await api.deps.db.deleteFrom('webhook_logs').where('type', '=', 'read_index_test').execute();
  await api.close();
});

describe('kitchen tickets (tenant migration 2026-12-05-200-read-indexes)', () => {
  test('GET /kds/orders: the station\'s open tickets are read from kitchen_tickets_open_station (partial, status <> Complete)', async () => {
    const sent = await sentQueries(api.deps.db, async () => expect((await kdsCall('/api/kds/orders')).status).toBe(200));
    const q = statementOn(sent, 'kitchen_tickets', /"station_id" = \$1 and "status" <> \$2/);
    expect(await planOf(api.deps.db, q)).toMatch(usesIndex('kitchen_tickets_open_station'));
  });

  test('GET /kds/metrics/summary: open tickets from kitchen_tickets_open_station, today\'s ready ones from kitchen_tickets_station_ready', async () => {
    const sent = await sentQueries(api.deps.db, async () => {
      const r = await kdsCall('/api/kds/metrics/summary');
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ station_id: m.kds.station_id, completed_today: expect.any(Number) });
    });
    const open = statementOn(sent, 'kitchen_tickets', /"station_id" = \$1 and "status" <> \$2/);
    expect(await planOf(api.deps.db, open)).toMatch(usesIndex('kitchen_tickets_open_station'));
    const today = statementOn(sent, 'kitchen_tickets', /"station_id" = \$1 and "ready_at" >= \$2 and "ready_at" < \$3/);
    const plan = await planOf(api.deps.db, today);
    expect(plan).toMatch(usesIndex('kitchen_tickets_station_ready'));
    expect(plan).toMatch(/Index Cond: \(\(station_id = '[0-9a-f-]+'::uuid\) AND \(ready_at >= /);
  });

  test('GET /kds/items: the station\'s tickets still to make (status in Queued, In Progress) are read from kitchen_tickets_open_station too', async () => {
    // The old (station_id, status, queued_at) index is dropped: this is the one other reader by station.
    const sent = await sentQueries(api.deps.db, async () => expect((await kdsCall('/api/kds/items')).status).toBe(200));
    const q = statementOn(sent, 'kitchen_tickets', /"t"\."station_id" = \$1/);
    expect(await planOf(api.deps.db, q)).toMatch(usesIndex('kitchen_tickets_open_station'));
  });

  test('DELETE /back-office/devices/stations/{id}: the open-ticket check reads kitchen_tickets_open_station', async () => {
    const st = await bo('POST', '/devices/stations', { location_id: locationId, name: 'Pass', category_ids: [] });
    expect(st.status).toBe(201);
    const sent = await sentQueries(api.deps.db, async () => expect((await bo('DELETE', `/devices/stations/${st.body.data.id}`)).status).toBe(200));
    const q = statementOn(sent, 'kitchen_tickets', /"station_id" = \$1 and "status" <> \$2/);
    expect(await planOf(api.deps.db, q)).toMatch(usesIndex('kitchen_tickets_open_station'));
  });

  test('GET /back-office/kds-reports/summary: the location\'s tickets made ready that day are read from kitchen_tickets_location_ready', async () => {
    const sent = await sentQueries(api.deps.db, async () => {
      const r = await bo('GET', `/kds-reports/summary?location_id=${locationId}`);
      expect(r.status).toBe(200);
      expect(r.body.data.totals).toMatchObject({ orders: 1 });
    });
    const q = statementOn(sent, 'kitchen_tickets', /"location_id" = \$1 and "ready_at" >= \$2 and "ready_at" < \$3/);
    const plan = await planOf(api.deps.db, q);
    expect(plan).toMatch(usesIndex('kitchen_tickets_location_ready'));
    expect(plan).toMatch(/Index Cond: \(\(location_id = '[0-9a-f-]+'::uuid\) AND \(ready_at >= /);
  });

  test('the (station_id, status, queued_at) index is gone: the partial indexes answer every reader of it', async () => {
    const names = await sql<{ indexname: string }>`select indexname from pg_indexes where schemaname = ${m.merchant.tenant_database} and tablename = 'kitchen_tickets'`.execute(api.deps.db);
    expect(names.rows.map((r) => r.indexname).sort()).toEqual(['kitchen_tickets_location_ready', 'kitchen_tickets_once', 'kitchen_tickets_open_station', 'kitchen_tickets_pkey', 'kitchen_tickets_station_ready']);
  });
});

describe('customers (tenant migration 2026-12-05-200-read-indexes)', () => {
  test('GET /back-office/customers/datatable: the newest page is read from customers_created_id in (created_at, id) order', async () => {
    const sent = await sentQueries(api.deps.db, async () => expect((await bo('GET', '/customers/datatable?per_page=5')).status).toBe(200));
    const q = statementOn(sent, 'customers', /order by "c"\."created_at" desc, "c"\."id" desc/);
    expect(await planOf(api.deps.db, q, { sort: false })).toMatch(/Index Scan Backward using customers_created_id /);
  });
});

describe('transactions (tenant migration 2026-12-05-200-read-indexes)', () => {
  test('GET /pos/channel-orders: the live orders are found by transactions_completed or transactions_scheduled_for, not by reading the history', async () => {
    // A history of 3,000 orders paid a month ago (none in the stream) beside a live one, as at a busy merchant.
    const T = sql.raw(`"${m.merchant.tenant_database}".transactions`);
    await sql`insert into ${T} (id, location_id, device_id, channel, order_no, status, order_status, payment_provider, payment_snapshot, idempotency_key, all_idempotency_keys, receipt_no, subtotal, discount, vat, total, by_vat_rate, offers, menu_version, completed_at, created_at, updated_at)
      select gen_random_uuid(), ${locationId}, ${m.kiosk.device_id}, 'kiosk', 900000 + g, 'Complete', 'Complete', 'card-b', '{}'::jsonb, 'ri' || g, array['ri' || g], 900000 + g, 1000, 0, 100, 1000, '[]'::jsonb, '[]'::jsonb, 1,
        now() - interval '30 days' + make_interval(secs => g), now() - interval '30 days' + make_interval(secs => g), now() - interval '30 days' + make_interval(secs => g)
      from generate_series(1, 3000) g`.execute(api.deps.db);
    await sql`update ${T} set completed_at = now() - interval '5 minutes', order_status = 'Queued' where order_no = 900001`.execute(api.deps.db);
    await sql`update ${T} set scheduled_for = now() + interval '3 hours', order_status = 'Queued' where order_no = 900002`.execute(api.deps.db);
    await sql`analyze ${T}`.execute(api.deps.db);
    const pos = await api.deviceToken(m, 'pos');
    const staffToken = await api.staffLogin(m, 'cashier', pos);
    const sent = await sentQueries(api.deps.db, async () => {
      const r = await api.call('GET', '/api/pos/channel-orders?view=active', { token: pos, deviceKey: true, staffToken });
      expect(r.status).toBe(200);
      expect(r.body.data.map((o: { order_no: number }) => o.order_no)).toEqual([900001]);
    });
    const q = statementOn(sent, 'transactions', /"kitchen_tickets"/);
    // Planned as the route runs it (sequential scans allowed): the history is not read.
    const plan = await api.deps.db.transaction().execute(async (tx) => (await tx.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${q.sql}`, [...q.parameters]))).rows.map((r) => r['QUERY PLAN']).join('\n'));
    expect(plan).toMatch(/Bitmap Index Scan on transactions_completed\b/);
    expect(plan).toMatch(/Bitmap Index Scan on transactions_scheduled_for\b/);
    expect(plan).not.toMatch(/Seq Scan on transactions\b/);
  });

  test('GET /back-office/transactions/datatable and /stats with from/to (tenant migration 2026-12-06-200): the day is found by transactions_listed_at, the date each transaction counts on', async () => {
    // A day of few transactions among many (the 3,000 of the test above): the range is read from the index,
    // not the newest rows scanned back to it.
    const day = '2020-01-15';
    const sent = await sentQueries(api.deps.db, async () => {
      expect((await bo('GET', `/transactions/datatable?from=${day}&to=${day}`)).status).toBe(200);
      expect((await bo('GET', `/transactions/stats?from=${day}&to=${day}`)).status).toBe(200);
    });
    const dated = sent.filter((q) => q.sql.includes('coalesce(transactions.completed_at, transactions.created_at) >='));
    expect(dated.length).toBeGreaterThanOrEqual(3);
    for (const q of dated) expect(await planOf(api.deps.db, q)).toMatch(usesIndex('transactions_listed_at'));
  });
});

describe('webhook logs (central migration 2026-12-05-201-webhook-log-indexes)', () => {
  beforeAll(async () => {
    // A log with several providers and statuses (the planner, knowing how they spread, prefers the
    // index whose condition holds the filter: on an empty table every index costs the same).
    const statuses = ['received', 'processed', 'duplicate', 'location_not_resolved', 'ignored', 'failed'];
    const providers = ['card-a', 'card-b', 'delivery-a', 'register-b', 'shop-a', 'crm'];
    const at = Date.now();
    await api.deps.db
      .insertInto('webhook_logs')
      .values(Array.from({ length: 360 }, (_, i) => ({ id: crypto.randomUUID(), type: 'read_index_test', provider: providers[i % 6]!, webhook_id: `read-index-${i}`, status: statuses[Math.floor(i / 6) % 6]!, merchant_id: m.merchant.id, fields: JSON.stringify({}), raw_body: '{}', created_at: new Date(at - i * 1000), updated_at: new Date(at - i * 1000) })))
      .execute();
    await sql`analyze webhook_logs`.execute(api.deps.db);
  });

  test('GET /back-office/webhook-logs/datatable?status=: page and count read webhook_logs_merchant_status', async () => {
    const sent = await sentQueries(api.deps.db, async () => expect((await bo('GET', '/webhook-logs/datatable?status=failed')).status).toBe(200));
    const page = statementOn(sent, 'webhook_logs', /order by "created_at" desc, "id" desc/);
    expect(page.sql).toMatch(/"merchant_id" = \$1 and "status" = \$2/);
    expect(await planOf(api.deps.db, page, { sort: false })).toMatch(/Index Scan Backward using webhook_logs_merchant_status /);
    const count = statementOn(sent, 'webhook_logs', /count\(\*\)/);
    expect(await planOf(api.deps.db, count)).toMatch(usesIndex('webhook_logs_merchant_status'));
  });

  test('GET /back-office/webhook-logs/datatable?provider=: page and count read webhook_logs_merchant_provider', async () => {
    const sent = await sentQueries(api.deps.db, async () => expect((await bo('GET', '/webhook-logs/datatable?provider=card-b')).status).toBe(200));
    const page = statementOn(sent, 'webhook_logs', /order by "created_at" desc, "id" desc/);
    expect(page.sql).toMatch(/"merchant_id" = \$1 and "provider" = \$2/);
    expect(await planOf(api.deps.db, page, { sort: false })).toMatch(/Index Scan Backward using webhook_logs_merchant_provider /);
    const count = statementOn(sent, 'webhook_logs', /count\(\*\)/);
    expect(await planOf(api.deps.db, count)).toMatch(usesIndex('webhook_logs_merchant_provider'));
  });
});

describe('fiscal history (GET /back-office/pos/fiscal-locations)', () => {
  test('each location is looked up in fiscal_journal_location (one entry found is enough), not a DISTINCT over the whole journal', async () => {
    const sent = await sentQueries(api.deps.db, async () => expect((await bo('GET', '/pos/fiscal-locations')).status).toBe(200));
    const q = statementOn(sent, 'fiscal_journal', /exists/);
    expect(q.sql).not.toMatch(/distinct/i);
    expect(await planOf(api.deps.db, q)).toMatch(usesIndex('fiscal_journal_location'));
  });
});
