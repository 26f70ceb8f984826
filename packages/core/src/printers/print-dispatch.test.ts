import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { dbQueryCount, type DatabaseHandle, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '../seed/demo-seed.ts';
import { seedDemoMerchant, type DemoMerchant } from '../seed/demo-merchant.test-support.ts';
import { queueOrderReceipt, queueOrderReceipts } from './print-dispatch.ts';

let merchant: DemoMerchant;
let h: DatabaseHandle;
let m: DemoSeedResult;
let tdb: TenantDb;
let loc: [string, string];

beforeAll(async () => {
  merchant = await seedDemoMerchant('pd');
  ({ h, m, tdb } = merchant);
  loc = [m.locations[0]!.id, m.locations[1]!.id];
});
afterAll(() => merchant.close());

let orderNo = 100;
/** A captured kiosk order with `lines` lines at the location. */
async function captured(locationId: string, lines: number): Promise<string> {
  const id = crypto.randomUUID();
  const n = orderNo++;
  const total = lines * 450;
  await tdb
    .insertInto('transactions')
    .values({ id, location_id: locationId, device_id: null, channel: 'kiosk', order_no: n, status: 'Complete', order_status: null, payment_provider: 'card-a', payment_snapshot: JSON.stringify({}), idempotency_key: `pd-${id}`, all_idempotency_keys: [`pd-${id}`], receipt_no: n, subtotal: total, discount: 0, vat: 0, total, by_vat_rate: JSON.stringify([{ rate: 6, net: total, vat: 0, gross: total }]), offers: JSON.stringify([]), menu_version: null, customer_id: null, loyalty_token: null, cart_session_id: null, completed_at: new Date() } as never)
    .execute();
  // Positions inserted out of order: the receipt lists them in position order.
  const positions = Array.from({ length: lines }, (_, i) => lines - 1 - i);
  if (lines)
    await tdb
      .insertInto('transaction_lines')
      .values(positions.map((position) => ({ transaction_id: id, position, item_id: m.items[0]!.id, category_id: null, name: `Dish ${n}.${position}`, qty: position + 1, unit_price: 450, vat_rate: 6, gross: 450, discount: 0, total: 450, modifiers: JSON.stringify(position ? [{ name: 'Extra cheese' }] : []), variant: null })) as never)
      .execute();
  return id;
}

let macSeq = 0;
async function printer(locationId: string, role: 'receipt' | 'kitchen', state: 'configured' | 'paired' | 'retired', paperWidth = 80): Promise<string> {
  const id = Bun.randomUUIDv7();
  const now = new Date();
  await tdb
    .insertInto('printers')
    .values({ id, location_id: locationId, mac: `00:11:62:BB:00:${(macSeq++).toString(16).padStart(2, '0').toUpperCase()}`, paper_width_mm: paperWidth, state, name: `${role} ${macSeq}`, role, station_id: role === 'kitchen' ? m.kds.station_id : null, last_reported_at: now, created_at: now, updated_at: now })
    .execute();
  return id;
}

const jobsOf = (printerIds: string[]) => tdb.selectFrom('print_jobs').select(['printer_id', 'kind', 'source_key', 'document', 'state']).where('printer_id', 'in', printerIds).orderBy('seq').execute();

describe('queueOrderReceipts', () => {
  test('no receipt printer at their locations: 0, after one statement whatever the number of orders', async () => {
    // Neither a kitchen printer nor a retired receipt printer takes receipts.
    const kitchen = await printer(loc[0], 'kitchen', 'configured');
    const retired = await printer(loc[0], 'receipt', 'retired');
    const ids = [await captured(loc[0], 2), await captured(loc[1], 1), await captured(loc[0], 3)];
    let q0 = dbQueryCount();
    expect(await queueOrderReceipts(tdb, ids, new Date())).toBe(0);
    expect(dbQueryCount() - q0).toBe(1);
    q0 = dbQueryCount();
    expect(await queueOrderReceipt(tdb, ids[0]!, new Date())).toBe(0);
    expect(dbQueryCount() - q0).toBe(1);
    expect(await queueOrderReceipts(tdb, [], new Date())).toBe(0);
    expect(await jobsOf([kitchen, retired])).toEqual([]);
  });

  test('with receipt printers: the same print jobs as one queueOrderReceipt per transaction', async () => {
    const wide = await printer(loc[0], 'receipt', 'configured', 80);
    const narrow = await printer(loc[0], 'receipt', 'paired', 58);
    // Location 1 has no receipt printer, an unknown id is no transaction: both print nothing.
    const no = orderNo;
    const ids = [await captured(loc[0], 2), await captured(loc[1], 1), crypto.randomUUID(), await captured(loc[0], 3), await captured(loc[0], 0)];
    const now = new Date('2026-11-23T18:30:00Z');
    let one = 0;
    for (const id of ids) one += await queueOrderReceipt(tdb, id, now);
    const byOne = await jobsOf([wide, narrow]);
    expect(one).toBe(6);
    await tdb.deleteFrom('print_jobs').where('printer_id', 'in', [wide, narrow]).execute();

    expect(await queueOrderReceipts(tdb, ids, now)).toBe(6);
    const byMany = await jobsOf([wide, narrow]);
    expect(byMany).toEqual(byOne);
    // Per transaction in the order given, on each printer in id order.
    expect(byMany.map((j) => [j.printer_id, j.kind, j.source_key])).toEqual(
      [ids[0], ids[3], ids[4]].flatMap((id) => [
        [wide, 'order_receipt', `order:${id}`],
        [narrow, 'order_receipt', `order:${id}`],
      ]),
    );
    const first = byMany[0]!.document;
    expect(first).toContain(`Kiosk order ${no}`);
    expect(first).toContain('23/11/2026 19:30');
    expect(first.indexOf(`1 x Dish ${no}.0`)).toBeLessThan(first.indexOf(`2 x Dish ${no}.1`));
    expect(first).toContain('Extra cheese');
    // A re-run queues nothing new.
    expect(await queueOrderReceipts(tdb, ids, now)).toBe(0);
    expect((await jobsOf([wide, narrow])).length).toBe(6);
  });

  test('the receipt names the variants chosen with the item', async () => {
    const wide = await printer(loc[1], 'receipt', 'configured', 80);
    const id = await captured(loc[1], 1);
    await tdb.updateTable('transaction_lines').set({ variant: JSON.stringify({ id: crypto.randomUUID(), name: 'Large' }) as never }).where('transaction_id', '=', id).execute();
    expect(await queueOrderReceipts(tdb, [id], new Date())).toBe(1);
    const [job] = await jobsOf([wide]);
    expect(job!.document).toContain(`1 x Dish ${orderNo - 1}.0 (Large)`);
  });
});
