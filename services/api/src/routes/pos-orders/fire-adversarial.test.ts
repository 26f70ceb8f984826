import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { TenantDb } from '@pos/db';
import type { TestApi } from '../../testing/harness.ts';
import { openRegisterSession, registerCalls, type RegisterSession } from '../../testing/register-session.ts';

// Probe 5: firing register orders to the kitchen (fire deltas, void, races), kds-stations, replays.
let session: RegisterSession;
let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let device: string;
let cashier: string;
let manager: string;

beforeAll(async () => {
  session = await openRegisterSession('fire-adv');
  ({ api, m, tdb, device, cashier, manager } = session);
});
afterAll(() => api.close());

const uuid = () => crypto.randomUUID();
const { item, pinOf, line, put, post, escalate } = registerCalls(() => session);
const tickets = (id: string) => tdb.selectFrom('kitchen_tickets').selectAll().where('source', '=', 'pos_order').where('source_id', '=', id).orderBy('fire_no').execute();
const linesOf = (ticketId: string) => tdb.selectFrom('kitchen_ticket_lines').select(['name', 'qty', 'line_ref']).where('ticket_id', '=', ticketId).orderBy('position').execute();
/** What the kitchen was told to make, per item name (VOID lines take away), summed over every ticket of the order. */
async function kitchenNet(id: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of await tickets(id)) {
    for (const l of await linesOf(t.id)) {
      const name = l.name.replace(/^VOID /, '');
      out[name] = (out[name] ?? 0) + l.qty;
    }
  }
  for (const k of Object.keys(out)) if (out[k] === 0) delete out[k];
  return out;
}

describe('fire, adversarial: fire deltas', () => {
  test('replacing the item of a fired line (same line uuid, same qty, approved) tells the kitchen at the next fire', async () => {
    const a = line('Espresso', 1);
    const id = uuid();
    expect((await put(id, { lines: [a], table_number: 'P1' })).status).toBe(200);
    expect((await post(`/api/pos/orders/${id}/fire`)).body).toMatchObject({ version: 2 });
    // The cashier changes the fired espresso into a croissant (same line, needs remove_fired_line).
    const swapped = { ...a, item_id: item('Croissant').id, unit_price: item('Croissant').unit_price };
    const r = await put(id, { lines: [swapped], table_number: 'P1', expected_version: 2, approval_token: await escalate('remove_fired_line') });
    expect(r.status).toBe(200);
    expect(r.body.lines[0].name).toBe('Croissant');
    expect((await post(`/api/pos/orders/${id}/fire`)).status).toBe(200);
    // The order now holds one croissant: the kitchen must have been told to make one croissant and no espresso.
    expect(await kitchenNet(id)).toEqual({ Croissant: 1 });
  });

  test('two fires of the same order at once: one ticket for the lines, never sent twice', async () => {
    const id = uuid();
    expect((await put(id, { lines: [line('Espresso', 2)], table_number: 'P2' })).status).toBe(200);
    const [x, y] = await Promise.all([post(`/api/pos/orders/${id}/fire`), post(`/api/pos/orders/${id}/fire`)]);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect([x.body.version, y.body.version].sort()).toEqual([2, 3]);
    expect(await kitchenNet(id)).toEqual({ Espresso: 2 });
  });

  test('fire and void at once: the kitchen ends up told to make nothing', async () => {
    const id = uuid();
    expect((await put(id, { lines: [line('Espresso', 2), line('Croissant', 1)], table_number: 'P3' })).status).toBe(200);
    expect((await post(`/api/pos/orders/${id}/fire`)).status).toBe(200);
    expect((await put(id, { lines: [line('Belgian beer', 1)].concat((await api.call('GET', `/api/pos/orders/${id}`, { token: device, deviceKey: true, staffToken: cashier })).body.lines), table_number: 'P3', expected_version: 2 })).status).toBe(200);
    const [f, v] = await Promise.all([post(`/api/pos/orders/${id}/fire`), post(`/api/pos/orders/${id}/void`, manager)]);
    expect(v.status).toBe(200);
    expect([200, 409]).toContain(f.status);
    expect(await kitchenNet(id)).toEqual({});
  });

  test('a fired line removed, then a new line of the same item added: the kitchen nets to the order', async () => {
    const a = line('Espresso', 2);
    const id = uuid();
    expect((await put(id, { lines: [a], table_number: 'P4' })).status).toBe(200);
    await post(`/api/pos/orders/${id}/fire`);
    const b = line('Espresso', 1);
    expect((await put(id, { lines: [b], table_number: 'P4', expected_version: 2, approval_token: await escalate('remove_fired_line') })).status).toBe(200);
    await post(`/api/pos/orders/${id}/fire`);
    expect(await kitchenNet(id)).toEqual({ Espresso: 1 });
  });

  test('settle replayed: the second is 409 not_open, one fiscal journal row', async () => {
    const id = uuid();
    expect((await put(id, { lines: [line('Espresso', 1)] })).status).toBe(200);
    const bodies = await Promise.all([post(`/api/pos/orders/${id}/settle`, cashier, { amount_tendered: 500 }), post(`/api/pos/orders/${id}/settle`, cashier, { amount_tendered: 500 })]);
    expect(bodies.map((b) => b.status).sort()).toEqual([200, 409]);
    const rows = await tdb.selectFrom('fiscal_journal').selectAll().where('subject_type', '=', 'pos_order').where('subject_id', '=', id).execute();
    expect(rows.length).toBe(1);
    // Firing a settled order is refused.
    expect(await post(`/api/pos/orders/${id}/fire`)).toMatchObject({ status: 409, body: { reason: 'not_open' } });
  });
});

describe('fire, adversarial: fired line modifiers', () => {
  test('a paid modifier added to a fired line reaches the kitchen at the next fire', async () => {
    const a = line('Espresso', 1);
    const id = uuid();
    expect((await put(id, { lines: [a], table_number: 'M1' }, manager)).status).toBe(200);
    expect((await post(`/api/pos/orders/${id}/fire`, manager)).status).toBe(200);
    const shot = { ...a, modifiers: [{ name: 'Extra shot', price: 150 }] };
    const r = await put(id, { lines: [shot], table_number: 'M1', expected_version: 2 }, manager);
    expect(r.status).toBe(200);
    expect(r.body.totals.total).toBe(280 + 150);
    expect((await post(`/api/pos/orders/${id}/fire`, manager)).status).toBe(200);
    // The customer pays for the extra shot: the kitchen must hear of it (a second ticket naming it).
    const t = await tickets(id);
    expect(t.length).toBe(2);
  });
});

describe('fire, adversarial: approvals on fire/void', () => {
  test('a void_order approval passes once, only for void; a remove_fired_line token does not void', async () => {
    const id = uuid();
    expect((await put(id, { lines: [line('Espresso', 1)] })).status).toBe(200);
    expect((await post(`/api/pos/orders/${id}/void`, cashier, { approval_token: await escalate('remove_fired_line') })).status).toBe(403);
    const token = await escalate('void_order');
    expect((await post(`/api/pos/orders/${id}/void`, cashier, { approval_token: token })).status).toBe(200);
    const other = uuid();
    expect((await put(other, { lines: [line('Espresso', 1)] })).status).toBe(200);
    expect((await post(`/api/pos/orders/${other}/void`, cashier, { approval_token: token })).status).toBe(403);
  });

  test('an approval token issued on one register does not pass on another', async () => {
    const device2 = await api.deviceToken(m, 'pos', 1);
    const cashier2 = await api.staffLogin(m, 'cashier', device2);
    const id = uuid();
    expect((await put(id, { lines: [line('Espresso', 1)] }, cashier2, device2)).status).toBe(200);
    const token = await escalate('void_order');
    expect((await post(`/api/pos/orders/${id}/void`, cashier2, { approval_token: token }, device2)).status).toBe(403);
  });
});

describe('fire, adversarial: two registers on one order', () => {
  test('settle and an edit at once: the signed sale and the stored order agree', async () => {
    for (let i = 0; i < 5; i++) {
      const a = line('Espresso', 1);
      const id = uuid();
      expect((await put(id, { lines: [a] })).status).toBe(200);
      const device2 = await api.deviceToken(m, 'pos', 1);
      const cashier2 = await api.staffLogin(m, 'cashier', device2);
      const [s, e] = await Promise.all([
        post(`/api/pos/orders/${id}/settle`, cashier, { amount_tendered: 5000 }),
        put(id, { expected_version: 1, lines: [a, line('Croissant', 1)] }, cashier2, device2),
      ]);
      expect(s.status === 200 || e.status === 200).toBe(true);
      for (const r of [s, e]) expect(r.status).toBeLessThan(500);
      const order = (await api.call('GET', `/api/pos/orders/${id}`, { token: device, deviceKey: true, staffToken: cashier })).body;
      const rows = await tdb.selectFrom('fiscal_journal').select(['payload']).where('subject_type', '=', 'pos_order').where('subject_id', '=', id).execute();
      if (order.state === 'SETTLED') {
        expect(rows.length).toBe(1);
        const event = JSON.parse(rows[0]!.payload);
        expect(event.transaction.total).toBe(order.totals.total);
        expect(event.transaction.lines.length).toBe(order.lines.length);
      } else {
        expect(rows.length).toBe(0);
      }
    }
  });
});

describe('fire, adversarial: VOID lines and the screen\'s open quantities', () => {
  test('a VOID line of one order never takes away from another order\'s open quantity (GET /kds/items)', async () => {
    const kds = await api.deviceToken(m, 'kds');
    const espressoOpen = async () => {
      const r = await api.call('GET', '/api/kds/items', { token: kds, deviceKey: true });
      expect(r.status).toBe(200);
      return (r.body.data as { id: string; open_qty: number }[]).find((i) => i.id === item('Espresso').id)!.open_qty;
    };
    // Clear the screen of earlier tests' tickets so only this test's count remains.
    await tdb.updateTable('kitchen_tickets').set({ status: 'Complete', completed_at: new Date() } as never).where('status', '<>', 'Complete').execute();
    expect(await espressoOpen()).toBe(0);
    // Order A: an espresso and a croissant, fired; the cook makes it and bumps the ticket.
    const e = line('Espresso', 1);
    const c = line('Croissant', 1);
    const a = uuid();
    expect((await put(a, { lines: [e, c], table_number: 'A' })).status).toBe(200);
    await post(`/api/pos/orders/${a}/fire`);
    const [first] = await tickets(a);
    expect((await api.call('PUT', `/api/kds/${first!.id}/complete`, { token: kds, deviceKey: true })).status).toBe(200);
    // Then the espresso is taken off order A (approved) and A is fired again: a VOID Espresso -1 ticket.
    expect((await put(a, { lines: [c], table_number: 'A', expected_version: 2, approval_token: await escalate('remove_fired_line') })).status).toBe(200);
    await post(`/api/pos/orders/${a}/fire`);
    // Order B: two espressos to make.
    const b = uuid();
    expect((await put(b, { lines: [line('Espresso', 2)], table_number: 'B' })).status).toBe(200);
    await post(`/api/pos/orders/${b}/fire`);
    // The kitchen still has to make B's two espressos.
    expect(await espressoOpen()).toBe(2);
  });
});

describe('fire, adversarial: settle bad input', () => {
  test('odd tender bodies are 4xx, never 500, and the order stays OPEN', async () => {
    const bodies: unknown[] = [
      { amount_tendered: 1e12 },
      { amount_tendered: 2147483648 },
      { tenders: [{ method: 'cash', amount_tendered: 1e12 }] },
      { tenders: [] },
      { tenders: [{ method: 'cash', amount_tendered: -5 }] },
      { tenders: [{ method: 'cash', amount_tendered: 1.5 }] },
      { amount_tendered: 500, tenders: [{ method: 'cash', amount_tendered: 500 }] },
      { tenders: [{ method: 'cash', amount: 100, amount_tendered: 100 }, { method: 'cash', amount_tendered: 500 }] },
      { tenders: 'cash' },
      {},
    ];
    const out: unknown[] = [];
    for (const body of bodies) {
      const id = uuid();
      expect((await put(id, { lines: [line('Espresso', 1)] })).status).toBe(200);
      const r = await post(`/api/pos/orders/${id}/settle`, cashier, body);
      const state = (await api.call('GET', `/api/pos/orders/${id}`, { token: device, deviceKey: true, staffToken: cashier })).body.state;
      out.push([JSON.stringify(body), r.status, state]);
    }
    const bad = out.filter((o) => { const [, st, state] = o as [string, number, string]; return st >= 500 || (st >= 400 && state !== 'OPEN'); });
    console.log(JSON.stringify(out));
    expect(bad).toEqual([]);
  });
});

describe('fire, adversarial: GET /pos/kds-stations', () => {
  test('a kiosk or a kitchen display token is refused (type:pos)', async () => {
    const kiosk = await api.deviceToken(m, 'kiosk');
    const kds = await api.deviceToken(m, 'kds');
    for (const token of [kiosk, kds]) {
      const r = await api.call('GET', '/api/pos/kds-stations', { token, deviceKey: true, staffToken: cashier });
      expect([401, 403]).toContain(r.status);
    }
    const ok = await api.call('GET', '/api/pos/kds-stations', { token: device, deviceKey: true, staffToken: cashier });
    expect(ok.status).toBe(200);
    const noKey = await api.call('GET', '/api/pos/kds-stations', { token: device, staffToken: cashier });
    expect(noKey.status).not.toBe(200);
  });
});
