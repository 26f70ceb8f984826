import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import ExcelJS from 'exceljs';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let m: DemoSeedResult;
let owner: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('export');
  owner = await api.ownerToken(m);
  // More than one page of the streamed reader (500), and a cell a spreadsheet would run as a formula.
  const many = Array.from({ length: 520 }, (_, i) => ({ id: Bun.randomUUIDv7(), name: `Bulk ${String(i).padStart(3, '0')}`, unit_price: i, vat_rate: 21, category: null }));
  const { bindTenant } = await import('@pos/db');
  await bindTenant(api.deps.db, m.merchant.tenant_database).insertInto('items').values(many).execute();
  await api.call('POST', '/api/back-office/items', { token: owner, body: { name: '=HYPERLINK("x")', unit_price: 1, vat_rate: 21, category_id: null, allergens: ['milk', 'eggs'] } });
});
afterAll(() => api.close());

const raw = (query: string) => api.app.handle(new Request(`http://localhost/api/back-office/items/export${query}`, { headers: { authorization: `Bearer ${owner}` } }));

describe('GET /items/export', () => {
  test('CSV: header, every item across pages, cents and decimal price, formula-safe text', async () => {
    const res = await raw('?format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="items-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await res.text()).trim().split('\n');
    expect(lines[0]).toBe('id,name,sku,category,unit_price_cents,price,vat_rate,allergens,dietary,channels,visible,created_at');
    expect(lines.length).toBe(1 + 6 + 520 + 1);
    const beer = lines.find((l) => l.includes('Belgian beer'))!;
    expect(beer).toMatch(new RegExp(`^${m.items.find((i) => i.name === 'Belgian beer')!.id},Belgian beer,,Drinks,450,4.50,21,,,pos\\|kiosk\\|online_ordering\\|qr_ordering\\|delivery,true,\\d{4}-`));
    expect(lines.find((l) => l.includes('HYPERLINK'))).toContain(`"'=HYPERLINK(""x"")",,,1,0.01,21,milk|eggs`);
  });

  test('XLSX: text that looks like a formula stays the text it is (a workbook cell is typed text, nothing to defuse)', async () => {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await (await raw('?format=xlsx&search=HYPERLINK')).arrayBuffer()) as unknown as ArrayBuffer);
    const cell = wb.getWorksheet('Items')!.getRow(2).getCell(2);
    expect(cell.value).toBe('=HYPERLINK("x")');
    expect(cell.type).toBe(ExcelJS.ValueType.String);
  });

  test('XLSX: a real workbook with the same rows; search filters', async () => {
    const res = await raw('?format=xlsx&search=beer');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const buf = Buffer.from(await res.arrayBuffer());
    expect(buf.subarray(0, 2).toString()).toBe('PK');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(buf as unknown as ArrayBuffer);
    const ws = wb.getWorksheet('Items')!;
    expect(ws.getRow(1).values).toEqual([undefined, 'id', 'name', 'sku', 'category', 'unit_price_cents', 'price', 'vat_rate', 'allergens', 'dietary', 'channels', 'visible', 'created_at']);
    expect(ws.rowCount).toBe(2);
    expect(ws.getRow(2).getCell(2).value).toBe('Belgian beer');
    expect(ws.getRow(2).getCell(5).value).toBe(450);
    expect(ws.getRow(2).getCell(6).value).toBe('4.50');
  });

  test('a CSV starts with a byte-order mark; the datatable\'s filters hold: search on name or sku, visible, channel', async () => {
    const bytes = new Uint8Array(await (await raw('?format=csv&search=beer')).arrayBuffer());
    // Before: no byte-order mark ("Café" read as "CafÃ©"), the search on names only, visible and channel a 422.
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const beer = m.items.find((i) => i.name === 'Belgian beer')!;
    await bindTenant(api.deps.db, m.merchant.tenant_database).updateTable('items').set({ sku: 'ZZ-SKU-3' }).where('id', '=', beer.id).execute();
    const ids = async (q: string) => (await (await raw(q)).text()).trim().split('\n').slice(1).map((l) => l.split(',')[0]!.replace(/^\uFEFF/, ''));
    expect(await ids('?search=zz-sku')).toEqual([beer.id]);
    const table = await api.call('GET', '/api/back-office/items/datatable?search=zz-sku', { token: owner });
    expect(table.body.data.map((i: { id: string }) => i.id)).toEqual([beer.id]);
    const hidden = await ids('?visible=false');
    const tableHidden = (await api.call('GET', '/api/back-office/items/datatable?visible=false&per_page=100', { token: owner })).body;
    expect(hidden.length).toBe(tableHidden.total);
    expect((await raw('?channel=kiosk&search=beer')).status).toBe(200);
    expect(await ids('?channel=kiosk&search=zz-sku')).toEqual([beer.id]);
  });

  test('a bad format is a 422; without EXPORT_ITEMS a 403', async () => {
    expect((await raw('?format=pdf')).status).toBe(422);
    const { limitedUserToken } = await import('../devices/test-helpers.ts');
    const viewer = await limitedUserToken(api, m, ['VIEW_ITEMS'], [m.locations[0]!.id]);
    const r = await api.call('GET', '/api/back-office/items/export', { token: viewer });
    expect(r).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
  });
});
