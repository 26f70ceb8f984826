import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { inflateSync } from 'node:zlib';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFString } from 'pdf-lib';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { PNG_NEEDS_ONE_TABLE } from '@pos/core/table-qr/qr-files';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

const BASE = 'https://order.example.test/api';
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const loc0 = () => a.locations[0]!.id;
const section = () => a.table_sections[0]!;
const scanUrl = (n: number) => `${BASE}/table-qr-ordering/${loc0()}/${section().id}/${n}`;

/** The raw response (the harness reads bodies as text, which would mangle a binary file). */
async function download(body: unknown, token = owner, locationId = loc0()) {
  const res = await api.app.handle(
    new Request(`http://localhost/api/back-office/qr-ordering/${locationId}/download-multiple`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  );
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}
const json = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

function decodeQr(rgba: Uint8ClampedArray, width: number, height: number): string | undefined {
  return jsQR(rgba, width, height)?.data;
}

/** Each page's QR image decoded (pdf-lib stores PNG pixels as Flate RGB) and its link annotation URI. */
function pdfPages(doc: PDFDocument) {
  return doc.getPages().map((page) => {
    const xobjects = page.node.Resources()!.lookup(PDFName.of('XObject'), PDFDict);
    const [, ref] = xobjects.entries()[0]!;
    const image = doc.context.lookup(ref) as PDFRawStream;
    const w = Number(image.dict.get(PDFName.of('Width'))!.toString());
    const h = Number(image.dict.get(PDFName.of('Height'))!.toString());
    const rgb = inflateSync(image.contents);
    const rgba = new Uint8ClampedArray(w * h * 4);
    for (let i = 0; i < w * h; i++) rgba.set([rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!, 255], i * 4);
    const annots = page.node.lookup(PDFName.of('Annots'), PDFArray);
    const link = annots.lookup(0, PDFDict);
    const action = link.lookup(PDFName.of('A'), PDFDict);
    return { qr: decodeQr(rgba, w, h), uri: (action.lookup(PDFName.of('URI')) as PDFString).decodeText() };
  });
}

beforeAll(async () => {
  api = await createTestApi({ env: { TABLE_QR_PUBLIC_BASE_URL: BASE } });
  a = await api.seed('qr-a');
  b = await api.seed('qr-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
});
afterAll(() => api.close());

describe('GET /qr-ordering/{locationId}/qr-download-options', () => {
  test('formats, sizes and the sections with the URL of table 1', async () => {
    const r = await api.call('GET', `/api/back-office/qr-ordering/${loc0()}/qr-download-options`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: { formats: ['png', 'pdf'], sizes: [256, 512, 1024], default_size: 512, max_tables: 200, sections: [{ id: section().id, name: 'Dining room', tables: 20, first_url: scanUrl(1) }] },
    });
    expect((await api.call('GET', `/api/back-office/qr-ordering/${a.locations[1]!.id}/qr-download-options`, { token: owner })).body.data.sections).toEqual([]);
  });

  test('no permission slug (spec 1 "-"), location grant, isolation', async () => {
    expect((await api.call('GET', `/api/back-office/qr-ordering/${loc0()}/qr-download-options`)).status).toBe(401);
    const bare = await limitedUserToken(api, a, [], [loc0()]);
    expect(await api.call('GET', `/api/back-office/qr-ordering/${loc0()}/qr-download-options`, { token: bare })).toMatchObject({ status: 200, body: { data: { sections: [{ id: section().id, name: 'Dining room', tables: 20, first_url: scanUrl(1) }] } } });
    const elsewhere = await limitedUserToken(api, a, ['VIEW_SALES_CHANNEL'], [a.locations[1]!.id]);
    expect(await api.call('GET', `/api/back-office/qr-ordering/${loc0()}/qr-download-options`, { token: elsewhere })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect((await api.call('GET', `/api/back-office/qr-ordering/${loc0()}/qr-download-options`, { token: ownerB })).status).toBe(404);
  });
});

describe('POST /qr-ordering/{locationId}/download-multiple', () => {
  test('PNG: a real PNG of the asked size whose code reads the scan URL', async () => {
    const r = await download({ table_section_id: section().id, tables: [7], format: 'png', size: 256 });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="table-qr-dining-room-7.png"');
    expect([...r.bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const png = PNG.sync.read(Buffer.from(r.bytes));
    expect([png.width, png.height]).toEqual([256, 256]);
    expect(decodeQr(new Uint8ClampedArray(png.data), png.width, png.height)).toBe(scanUrl(7));
    // The default size is 512.
    const big = PNG.sync.read(Buffer.from((await download({ table_section_id: section().id, tables: [1], format: 'png' })).bytes));
    expect([big.width, big.height]).toEqual([512, 512]);
  });

  test('PDF: a page per table, each code and link pointing at its table', async () => {
    const r = await download({ table_section_id: section().id, tables: [3, 1, 3, 2], format: 'pdf', size: 256 });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/pdf');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="table-qr-dining-room.pdf"');
    expect(new TextDecoder().decode(r.bytes.slice(0, 5))).toBe('%PDF-');
    const doc = await PDFDocument.load(r.bytes);
    expect(doc.getPageCount()).toBe(3);
    expect(doc.getTitle()).toBe('Table QR codes: Dining room');
    expect(pdfPages(doc)).toEqual([1, 2, 3].map((n) => ({ qr: scanUrl(n), uri: scanUrl(n) })));
  });

  test('PDF without tables: every table of the section', async () => {
    const r = await download({ table_section_id: section().id, format: 'pdf', size: 256 });
    expect(r.status).toBe(200);
    const doc = await PDFDocument.load(r.bytes);
    expect(doc.getPageCount()).toBe(20);
    expect(pdfPages(doc).map((p) => p.uri)).toEqual(Array.from({ length: 20 }, (_, i) => scanUrl(i + 1)));
  });

  test('refusals: a PNG of several tables, tables outside the section, bad fields, other merchants', async () => {
    const several = await download({ table_section_id: section().id, tables: [1, 2], format: 'png' });
    expect(several.status).toBe(422);
    expect(json(several.bytes).errors).toEqual({ tables: [PNG_NEEDS_ONE_TABLE] });
    const outside = await download({ table_section_id: section().id, tables: [21], format: 'pdf' });
    expect(outside.status).toBe(422);
    expect(json(outside.bytes).errors).toEqual({ tables: ['The tables field may only name tables 1 to 20.'] });
    const bad = await download({ table_section_id: 'x', tables: [0], format: 'gif', size: 300 });
    expect(bad.status).toBe(422);
    expect(Object.keys(json(bad.bytes).errors).sort()).toEqual(['format', 'size', 'table_section_id', 'tables.0']);
    expect((await download({ table_section_id: Bun.randomUUIDv7(), format: 'pdf' })).status).toBe(404);
    expect((await download({ table_section_id: b.table_sections[0]!.id, format: 'pdf' })).status).toBe(404);
    expect((await download({ table_section_id: section().id, format: 'pdf' }, ownerB)).status).toBe(404);
    // A section of another location of the same merchant through this location.
    expect((await download({ table_section_id: section().id, format: 'pdf' }, owner, a.locations[1]!.id)).status).toBe(404);
    // No permission slug is needed (spec 1 "-"); the location must be in the grant.
    const bare = await limitedUserToken(api, a, [], [loc0()]);
    const ok = await download({ table_section_id: section().id, tables: [1], format: 'png', size: 256 }, bare);
    expect([ok.status, ok.headers.get('content-type')]).toEqual([200, 'image/png']);
    const elsewhere = await limitedUserToken(api, a, ['VIEW_SALES_CHANNEL'], [a.locations[1]!.id]);
    const refused = await download({ table_section_id: section().id, format: 'pdf' }, elsewhere);
    expect([refused.status, json(refused.bytes).message]).toEqual([403, 'Unauthorized: Insufficient permissions']);
    const res = await api.app.handle(new Request(`http://localhost/api/back-office/qr-ordering/${loc0()}/download-multiple`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(res.status).toBe(401);
  });
});
