import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import ExcelJS from 'exceljs';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { issueGiftCard } from '@pos/core/customers/gift-cards';
import { createReward } from '@pos/core/customers/rewards';
import { movePoints } from '@pos/core/customers/loyalty';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { atOnce, sortedStatuses } from '../../testing/at-once.ts';
import { makeMember } from '../team/team.test-support.ts';
import { makeCustomer, makeOrder } from '../customer-account/customer-test-support.ts';

// Customers in the back office: every route with its permission, audit of reads and exports, erasure.
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let ownerId: string;
const base = '/api/back-office/customers';

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('bocust');
  other = await api.seed('bocust-b');
  owner = await api.ownerToken(m);
  ownerId = (await api.deps.db.selectFrom('users').select('id').where('email', '=', m.backoffice.email).executeTakeFirstOrThrow()).id;
});
afterAll(() => api.close());

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const call = (method: string, path: string, body?: unknown, token = owner) => api.call(method, `${base}${path}`, { token, body });
const logsOf = (subjectId: string | null, action: string) => {
  let q = tdb().selectFrom('activity_logs').select(['user_id', 'action', 'subject', 'subject_id', 'properties']).where('action', '=', action).where('subject', '=', 'customer');
  q = subjectId ? q.where('subject_id', '=', subjectId) : q.where('subject_id', 'is', null);
  return q.execute();
};

describe('create, read, update', () => {
  test('POST creates with normalised contacts and a loyalty account; GET is audited; PUT updates', async () => {
    const r = await call('POST', '', { name: ' Eve ', email: 'Eve@Example.com', phone: '0470 99 88 77', marketing_consent: true });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: expect.any(String), name: 'Eve', email: 'eve@example.com', phone: '+32470998877', marketing_consent: true, created_at: expect.any(String), updated_at: expect.any(String) });
    const id = r.body.data.id;
    expect(await tdb().selectFrom('loyalty_accounts').select('points').where('customer_id', '=', id).executeTakeFirst()).toEqual({ points: 0 });
    const dup = await call('POST', '', { phone: '+32 470 99 88 77' });
    expect(dup).toMatchObject({ status: 422, body: { errors: { phone: ['The phone has already been taken.'] } } });
    expect(await call('POST', '', {})).toMatchObject({ status: 422, body: { errors: { name: ['A name, an email address or a phone number is required.'] } } });
    const g = await call('GET', `/${id}`);
    expect(g.status).toBe(200);
    expect(g.body.data).toMatchObject({ id, name: 'Eve', loyalty: { points: 0, lifetime_points: 0 }, addresses: [], notes: [] });
    expect(await logsOf(id, 'viewed')).toEqual([{ user_id: ownerId, action: 'viewed', subject: 'customer', subject_id: id, properties: {} }]);
    const u = await call('PUT', `/${id}`, { name: 'Eva', email: null });
    expect(u.body.data).toMatchObject({ name: 'Eva', email: null, phone: '+32470998877' });
    expect((await logsOf(id, 'updated'))[0]!.properties).toEqual({ fields: ['email', 'name'] });
    expect(await call('GET', `/${crypto.randomUUID()}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the customer you requested.' } });
    expect((await call('GET', '/not-a-uuid')).status).toBe(404);
  });

  test('the same contact sent at once: one customer gets it, the others the 422 a later request gets', async () => {
    const taken = (field: string) => ({ status: 422, body: { errors: { [field]: [`The ${field} has already been taken.`] } } });
    const email = `race-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const byEmail = await atOnce(8, () => call('POST', '', { email }));
    expect(sortedStatuses(byEmail)).toEqual([200, 422, 422, 422, 422, 422, 422, 422]);
    for (const r of byEmail.filter((x) => x.status === 422)) expect(r).toMatchObject(taken('email'));
    const byPhone = await atOnce(8, () => call('POST', '', { phone: '+32470123987' }));
    expect(sortedStatuses(byPhone)).toEqual([200, 422, 422, 422, 422, 422, 422, 422]);
    for (const r of byPhone.filter((x) => x.status === 422)) expect(r).toMatchObject(taken('phone'));
    expect(await tdb().selectFrom('customers').select('id').where((eb) => eb.or([eb('email', '=', email), eb('phone', '=', '+32470123987')])).execute()).toHaveLength(2);

    const [a, b] = [(await call('POST', '', { name: 'Race A' })).body.data.id, (await call('POST', '', { name: 'Race B' })).body.data.id];
    const shared = `upd-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const updates = await atOnce(2, (i) => call('PUT', `/${[a, b][i]}`, { email: shared }));
    expect(sortedStatuses(updates)).toEqual([200, 422]);
    expect(updates.find((x) => x.status === 422)).toMatchObject(taken('email'));
    expect(await tdb().selectFrom('customers').select('id').where('email', '=', shared).execute()).toHaveLength(1);
  });

  test('datatable: newest first, search, marketing filter, paging', async () => {
    const a = await call('POST', '', { name: 'Zed Searchable', email: `zed-${crypto.randomUUID().slice(0, 6)}@example.com` });
    const r = await call('GET', '/datatable?search=searchable&per_page=5');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: [{ ...a.body.data, points: 0 }], total: 1, page: 1, per_page: 5 });
    const consent = await call('GET', '/datatable?marketing_consent=true');
    expect(consent.body.data.every((c: { marketing_consent: boolean }) => c.marketing_consent)).toBe(true);
    expect((await call('GET', '/datatable?per_page=0')).status).toBe(422);
    expect((await api.call('GET', `${base}/datatable`, { token: await api.ownerToken(other) })).body.total).toBe(0);
  });
});

describe('related records', () => {
  test('orders, order detail, gift cards, reward redemptions, timeline, notes, marketing, addresses and default', async () => {
    const c = await makeCustomer(api, m, { name: 'Rel' });
    const order = await makeOrder(api, m, { customerId: c.id, total: 2000 });
    const card = await issueGiftCard(tdb(), { balance: 5000, customerId: c.id }, new Date());
    const rewardId = await createReward(tdb(), { locationId: m.locations[0]!.id, name: 'Cake', points: 3, discount: 200 }, new Date());
    await movePoints(tdb(), { customerId: c.id, kind: 'adjust', points: 10, transactionId: null }, new Date());
    await movePoints(tdb(), { customerId: c.id, kind: 'redeem', points: 3, transactionId: order.id, rewardId }, new Date());

    const orders = await call('GET', `/${c.id}/orders`);
    expect(orders.body).toMatchObject({ total: 1, data: [{ id: order.id, total: 2000 }] });
    const detail = await call('GET', `/order-detail/${order.id}`);
    expect(detail.body.data).toMatchObject({ id: order.id, customer_id: c.id, lines: [{ total: 2000 }] });
    expect((await call('GET', `/order-detail/${crypto.randomUUID()}`)).status).toBe(404);
    const cards = await call('GET', `/${c.id}/gift-cards`);
    expect(cards.body.data).toEqual([{ id: card.id, last4: card.code.slice(-4), balance: 5000, initial_balance: 5000, status: 'active', expires_at: null, created_at: expect.any(String) }]);
    const red = await call('GET', `/${c.id}/reward-redemptions`);
    expect(red.body.data).toEqual([{ id: expect.any(String), reward: { id: rewardId, name: 'Cake' }, points: 3, transaction_id: order.id, created_at: expect.any(String) }]);

    const note = await call('POST', `/${c.id}/notes`, { note: 'Allergic to nuts' });
    expect(note.body.data).toEqual({ id: expect.any(String), user_id: ownerId, note: 'Allergic to nuts', created_at: expect.any(String) });
    expect((await call('POST', `/${c.id}/notes`, { note: '' })).status).toBe(422);
    // Blank once trimmed: the same 422, and no note, timeline event or activity written.
    expect(await call('POST', `/${c.id}/notes`, { note: '    ' })).toMatchObject({ status: 422, body: { errors: { note: ['The note field is required.'] } } });
    expect((await call('GET', `/${c.id}`)).body.data.notes.map((n: { note: string }) => n.note)).toEqual(['Allergic to nuts']);
    const mk = await call('POST', `/${c.id}/marketing`, { marketing_consent: true });
    expect(mk.body.data.marketing_consent).toBe(true);
    const tl = await call('GET', `/${c.id}/timelines`);
    expect(tl.body.data.map((e: { kind: string }) => e.kind)).toEqual(['marketing_opted_in', 'note_added']);

    const a1 = await call('POST', `/${c.id}/addresses`, { line1: 'Grote Markt 1', postal_code: '9000', city: 'Ghent', country: 'BE' });
    const a2 = await call('POST', `/${c.id}/addresses`, { line1: 'Markt 2', postal_code: '8000', city: 'Bruges', country: 'BE' });
    expect([a1.body.data.is_default, a2.body.data.is_default]).toEqual([true, false]);
    const def = await call('POST', `/${c.id}/addresses/${a2.body.data.id}`);
    expect(def.body.data.map((a: { id: string; is_default: boolean }) => [a.id, a.is_default])).toEqual([[a2.body.data.id, true], [a1.body.data.id, false]]);
    const otherCustomer = await makeCustomer(api, m);
    expect((await call('POST', `/${otherCustomer.id}/addresses/${a2.body.data.id}`)).status).toBe(404);
  });
});

describe('privacy', () => {
  test('export CSV and XLSX: permissioned and audited', async () => {
    await call('POST', '', { name: '=HYPERLINK("x")', email: `csv-${crypto.randomUUID().slice(0, 6)}@example.com` });
    const csv = await call('GET', '/export');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="customers-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = csv.text.replace(/^\uFEFF/, '').trim().split('\n');
    expect(lines[0]).toBe('id,name,email,phone,marketing_consent,points,lifetime_points,created_at');
    expect(csv.text).toContain(`"'=HYPERLINK(""x"")"`);
    const total = Number((await tdb().selectFrom('customers').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    expect(lines.length).toBe(total + 1);
    const xlsx = await api.app.handle(new Request(`http://localhost${base}/export?format=xlsx`, { headers: { authorization: `Bearer ${owner}` } }));
    expect(xlsx.status).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await xlsx.arrayBuffer()) as ArrayBuffer);
    const ws = wb.getWorksheet('Customers')!;
    expect(ws.getRow(1).values).toEqual([undefined, 'id', 'name', 'email', 'phone', 'marketing_consent', 'points', 'lifetime_points', 'created_at']);
    expect(ws.rowCount).toBe(total + 1);
    // A workbook cell is typed text: the name as it is (before: `'=HYPERLINK("x")`, the CSV's defusing copied in).
    const names = Array.from({ length: total }, (_, i) => ws.getRow(i + 2).getCell(2).value);
    expect(names).toContain('=HYPERLINK("x")');
    expect(names).not.toContain('\'=HYPERLINK("x")');
    const logs = await logsOf(null, 'exported');
    expect(logs.map((l) => l.properties)).toEqual([{ format: 'csv', rows: total }, { format: 'xlsx', rows: total }]);
    expect((await call('GET', '/export?format=pdf')).status).toBe(422);
  });

  test('delete erases personal data and keeps the orders anonymised', async () => {
    const c = await makeCustomer(api, m, { name: 'Gone', email: `gone-${crypto.randomUUID().slice(0, 6)}@example.com` });
    const order = await makeOrder(api, m, { customerId: c.id, customerName: 'Gone', total: 777 });
    await call('POST', `/${c.id}/notes`, { note: 'private' });
    await call('POST', `/${c.id}/addresses`, { line1: 'Secret 1', postal_code: '1000', city: 'Brussels', country: 'BE' });
    const card = await issueGiftCard(tdb(), { balance: 100, customerId: c.id }, new Date());
    const r = await call('DELETE', `/${c.id}`);
    expect(r).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await tdb().selectFrom('customers').select('id').where('id', '=', c.id).executeTakeFirst()).toBeUndefined();
    for (const t of ['customer_addresses', 'customer_notes', 'customer_timeline', 'loyalty_accounts'] as const) {
      expect(await tdb().selectFrom(t).select('customer_id').where('customer_id', '=', c.id).execute()).toEqual([]);
    }
    const t = await tdb().selectFrom('transactions').select(['customer_id', 'customer_name', 'total', 'status']).where('id', '=', order.id).executeTakeFirstOrThrow();
    expect(t).toEqual({ customer_id: null, customer_name: null, total: 777, status: 'Complete' });
    expect((await tdb().selectFrom('gift_cards').select(['customer_id', 'balance']).where('id', '=', card.id).executeTakeFirstOrThrow())).toEqual({ customer_id: null, balance: 100 });
    const log = await logsOf(c.id, 'deleted');
    expect(log).toEqual([{ user_id: ownerId, action: 'deleted', subject: 'customer', subject_id: c.id, properties: { anonymised_orders: 1 } }]);
    expect(JSON.stringify(await tdb().selectFrom('activity_logs').select('properties').where('subject_id', '=', c.id).execute())).not.toContain('Gone');
    // The customer's own token no longer works.
    expect(await api.call('GET', '/api/customer/user', { token: c.token })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    expect((await call('DELETE', `/${c.id}`)).status).toBe(404);
  });

  test('delete also takes the delivery address off their orders, and the name and address off guest orders placed with their contact', async () => {
    const email = `gone-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const c = await makeCustomer(api, m, { name: 'Gina', email });
    const own = await makeOrder(api, m, { customerId: c.id, customerName: 'Gina' });
    const guest = await makeOrder(api, m, { customerId: null, customerName: 'Gina G.' });
    const address = JSON.stringify({ line1: 'Secret street 1', city: 'Brussels', postal_code: '1000' });
    await tdb().updateTable('transactions').set({ delivery_address: address }).where('id', 'in', [own.id, guest.id]).execute();
    await tdb().updateTable('transactions').set({ customer_email: email }).where('id', '=', guest.id).execute();
    expect((await call('DELETE', `/${c.id}`)).status).toBe(200);
    // Before: both kept the address, and the guest order its name.
    const rows = await tdb().selectFrom('transactions').select(['id', 'customer_name', 'customer_email', 'delivery_address', 'total']).where('id', 'in', [own.id, guest.id]).orderBy('id').execute();
    for (const r of rows) expect(r).toMatchObject({ customer_name: null, customer_email: null, delivery_address: null, total: 1250 });
  });

  test('edits racing the delete: 404, not a 500 (the row is locked and read again)', async () => {
    for (const [method, path, body] of [
      ['PUT', '', { name: 'Late' }],
      ['POST', '/marketing', { marketing_consent: true }],
      ['POST', '/notes', { note: 'late note' }],
    ] as const) {
      const c = await makeCustomer(api, m, { name: 'Racer', email: `racer-${crypto.randomUUID().slice(0, 6)}@example.com` });
      const [edit, erase] = await Promise.all([call(method, `/${c.id}${path}`, body), call('DELETE', `/${c.id}`)]);
      expect(erase.status).toBe(200);
      expect([path, [200, 201, 404].includes(edit.status)]).toEqual([path, true]);
      expect(await tdb().selectFrom('customer_notes').select('id').where('customer_id', '=', c.id).execute()).toEqual([]);
    }
  });
});

describe('permissions and isolation', () => {
  test('each route needs its permission', async () => {
    const c = await makeCustomer(api, m);
    const order = await makeOrder(api, m, { customerId: c.id });
    const routes: [string, string, string, unknown?][] = [
      ['GET', '/datatable', 'VIEW_CUSTOMERS'],
      ['GET', '/export', 'EXPORT_CUSTOMERS'],
      ['POST', '', 'CREATE_CUSTOMERS', { name: 'Perm' }],
      ['GET', `/order-detail/${order.id}`, 'VIEW_TRANSACTIONS'],
      ['GET', `/${c.id}`, 'VIEW_CUSTOMERS'],
      ['PUT', `/${c.id}`, 'EDIT_CUSTOMERS', { name: 'P' }],
      ['GET', `/${c.id}/orders`, 'VIEW_CUSTOMERS'],
      ['GET', `/${c.id}/gift-cards`, 'VIEW_CUSTOMERS'],
      ['GET', `/${c.id}/reward-redemptions`, 'VIEW_CUSTOMERS'],
      ['GET', `/${c.id}/timelines`, 'VIEW_CUSTOMERS'],
      ['POST', `/${c.id}/notes`, 'EDIT_CUSTOMERS', { note: 'n' }],
      ['POST', `/${c.id}/marketing`, 'EDIT_CUSTOMERS', { marketing_consent: false }],
      ['POST', `/${c.id}/addresses`, 'EDIT_CUSTOMERS', { line1: 'a', postal_code: '1', city: 'c', country: 'BE' }],
      ['DELETE', `/${c.id}`, 'DELETE_CUSTOMERS'],
    ];
    const none = await makeMember(api, m, ['VIEW_ITEMS']);
    for (const [method, path, perm, body] of routes) {
      const denied = await call(method, path, body, none.token);
      expect([method, path, denied.status, denied.body.message]).toEqual([method, path, 403, 'Unauthorized: Insufficient permissions']);
      const allowed = await makeMember(api, m, [perm]);
      expect([method, path, (await call(method, path, body, allowed.token)).status]).toEqual([method, path, 200]);
    }
  });

  test('order detail is scoped to the user\'s locations', async () => {
    const c = await makeCustomer(api, m);
    const order = await makeOrder(api, m, { customerId: c.id, locationIndex: 1 });
    const here = await makeMember(api, m, ['VIEW_TRANSACTIONS'], { locationIds: [m.locations[1]!.id] });
    const there = await makeMember(api, m, ['VIEW_TRANSACTIONS'], { locationIds: [m.locations[0]!.id] });
    expect((await call('GET', `/order-detail/${order.id}`, undefined, here.token)).status).toBe(200);
    expect(await call('GET', `/order-detail/${order.id}`, undefined, there.token)).toMatchObject({ status: 404, body: { message: 'Unable to locate the transaction you requested.' } });
  });

  test('a customer\'s orders list only the orders of the user\'s locations (as the transaction data table does)', async () => {
    const c = await makeCustomer(api, m);
    const at0 = await makeOrder(api, m, { customerId: c.id, locationIndex: 0, total: 4321 });
    const at1 = await makeOrder(api, m, { customerId: c.id, locationIndex: 1, total: 1234 });
    const member = await makeMember(api, m, ['VIEW_CUSTOMERS', 'VIEW_TRANSACTIONS'], { locationIds: [m.locations[1]!.id] });
    const dt = await api.call('GET', `/api/back-office/transactions/datatable?search=${at1.orderNo}`, { token: member.token });
    expect(dt.body.data.map((t: { id: string }) => t.id)).toEqual([at1.id]);
    const r = await call('GET', `/${c.id}/orders`, undefined, member.token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [{ id: at1.id, order_no: at1.orderNo, channel: 'online_ordering', status: 'Complete', order_status: 'Queued', total: 1234, location: { id: m.locations[1]!.id, name: m.locations[1]!.name }, dining_option: null, created_at: expect.any(String), completed_at: expect.any(String) }],
      total: 1,
      page: 1,
      per_page: 25,
    });
    // No location at all: nothing. Every location (owner, global user): both.
    const nowhere = await makeMember(api, m, ['VIEW_CUSTOMERS'], { locationIds: [] });
    expect((await call('GET', `/${c.id}/orders`, undefined, nowhere.token)).body).toMatchObject({ data: [], total: 0 });
    const global = await makeMember(api, m, ['VIEW_CUSTOMERS'], { locationIds: [], allLocations: true });
    for (const token of [owner, global.token]) {
      expect((await call('GET', `/${c.id}/orders`, undefined, token)).body).toMatchObject({ total: 2, data: [{ id: at1.id }, { id: at0.id }] });
    }
  });

  test('another merchant\'s customer is a 404', async () => {
    const foreign = await makeCustomer(api, other);
    for (const [method, path, body] of [
      ['GET', `/${foreign.id}`],
      ['PUT', `/${foreign.id}`, { name: 'x' }],
      ['DELETE', `/${foreign.id}`],
      ['GET', `/${foreign.id}/orders`],
      ['POST', `/${foreign.id}/notes`, { note: 'x' }],
    ] as [string, string, unknown?][]) {
      expect([method, path, (await call(method, path, body)).status]).toEqual([method, path, 404]);
    }
    expect(await bindTenant(api.deps.db, other.merchant.tenant_database).selectFrom('customers').select('name').where('id', '=', foreign.id).executeTakeFirst()).toEqual({ name: 'Cora' });
  });
});
