import { EposBuilder, MAX_DOCUMENT_BYTES } from './epos-xml.ts';
import { cutToWidth, oneLine, textWidth, wrapToWidth } from './text-width.ts';
import type { CustomerReceipt, KitchenTicket, PrintModel, ReportPrint, TestPrint } from './receipt-model.ts';

/** Columns per line at the font the receipts use: 48 on 80 mm paper, 32 on 58 mm. */
export const columnsFor = (paperWidthMm: number | null | undefined): number => (paperWidthMm === 58 ? 32 : 48);

/** Cents as `12.34` (`-3.50`), the receipt's number format. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(cents));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * Left text and right text on one line of `cols` columns (printed columns: a wide character takes
 * two); the left side is cut to make room. Line breaks in either become spaces.
 */
export function twoColumns(left: string, right: string, cols: number): string {
  const r = oneLine(right);
  const l = cutToWidth(oneLine(left), Math.max(1, cols - textWidth(r) - 1));
  return l + ' '.repeat(Math.max(1, cols - textWidth(l) - textWidth(r))) + r;
}

/** Text as one line cut to the width in columns; the renderer never wraps silently past the paper. */
const fit = (s: string, cols: number) => cutToWidth(oneLine(s), cols);

/** Modifier lines under an item, wrapped (never cut) and indented under their `+`. */
function modifierLines(b: EposBuilder, modifiers: readonly string[] | undefined, cols: number) {
  for (const m of modifiers ?? []) for (const l of wrapToWidth('   + ', m, cols)) b.line(l);
}

export interface RenderOptions {
  readonly paperWidthMm?: number | null;
}

export class DocumentTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`Print document of ${bytes} bytes is over the printer's 2 MB limit`);
  }
}

/** Renders a print model to one `<epos-print>` document; throws DocumentTooLarge past 2 MB. */
export function renderEpos(model: PrintModel, opts: RenderOptions = {}): string {
  const cols = columnsFor(opts.paperWidthMm);
  const b = new EposBuilder();
  switch (model.kind) {
    case 'sale':
    case 'refund':
    case 'order':
      customer(b, model, cols);
      break;
    case 'kitchen':
      kitchen(b, model, cols);
      break;
    case 'report':
      report(b, model, cols);
      break;
    case 'test':
      testPrint(b, model, cols);
      break;
  }
  const xml = b.feed(2).cut().build();
  const bytes = Buffer.byteLength(xml, 'utf8');
  if (bytes > MAX_DOCUMENT_BYTES) throw new DocumentTooLarge(bytes);
  return xml;
}

/** What a kitchen ticket past the printer's limit prints instead: its heading and where to read it (fits 58 mm paper). */
export const KITCHEN_TICKET_TOO_LARGE = 'Too large: see kitchen screen';

/** What a customer receipt past the printer's limit prints for its lines: one line of their quantity and amount. */
export const RECEIPT_LINES_TOO_LARGE = 'Items (too many to print)';

/**
 * `renderEpos`, except that a kitchen ticket or a customer receipt past the printer's limit (thousands
 * of modifier lines, each character of a name escaped into six bytes) prints without them: a ticket as
 * its heading and a notice, a receipt with its lines as one (the totals, VAT, tenders and signature
 * kept). Both are queued inside a transaction (a fire's; a capture's post-capture run, whose every
 * retry failed the same way and held back the order's register dispatch, stats and finalisation).
 */
export function renderEposFitting(model: PrintModel, opts: RenderOptions = {}): string {
  try {
    return renderEpos(model, opts);
  } catch (e) {
    if (!(e instanceof DocumentTooLarge)) throw e;
    if (model.kind === 'kitchen') return renderEpos({ kind: 'kitchen', station: model.station, order_no: model.order_no, date: model.date, ...(model.due ? { due: model.due } : {}), lines: [], note: KITCHEN_TICKET_TOO_LARGE }, opts);
    if (model.kind === 'sale' || model.kind === 'refund' || model.kind === 'order') {
      const qty = model.lines.reduce((n, l) => n + l.qty, 0);
      const amount = model.lines.reduce((n, l) => n + l.amount, 0);
      return renderEpos({ ...model, lines: [{ qty, name: RECEIPT_LINES_TOO_LARGE, amount }] }, opts);
    }
    throw e;
  }
}

function header(b: EposBuilder, h: { title: string; lines?: readonly string[]; note?: readonly string[] }, cols: number) {
  b.line(fit(h.title, Math.floor(cols / 2)), { align: 'center', width: 2, height: 2, em: true });
  for (const l of h.lines ?? []) b.line(fit(l, cols), { align: 'center' });
  for (const l of h.note ?? []) b.line(fit(l, cols), { align: 'center' });
  b.feed(1);
}

const rule = (cols: number) => '-'.repeat(cols);

function customer(b: EposBuilder, r: CustomerReceipt, cols: number) {
  header(b, r.header, cols);
  const title = r.kind === 'refund' ? 'REFUND' : r.kind === 'order' ? `${r.channel ?? 'Order'} order` : 'Ticket';
  b.line(twoColumns(r.show_number === false ? title : `${title} ${r.number}`, '', cols).trimEnd(), { em: true });
  b.line(fit(r.date, cols));
  b.line(rule(cols));
  for (const l of r.lines) {
    // The name wraps inside its column (the variant it ends with is never lost); the amount stays on the first line.
    const amount = formatCents(l.amount);
    const [first = '', ...more] = wrapToWidth(`${l.qty} x `, l.name, cols - textWidth(amount) - 1);
    b.line(twoColumns(first, amount, cols));
    for (const m of more) b.line(m);
    modifierLines(b, l.modifiers, cols);
  }
  if (r.charges?.length) {
    b.line(rule(cols));
    b.line(twoColumns('Subtotal', formatCents(r.lines.reduce((n, l) => n + l.amount, 0)), cols));
    for (const c of r.charges) b.line(twoColumns(c.label, formatCents(c.amount), cols));
  }
  b.line(rule(cols));
  b.line(twoColumns('TOTAL', formatCents(r.total), cols), { em: true, height: 2 });
  for (const t of r.tenders) b.line(twoColumns(t.label, formatCents(t.amount), cols));
  if (r.change !== undefined && r.change !== 0) b.line(twoColumns('Change', formatCents(r.change), cols));
  if (r.vat.length) {
    b.line(rule(cols));
    b.line(twoColumns('VAT', 'Net      VAT    Gross', cols));
    for (const v of r.vat) b.line(twoColumns(`${v.rate}%`, `${formatCents(v.net).padStart(8)} ${formatCents(v.vat).padStart(7)} ${formatCents(v.gross).padStart(8)}`, cols));
  }
  if (r.fiscal?.short_signature || r.fiscal?.verification_url) {
    b.line(rule(cols));
    if (r.fiscal.short_signature) b.line(fit(`Signature: ${r.fiscal.short_signature}`, cols), { align: 'center' });
    if (r.fiscal.verification_url) {
      b.qr(r.fiscal.verification_url);
      b.line('', { align: 'center' });
    }
  }
  for (const f of r.footer ?? []) b.line(fit(f, cols), { align: 'center' });
}

function kitchen(b: EposBuilder, t: KitchenTicket, cols: number) {
  b.line(fit(t.station, Math.floor(cols / 2)), { align: 'center', width: 2, height: 2, em: true });
  b.line(fit(`Order ${t.order_no}`, Math.floor(cols / 2)), { align: 'center', width: 2, height: 2 });
  b.line(fit(t.date, cols), { align: 'center' });
  // Paid now, cooked later: the due time stands out, or the kitchen would start it at once.
  if (t.due) b.line(fit(`Due ${t.due}`, cols), { align: 'center', height: 2, em: true });
  b.line(rule(cols));
  for (const l of t.lines) {
    // Double width: half the columns. Wrapped, never cut: "Spaghetti bolognese (Large)" and "(Small)" must differ.
    for (const x of wrapToWidth(`${l.qty} x `, l.name, Math.floor(cols / 2))) b.line(x, { width: 2, height: 1, em: true });
    modifierLines(b, l.modifiers, cols);
  }
  if (t.note) for (const x of wrapToWidth('', t.note, cols)) b.line(x);
}

function report(b: EposBuilder, r: ReportPrint, cols: number) {
  header(b, r.header, cols);
  b.line(fit(r.title, Math.floor(cols / 2)), { align: 'center', width: 2, height: 2, em: true });
  b.line(fit(r.date, cols), { align: 'center' });
  for (const s of r.sections) {
    b.line(rule(cols));
    b.line(fit(s.title, cols), { em: true });
    for (const [k, v] of s.rows) b.line(twoColumns(k, v, cols));
  }
}

function testPrint(b: EposBuilder, t: TestPrint, cols: number) {
  b.line('TEST PRINT', { align: 'center', width: 2, height: 2, em: true });
  b.line(fit(t.printer, cols), { align: 'center' });
  b.line(fit(t.date, cols), { align: 'center' });
  for (const l of t.lines ?? []) b.line(fit(l, cols), { align: 'center' });
}
