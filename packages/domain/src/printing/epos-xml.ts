/**
 * ePOS-Print XML (PROTOCOLS "printer-a"): the elements receipts use, escaped, and the
 * `PrintRequestInfo` envelope the poll service answers with.
 */
import { oneLine } from './text-width.ts';

export const EPOS_NS = 'http://www.epson-pos.com/schemas/2011/03/epos-print';
/** Documents over 2 MB are refused by the printer. */
export const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;

/** XML text escaping; control characters other than the new line are dropped (the printer's schema refuses them). */
export function xmlEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '&') out += '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else if (ch === '"') out += '&quot;';
    else if (ch === "'") out += '&apos;';
    else if (ch === '\n') out += '&#10;';
    else if (c < 0x20 || c === 0x7f || c === 0xfffe || c === 0xffff) continue;
    else out += ch;
  }
  return out;
}

export type TextStyle = { align?: 'left' | 'center' | 'right'; width?: number; height?: number; em?: boolean };

/** A builder of the body of one `<epos-print>` document. */
export class EposBuilder {
  private readonly parts: string[] = [];
  private align: TextStyle['align'] = 'left';
  private size = { width: 1, height: 1 };
  private em = false;

  /** One line of text (a new line is appended), with the style switched only when it changes. */
  line(text: string, style: TextStyle = {}): this {
    const align = style.align ?? 'left';
    const width = style.width ?? 1;
    const height = style.height ?? 1;
    const em = style.em ?? false;
    const attrs: string[] = [];
    if (align !== this.align) attrs.push(`align="${align}"`);
    if (width !== this.size.width || height !== this.size.height) attrs.push(`width="${width}" height="${height}"`);
    if (em !== this.em) attrs.push(`em="${em}"`);
    if (attrs.length) this.parts.push(`<text ${attrs.join(' ')}/>`);
    this.align = align;
    this.size = { width, height };
    this.em = em;
    // One printed line: a line break inside the text would add lines of its own (a forged TOTAL).
    this.parts.push(`<text>${xmlEscape(oneLine(text))}&#10;</text>`);
    return this;
  }

  feed(lines = 1): this {
    this.parts.push(`<feed line="${Math.max(1, Math.min(255, Math.trunc(lines)))}"/>`);
    return this;
  }

  /** A QR code (model 2, error correction M) of `data`, centred. */
  qr(data: string): this {
    if (this.align !== 'center') this.parts.push('<text align="center"/>');
    this.align = 'center';
    this.parts.push(`<symbol type="qrcode_model_2" level="level_m" width="4">${xmlEscape(data)}</symbol>`);
    return this;
  }

  cut(): this {
    this.parts.push('<cut type="feed"/>');
    return this;
  }

  /** The `<epos-print>` element. */
  build(): string {
    return `<epos-print xmlns="${EPOS_NS}">${this.parts.join('')}</epos-print>`;
  }
}

/** `printjobid`: 1-30 characters of letters, digits, `_`, `-`, `.`. */
export const PRINT_JOB_ID = /^[A-Za-z0-9_.-]{1,30}$/;

/** The answer to a GetRequest with work: one `ePOSPrint` block carrying the job id. */
export function printRequestInfo(jobId: string, eposPrint: string, devid = 'local_printer', timeoutMs = 10_000): string {
  if (!PRINT_JOB_ID.test(jobId)) throw new Error('Invalid printjobid');
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    `<PrintRequestInfo Version="2.00"><ePOSPrint><Parameter><devid>${xmlEscape(devid)}</devid><timeout>${Math.trunc(timeoutMs)}</timeout>` +
    `<printjobid>${jobId}</printjobid></Parameter><PrintData>${eposPrint}</PrintData></ePOSPrint></PrintRequestInfo>`
  );
}
