import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { insertRefund, insertSale, registerSession, sellThroughApi, today, yesterday } from '../pos-admin/pos-admin.test-support.ts';

/** Probe 7: back-office report exports (spec 1 "Transactions and reports", decisions "Exports"). */
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
const loc0 = () => m.locations[0]!.id;
const get = (path: string) => api.call('GET', `/api/back-office/reports${path}`, { token: owner });
const csvLines = (text: string) => text.replace(/^\uFEFF/, '').trim().split('\n');

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('reports-adv');
  owner = await api.ownerToken(m);
  const session = await registerSession(api, m, 'manager');
  // Yesterday: a sale of 300. Today: only its refund of 220 (a refund on a later business date).
  const sale = await sellThroughApi(api, m, session, ['Espresso', 'Espresso', 'Croissant'], { amount_tendered: 1000 });
  await insertSale(api, m, { locationId: loc0(), total: 300, tender: { legs: [{ kind: 'cash', amount: 300 }], rounding: 0 }, byVatRate: [{ rate: 21, net: 248, vat: 52, gross: 300 }], businessDate: yesterday() });
  const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  // Move the register sale to yesterday so today only has a refund.
  await tdb.updateTable('pos_transactions').set({ business_date: yesterday() } as any).where('id', '=', sale.transaction_id).execute();
  await insertRefund(api, m, { transactionId: sale.transaction_id, locationId: loc0(), amount: 220, byVatRate: [{ rate: 6, net: 208, vat: 12, gross: 220 }], businessDate: today() });
});
afterAll(() => api.close());

describe('report exports', () => {
  test('sales export: a day whose net is negative (refunds only) keeps net_eur a number (-2.20), not the text \'-2.20', async () => {
    const r = await get(`/export?report=sales&from=${today()}&to=${today()}`);
    expect(r.status).toBe(200);
    const lines = csvLines(r.text);
    const header = lines[0]!.split(',');
    const row = lines[1]!.split(',');
    const rec = Object.fromEntries(header.map((h, i) => [h, row[i]]));
    expect({ net: rec.net, net_eur: rec.net_eur }).toEqual({ net: '-220', net_eur: '-2.20' });
  });

  test('a report date range at the calendar\'s end (to=9999-12-31) is answered (200 or 422), never a 500', async () => {
    for (const path of ['/sales', '/products', '/inventory', '/export?report=sales&']) {
      const q = `${path.includes('?') ? '' : '?'}from=9999-12-31&to=9999-12-31`;
      const r = await get(`${path}${q}`);
      expect([path, r.status < 500]).toEqual([path, true]);
    }
  });

  test('permissions and grants: outside the grant 403, another merchant\'s location 404, the other kind\'s export 403, vendor_id 422, a range backwards or over 366 days 422', async () => {
    const loc1 = m.locations[1]!.id;
    const only1 = await limitedUserToken(api, m, ['VIEW_SALES_REPORTS'], [loc1]);
    const as = (path: string, token: string) => api.call('GET', `/api/back-office/reports${path}`, { token });
    const d = today();
    expect((await as(`/sales?from=${d}&to=${d}&location_id=${loc0()}`, only1)).status).toBe(403);
    const mine = await as(`/sales?from=${d}&to=${d}`, only1);
    expect(mine.body.data.location_ids).toEqual([loc1]);
    expect(mine.body.data.totals.refunds).toBe(0);
    expect((await as(`/export?report=sales&from=${d}&to=${d}&location_id=${loc0()}`, only1)).status).toBe(403);
    expect((await as(`/export?report=inventory&from=${d}&to=${d}`, only1)).status).toBe(403);
    expect((await as(`/inventory?from=${d}&to=${d}`, only1)).status).toBe(403);
    const other = await api.seed('reports-adv-other');
    expect((await get(`/sales?from=${d}&to=${d}&location_id=${other.locations[0]!.id}`)).status).toBe(404);
    expect((await get(`/sales?from=${d}&to=${d}&vendor_id=${m.merchant.id}`)).status).toBe(422);
    expect((await get(`/sales?from=2026-01-02&to=2026-01-01`)).status).toBe(422);
    expect((await get(`/sales?from=2025-01-01&to=2026-01-01`)).status).toBe(200);
    expect((await get(`/sales?from=2025-01-01&to=2026-01-02`)).status).toBe(422);
    const none = await limitedUserToken(api, m, [], [loc0(), loc1]);
    expect((await as(`/export?report=bogus&from=${d}&to=${d}`, none)).status).toBe(403);
  });

  test('sales report: totals are the sum of by_channel, VAT per rate is sales minus refunds, tenders add up to net', async () => {
    const d = (await get(`/sales?from=${yesterday()}&to=${today()}`)).body.data;
    for (const k of ['sales_count', 'refunds_count', 'gross', 'refunds', 'net', 'tips', 'fees']) {
      expect([k, d.by_channel.reduce((a: number, c: any) => a + c[k], 0)]).toEqual([k, d.totals[k]]);
    }
    const vat = d.by_vat_rate.reduce((a: any, v: any) => ({ gross: a.gross + v.gross, netvat: a.netvat + v.net + v.vat }), { gross: 0, netvat: 0 });
    expect(vat).toEqual({ gross: d.totals.net, netvat: d.totals.net });
    expect(d.by_tender.reduce((a: number, t: any) => a + t.amount, 0)).toBe(d.totals.net);
  });
});

describe('sales report channels: a table QR order', () => {
  test('a paid table QR order counts under table_qr in the sales report and its export, not under online_ordering', async () => {
    const cardA = startCardASimulator({ secretKey: 'sk_test_reports_adv' });
    const qa = await createTestApi({ env: { CARD_A_SECRET_KEY: 'sk_test_reports_adv', CARD_A_BASE_URL: cardA.url } });
    try {
      const q = await qa.seed('reports-adv-qr');
      const token = await qa.ownerToken(q);
      const loc = q.locations[0]!.id;
      expect((await qa.call('PUT', `/api/back-office/qr-ordering/${loc}`, { token, body: { enabled: true } })).status).toBe(200);
      const section = await qa.call('POST', '/api/back-office/table-sections', { token, body: { location_id: loc, name: 'Terrace', tables: 2 } });
      const scan = await qa.call('GET', `/api/table-qr-ordering/${loc}/${section.body.data.id}/1`);
      expect(scan.status).toBe(200);
      const espresso = q.items.find((i) => i.name === 'Espresso')!;
      const pay = await qa.call('POST', `/api/online-ordering/${q.merchant.slug}/${loc}/payment`, { body: { lines: [{ item_id: espresso.id, qty: 2 }], table_session_id: scan.body.data.id, tip_amount: 40 } });
      expect(pay.status).toBe(200);
      await cardA.confirmIntent(pay.body.data.payment.id, pay.body.data.payment.client_secret);
      const verified = await qa.call('POST', `/api/online-ordering/${q.merchant.slug}/${loc}/verify-payment`, { body: { transaction_id: pay.body.data.transaction_id } });
      expect(verified.body.data.status).toBe('Complete');

      const day = new Date().toLocaleDateString('en-CA', { timeZone: 'Europe/Brussels' });
      const r = await qa.call('GET', `/api/back-office/reports/sales?from=${day}&to=${day}&location_id=${loc}`, { token });
      expect(r.status).toBe(200);
      const row = (c: string) => r.body.data.by_channel.find((x: { channel: string }) => x.channel === c);
      expect(row('table_qr')).toEqual({ channel: 'table_qr', sales_count: 1, refunds_count: 0, gross: 2 * espresso.unit_price, refunds: 0, net: 2 * espresso.unit_price, tips: 40, fees: 0 });
      expect(row('online_ordering')).toMatchObject({ sales_count: 0, gross: 0 });
      const csv = csvLines((await qa.call('GET', `/api/back-office/reports/export?report=sales&from=${day}&to=${day}&location_id=${loc}`, { token })).text);
      const header = csv[0]!.split(',');
      expect(csv.slice(1).map((l) => l.split(',')[header.indexOf('channel')])).toEqual(['table_qr']);
    } finally {
      await qa.close();
      await cardA.stop();
    }
  });
});
