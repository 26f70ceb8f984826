import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { printedDate, queueKitchenTicket, queueOrderReceipt } from '@pos/core/printers/print-dispatch';
import { call, signIn } from '../pos-tills/register-test-support.ts';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/** What printers print, as their settings and the printed records say (probe 3 findings). */

let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let owner: string;
let posDevice: string;

let macSeq = 0x10;
const mac = () => `00:11:62:05:${(macSeq >> 8).toString(16).padStart(2, '0')}:${(macSeq++ & 0xff).toString(16).padStart(2, '0')}`.toUpperCase();

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('printed-documents');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
  posDevice = await api.deviceToken(m, 'pos');
});
afterAll(() => api.close());

const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
/** A printer discovered by the register (80 mm), unconfigured. */
async function discovered(): Promise<string> {
  const mc = mac();
  await api.deps.redis.flushdb();
  const r = await api.call('POST', '/api/pos/printers/discovery-report', { token: posDevice, deviceKey: true, body: { printers: [{ mac: mc, model: 'TM-m30III', paper_width_mm: 80 }] } });
  expect(r.status).toBe(200);
  return (await tdb.selectFrom('printers').select('id').where('mac', '=', mc).executeTakeFirstOrThrow()).id;
}
/** A receipt printer of the register's location, configured from the back office. */
async function receiptPrinter(name: string): Promise<{ id: string; locationId: string }> {
  const id = await discovered();
  const conf = await bo('POST', `/devices/${id}/printer/configure`, { name });
  expect(conf.status).toBe(200);
  return { id, locationId: conf.body.data.location_id };
}
let orderNo = 5100;
/** A captured order of 9.90 of food (one line) at the location, with these amounts on the transaction. */
async function capturedOrder(locationId: string, t: { channel?: string; payment_provider?: string; tip_amount?: number; fees?: number; total: number; is_free?: boolean }): Promise<string> {
  const id = crypto.randomUUID();
  const n = orderNo++;
  await tdb
    .insertInto('transactions')
    .values({ id, location_id: locationId, device_id: null, channel: t.channel ?? 'online_ordering', order_no: n, status: 'Complete', order_status: null, payment_provider: t.payment_provider ?? 'card-a', payment_snapshot: JSON.stringify({}), idempotency_key: `pd-${id}`, all_idempotency_keys: [`pd-${id}`], receipt_no: n, subtotal: 990, discount: 0, vat: 56, tip_amount: t.tip_amount ?? 0, fees: t.fees ?? 0, total: t.total, by_vat_rate: JSON.stringify([{ rate: 6, net: 934, vat: 56, gross: 990 }]), offers: JSON.stringify([]), menu_version: null, customer_id: null, loyalty_token: null, cart_session_id: null, completed_at: new Date(), is_free: t.is_free ?? false } as never)
    .execute();
  await tdb
    .insertInto('transaction_lines')
    .values({ transaction_id: id, position: 0, item_id: m.items[0]!.id, category_id: null, name: 'Pasta', qty: 1, unit_price: 990, vat_rate: 6, gross: 990, discount: 0, total: 990, modifiers: JSON.stringify([]), variant: null } as never)
    .execute();
  return id;
}
const documentsOf = async (printerId: string) => (await tdb.selectFrom('print_jobs').select('document').where('printer_id', '=', printerId).orderBy('seq').execute()).map((j) => j.document);
/** The printed lines of a document. */
const texts = (doc: string) => [...doc.matchAll(/<text>([^<]*)&#10;<\/text>/g)].map((x) => x[1]!);

describe('printer profiles apply to their printers', () => {
  test('print_kitchen_modifiers false, 58 mm and a 20 s poll: kitchen tickets without modifiers at 32 columns; views and pairing say 58 and 20 until unbound', async () => {
    const profile = await bo('POST', '/printer-profiles', { name: 'Grill', settings: { print_kitchen_modifiers: false, paper_width_mm: 58, poll_interval_seconds: 20 } });
    expect(profile.status).toBe(201);
    const bound = await discovered();
    const plain = await discovered();
    const conf = await bo('POST', `/devices/${bound}/printer/configure`, { name: 'Grill printer', role: 'kitchen', station_id: m.kds.station_id, printer_profile_id: profile.body.data.id });
    expect(conf.status).toBe(200);
    expect(conf.body.data).toMatchObject({ printer_profile_id: profile.body.data.id, paper_width_mm: 58, poll_interval_seconds: 20 });
    expect((await bo('POST', `/devices/${plain}/printer/configure`, { name: 'Pass printer', role: 'kitchen', station_id: m.kds.station_id })).status).toBe(200);

    const n = await queueKitchenTicket(tdb, { id: crypto.randomUUID(), station_id: m.kds.station_id, location_id: conf.body.data.location_id, order_no: '42', at: new Date(), lines: [{ qty: 1, name: 'Burger', modifiers: [{ name: 'Extra cheese' }] }] });
    expect(n).toBe(2);
    const [grill] = await documentsOf(bound);
    expect(texts(grill!)).toContain('1 x Burger');
    expect(grill).not.toContain('Extra cheese');
    expect(texts(grill!)).toContain('-'.repeat(32));
    expect(texts(grill!)).not.toContain('-'.repeat(48));
    // The printer without a profile prints the modifiers, on 80 mm.
    const [pass] = await documentsOf(plain);
    expect(texts(pass!)).toContain('   + Extra cheese');
    expect(texts(pass!)).toContain('-'.repeat(48));

    // Silent for 30 s: online with a 20 s interval (2 x 20 + 5 s), offline with its own 5 s.
    await tdb.updateTable('printers').set({ last_poll_at: new Date(api.deps.clock.now().getTime() - 30_000) }).where('id', 'in', [bound, plain]).execute();
    const list = await bo('GET', `/devices/printers?location_id=${conf.body.data.location_id}`);
    expect(list.status).toBe(200);
    const shown = (id: string) => list.body.data.find((p: { id: string }) => p.id === id);
    expect(shown(bound)).toMatchObject({ paper_width_mm: 58, poll_interval_seconds: 20, online: true });
    expect(shown(plain)).toMatchObject({ paper_width_mm: 80, poll_interval_seconds: 5, online: false });
    const pairing = await bo('POST', `/devices/${bound}/printer/pairing-session`);
    expect(pairing.status).toBe(200);
    expect(pairing.body.poll_interval_seconds).toBe(20);

    // Unbound, the printer's own width and interval apply again.
    const unbound = await bo('POST', `/devices/${bound}/printer/configure`, { name: 'Grill printer', printer_profile_id: null });
    expect(unbound.body.data).toMatchObject({ printer_profile_id: null, paper_width_mm: 80, poll_interval_seconds: 5 });
  });
});

describe('order receipts', () => {
  test('the receipt shows the tip and the fees under a subtotal, so its lines add up to the TOTAL', async () => {
    const printer = await receiptPrinter('Receipts');
    const tx = await capturedOrder(printer.locationId, { tip_amount: 200, fees: 150, total: 1340 });
    expect(await queueOrderReceipt(tdb, tx, new Date())).toBe(1);
    const t = texts((await documentsOf(printer.id))[0]!);
    const row = (label: string, amount: string) => label + ' '.repeat(48 - label.length - amount.length) + amount;
    const from = t.findIndex((x) => x.startsWith('1 x Pasta'));
    expect(t.slice(from, from + 7)).toEqual([row('1 x Pasta', '9.90'), '-'.repeat(48), row('Subtotal', '9.90'), row('Tip', '2.00'), row('Fees', '1.50'), '-'.repeat(48), row('TOTAL', '13.40')]);
  });
});

describe('order receipt tenders', () => {
  test('an order paid by the delivery marketplace is printed as paid via the marketplace, not by card; a card order says Card', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute(); // only this test's printer takes receipts
    const printer = await receiptPrinter('Receipts 2');
    const marketplace = await capturedOrder(printer.locationId, { channel: 'delivery', payment_provider: 'delivery-a', total: 990 });
    const card = await capturedOrder(printer.locationId, { channel: 'kiosk', payment_provider: 'card-b', total: 990 });
    expect(await queueOrderReceipt(tdb, marketplace, new Date())).toBe(1);
    expect(await queueOrderReceipt(tdb, card, new Date())).toBe(1);
    const [m1, c1] = (await documentsOf(printer.id)).map(texts);
    const row = (label: string, amount: string) => label + ' '.repeat(48 - label.length - amount.length) + amount;
    expect(m1!.filter((t) => t.startsWith('Card') || t.startsWith('Paid via'))).toEqual([row('Paid via delivery-a', '9.90')]);
    expect(c1!.filter((t) => t.startsWith('Card') || t.startsWith('Paid via'))).toEqual([row('Card', '9.90')]);
  });

  test('a free kiosk order (total 0, is_free) prints no tender line: no card paid for it', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const printer = await receiptPrinter('Receipts 3');
    // Completed free, though the kiosk's card provider is stamped on it (the discount takes the 9.90 line to 0).
    const free = await capturedOrder(printer.locationId, { channel: 'kiosk', payment_provider: 'card-b', total: 0, is_free: true });
    expect(await queueOrderReceipt(tdb, free, new Date())).toBe(1);
    const t = texts((await documentsOf(printer.id))[0]!);
    const row = (label: string, amount: string) => label + ' '.repeat(48 - label.length - amount.length) + amount;
    const total = t.indexOf(row('TOTAL', '0.00'));
    expect(total).toBeGreaterThan(0);
    expect(t[total - 1]).toBe('-'.repeat(48));
    // Straight on to the VAT rows: no `Card 0.00`.
    expect(t[total + 1]).toBe('-'.repeat(48));
    expect(t.filter((x) => /^(Card|Paid via|Cash)/.test(x))).toEqual([]);
  });
});

describe('kitchen tickets', () => {
  test('the variant is printed in full on a kitchen printer: a long name wraps onto an indented line, never cut', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const id = await discovered();
    const conf = await bo('POST', `/devices/${id}/printer/configure`, { name: 'Pasta printer', role: 'kitchen', station_id: m.kds.station_id });
    expect(conf.status).toBe(200);
    const lines = [
      { qty: 1, name: 'Spaghetti bolognese (Large)' },
      { qty: 1, name: 'Spaghetti bolognese (Small)' },
    ];
    expect(await queueKitchenTicket(tdb, { id: crypto.randomUUID(), station_id: m.kds.station_id, location_id: conf.body.data.location_id, order_no: '77', at: new Date(), lines })).toBe(1);
    const t = texts((await documentsOf(id))[0]!);
    expect(t.slice(t.indexOf('-'.repeat(48)) + 1)).toEqual(['1 x Spaghetti bolognese', '    (Large)', '1 x Spaghetti bolognese', '    (Small)']);
  });
});

describe('test prints', () => {
  test('a back-office or register test print shows the time in the location\'s time zone, like every other print', async () => {
    const printer = await receiptPrinter('Tz');
    const tz = (await tdb.selectFrom('locations').select('timezone').where('id', '=', printer.locationId).executeTakeFirstOrThrow()).timezone;
    expect(tz).not.toBe('UTC');
    const manager = await signIn(api, m, 'manager', 0);
    const when = () => printedDate(api.deps.clock.now(), tz);
    for (const request of [() => bo('POST', `/devices/${printer.id}/printer/test-print`), () => call(manager, 'POST', `/pos/printers/${printer.id}/test-print`)]) {
      const before = when();
      const r = await request();
      expect(r.status).toBe(202);
      const after = when();
      const [job] = await tdb.selectFrom('print_jobs').select('document').where('printer_id', '=', printer.id).orderBy('seq', 'desc').limit(1).execute();
      expect([before, after].some((d) => job!.document.includes(`<text>${d}&#10;</text>`))).toBe(true);
    }
  });
});
