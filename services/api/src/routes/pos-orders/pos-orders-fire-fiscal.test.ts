import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { verifySignature, type OrderEvent, type SignResult } from '@pos/fiscal';
import { startFdmSimulator, type FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { exportJournal } from '@pos/core/fiscal/export-journal';
import { createTestApi, type CallResult, type TestApi } from '../../testing/harness.ts';
import { openRegisterSession } from '../../testing/register-session.ts';

// A fire is registered with the fiscal data module as an order event (signOrder, label N), one
// journal entry per fire that sends the kitchen something (docs/decisions.md "Fires are signed").
let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let device: string;
let manager: string;

beforeAll(async () => {
  ({ api, m, tdb, device, manager } = await openRegisterSession('fire-fiscal'));
});
afterAll(() => api.close());

const uuid = () => crypto.randomUUID();
const item = (seed: DemoSeedResult, name: string) => seed.items.find((i) => i.name === name)!;
function line(seed: DemoSeedResult, name: string, qty = 1) {
  const it = item(seed, name);
  return { uuid: uuid(), item_id: it.id, qty, unit_price: it.unit_price, price_source: 'catalog', modifiers: [] };
}
const call = (method: string, path: string, body?: unknown): Promise<CallResult> => api.call(method, path, { token: device, deviceKey: true, staffToken: manager, body });
const fire = (id: string) => call('POST', `/api/pos/orders/${id}/fire`);

async function fireEntries(id: string, db: TenantDb = tdb) {
  const rows = await db.selectFrom('fiscal_journal').selectAll().where('subject_type', '=', 'pos_order_fire').where('subject_id', '=', id).orderBy('seq').execute();
  return rows.map((r) => ({ row: r, event: JSON.parse(r.payload) as OrderEvent, result: r.sign_result === null ? null : (JSON.parse(r.sign_result) as SignResult) }));
}
/** A signed line as [productId, quantity, negQuantityReason, unitPrice, lineTotal]. */
const linesOf = (e: OrderEvent) => e.transaction.lines.map((l) => [l.productId, l.quantity, l.negQuantityReason ?? null, l.unitPrice, l.lineTotal]);

describe('a fire is signed as an order event (in-process signer)', () => {
  test('the first fire signs its lines once: kind order, operation ORDER, label N, no financials, no short signature', async () => {
    const espresso = item(m, 'Espresso');
    const croissant = item(m, 'Croissant');
    const id = uuid();
    expect((await call('PUT', `/api/pos/orders/${id}`, { lines: [line(m, 'Espresso', 2), line(m, 'Croissant')] })).status).toBe(200);
    expect(await fireEntries(id)).toEqual([]);
    const r = await fire(id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'OPEN', fired: true, version: 2 });
    const entries = await fireEntries(id);
    expect(entries).toHaveLength(1);
    const { row, event, result } = entries[0]!;
    expect([row.event_kind, row.status]).toEqual(['order', 'signed']);
    expect(event.kind).toBe('order');
    expect('financials' in event).toBe(false);
    expect(linesOf(event)).toEqual([
      [espresso.id, 2, null, espresso.unit_price, 2 * espresso.unit_price],
      [croissant.id, 1, null, croissant.unit_price, croissant.unit_price],
    ]);
    expect(event.transaction.total).toBe(2 * espresso.unit_price + croissant.unit_price);
    expect(result!.eventOperation).toBe('ORDER');
    expect(result!.fdmRef.eventLabel).toBe('N');
    expect(result!.shortSignature).toBeUndefined();
    expect(result!.verificationUrl).toBeUndefined();
    expect(verifySignature(api.deps.fiscal.publicKeyFor(row.fdm_id), event, result!)).toBe(true);
  });

  test('a later fire signs only what it sends, the counters advance; a fire that sends nothing signs nothing', async () => {
    const espresso = item(m, 'Espresso');
    const croissant = item(m, 'Croissant');
    const id = uuid();
    const a = line(m, 'Espresso', 1);
    expect((await call('PUT', `/api/pos/orders/${id}`, { lines: [a] })).status).toBe(200);
    expect((await fire(id)).status).toBe(200);
    expect((await call('PUT', `/api/pos/orders/${id}`, { expected_version: 2, lines: [{ ...a, qty: 3 }, line(m, 'Croissant')] })).status).toBe(200);
    expect((await fire(id)).body).toMatchObject({ version: 4 });
    const entries = await fireEntries(id);
    expect(entries).toHaveLength(2);
    expect(linesOf(entries[1]!.event)).toEqual([
      [espresso.id, 2, null, espresso.unit_price, 2 * espresso.unit_price],
      [croissant.id, 1, null, croissant.unit_price, croissant.unit_price],
    ]);
    const [first, second] = entries.map((e) => e.result!.fdmRef);
    expect(second!.eventCounter).toBeGreaterThan(first!.eventCounter);
    expect(second!.totalCounter).toBeGreaterThan(first!.totalCounter);
    expect(Number(entries[1]!.row.seq)).toBeGreaterThan(Number(entries[0]!.row.seq));
    expect(entries[1]!.event.posFiscalTicketNo).toBeGreaterThan(entries[0]!.event.posFiscalTicketNo);

    // Nothing changed since: the fire is 200 and nothing more is signed.
    expect((await fire(id)).status).toBe(200);
    expect(await fireEntries(id)).toHaveLength(2);
  });

  test('lowered and removed fired lines sign negative CORRECTION lines, priced as first signed', async () => {
    const espresso = item(m, 'Espresso');
    const croissant = item(m, 'Croissant');
    const id = uuid();
    const a = line(m, 'Espresso', 3);
    const b = line(m, 'Croissant', 2);
    expect((await call('PUT', `/api/pos/orders/${id}`, { lines: [a, b] })).status).toBe(200);
    expect((await fire(id)).status).toBe(200);
    // The espresso lowered to 1, the croissants taken off (the manager holds remove_fired_line).
    const edited = await call('PUT', `/api/pos/orders/${id}`, { expected_version: 2, lines: [{ ...a, qty: 1 }] });
    expect(edited.status).toBe(200);
    expect((await fire(id)).status).toBe(200);
    const entries = await fireEntries(id);
    expect(entries).toHaveLength(2);
    expect(linesOf(entries[1]!.event)).toEqual([
      [espresso.id, -2, 'CORRECTION', espresso.unit_price, -2 * espresso.unit_price],
      [croissant.id, -2, 'CORRECTION', croissant.unit_price, -2 * croissant.unit_price],
    ]);
    expect(entries[1]!.event.transaction.total).toBe(-2 * espresso.unit_price - 2 * croissant.unit_price);
    expect(entries[1]!.row.status).toBe('signed');
  });

  test('voiding a fired order signs its last fire: every fired quantity as a CORRECTION; an unfired void signs nothing', async () => {
    const espresso = item(m, 'Espresso');
    const id = uuid();
    expect((await call('PUT', `/api/pos/orders/${id}`, { lines: [line(m, 'Espresso', 2)] })).status).toBe(200);
    expect((await fire(id)).status).toBe(200);
    const r = await call('POST', `/api/pos/orders/${id}/void`, { reason: 'walked out' });
    expect(r.status).toBe(200);
    expect(r.body.state).toBe('VOIDED');
    const entries = await fireEntries(id);
    expect(entries).toHaveLength(2);
    expect(linesOf(entries[1]!.event)).toEqual([[espresso.id, -2, 'CORRECTION', espresso.unit_price, -2 * espresso.unit_price]]);

    const unfired = uuid();
    expect((await call('PUT', `/api/pos/orders/${unfired}`, { lines: [line(m, 'Espresso', 1)] })).status).toBe(200);
    expect((await call('POST', `/api/pos/orders/${unfired}/void`, {})).status).toBe(200);
    expect(await fireEntries(unfired)).toEqual([]);
  });

  test('the journal export lists the order events and the journal, fires among sales, verifies', async () => {
    const id = uuid();
    expect((await call('PUT', `/api/pos/orders/${id}`, { lines: [line(m, 'Espresso', 1)] })).status).toBe(200);
    expect((await fire(id)).status).toBe(200);
    expect((await call('POST', `/api/pos/orders/${id}/settle`, { amount_tendered: 5000 })).status).toBe(200);
    const [device] = await exportJournal(tdb, { locationId: m.locations[0]!.id }, api.deps.fiscal);
    expect(device!.verification).toMatchObject({ ok: true });
    const kinds = device!.entries.map((e) => e.event_kind);
    expect(kinds).toContain('order');
    expect(kinds.slice(-2)).toEqual(['order', 'sale']);
  });

  test('fires and settles at once on one journal (same order, other orders) never fail with a 500', async () => {
    for (let i = 0; i < 4; i++) {
      const ids = [uuid(), uuid(), uuid()];
      for (const id of ids) expect((await call('PUT', `/api/pos/orders/${id}`, { lines: [line(m, 'Espresso', 1)] })).status).toBe(200);
      const [a, b, c, d] = await Promise.all([fire(ids[0]!), call('POST', `/api/pos/orders/${ids[0]}/settle`, { amount_tendered: 5000 }), fire(ids[1]!), call('POST', `/api/pos/orders/${ids[2]}/settle`, { amount_tendered: 5000 })]);
      expect([c!.status, d!.status]).toEqual([200, 200]);
      // The same order: the settle wins (the fire is then 409 not_open) or both pass, in either order.
      expect(b!.status).toBe(200);
      expect([200, 409]).toContain(a!.status);
      expect((await fireEntries(ids[0]!)).length).toBe(a!.status === 200 ? 1 : 0);
      expect(await fireEntries(ids[1]!)).toHaveLength(1);
    }
  });

  test('a fire that cannot be signed does not happen: no kitchen ticket, the order unfired, nothing journaled', async () => {
    const other = await api.seed('fire-fiscal-no-vat');
    const odb = bindTenant(api.deps.db, other.merchant.tenant_database);
    await odb.updateTable('locations').set({ vat_no: null }).execute();
    const token = await api.deviceToken(other, 'pos', 0);
    const staff = await api.staffLogin(other, 'manager', token);
    const id = uuid();
    const o = (method: string, path: string, body?: unknown) => api.call(method, path, { token, deviceKey: true, staffToken: staff, body });
    expect((await o('PUT', `/api/pos/orders/${id}`, { lines: [line(other, 'Espresso', 1)] })).status).toBe(200);
    const r = await o('POST', `/api/pos/orders/${id}/fire`);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ message: 'This location needs a VAT number and an establishment number before it can sign fiscal events.', reason: 'fiscal_identity_missing' });
    expect((await o('GET', `/api/pos/orders/${id}`)).body).toMatchObject({ fired: false, version: 1 });
    expect(await odb.selectFrom('kitchen_tickets').select('id').where('source_id', '=', id).execute()).toEqual([]);
    expect(await fireEntries(id, odb)).toEqual([]);
  });

  test('a line no kitchen station takes is not signed, at this fire or any later one (the kitchen never got it)', async () => {
    const other = await api.seed('fire-fiscal-no-station');
    const odb = bindTenant(api.deps.db, other.merchant.tenant_database);
    await odb.updateTable('kitchen_stations').set({ category_ids: [], is_fallback: false }).execute();
    const token = await api.deviceToken(other, 'pos', 0);
    const staff = await api.staffLogin(other, 'manager', token);
    const id = uuid();
    const o = (method: string, path: string, body?: unknown) => api.call(method, path, { token, deviceKey: true, staffToken: staff, body });
    expect((await o('PUT', `/api/pos/orders/${id}`, { lines: [line(other, 'Espresso', 1)] })).status).toBe(200);
    expect((await o('POST', `/api/pos/orders/${id}/fire`)).status).toBe(200);
    expect((await o('POST', `/api/pos/orders/${id}/fire`)).status).toBe(200);
    expect(await odb.selectFrom('kitchen_tickets').select('id').where('source_id', '=', id).execute()).toEqual([]);
    expect(await fireEntries(id, odb)).toEqual([]);
  });

  test('a location without an active enrolment fires unsigned', async () => {
    const other = await api.seed('fire-fiscal-unenrolled');
    const odb = bindTenant(api.deps.db, other.merchant.tenant_database);
    await odb.updateTable('fdm_devices').set({ status: 'retired', retired_at: new Date() }).execute();
    const token = await api.deviceToken(other, 'pos', 0);
    const staff = await api.staffLogin(other, 'manager', token);
    const id = uuid();
    const o = (method: string, path: string, body?: unknown) => api.call(method, path, { token, deviceKey: true, staffToken: staff, body });
    expect((await o('PUT', `/api/pos/orders/${id}`, { lines: [line(other, 'Espresso', 1)] })).status).toBe(200);
    expect((await o('POST', `/api/pos/orders/${id}/fire`)).status).toBe(200);
    expect(await fireEntries(id, odb)).toEqual([]);
  });
});

describe('a fire signed through a remote fiscal data module', () => {
  const SECRET = 'remote-fire-secret';
  let remoteApi: TestApi;
  let sim: FdmSimulator;
  let seeded: DemoSeedResult;
  let rdb: TenantDb;
  let token: string;
  let staff: string;

  beforeAll(async () => {
    seeded = await api.seed('fire-remote');
    rdb = bindTenant(api.deps.db, seeded.merchant.tenant_database);
    const fdm = await rdb.selectFrom('fdm_devices').select('fdm_id').executeTakeFirstOrThrow();
    await rdb.updateTable('fdm_devices').set({ mode: 'remote' }).execute();
    sim = startFdmSimulator({ port: 0, sharedSecret: SECRET, deviceId: fdm.fdm_id });
    remoteApi = await createTestApi({ env: { FDM_REMOTE_URL: sim.url, FDM_REMOTE_SECRETS: JSON.stringify({ [fdm.fdm_id]: SECRET }) } });
    token = await remoteApi.deviceToken(seeded, 'pos', 0);
    staff = await remoteApi.staffLogin(seeded, 'manager', token);
  });
  afterAll(async () => {
    await remoteApi.close();
    await sim.stop();
  });
  const rcall = (method: string, path: string, body?: unknown) => remoteApi.call(method, path, { token, deviceKey: true, staffToken: staff, body });

  test('the module signs the fire (operation ORDER, label N)', async () => {
    const id = uuid();
    expect((await rcall('PUT', `/api/pos/orders/${id}`, { lines: [line(seeded, 'Espresso', 2)] })).status).toBe(200);
    const before = sim.signedCount;
    expect((await rcall('POST', `/api/pos/orders/${id}/fire`)).status).toBe(200);
    expect(sim.signedCount).toBe(before + 1);
    const entries = await fireEntries(id, rdb);
    expect(entries.map((e) => [e.row.event_kind, e.row.status, e.result?.eventOperation, e.result?.fdmRef.eventLabel])).toEqual([['order', 'signed', 'ORDER', 'N']]);
    expect(entries[0]!.result!.shortSignature).toBeUndefined();
  });

  test('an unreachable module: the fire stands (200, in the kitchen), its entry stays pending and is completed later', async () => {
    const id = uuid();
    expect((await rcall('PUT', `/api/pos/orders/${id}`, { lines: [line(seeded, 'Croissant', 1)] })).status).toBe(200);
    sim.simulateOutage(10);
    const r = await rcall('POST', `/api/pos/orders/${id}/fire`);
    sim.simulateOutage(0);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ fired: true, version: 2 });
    const [pending] = await fireEntries(id, rdb);
    expect(pending!.row.status).toBe('pending');
    const outcome = await remoteApi.deps.fiscal.completePending(rdb, pending!.row.id);
    expect(outcome.status).toBe('signed');
    expect((await fireEntries(id, rdb)).map((e) => [e.row.status, e.result?.eventOperation])).toEqual([['signed', 'ORDER']]);
  });
});
