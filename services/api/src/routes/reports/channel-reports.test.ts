import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import ExcelJS from 'exceljs';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { addDays, dayBounds } from '@pos/domain/business-day/business-day';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';
import { call as registerCall, line, sell, signIn } from '../pos-tills/register-test-support.ts';
import { makeOrder } from '../customer-account/customer-test-support.ts';
import { nothing, tdbOf, today, yesterday } from '../pos-admin/pos-admin.test-support.ts';

/**
 * The reports over every channel (spec 1 "Transactions and reports"): the register's sales and
 * refunds through the register API, kiosk sales through the kiosk payment route (auto-success mode,
 * the real capture: stock moved, transaction Complete), online orders as the payment flow leaves them.
 */
const CREDS = { CARD_B_CLIENT_ID: 'reports-test', CARD_B_CLIENT_SECRET: 'reports-test-secret' };
let cardB: CardBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
const tomorrow = () => addDays(today(), 1);
const loc0 = () => m.locations[0]!.id;
const itemId = (name: string) => m.items.find((i) => i.name === name)!.id;
const get = (path: string, token = owner) => api.call('GET', `/api/back-office/reports/${path}`, { token });
const zeros = (channel: string) => ({ channel, sales_count: 0, refunds_count: 0, gross: 0, refunds: 0, net: 0, tips: 0, fees: 0 });
/** The export's raw bytes (a decoded text would drop the byte-order mark). */
const download = (query: string, token = owner) => api.app.handle(new Request(`http://localhost/api/back-office/reports/export?${query}`, { headers: { authorization: `Bearer ${token}` } }));
/** A CSV export's text: a UTF-8 byte-order mark first (so a spreadsheet reads accents), checked and taken off. */
async function csvOf(query: string): Promise<string> {
  const res = await download(query);
  expect(res.status).toBe(200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return new TextDecoder().decode(bytes.slice(3));
}

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: cardB.url, PAYMENT_AUTO_SUCCESS: 'true' } });
  m = await api.seed('reports-channels');
  owner = await api.ownerToken(m);
  const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
  // Stock first: a capture moves only a stock that exists.
  expect((await bo('POST', '/inventories', { item_id: itemId('Espresso'), location_id: loc0(), type: 'restock', quantity: 10 })).status).toBe(201);

  // The register: Espresso x2 + Croissant = 780 in cash, then the croissant refunded (220).
  const manager = await signIn(api, m, 'manager', 0);
  expect((await registerCall(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 5000 })).status).toBe(200);
  const croissant = line(manager, 'Croissant');
  const sale = await sell(manager, [line(manager, 'Espresso', 2), croissant], { amount_tendered: 1000 });
  expect((await registerCall(manager, 'POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [croissant.uuid] })).status).toBe(200);

  // The kiosk: one espresso with a 50 tip (Complete: 330 paid, 280 of sales), then a test-mode sale that never counts.
  const kiosk = await api.deviceToken(m, 'kiosk');
  const kioskSale = (lines: unknown[], tip = 0) => api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines, tip_amount: tip } });
  const k = await kioskSale([{ item_id: itemId('Espresso'), qty: 1 }], 50);
  expect(k.body.data).toMatchObject({ status: 'Complete', total: 330, tip_amount: 50 });
  const testMode = (await kioskSale([{ item_id: itemId('Croissant'), qty: 2 }])).body.data;
  await tdbOf(api, m).updateTable('transactions').set({ is_test: true }).where('id', '=', testMode.id).execute();

  // Online: 1250 (6 %) completed now; 900 completed yesterday; a cancelled one that never counts.
  const online = await makeOrder(api, m, { total: 1250 });
  await tdbOf(api, m).updateTable('transactions').set({ by_vat_rate: JSON.stringify([{ rate: 6, net: 1179, vat: 71, gross: 1250 }]) }).where('id', '=', online.id).execute();
  const noon = (date: string) => new Date(`${date}T11:00:00Z`);
  await makeOrder(api, m, { total: 900, createdAt: noon(yesterday()) });
  const cancelled = await makeOrder(api, m, { total: 5000 });
  await tdbOf(api, m).updateTable('transactions').set({ status: 'Cancelled', receipt_no: null, completed_at: null }).where('id', '=', cancelled.id).execute();

  // Waste of two espressos today.
  expect((await bo('POST', '/inventories', { item_id: itemId('Espresso'), location_id: loc0(), type: 'waste', quantity: 2 })).status).toBe(201);
});
afterAll(async () => {
  await api.close();
  cardB.stop();
});

describe('GET /back-office/reports/sales over every channel', () => {
  test('totals and by_channel add the kiosk and online sales to the register; tips apart; test-mode and cancelled orders never count', async () => {
    const r = await get(`sales?from=${today()}&to=${today()}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      from: today(),
      to: today(),
      location_ids: m.locations.map((l) => l.id).sort(),
      totals: { sales_count: 3, refunds_count: 1, gross: 2310, refunds: 220, net: 2090, tips: 50, fees: 0 },
      by_channel: [
        { channel: 'register', sales_count: 1, refunds_count: 1, gross: 780, refunds: 220, net: 560, tips: 0, fees: 0 },
        { channel: 'kiosk', sales_count: 1, refunds_count: 0, gross: 280, refunds: 0, net: 280, tips: 50, fees: 0 },
        { channel: 'online_ordering', sales_count: 1, refunds_count: 0, gross: 1250, refunds: 0, net: 1250, tips: 0, fees: 0 },
        zeros('table_qr'),
        zeros('delivery'),
      ],
      // The register's tenders only, as its X/Z reports: 780 cash less the 220 handed back.
      by_tender: [
        { label: 'Cash', amount: 560, count: 1 },
        { label: 'Card', amount: 0, count: 0 },
        { label: 'Meal voucher', amount: 0, count: 0 },
        { label: 'Gift voucher', amount: 0, count: 0 },
        { label: 'Unknown', amount: 0, count: 0 },
      ],
      // 21 %: the register's 560 (VAT 97) and the kiosk's 280 (VAT 49); 6 %: the croissant sold and
      // refunded (0) and the online order's 1250 (VAT 71).
      by_vat_rate: [
        { rate: 21, net: 694, vat: 146, gross: 840 },
        { rate: 6, net: 1179, vat: 71, gross: 1250 },
      ],
    });
  });

  test('a channel sale counts on the local date it completed on', async () => {
    const both = (await get(`sales?from=${yesterday()}&to=${today()}`)).body.data;
    expect(both.by_channel[2]).toEqual({ channel: 'online_ordering', sales_count: 2, refunds_count: 0, gross: 2150, refunds: 0, net: 2150, tips: 0, fees: 0 });
    expect(both.totals).toEqual({ sales_count: 4, refunds_count: 1, gross: 3210, refunds: 220, net: 2990, tips: 50, fees: 0 });
    // 00:30 in Brussels today is still yesterday in UTC: it counts on today, the location's date.
    expect(m.locations[0]!.timezone).toBe('Europe/Brussels');
    const late = await makeOrder(api, m, { total: 100, createdAt: new Date(dayBounds(today(), 'Europe/Brussels').start.getTime() + 30 * 60_000) });
    try {
      expect((await get(`sales?from=${today()}&to=${today()}`)).body.data.by_channel[2]).toMatchObject({ sales_count: 2, gross: 1350 });
      expect((await get(`sales?from=${yesterday()}&to=${yesterday()}`)).body.data.by_channel[2]).toMatchObject({ sales_count: 1, gross: 900 });
    } finally {
      await tdbOf(api, m).deleteFrom('transaction_lines').where('transaction_id', '=', late.id).execute();
      await tdbOf(api, m).deleteFrom('transactions').where('id', '=', late.id).execute();
    }
  });
});

describe('GET /back-office/reports/products', () => {
  test('units and money per item over every channel, refunds per item, the catalog name, net descending', async () => {
    const r = await get(`products?from=${today()}&to=${today()}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      from: today(),
      to: today(),
      location_ids: m.locations.map((l) => l.id).sort(),
      // Espresso: the register's 2 (560), the kiosk's 1 (280) and the online order's line (1250, on items[0]).
      totals: { quantity: 5, gross: 2310, refunded_quantity: 1, refunds: 220, net: 2090 },
      items: [
        { item_id: itemId('Espresso'), name: 'Espresso', quantity: 4, gross: 2090, refunded_quantity: 0, refunds: 0, net: 2090 },
        { item_id: itemId('Croissant'), name: 'Croissant', quantity: 1, gross: 220, refunded_quantity: 1, refunds: 220, net: 0 },
      ],
    });
    expect(m.items[0]!.name).toBe('Espresso');
    // The items report's net agrees with the sales report's.
    expect(r.body.data.totals.net).toBe((await get(`sales?from=${today()}&to=${today()}`)).body.data.totals.net);
  });

  test('a renamed item is shown by its catalog name; an empty window is empty', async () => {
    const tdb = tdbOf(api, m);
    await tdb.updateTable('items').set({ name: 'Ristretto' }).where('id', '=', itemId('Espresso')).execute();
    try {
      expect((await get(`products?from=${today()}&to=${today()}`)).body.data.items[0]).toMatchObject({ item_id: itemId('Espresso'), name: 'Ristretto' });
    } finally {
      await tdb.updateTable('items').set({ name: 'Espresso' }).where('id', '=', itemId('Espresso')).execute();
    }
    expect((await get('products?from=2020-01-01&to=2020-01-31')).body.data).toEqual({
      from: '2020-01-01',
      to: '2020-01-31',
      location_ids: m.locations.map((l) => l.id).sort(),
      totals: { quantity: 0, gross: 0, refunded_quantity: 0, refunds: 0, net: 0 },
      items: [],
    });
  });
});

describe('GET /back-office/reports/inventory', () => {
  test('opening, movements by kind, closing and current stock per item and location', async () => {
    const espresso = { item_id: itemId('Espresso'), item_name: 'Espresso', location_id: loc0(), location_name: m.locations[0]!.name };
    expect((await get(`inventory?from=${today()}&to=${today()}`)).body.data).toEqual({
      from: today(),
      to: today(),
      location_ids: m.locations.map((l) => l.id).sort(),
      // Restocked 10, the register sold 2 (its settle wrote the movement; its refund returns nothing to the
      // shelf) and the kiosk 1 (its capture did), 2 wasted.
      stocks: [{ ...espresso, opening: 0, movements: { restock: 10, sale: -3, waste: -2, adjustment: 0, count: 0 }, closing: 5, current: 5 }],
    });
    const quiet = { restock: 0, sale: 0, waste: 0, adjustment: 0, count: 0 };
    expect((await get(`inventory?from=${yesterday()}&to=${yesterday()}`)).body.data.stocks).toEqual([{ ...espresso, opening: 0, movements: quiet, closing: 0, current: 5 }]);
    expect((await get(`inventory?from=${tomorrow()}&to=${tomorrow()}`)).body.data.stocks).toEqual([{ ...espresso, opening: 5, movements: quiet, closing: 5, current: 5 }]);
    expect((await get(`inventory?from=${today()}&to=${today()}&location_id=${m.locations[1]!.id}`)).body.data.stocks).toEqual([]);
  });

  test('VIEW_INVENTORY, not the sales reports permission; restricted to the grant', async () => {
    const sales = await makeMember(api, m, ['VIEW_SALES_REPORTS']);
    expect(await get(`inventory?from=${today()}&to=${today()}`, sales.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const elsewhere = await makeMember(api, m, ['VIEW_INVENTORY'], { locationIds: [m.locations[1]!.id] });
    expect((await get(`inventory?from=${today()}&to=${today()}`, elsewhere.token)).body.data).toMatchObject({ location_ids: [m.locations[1]!.id], stocks: [] });
    expect(await get(`inventory?from=${today()}&to=${today()}&location_id=${loc0()}`, elsewhere.token)).toMatchObject({ status: 403 });
    expect(await get(`inventory?from=${today()}&to=${today()}&location_id=${nothing()}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect(await get(`inventory?from=${today()}&to=${yesterday()}`)).toMatchObject({ status: 422, body: { errors: { to: ['The to field must be a date after or equal to from.'] } } });
  });
});

describe('GET /back-office/reports/export', () => {
  test('sales: one row per date, location and channel, adding up to the report', async () => {
    const r = await get(`export?report=sales&from=${yesterday()}&to=${today()}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="sales-report-${yesterday()}-${today()}.csv"`);
    const name = m.locations[0]!.name;
    expect(await csvOf(`report=sales&from=${yesterday()}&to=${today()}`)).toBe(
      [
        'date,location_id,location_name,channel,sales_count,refunds_count,gross,refunds,net,tips,fees,net_eur',
        `${yesterday()},${loc0()},${name},online_ordering,1,0,900,0,900,0,0,9.00`,
        `${today()},${loc0()},${name},register,1,1,780,220,560,0,0,5.60`,
        `${today()},${loc0()},${name},kiosk,1,0,280,0,280,50,0,2.80`,
        `${today()},${loc0()},${name},online_ordering,1,0,1250,0,1250,0,0,12.50`,
        '',
      ].join('\n'),
    );
  });

  test('products and inventory as CSV; XLSX on request', async () => {
    expect(await csvOf(`report=products&from=${today()}&to=${today()}`)).toBe(
      ['item_id,name,quantity,gross,refunded_quantity,refunds,net,net_eur', `${itemId('Espresso')},Espresso,4,2090,0,0,2090,20.90`, `${itemId('Croissant')},Croissant,1,220,1,220,0,0.00`, ''].join('\n'),
    );
    expect(await csvOf(`report=inventory&from=${today()}&to=${today()}`)).toBe(
      ['item_id,item_name,location_id,location_name,opening,restock,sale,waste,adjustment,count,closing,current', `${itemId('Espresso')},Espresso,${loc0()},${m.locations[0]!.name},0,10,-3,-2,0,0,5,5`, ''].join('\n'),
    );
    const x = await download(`report=products&from=${today()}&to=${today()}&format=xlsx`);
    expect(x.status).toBe(200);
    expect(x.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(x.headers.get('content-disposition')).toBe(`attachment; filename="products-report-${today()}-${today()}.xlsx"`);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await x.arrayBuffer()) as ArrayBuffer);
    const ws = wb.getWorksheet('Items')!;
    expect(ws.getRow(1).values).toEqual([undefined, 'item_id', 'name', 'quantity', 'gross', 'refunded_quantity', 'refunds', 'net', 'net_eur']);
    expect(ws.getRow(3).values).toEqual([undefined, itemId('Croissant'), 'Croissant', 1, 220, 1, 220, 0, 0]);
    expect(ws.rowCount).toBe(3);
  });

  test("a text cell a spreadsheet would run is defused", async () => {
    const tdb = tdbOf(api, m);
    await tdb.updateTable('items').set({ name: '=HYPERLINK("http://evil")' }).where('id', '=', itemId('Croissant')).execute();
    try {
      const csv = await csvOf(`report=products&from=${today()}&to=${today()}`);
      expect(csv.split('\n')[2]).toBe(`${itemId('Croissant')},"'=HYPERLINK(""http://evil"")",1,220,1,220,0,0.00`);
    } finally {
      await tdb.updateTable('items').set({ name: 'Croissant' }).where('id', '=', itemId('Croissant')).execute();
    }
  });

  test("the exported report's own permission; every refusal before the file starts", async () => {
    const sales = await makeMember(api, m, ['VIEW_SALES_REPORTS']);
    const stock = await makeMember(api, m, ['VIEW_INVENTORY']);
    const q = `from=${today()}&to=${today()}`;
    expect((await get(`export?report=sales&${q}`, sales.token)).status).toBe(200);
    expect((await get(`export?report=products&${q}`, sales.token)).status).toBe(200);
    expect(await get(`export?report=inventory&${q}`, sales.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect((await get(`export?report=inventory&${q}`, stock.token)).status).toBe(200);
    expect(await get(`export?report=sales&${q}`, stock.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await get(`export?report=everything&${q}`)).toMatchObject({ status: 422, body: { errors: { report: ['The report field must be one of: sales, products, inventory.'] } } });
    expect(await get(`export?${q}`)).toMatchObject({ status: 422 });
    expect(await get(`export?report=sales&${q}&format=pdf`)).toMatchObject({ status: 422, body: { errors: { format: ['The format field must be csv or xlsx.'] } } });
    expect(await get('export?report=sales&from=2026-02-30&to=2026-03-01')).toMatchObject({ status: 422, body: { errors: { from: ['The from field must be a valid date (YYYY-MM-DD).'] } } });
    expect(await get(`export?report=inventory&${q}&location_id=${nothing()}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
  });

  test('the permission comes before the query check: a caller who may export nothing is 403 whatever the query', async () => {
    const none = await makeMember(api, m, ['VIEW_ITEMS']);
    const stock = await makeMember(api, m, ['VIEW_INVENTORY']);
    const q = `from=${today()}&to=${today()}`;
    const refusal = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    for (const query of [`report=sales&${q}`, `report=everything&${q}`, q, `report=sales&${q}&format=pdf`, 'report=sales&from=2026-02-30&to=2026-03-01', '']) {
      const r = await get(`export?${query}`, none.token);
      expect([query, r.status, r.body]).toEqual([query, refusal.status, refusal.body]);
    }
    // A known kind needs its own permission before the rest of the query is looked at.
    expect(await get('export?report=sales&format=pdf', stock.token)).toMatchObject(refusal);
    // A caller who may export something learns about a bad query (422), as the owner does.
    expect(await get(`export?report=everything&${q}`, stock.token)).toMatchObject({ status: 422, body: { errors: { report: ['The report field must be one of: sales, products, inventory.'] } } });
    expect(await get(`export?report=inventory&${q}&format=pdf`, stock.token)).toMatchObject({ status: 422, body: { errors: { format: ['The format field must be csv or xlsx.'] } } });
  });
});

describe('marketplace orders and stored figures', () => {
  // A day of their own, so the figures above are not touched.
  const day = '2025-09-10';
  const at = new Date(`${day}T10:00:00Z`);
  async function insertCompleted(t: { channel: 'delivery' | 'kiosk'; subtotal: number; discount?: number; fees?: number; tip?: number; byVatRate: unknown[]; orderStatus?: string }) {
    const o = await makeOrder(api, m, { total: t.subtotal - (t.discount ?? 0) + (t.fees ?? 0) + (t.tip ?? 0), createdAt: at });
    await tdbOf(api, m)
      .updateTable('transactions')
      .set({ channel: t.channel, payment_provider: t.channel === 'delivery' ? 'delivery-a' : 'card-b', subtotal: t.subtotal, discount: t.discount ?? 0, fees: t.fees ?? 0, tip_amount: t.tip ?? 0, by_vat_rate: JSON.stringify(t.byVatRate), order_status: t.orderStatus ?? 'Queued' })
      .where('id', '=', o.id)
      .execute();
  }

  test('a delivery fee and a tip are their own figures: gross is what the goods sold for, as the VAT groups; an order its marketplace cancelled is no sale', async () => {
    // Espresso x2 at 260 (21 %) and a croissant at 310 (6 %): 830 of goods, 250 delivery fee, 100 tip.
    await insertCompleted({ channel: 'delivery', subtotal: 830, fees: 250, tip: 100, byVatRate: [{ rate: 21, net: 430, vat: 90, gross: 520 }, { rate: 6, net: 292, vat: 18, gross: 310 }] });
    await insertCompleted({ channel: 'delivery', subtotal: 5000, fees: 300, byVatRate: [{ rate: 21, net: 4132, vat: 868, gross: 5000 }], orderStatus: 'Cancelled' });
    const r = (await get(`sales?from=${day}&to=${day}`)).body.data;
    expect(r.by_channel[4]).toEqual({ channel: 'delivery', sales_count: 1, refunds_count: 0, gross: 830, refunds: 0, net: 830, tips: 100, fees: 250 });
    expect(r.totals).toEqual({ sales_count: 1, refunds_count: 0, gross: 830, refunds: 0, net: 830, tips: 100, fees: 250 });
    expect(r.by_vat_rate.reduce((s: number, g: { gross: number }) => s + g.gross, 0)).toBe(830);
    expect(await csvOf(`report=sales&from=${day}&to=${day}`)).toBe(
      ['date,location_id,location_name,channel,sales_count,refunds_count,gross,refunds,net,tips,fees,net_eur', `${day},${loc0()},${m.locations[0]!.name},delivery,1,0,830,0,830,100,250,8.30`, ''].join('\n'),
    );
  });

  test('a stored VAT group whose figures are not whole cents is skipped, never a failed report', async () => {
    await insertCompleted({ channel: 'kiosk', subtotal: 100, byVatRate: [{ rate: 6, net: 94.5, vat: 5.5, gross: 100 }, { rate: 'x', net: 1, vat: 1, gross: 2 }] });
    const r = await get(`sales?from=${day}&to=${day}`);
    expect(r.status).toBe(200);
    expect(r.body.data.by_channel[1]).toMatchObject({ channel: 'kiosk', sales_count: 1, gross: 100 });
    expect(r.body.data.by_vat_rate).toEqual([{ rate: 21, net: 430, vat: 90, gross: 520 }, { rate: 6, net: 292, vat: 18, gross: 310 }]);
  });
});
