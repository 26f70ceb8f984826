import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeOrder } from '../customer-account/customer-test-support.ts';
import { tdbOf, today } from '../pos-admin/pos-admin.test-support.ts';

/** Probe 7: reports over the kiosk/online channels (spec 1 "Transactions and reports"). */
const CREDS = { CARD_B_CLIENT_ID: 'p7-rep', CARD_B_CLIENT_SECRET: 'p7-rep-secret' };
let cardB: CardBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
const loc0 = () => m.locations[0]!.id;
const itemId = (name: string) => m.items.find((i) => i.name === name)!.id;
const get = (path: string) => api.call('GET', `/api/back-office/reports/${path}`, { token: owner });
const channel = (r: any, c: string) => r.body.data.by_channel.find((x: any) => x.channel === c);
let kioskSale: any;

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: cardB.url, PAYMENT_AUTO_SUCCESS: 'true' } });
  m = await api.seed('p7-rep');
  owner = await api.ownerToken(m);
  const kiosk = await api.deviceToken(m, 'kiosk');
  const k = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: itemId('Espresso'), qty: 2 }, { item_id: itemId('Croissant'), qty: 1 }], tip_amount: 70 } });
  kioskSale = k.body.data;
  // Online orders just after local midnight on the two DST change days of Europe/Brussels.
  const spring = await makeOrder(api, m, { total: 1000, createdAt: new Date('2026-03-28T23:30:00Z') }); // 00:30 CET on the 29th
  const autumn = await makeOrder(api, m, { total: 2000, createdAt: new Date('2026-10-24T22:30:00Z') }); // 00:30 CEST on the 25th
  await tdbOf(api, m).updateTable('transactions').set({ completed_at: new Date('2026-03-28T23:30:00Z') }).where('id', '=', spring.id).execute();
  await tdbOf(api, m).updateTable('transactions').set({ completed_at: new Date('2026-10-24T22:30:00Z') }).where('id', '=', autumn.id).execute();
});
afterAll(async () => {
  await api.close();
  cardB.stop();
});

describe('reports over channels', () => {
  test('a sale just after local midnight on a DST change day counts on that local date', async () => {
    expect(kioskSale.status).toBe('Complete');
    const counts = async (d: string) => channel(await get(`sales?from=${d}&to=${d}`), 'online_ordering').sales_count;
    expect([await counts('2026-03-28'), await counts('2026-03-29'), await counts('2026-10-24'), await counts('2026-10-25')]).toEqual([0, 1, 0, 1]);
  });

  test('sales report: VAT per rate adds up to the gross (tips apart) and tips match the transaction stats', async () => {
    const r = await get(`sales?from=${today()}&to=${today()}`);
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d.totals.tips).toBe(70);
    const vatGross = d.by_vat_rate.reduce((a: number, v: any) => a + v.gross, 0);
    expect({ vatGross, net: d.by_vat_rate.reduce((a: number, v: any) => a + v.net + v.vat, 0) }).toEqual({ vatGross: d.totals.gross, net: d.totals.gross });
    const stats = await api.call('GET', '/api/back-office/transactions/stats?status=Complete&channel=kiosk', { token: owner });
    expect(stats.body.data.complete.tip_amount).toBe(d.totals.tips);
  });

  test('sales export rows add up to the sales report totals', async () => {
    for (const [from, to] of [[today(), today()], ['2026-03-01', '2026-12-31']] as const) {
      const rep = (await get(`sales?from=${from}&to=${to}`)).body.data.totals;
      const lines = (await get(`export?report=sales&from=${from}&to=${to}`)).text.replace(/^\uFEFF/, '').trim().split('\n');
      const h = lines[0]!.split(',');
      const sum = (col: string) => lines.slice(1).reduce((a, l) => a + Number(l.split(',')[h.indexOf(col)]), 0);
      expect([from, sum('gross'), sum('tips'), sum('sales_count')]).toEqual([from, rep.gross, rep.tips, rep.sales_count]);
    }
  });

  test('products export: an item name with a formula, comma, quote and newline is defused and quoted', async () => {
    const name = '=HYPERLINK("http://x"),a\nb';
    await tdbOf(api, m).updateTable('items').set({ name }).where('id', '=', itemId('Croissant')).execute();
    const r = await get(`export?report=products&from=${today()}&to=${today()}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain(`"'=HYPERLINK(""http://x""),a\nb"`);
    const loc = await tdbOf(api, m).updateTable('locations').set({ name: '@SUM(1+1)' }).where('id', '=', loc0()).execute();
    expect(loc).toBeTruthy();
    const s = await get(`export?report=sales&from=${today()}&to=${today()}`);
    expect(s.text).toContain(`'@SUM(1+1)`);
  });

  test('inventory report: closing for today equals the current stock after restock, count, waste and a kiosk sale', async () => {
    const bo = (body: unknown) => api.call('POST', '/api/back-office/inventories', { token: owner, body });
    const item = itemId('Espresso');
    for (const body of [{ type: 'restock', quantity: 10 }, { type: 'count', quantity: 7 }, { type: 'waste', quantity: 2 }, { type: 'adjustment', quantity: -1 }]) {
      const r = await bo({ item_id: item, location_id: loc0(), ...body });
      expect([body, r.status]).toEqual([body, 201]);
    }
    const kiosk = await api.deviceToken(m, 'kiosk');
    const k = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: item, qty: 1 }] } });
    expect(k.body.data.status).toBe('Complete');
    await Bun.sleep(300);
    const r = await get(`inventory?from=${today()}&to=${today()}&location_id=${loc0()}`);
    expect(r.status).toBe(200);
    const s = r.body.data.stocks.find((x: any) => x.item_id === item);
    expect({ closing: s.closing, current: s.current }).toEqual({ closing: s.current, current: s.current });
  });
});
