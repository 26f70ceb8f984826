import { errors } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import { findLocation, requireLocationAccess, type BackofficeScope } from '../devices/device-records.ts';

/** qrcode floors `(modules + margins) * (width / (modules + margins))`, which floating point can leave one pixel short; half a pixel more lands on `size`. */
const exactWidth = (size: number): number => size + 0.5;

/**
 * QR code downloads (spec 1 `qr-ordering/{locationId}/qr-download-options`, `download-multiple`): one
 * code per table pointing at the scan route under the configured public base URL, as PNG (one table)
 * or a PDF with one labelled code per page (`qrcode` draws the codes, `pdf-lib` lays out the PDF).
 * No permission of their own (spec 1 "-"): the location grant is checked.
 */

export const QR_FORMATS = ['png', 'pdf'] as const;
export type QrFormat = (typeof QR_FORMATS)[number];
export const QR_SIZES = [256, 512, 1024] as const;
export const DEFAULT_QR_SIZE = 512;
/** Tables in one download (a PDF page each). */
export const MAX_DOWNLOAD_TABLES = 200;
export const PNG_NEEDS_ONE_TABLE = 'A PNG download holds one table; choose the PDF format for several.';

export const DEFAULT_PUBLIC_BASE_URL = 'http://localhost:3000/api';

/** The URL a table's code points at: the scan route. */
export function tableScanUrl(baseUrl: string, locationId: string, sectionId: string, tableNumber: number): string {
  return `${baseUrl.replace(/\/+$/, '')}/table-qr-ordering/${locationId}/${sectionId}/${tableNumber}`;
}

export interface QrDownloadOptions {
  formats: QrFormat[];
  sizes: number[];
  default_size: number;
  max_tables: number;
  sections: { id: string; name: string; tables: number; first_url: string }[];
}

/** `GET /qr-ordering/{locationId}/qr-download-options`: what can be downloaded for the location. */
export async function qrDownloadOptions(scope: BackofficeScope, locationId: string, baseUrl: string): Promise<QrDownloadOptions> {
  await findLocation(scope.tdb, locationId);
  requireLocationAccess(scope.access, locationId);
  const sections = await scope.tdb.selectFrom('table_sections').select(['id', 'name', 'tables']).where('location_id', '=', locationId).orderBy('name').orderBy('id').execute();
  return {
    formats: [...QR_FORMATS],
    sizes: [...QR_SIZES],
    default_size: DEFAULT_QR_SIZE,
    max_tables: MAX_DOWNLOAD_TABLES,
    sections: sections.map((s) => ({ ...s, first_url: tableScanUrl(baseUrl, locationId, s.id, 1) })),
  };
}

export interface DownloadInput {
  table_section_id: string;
  /** Table numbers; absent = every table of the section. */
  tables?: number[];
  format: QrFormat;
  size?: number;
}

export interface QrFile {
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

async function sectionOf(tdb: TenantDb, locationId: string, sectionId: string) {
  const s = await tdb.selectFrom('table_sections').selectAll().where('id', '=', sectionId).where('location_id', '=', locationId).executeTakeFirst();
  if (!s) throw errors.notFound('table section');
  return s;
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'section';

/** `POST /qr-ordering/{locationId}/download-multiple`: the codes of the chosen tables as one file. */
export async function downloadQrCodes(scope: BackofficeScope, locationId: string, input: DownloadInput, baseUrl: string): Promise<QrFile> {
  await findLocation(scope.tdb, locationId);
  requireLocationAccess(scope.access, locationId);
  const section = await sectionOf(scope.tdb, locationId, input.table_section_id);
  const tables = input.tables ? [...new Set(input.tables)].sort((a, b) => a - b) : Array.from({ length: section.tables }, (_, i) => i + 1);
  const outside = tables.filter((n) => n > section.tables);
  if (outside.length) throw errors.field('tables', `The tables field may only name tables 1 to ${section.tables}.`);
  if (tables.length > MAX_DOWNLOAD_TABLES) throw errors.field('tables', `The tables field may name at most ${MAX_DOWNLOAD_TABLES} tables.`);
  const size = input.size ?? DEFAULT_QR_SIZE;
  const name = slug(section.name);
  // Loaded on first use: qrcode and pdf-lib cost the API about 10 MB of resident memory, and downloads are rare.
  const [{ default: QRCode }, { PDFDocument, PDFName, PDFString, StandardFonts, rgb }] = await Promise.all([import('qrcode'), import('pdf-lib')]);
  if (input.format === 'png') {
    if (tables.length !== 1) throw errors.field('tables', PNG_NEEDS_ONE_TABLE);
    const url = tableScanUrl(baseUrl, locationId, section.id, tables[0]!);
    const png = await QRCode.toBuffer(url, { type: 'png', width: exactWidth(size), margin: 2, errorCorrectionLevel: 'M' });
    return { filename: `table-qr-${name}-${tables[0]}.png`, contentType: 'image/png', bytes: new Uint8Array(png) };
  }
  const pdf = await PDFDocument.create();
  pdf.setTitle(`Table QR codes: ${section.name}`);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const n of tables) {
    const url = tableScanUrl(baseUrl, locationId, section.id, n);
    const image = await pdf.embedPng(await QRCode.toBuffer(url, { type: 'png', width: exactWidth(size), margin: 2, errorCorrectionLevel: 'M' }));
    // A5 page: the code centred, the section and table above, the URL below (for manual entry).
    const page = pdf.addPage([420, 595]);
    const side = 300;
    page.drawImage(image, { x: (420 - side) / 2, y: 170, width: side, height: side });
    // The code is also a link annotation to the same URL (a tap on a screen opens it; tests read it back).
    const rect = [(420 - side) / 2, 170, (420 + side) / 2, 170 + side];
    const link = pdf.context.register(pdf.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: rect, Border: [0, 0, 0], A: { Type: 'Action', S: 'URI', URI: PDFString.of(url) } }));
    page.node.set(PDFName.of('Annots'), pdf.context.obj([link]));
    const label = `${section.name.replace(/[^\x20-\x7e]/g, '?')} - Table ${n}`;
    page.drawText(label, { x: (420 - font.widthOfTextAtSize(label, 20)) / 2, y: 500, size: 20, font, color: rgb(0, 0, 0) });
    const urlSize = Math.min(9, (380 / font.widthOfTextAtSize(url, 9)) * 9);
    page.drawText(url, { x: 20, y: 140, size: urlSize, font, color: rgb(0.2, 0.2, 0.2) });
  }
  const bytes = await pdf.save();
  return { filename: `table-qr-${name}.pdf`, contentType: 'application/pdf', bytes };
}
