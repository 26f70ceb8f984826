import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { ORDER_NOT_PAID, ORDER_OTHER_LOCATION, ORDER_OTHER_SESSION } from '@pos/core/table-qr/table-sessions';
import { TABLES_IN_USE } from '@pos/core/table-qr/table-sections';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { onlineOrder } from './table-qr-test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const loc0 = () => a.locations[0]!.id;
const loc1 = () => a.locations[1]!.id;
const seeded = () => a.table_sections[0]!;
const sectionCount = async (m = a) => Number((await tdbOf(m).selectFrom('table_sections').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
const create = (body: Record<string, unknown>, token = owner) => api.call('POST', '/api/back-office/table-sections', { token, body });
const scan = (locationId: string, sectionId: string, table: number | string, token?: string) => api.call('GET', `/api/table-qr-ordering/${locationId}/${sectionId}/${table}`, { token });

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('tq-a');
  b = await api.seed('tq-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
  // A scan needs the location's table QR ordering on (the demo seed turns it on at location [0] only).
  const on = await api.call('PUT', `/api/back-office/qr-ordering/${loc1()}`, { token: owner, body: { enabled: true } });
  if (on.status !== 200) throw new Error(`qr-ordering ${on.status} ${on.text}`);
});
afterAll(() => api.close());

describe('table sections', () => {
  test('the demo seed has a section of 20 tables at location [0], in the central directory', async () => {
    expect(a.table_sections).toEqual([{ id: expect.any(String), location_id: loc0(), tables: 20 }]);
    const dir = await api.deps.db.selectFrom('table_qr_directory').select(['merchant_id', 'location_id']).where('table_section_id', '=', seeded().id).executeTakeFirst();
    expect(dir).toEqual({ merchant_id: a.merchant.id, location_id: loc0() });
  });

  test('create, list, show, update, delete with exact bodies', async () => {
    const r = await create({ location_id: loc1(), name: '  Terrace ', tables: 12 });
    expect(r.status).toBe(201);
    const id = r.body.data.id;
    expect(r.body).toEqual({ data: { id, location_id: loc1(), name: 'Terrace', tables: 12, open_sessions: 0, created_at: expect.any(String), updated_at: expect.any(String) } });
    expect(await api.deps.db.selectFrom('table_qr_directory').select('merchant_id').where('table_section_id', '=', id).executeTakeFirst()).toEqual({ merchant_id: a.merchant.id });
    expect(await api.call('GET', `/api/back-office/table-sections/${id}`, { token: owner })).toMatchObject({ status: 200, body: { data: r.body.data } });
    const listed = await api.call('GET', `/api/back-office/table-sections/location/${loc1()}`, { token: owner });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await api.call('GET', `/api/back-office/table-sections/location/${loc0()}`, { token: owner })).body.data.map((s: { id: string }) => s.id)).toEqual([seeded().id]);

    const upd = await api.call('PUT', `/api/back-office/table-sections/${id}`, { token: owner, body: { name: 'Garden', tables: 8 } });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({ id, name: 'Garden', tables: 8, location_id: loc1() });

    // An open session at table 8 keeps the section from shrinking below it.
    expect((await scan(loc1(), id, 8)).status).toBe(200);
    const shrink = await api.call('PUT', `/api/back-office/table-sections/${id}`, { token: owner, body: { tables: 7 } });
    expect(shrink).toMatchObject({ status: 422, body: { errors: { tables: [TABLES_IN_USE] } } });
    expect((await api.call('GET', `/api/back-office/table-sections/${id}`, { token: owner })).body.data).toMatchObject({ tables: 8, open_sessions: 1 });
    // Once idle (nothing ordered at it for two hours), the session is over: not counted, and it no longer
    // holds the section (it is closed by the shrink). Before: counted, and the shrink was refused until
    // something else touched the session.
    await tdbOf(a).updateTable('table_sessions').set({ opened_at: new Date(Date.now() - 5 * 3600_000) }).where('table_section_id', '=', id).execute();
    expect((await api.call('GET', `/api/back-office/table-sections/${id}`, { token: owner })).body.data).toMatchObject({ tables: 8, open_sessions: 0 });
    expect((await api.call('PUT', `/api/back-office/table-sections/${id}`, { token: owner, body: { tables: 7 } })).body.data).toMatchObject({ tables: 7, open_sessions: 0 });
    expect(await tdbOf(a).selectFrom('table_sessions').select('status').where('table_section_id', '=', id).execute()).toEqual([{ status: 'closed' }]);

    const del = await api.call('DELETE', `/api/back-office/table-sections/${id}`, { token: owner });
    expect(del).toEqual({ status: 200, body: { status: 'success' }, text: expect.any(String), headers: expect.anything() });
    expect(await api.call('GET', `/api/back-office/table-sections/${id}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the table section you requested.' } });
    expect(await api.deps.db.selectFrom('table_qr_directory').select('merchant_id').where('table_section_id', '=', id).executeTakeFirst()).toBeUndefined();
    expect(await tdbOf(a).selectFrom('table_sessions').select('id').where('table_section_id', '=', id).execute()).toEqual([]);
    expect((await scan(loc1(), id, 1)).status).toBe(404);
  });

  test('bad input is a 422 per field and writes nothing', async () => {
    const before = await sectionCount();
    const r = await create({ location_id: 'nope', name: '', tables: 0 });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(['location_id', 'name', 'tables']);
    expect(r.body.errors.tables).toEqual(['The tables field must be a whole number from 1 to 500.']);
    expect((await create({ location_id: loc0(), name: 'X', tables: 501 })).status).toBe(422);
    expect((await create({ location_id: loc0(), name: 'X', tables: 2, extra: true })).status).toBe(422);
    expect((await create({ location_id: loc0(), name: 'x'.repeat(121), tables: 2 })).status).toBe(422);
    expect((await api.call('PUT', `/api/back-office/table-sections/${seeded().id}`, { token: owner, body: { tables: 1.5 } })).status).toBe(422);
    expect(await sectionCount()).toBe(before);
  });

  test('permissions: no token 401; no permission slug needed (spec 1 "-"), only the location grant', async () => {
    expect((await api.call('GET', `/api/back-office/table-sections/${seeded().id}`)).status).toBe(401);
    expect((await create({ location_id: loc0(), name: 'X', tables: 2 }, '')).status).toBe(401);
    // A member with no permission slug at all, location [0] granted: every table-section route answers.
    const bare = await limitedUserToken(api, a, [], [loc0()]);
    const listed = await api.call('GET', `/api/back-office/table-sections/location/${loc0()}`, { token: bare });
    expect(listed).toMatchObject({ status: 200, body: { data: [{ id: seeded().id, location_id: loc0(), name: 'Dining room', tables: 20 }] } });
    const made = await create({ location_id: loc0(), name: 'Bar', tables: 4 }, bare);
    expect(made).toMatchObject({ status: 201, body: { data: { location_id: loc0(), name: 'Bar', tables: 4, open_sessions: 0 } } });
    const id = made.body.data.id as string;
    expect(await api.call('GET', `/api/back-office/table-sections/${id}`, { token: bare })).toMatchObject({ status: 200, body: { data: made.body.data } });
    expect(await api.call('PUT', `/api/back-office/table-sections/${id}`, { token: bare, body: { name: 'Bar 2', tables: 3 } })).toMatchObject({ status: 200, body: { data: { id, name: 'Bar 2', tables: 3 } } });
    expect((await scan(loc0(), id, 2)).status).toBe(200);
    expect(await api.call('POST', `/api/back-office/table-sections/${id}/tables/2/close`, { token: bare })).toMatchObject({ status: 200, body: { data: { id, open_sessions: 0 } } });
    expect(await api.call('GET', `/api/back-office/qr-ordering/${loc0()}/qr-download-options`, { token: bare })).toMatchObject({ status: 200, body: { data: { formats: ['png', 'pdf'] } } });
    expect(await api.call('DELETE', `/api/back-office/table-sections/${id}`, { token: bare })).toMatchObject({ status: 200, body: { status: 'success' } });

    // Location [0] outside the grant: refused as before, whatever the slugs, and nothing changes.
    const elsewhere = await limitedUserToken(api, a, ['VIEW_SALES_CHANNEL', 'EDIT_ONLINE_ORDERING'], [loc1()]);
    const before = await sectionCount();
    const denied = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    expect(await create({ location_id: loc0(), name: 'X', tables: 2 }, elsewhere)).toMatchObject(denied);
    expect(await api.call('GET', `/api/back-office/table-sections/location/${loc0()}`, { token: elsewhere })).toMatchObject(denied);
    expect(await api.call('GET', `/api/back-office/table-sections/${seeded().id}`, { token: elsewhere })).toMatchObject(denied);
    expect(await api.call('PUT', `/api/back-office/table-sections/${seeded().id}`, { token: elsewhere, body: { name: 'Y' } })).toMatchObject(denied);
    expect(await api.call('POST', `/api/back-office/table-sections/${seeded().id}/tables/1/close`, { token: elsewhere })).toMatchObject(denied);
    expect(await api.call('DELETE', `/api/back-office/table-sections/${seeded().id}`, { token: elsewhere })).toMatchObject(denied);
    expect(await api.call('GET', `/api/back-office/qr-ordering/${loc0()}/qr-download-options`, { token: elsewhere })).toMatchObject(denied);
    expect(await sectionCount()).toBe(before);
    expect((await api.call('GET', `/api/back-office/table-sections/${seeded().id}`, { token: owner })).body.data.name).toBe('Dining room');
  });

  test('isolation: another merchant sees a 404 and changes nothing', async () => {
    const id = seeded().id;
    expect(await api.call('GET', `/api/back-office/table-sections/${id}`, { token: ownerB })).toMatchObject({ status: 404, body: { message: 'Unable to locate the table section you requested.' } });
    expect((await api.call('PUT', `/api/back-office/table-sections/${id}`, { token: ownerB, body: { name: 'Stolen' } })).status).toBe(404);
    expect((await api.call('DELETE', `/api/back-office/table-sections/${id}`, { token: ownerB })).status).toBe(404);
    expect((await api.call('GET', `/api/back-office/table-sections/location/${loc0()}`, { token: ownerB })).status).toBe(404);
    expect((await create({ location_id: loc0(), name: 'X', tables: 2 }, ownerB)).status).toBe(404);
    expect((await api.call('GET', `/api/back-office/table-sections/${id}`, { token: owner })).body.data.name).toBe('Dining room');
  });
});

describe('QR scan and sessions', () => {
  test('a scan opens the table session, the next joins it; details list nothing yet', async () => {
    const first = await scan(loc0(), seeded().id, 3);
    expect(first.status).toBe(200);
    const s = first.body.data;
    expect(first.body).toEqual({
      opened: true,
      data: { id: s.id, location_id: loc0(), table_section_id: seeded().id, table_section_name: 'Dining room', table_number: 3, status: 'open', opened_at: expect.any(String), closed_at: null, orders: [], total: 0 },
    });
    const again = await scan(loc0(), seeded().id, 3);
    expect(again.body).toEqual({ opened: false, data: s });
    expect((await scan(loc0(), seeded().id, 4)).body.data.id).not.toBe(s.id);
    expect(await api.call('GET', `/api/table-qr-ordering/${loc0()}/session/${s.id}`)).toMatchObject({ status: 200, body: { data: s } });
  });

  test('concurrent scans of one table get one session', async () => {
    const rs = await Promise.all(Array.from({ length: 8 }, () => scan(loc0(), seeded().id, 11)));
    expect(rs.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(rs.map((r) => r.body.data.id)).size).toBe(1);
    expect(rs.filter((r) => r.body.opened).length).toBe(1);
    const rows = await tdbOf(a).selectFrom('table_sessions').select('id').where('table_section_id', '=', seeded().id).where('table_number', '=', 11).execute();
    expect(rows.length).toBe(1);
  });

  test('a section deleted while guests scan: each scan is 200 or 404 (never a 500); the delete is refused once a party sat down, and no session outlives a delete', async () => {
    const statuses: number[] = [];
    for (let round = 0; round < 10; round++) {
      const id = (await create({ location_id: loc1(), name: `Race ${round}`, tables: 30 })).body.data.id as string;
      const rs = await Promise.all([
        ...Array.from({ length: 8 }, (_, i) => scan(loc1(), id, i + 1)),
        api.call('DELETE', `/api/back-office/table-sections/${id}`, { token: owner }),
        ...Array.from({ length: 8 }, (_, i) => scan(loc1(), id, i + 11)),
      ]);
      statuses.push(...rs.filter((_, i) => i !== 8).map((r) => r.status));
      const sessions = await tdbOf(a).selectFrom('table_sessions').select('id').where('table_section_id', '=', id).execute();
      // A scan that opened its session first holds the section: 409 section_in_use, its party keeps it.
      if (rs[8]!.status === 409) expect(sessions.length).toBeGreaterThan(0);
      else expect({ status: rs[8]!.status, sessions }).toEqual({ status: 200, sessions: [] });
    }
    expect(statuses.filter((st) => st !== 200 && st !== 404)).toEqual([]);
  }, 60_000);

  test('unknown tables, sections and locations are 404s; the location must match the section', async () => {
    expect(await scan(loc0(), seeded().id, 21)).toMatchObject({ status: 404, body: { message: 'Unable to locate the table you requested.' } });
    expect(await scan(loc0(), seeded().id, 0)).toMatchObject({ status: 404, body: { message: 'Unable to locate the table you requested.' } });
    expect(await scan(loc0(), seeded().id, 'abc')).toMatchObject({ status: 404, body: { message: 'Unable to locate the table you requested.' } });
    expect((await scan(loc0(), seeded().id, '1e1')).status).toBe(404);
    expect(await scan(loc0(), Bun.randomUUIDv7(), 1)).toMatchObject({ status: 404, body: { message: 'Unable to locate the table section you requested.' } });
    expect(await scan(Bun.randomUUIDv7(), seeded().id, 1)).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    // Merchant b's section through merchant a's location (and the reverse) is not found.
    expect((await scan(loc0(), b.table_sections[0]!.id, 1)).status).toBe(404);
    expect((await scan(b.locations[0]!.id, seeded().id, 1)).status).toBe(404);
    expect(await api.call('GET', `/api/table-qr-ordering/${loc0()}/session/${Bun.randomUUIDv7()}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the table session you requested.' } });
  });

  test('optional auth: no token is fine, an invalid one is a 401', async () => {
    expect((await scan(loc0(), seeded().id, 5, 'not-a-token')).status).toBe(401);
    expect((await scan(loc0(), seeded().id, 5, owner)).status).toBe(200);
  });

  test('isolation: a session is only found through its own location', async () => {
    const s = (await scan(loc0(), seeded().id, 6)).body.data;
    expect((await api.call('GET', `/api/table-qr-ordering/${b.locations[0]!.id}/session/${s.id}`)).status).toBe(404);
    const bSession = (await scan(b.locations[0]!.id, b.table_sections[0]!.id, 6)).body.data;
    expect((await api.call('GET', `/api/table-qr-ordering/${loc0()}/session/${bSession.id}`)).status).toBe(404);
  });
});

describe('bind-order', () => {
  const bind = (sessionId: string, transaction_id: unknown, locationId = loc0()) =>
    api.call('POST', `/api/table-qr-ordering/${locationId}/session/${sessionId}/bind-order`, { body: { transaction_id } });
  const boundTo = async (m: DemoSeedResult, id: string) => (await tdbOf(m).selectFrom('transactions').select('table_session_id').where('id', '=', id).executeTakeFirstOrThrow()).table_session_id;

  test('a paid order is bound and shows on the session; binding again is a no-op', async () => {
    const s = (await scan(loc0(), seeded().id, 7)).body.data;
    const orderId = await onlineOrder(api, a, loc0(), { total: 1890 });
    const r = await bind(s.id, orderId);
    expect(r.status).toBe(200);
    const t = await tdbOf(a).selectFrom('transactions').select(['order_no', 'receipt_no', 'completed_at']).where('id', '=', orderId).executeTakeFirstOrThrow();
    expect(r.body).toEqual({
      data: {
        ...s,
        // No transaction id: it would open the order's lines to anyone who scans the table's link.
        orders: [{ order_no: t.order_no, receipt_no: t.receipt_no, status: 'Complete', order_status: 'Queued', total: 1890, completed_at: t.completed_at!.toISOString() }],
        total: 1890,
      },
    });
    expect(await boundTo(a, orderId)).toBe(s.id);
    expect(await bind(s.id, orderId)).toMatchObject({ status: 200, body: r.body });
    expect((await api.call('GET', `/api/table-qr-ordering/${loc0()}/session/${s.id}`)).body).toEqual(r.body);
    // A later scan of the table joins the session with its order.
    expect((await scan(loc0(), seeded().id, 7)).body).toEqual({ opened: false, data: r.body.data });
  });

  test('an unpaid order is 422 and stays unbound', async () => {
    const s = (await scan(loc0(), seeded().id, 8)).body.data;
    const orderId = await onlineOrder(api, a, loc0(), { paid: false });
    expect(await bind(s.id, orderId)).toMatchObject({ status: 422, body: { message: ORDER_NOT_PAID, reason: 'order_not_paid' } });
    expect(await boundTo(a, orderId)).toBeNull();
  });

  test("another table's order is 409, another location's 422, another merchant's 404", async () => {
    const s1 = (await scan(loc0(), seeded().id, 9)).body.data;
    const s2 = (await scan(loc0(), seeded().id, 10)).body.data;
    const orderId = await onlineOrder(api, a, loc0());
    expect((await bind(s1.id, orderId)).status).toBe(200);
    expect(await bind(s2.id, orderId)).toMatchObject({ status: 409, body: { message: ORDER_OTHER_SESSION, reason: 'other_session' } });
    expect(await boundTo(a, orderId)).toBe(s1.id);

    const elsewhere = await onlineOrder(api, a, loc1());
    expect(await bind(s2.id, elsewhere)).toMatchObject({ status: 422, body: { message: ORDER_OTHER_LOCATION, reason: 'other_location' } });
    expect(await boundTo(a, elsewhere)).toBeNull();

    const bOrder = await onlineOrder(api, b, b.locations[0]!.id);
    expect(await bind(s2.id, bOrder)).toMatchObject({ status: 404, body: { message: 'Unable to locate the transaction you requested.' } });
    expect(await boundTo(b, bOrder)).toBeNull();
    // Merchant b's session through merchant b's location cannot take merchant a's order either.
    const bSession = (await scan(b.locations[0]!.id, b.table_sections[0]!.id, 2)).body.data;
    expect((await bind(bSession.id, orderId, b.locations[0]!.id)).status).toBe(404);
    expect((await bind(bSession.id, orderId)).status).toBe(404);
    expect((await api.call('GET', `/api/table-qr-ordering/${loc0()}/session/${s2.id}`)).body.data.orders).toEqual([]);
  });

  test('bad input is a 422 and writes nothing', async () => {
    const s = (await scan(loc0(), seeded().id, 12)).body.data;
    expect((await bind(s.id, 'nope')).status).toBe(422);
    expect((await bind(s.id, undefined)).status).toBe(422);
    expect((await api.call('POST', `/api/table-qr-ordering/${loc0()}/session/${s.id}/bind-order`, { body: { transaction_id: Bun.randomUUIDv7(), extra: 1 } })).status).toBe(422);
    expect((await bind(s.id, Bun.randomUUIDv7())).status).toBe(404);
  });

  test('spec 3: a table payment carrying its session is bound at capture (verify or webhook)', async () => {
    const s = (await scan(loc0(), seeded().id, 13)).body.data;
    const orderId = await onlineOrder(api, a, loc0(), { tableSessionId: s.id, total: 700 });
    expect(await boundTo(a, orderId)).toBe(s.id);
    const details = (await api.call('GET', `/api/table-qr-ordering/${loc0()}/session/${s.id}`)).body.data;
    const placed = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('transactions').select('order_no').where('id', '=', orderId).executeTakeFirstOrThrow();
    expect(details.orders.map((o: { order_no: number }) => o.order_no)).toEqual([placed.order_no]);
    expect(JSON.stringify(details)).not.toContain(orderId);
    expect(details.total).toBe(700);
    // A snapshot naming another location's session binds nothing.
    const other = await onlineOrder(api, a, loc1(), { tableSessionId: s.id });
    expect(await boundTo(a, other)).toBeNull();
  });
});
