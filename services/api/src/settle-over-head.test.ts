import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, tenantSession, type TenantDb } from '@pos/db';
import { verifyJournal } from '@pos/fiscal';
import { toJournalEntry } from '@pos/core/fiscal/journal-rows';
import { counterValue } from '@pos/core/fiscal/index';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { settleOrder, paymentSnapshot, takesCash } from '@pos/core/pos/orders/settle-order';
import { readSettleRow, settleInProcess, type InProcessSettle } from '@pos/core/pos/orders/settle-in-process';
import { writeSettleNoTill } from '@pos/core/pos/orders/settle-statements';
import { StaffAuthorizer } from '@pos/core/pos/staff/approvals';
import { REGISTER_PERMISSIONS } from '@pos/domain/permissions';
import { createTestApi, type TestApi } from './testing/harness.ts';

/**
 * The two-statement settle: signed in the process over the head one read saw, written only if that
 * head is still the head. Settles that race past the in-process queue (as two API processes do) must
 * still sign each sale exactly once, with the journal chained, sealed and gap-free.
 */
let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let actor: { deviceId: string; locationId: string; staffId: string };
let token: string;
let staffToken: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('overhead');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  const pos = m.devices.find((d) => d.type === 'pos')!;
  token = await api.deviceToken(m, 'pos');
  staffToken = await api.staffLogin(m, 'manager', token);
  const staff = await tdb.selectFrom('staff_credentials').select('id').where('role', '=', 'manager').executeTakeFirstOrThrow();
  actor = { deviceId: pos.id, locationId: pos.location_id, staffId: staff.id };
});
afterAll(() => api.close());

async function openOrder(): Promise<{ id: string; total: number }> {
  const id = crypto.randomUUID();
  const item = m.items[0]!;
  const r = await api.call('PUT', `/api/pos/orders/${id}`, {
    token,
    deviceKey: true,
    staffToken,
    body: { expected_version: 0, lines: [{ uuid: crypto.randomUUID(), item_id: item.id, qty: 1, unit_price: item.unit_price, price_source: 'catalog', modifiers: [] }] },
  });
  expect(r.status).toBe(200);
  return { id, total: r.body.totals.total };
}

const rulesFor = (total: number): InProcessSettle => ({
  refuse: (row) => (row.state === 'OPEN' ? null : new Error(`order is ${row.state}`)),
  freeze: () => ({ total, legs: [{ kind: 'cash', amount: total, tendered: total, change: 0, rounding: 0 }], rounding: 0, amount_tendered: total, change: 0 }) as never,
  takesCash,
  signInput: (row, tender, day) => ({
    locationId: row.location_id,
    deviceId: actor.deviceId,
    employeeId: actor.staffId,
    subject: { type: 'pos_order', id: row.id },
    businessDay: day,
    build: (c) => ({ ...c, kind: 'sale', lines: [], financials: [], vats: [], total: tender.total }) as never,
  }),
  signOverHead: (s, i) => api.deps.fiscal.signOverHead(s, i),
  paymentSnapshot,
});

async function journalOk(): Promise<{ count: number; head: number }> {
  const fdm = await tdb.selectFrom('fdm_devices').select('fdm_id').where('location_id', '=', actor.locationId).where('status', '=', 'active').executeTakeFirstOrThrow();
  const rows = await tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', fdm.fdm_id).orderBy('seq').execute();
  const v = verifyJournal(rows.map(toJournalEntry), { sealKey: api.deps.fiscal.sealKey, publicKey: api.deps.fiscal.publicKeyFor(fdm.fdm_id), expectedLastSeq: await counterValue(tdb, fdm.fdm_id, 'seq') });
  expect(v).toMatchObject({ ok: true });
  return { count: rows.length, head: await counterValue(tdb, fdm.fdm_id, 'seq') };
}

describe('settle over a read head', () => {
  test('a write over a head that moved writes nothing', async () => {
    const session = tenantSession(tdb)!;
    const order = await openOrder();
    const row = (await readSettleRow(session, actor, order.id, new Date()))!;
    const before = await journalOk();
    // Another signed change moves the head between the read and the write.
    await settleOrder(tdb, api.deps.fiscal, actor, new StaffAuthorizer(api.deps.redis, [...REGISTER_PERMISSIONS], actor.deviceId, undefined), { clientUuid: (await openOrder()).id, body: { amount_tendered: 10_000 } }, new Date());
    const stale = row.f_counters?.seq ?? 0;
    const written = await writeSettleNoTill.run(session, [
      row.id, row.version, row.f_fdm_id, stale, row.d_id, null, ['seq'], [stale + 1],
      Bun.randomUUIDv7(), row.location_id, stale + 1, 'sale', '{}', null, 'x', 'y', null, null, null, 'pos_order', row.id, new Date(),
      Bun.randomUUIDv7(), actor.deviceId, actor.staffId, 1, '{}', '[]', '{}', row.d_date,
    ]);
    expect(written).toEqual([]);
    const after = await journalOk();
    expect(after.count).toBe(before.count + 1); // only the other settle
    expect((await tdb.selectFrom('pos_orders').select('state').where('id', '=', order.id).executeTakeFirstOrThrow()).state).toBe('OPEN');
    expect(await tdb.selectFrom('pos_transactions').select('id').where('order_id', '=', order.id).execute()).toEqual([]);
  });

  test('settles racing over one head (no queue, as across processes) each sign once, chained and gap-free', async () => {
    const session = tenantSession(tdb)!;
    const orders = await Promise.all(Array.from({ length: 6 }, () => openOrder()));
    const before = await journalOk();
    const now = new Date();
    // Every settle first reads the same head, then they all write at once.
    const rows = await Promise.all(orders.map((o) => readSettleRow(session, actor, o.id, now)));
    const settled = await Promise.all(rows.map((row, i) => settleInProcess(tdb, session, actor, rulesFor(orders[i]!.total), row!, now)));
    expect(settled.map((r) => r.state)).toEqual(orders.map(() => 'SETTLED'));
    const after = await journalOk();
    expect(after.count).toBe(before.count + orders.length);
    expect(after.head).toBe(before.head + orders.length);
    const subjects = await tdb.selectFrom('fiscal_journal').select('subject_id').where('subject_id', 'in', orders.map((o) => o.id)).execute();
    expect(subjects.map((s) => s.subject_id).sort()).toEqual(orders.map((o) => o.id).sort());
    const sales = await tdb.selectFrom('pos_transactions').select('order_id').where('order_id', 'in', orders.map((o) => o.id)).execute();
    expect(sales).toHaveLength(orders.length);
  });

  test('a second settle of a settled order is refused and signs nothing', async () => {
    const order = await openOrder();
    const authorizer = () => new StaffAuthorizer(api.deps.redis, [...REGISTER_PERMISSIONS], actor.deviceId, undefined);
    const body = { amount_tendered: order.total };
    const results = await Promise.allSettled([1, 2, 3].map(() => settleOrder(tdb, api.deps.fiscal, actor, authorizer(), { clientUuid: order.id, body }, new Date())));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const entries = await tdb.selectFrom('fiscal_journal').select('id').where('subject_id', '=', order.id).execute();
    expect(entries).toHaveLength(1);
    await journalOk();
  });
});
