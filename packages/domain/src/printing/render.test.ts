import { describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DocumentTooLarge, formatCents, KITCHEN_TICKET_TOO_LARGE, RECEIPT_LINES_TOO_LARGE, renderEpos, renderEposFitting, twoColumns } from './render.ts';
import { printRequestInfo, xmlEscape } from './epos-xml.ts';
import type { CustomerReceipt, KitchenTicket, PrintModel } from './receipt-model.ts';
import { textWidth } from './text-width.ts';

const header = { title: 'Café <Demo>', lines: ['Rue Haute 1, 1000 Brussels', 'VAT BE0123.456.789'] };
const MODELS: Record<string, { model: PrintModel; paper?: number }> = {
  'sale-80': {
    model: {
      kind: 'sale',
      header,
      number: 'T-000123',
      date: '24/11/2026 12:34',
      lines: [
        { name: 'Espresso', qty: 2, amount: 500 },
        { name: 'Croque monsieur & salad', qty: 1, amount: 1250, modifiers: ['no onions'] },
      ],
      vat: [
        { rate: 6, net: 1179, vat: 71, gross: 1250 },
        { rate: 21, net: 413, vat: 87, gross: 500 },
      ],
      total: 1750,
      tenders: [
        { label: 'Card', amount: 1000 },
        { label: 'Cash', amount: 1000 },
      ],
      change: 250,
      fiscal: { short_signature: 'AB12-CD34', verification_url: 'https://fdm.example/v?s=AB12&t=1' },
      footer: ['Thank you!'],
    },
  },
  'refund-58': {
    paper: 58,
    model: {
      kind: 'refund',
      header,
      number: 'R-000004',
      date: '24/11/2026 13:00',
      lines: [{ name: 'Espresso', qty: -1, amount: -250 }],
      vat: [{ rate: 21, net: -207, vat: -43, gross: -250 }],
      total: -250,
      tenders: [{ label: 'Cash', amount: -250 }],
      fiscal: { short_signature: 'ZZ99', verification_url: 'https://fdm.example/v?s=ZZ99' },
    },
  },
  'kiosk-order': {
    model: { kind: 'order', channel: 'Kiosk', header, number: 'K-42', date: '24/11/2026 12:00', lines: [{ name: 'Burger', qty: 1, amount: 990 }], vat: [{ rate: 6, net: 934, vat: 56, gross: 990 }], total: 990, tenders: [{ label: 'Card', amount: 990 }] },
  },
  // Receipt settings applied by the builder: header text, no address, no order number, own footer.
  'sale-settings-80': {
    model: { kind: 'sale', header: { title: 'Café Demo', lines: ['VAT BE0123.456.789'], note: ['Welcome back', 'Open 7/7'] }, number: 'T-000124', show_number: false, date: '24/11/2026 12:40', lines: [{ name: 'Tea', qty: 1, amount: 300 }], vat: [{ rate: 6, net: 283, vat: 17, gross: 300 }], total: 300, tenders: [{ label: 'Cash', amount: 300 }], footer: ['See you soon'] },
  },
  'kitchen-ticket': { model: { kind: 'kitchen', station: 'Grill', order_no: '42', date: '12:01', lines: [{ qty: 2, name: 'Burger', modifiers: ['medium', 'no cheese'] }] } },
  'x-report': {
    model: { kind: 'report', title: 'X report', header, date: '24/11/2026 18:00', sections: [{ title: 'Turnover', rows: [['Cash', '120.50'], ['Card', '80.00'], ['Total', '200.50']] }] },
  },
  'test-print': { model: { kind: 'test', printer: 'Counter printer', date: '24/11/2026 09:00' } },
};

describe('renderEpos against fixtures', () => {
  for (const [name, { model, paper }] of Object.entries(MODELS)) {
    test(name, () => {
      const xml = renderEpos(model, { paperWidthMm: paper });
      const file = join(import.meta.dir, 'fixtures', `${name}.xml`);
      if (process.env.UPDATE_FIXTURES) writeFileSync(file, xml + '\n');
      expect(xml + '\n').toBe(readFileSync(file, 'utf8'));
    });
  }
});

describe('content', () => {
  test('a sale receipt carries the short signature and the verification URL as a QR code', () => {
    const xml = renderEpos(MODELS['sale-80']!.model);
    expect(xml).toStartWith('<epos-print xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print">');
    expect(xml).toContain('Signature: AB12-CD34');
    expect(xml).toContain('<symbol type="qrcode_model_2" level="level_m" width="4">https://fdm.example/v?s=AB12&amp;t=1</symbol>');
    expect(xml).toContain('Change');
    expect(xml).toContain('6%');
    expect(xml).toContain('21%');
    expect(xml).toContain('Café &lt;Demo&gt;');
    expect(xml).toEndWith('<feed line="2"/><cut type="feed"/></epos-print>');
  });

  test('receipt settings: header text under the title, order number left off, footer last', () => {
    const xml = renderEpos(MODELS['sale-settings-80']!.model);
    expect(xml).toContain('<text>Welcome back&#10;</text>');
    expect(xml).toContain('<text>See you soon&#10;</text>');
    expect(xml).not.toContain('T-000124');
    expect(xml).not.toContain('Rue Haute');
    expect(xml.indexOf('Café Demo')).toBeLessThan(xml.indexOf('Welcome back'));
    expect(renderEpos(MODELS['sale-80']!.model)).toContain('Ticket T-000123');
  });

  test('lines fit the paper: 48 columns on 80 mm, 32 on 58 mm', () => {
    const texts = (xml: string) => [...xml.matchAll(/<text>([^<]*)&#10;<\/text>/g)].map((m) => m[1]!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
    expect(Math.max(...texts(renderEpos(MODELS['sale-80']!.model)).map((t) => [...t].length))).toBe(48);
    expect(Math.max(...texts(renderEpos(MODELS['refund-58']!.model, { paperWidthMm: 58 })).map((t) => [...t].length))).toBe(32);
  });

  test('a line break in a name cannot add a printed line (no forged TOTAL line)', () => {
    const sale = (name: string, modifier: string): PrintModel => ({ kind: 'sale', header: { title: 'Demo' }, number: 'T1', date: '24/11/2026 12:34', lines: [{ name, qty: 1, amount: 350, modifiers: [modifier] }], vat: [], total: 350, tenders: [{ label: 'Cash', amount: 350 }] });
    const forged = `TOTAL${' '.repeat(39)}0.00`;
    for (const br of ['\n', '\r\n', '\r', '\u2028', '\u0085']) {
      const xml = renderEpos(sale(`Cola${br}${forged}`, `Ice${br}${forged}`));
      expect(xml).not.toContain('&#10;TOTAL');
      const printed = xml.replace(/<[^>]*>/g, '').split('&#10;');
      expect(printed.filter((l) => l.startsWith('TOTAL'))).toEqual([`TOTAL${' '.repeat(39)}3.50`]);
      // Printed whole, its run of spaces as one: the forged amount cannot line up with the real ones.
      expect(printed.filter((l) => l.startsWith('1 x Cola'))).toEqual([`1 x Cola TOTAL 0.00${' '.repeat(25)}3.50`]);
      expect(printed.filter((l) => l.startsWith('   + Ice'))).toEqual(['   + Ice TOTAL 0.00']);
    }
  });

  test('wide (CJK) names fit the paper in printed columns: 48 on 80 mm, 32 on 58 mm', () => {
    const name = '特製とんこつラーメン大盛り味玉チャーシュー増し';
    const model: PrintModel = { kind: 'sale', header: { title: '札幌ラーメン横丁本店' }, number: 'T1', date: '24/11/2026 12:34', lines: [{ name, qty: 1, amount: 1350, modifiers: [name] }], vat: [], total: 1350, tenders: [{ label: 'Cash', amount: 1350 }] };
    const texts = (xml: string) => [...xml.matchAll(/<text>([^<]*)&#10;<\/text>/g)].map((m) => m[1]!);
    for (const [paper, cols] of [[80, 48], [58, 32]] as const) {
      const lines = texts(renderEpos(model, { paperWidthMm: paper }));
      for (const l of lines) expect(textWidth(l)).toBeLessThanOrEqual(cols);
      // The item line leaves room for its amount, which stays right-aligned at the edge; the rest of the
      // name follows on indented lines, none of it lost.
      const at = lines.findIndex((l) => l.startsWith('1 x '));
      const item = lines[at]!;
      expect(item).toEndWith(' 13.50');
      expect(textWidth(item)).toBeGreaterThanOrEqual(cols - 1);
      const more = lines.slice(at + 1, lines.findIndex((l) => l.startsWith('   + ')));
      expect(item.slice(4, item.indexOf(' ', 4)) + more.map((l) => l.trim()).join('')).toBe(name);
    }
    expect(twoColumns('ラーメン', '9.90', 16)).toBe('ラーメン    9.90');
    // A wide character is never split over the edge: one more space instead.
    expect(twoColumns('ラーメン大盛り', '9.90', 16)).toBe('ラーメン大  9.90');
  });

  test('escaping drops control characters and escapes markup', () => {
    expect(xmlEscape('a<b>&"\'\u0007c\nd')).toBe('a&lt;b&gt;&amp;&quot;&apos;c&#10;d');
  });

  test('formatting', () => {
    expect(formatCents(1234)).toBe('12.34');
    expect(formatCents(-5)).toBe('-0.05');
    expect(twoColumns('Very long name that goes on', '1.00', 16)).toBe('Very long n 1.00');
  });

  test('never over 2 MB: an oversized model is refused', () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => ({ name: `Item number ${i} with a long name`, qty: 1, amount: 100 }));
    expect(() => renderEpos({ ...(MODELS['sale-80']!.model as any), lines })).toThrow(DocumentTooLarge);
  });

  test('PrintRequestInfo Version 2.00 carries the job id and refuses a bad one', () => {
    const doc = printRequestInfo('J42', '<epos-print/>');
    expect(doc).toBe(
      '<?xml version="1.0" encoding="utf-8"?><PrintRequestInfo Version="2.00"><ePOSPrint><Parameter><devid>local_printer</devid><timeout>10000</timeout><printjobid>J42</printjobid></Parameter><PrintData><epos-print/></PrintData></ePOSPrint></PrintRequestInfo>',
    );
    expect(() => printRequestInfo('bad id!', '')).toThrow();
    expect(() => printRequestInfo('x'.repeat(31), '')).toThrow();
  });
});

describe('long names wrap onto further lines, never cut', () => {
  const printed = (model: PrintModel, paper: number) => [...renderEpos(model, { paperWidthMm: paper }).matchAll(/<text>([^<]*)&#10;<\/text>/g)].map((m) => m[1]!);
  const after = (lines: string[], first: string) => lines.slice(lines.indexOf(first) + 1);
  const mod = 'Extra shot of caramel syrup, not too sweet, very hot';

  test('a kitchen ticket names the variant in full, continuation lines indented under the item (58 and 80 mm)', () => {
    const ticket: KitchenTicket = {
      kind: 'kitchen',
      station: 'Grill',
      order_no: '42',
      date: '12:01',
      lines: [
        { qty: 1, name: 'Spaghetti bolognese (Large)' },
        { qty: 1, name: 'Spaghetti bolognese (Small)' },
        { qty: 1, name: 'Latte (Large / Oat milk)', modifiers: [mod] },
        // A word longer than the line is split where the line ends.
        { qty: 2, name: 'Rindfleischsuppentopf' },
      ],
      note: `Allergy: ${'peanuts '.repeat(7)}`,
    };
    expect(after(printed(ticket, 80), '-'.repeat(48))).toEqual([
      '1 x Spaghetti bolognese',
      '    (Large)',
      '1 x Spaghetti bolognese',
      '    (Small)',
      '1 x Latte (Large / Oat',
      '    milk)',
      '   + Extra shot of caramel syrup, not too sweet,',
      '     very hot',
      '2 x Rindfleischsuppentop',
      '    f',
      'Allergy: peanuts peanuts peanuts peanuts peanuts',
      'peanuts peanuts',
    ]);
    expect(after(printed(ticket, 58), '-'.repeat(32))).toEqual([
      '1 x Spaghetti',
      '    bolognese',
      '    (Large)',
      '1 x Spaghetti',
      '    bolognese',
      '    (Small)',
      '1 x Latte (Large',
      '    / Oat milk)',
      '   + Extra shot of caramel',
      '     syrup, not too sweet, very',
      '     hot',
      '2 x Rindfleischs',
      '    uppentopf',
      'Allergy: peanuts peanuts peanuts',
      'peanuts peanuts peanuts peanuts',
    ]);
  });

  test('a receipt wraps the item name inside its column, the amount aligned on the first line (58 and 80 mm)', () => {
    const order: PrintModel = {
      kind: 'order',
      channel: 'Kiosk',
      header: { title: 'Demo' },
      number: '7',
      date: '24/11/2026 12:00',
      lines: [
        { name: 'Spaghetti bolognese with parmesan and basil (Large)', qty: 1, amount: 1450 },
        { name: 'Latte (Large / Oat milk)', qty: 2, amount: 900, modifiers: [mod] },
      ],
      vat: [],
      total: 2350,
      tenders: [{ label: 'Card', amount: 2350 }],
    };
    const row = (left: string, right: string, cols: number) => left + ' '.repeat(cols - left.length - right.length) + right;
    expect(after(printed(order, 80), '-'.repeat(48)).slice(0, 6)).toEqual([
      row('1 x Spaghetti bolognese with parmesan and', '14.50', 48),
      '    basil (Large)',
      row('2 x Latte (Large / Oat milk)', '9.00', 48),
      '   + Extra shot of caramel syrup, not too sweet,',
      '     very hot',
      '-'.repeat(48),
    ]);
    expect(after(printed(order, 58), '-'.repeat(32)).slice(0, 9)).toEqual([
      row('1 x Spaghetti bolognese', '14.50', 32),
      '    with parmesan and',
      '    basil (Large)',
      row('2 x Latte (Large / Oat', '9.00', 32),
      '    milk)',
      '   + Extra shot of caramel',
      '     syrup, not too sweet, very',
      '     hot',
      '-'.repeat(32),
    ]);
  });
});

describe('a kitchen ticket past the printer limit', () => {
  const huge: KitchenTicket = {
    kind: 'kitchen',
    station: 'Kitchen',
    order_no: '42',
    date: '2026-11-29 12:00',
    // 150 lines of 50 modifiers whose names escape to six bytes a character: over 2 MB rendered.
    lines: Array.from({ length: 150 }, () => ({ qty: 1, name: 'Espresso', modifiers: Array.from({ length: 50 }, () => "'".repeat(43)) })),
  };

  test('renderEpos refuses it; renderEposFitting prints its heading and the notice instead (the fire goes on)', () => {
    expect(() => renderEpos(huge)).toThrow(DocumentTooLarge);
    const doc = renderEposFitting(huge);
    expect(Buffer.byteLength(doc)).toBeLessThan(4096);
    expect(doc).toContain('Order 42');
    expect(doc).toContain(KITCHEN_TICKET_TOO_LARGE);
    expect(doc).not.toContain('&apos;&apos;');
    // Other documents are not rewritten: a ticket that fits prints as it is.
    const small: KitchenTicket = { ...huge, lines: huge.lines.slice(0, 2) };
    expect(renderEposFitting(small)).toBe(renderEpos(small));
  });

  test('a scheduled order keeps its due time when its lines do not fit', () => {
    const doc = renderEposFitting({ ...huge, due: '01/12/2026 12:30' });
    expect(doc).toContain('Due 01/12/2026 12:30');
    expect(doc).toContain(KITCHEN_TICKET_TOO_LARGE);
  });
});

describe('a scheduled order\'s kitchen ticket', () => {
  test('prints its due time under the heading, emphasised and whole on 58 mm paper', () => {
    const ticket: KitchenTicket = { kind: 'kitchen', station: 'Kitchen', order_no: '42', date: '30/11/2026 18:02', due: '01/12/2026 12:30', lines: [{ qty: 1, name: 'Lasagne' }] };
    for (const paperWidthMm of [58, 80]) {
      const doc = renderEpos(ticket, { paperWidthMm });
      expect(doc).toContain('<text width="1" height="2" em="true"/><text>Due 01/12/2026 12:30&#10;</text>');
      expect(doc.indexOf('Due 01/12/2026 12:30')).toBeGreaterThan(doc.indexOf('30/11/2026 18:02'));
      expect(doc.indexOf('Due 01/12/2026 12:30')).toBeLessThan(doc.indexOf('Lasagne'));
    }
    expect(renderEpos({ ...ticket, due: undefined })).not.toContain('Due');
  });
});

describe('a customer receipt past the printer limit', () => {
  const huge: CustomerReceipt = {
    kind: 'order',
    header: { title: 'Demo Centre' },
    number: '17',
    date: '2026-11-29 12:00',
    // 40 lines of 50 modifiers whose names escape to six bytes a character (a kiosk order the schemas allow): over 2 MB.
    lines: Array.from({ length: 40 }, () => ({ qty: 2, name: 'Espresso', amount: 560, modifiers: Array.from({ length: 50 }, () => "'".repeat(250)) })),
    charges: [{ label: 'Tip', amount: 100 }],
    vat: [{ rate: 21, net: 18595, vat: 3905, gross: 22500 }],
    total: 22500,
    tenders: [{ label: 'Card', amount: 22500 }],
  };

  test('renderEposFitting prints it with its lines as one (totals kept), so the capture\'s post-capture run goes on', () => {
    expect(() => renderEpos(huge)).toThrow(DocumentTooLarge);
    const doc = renderEposFitting(huge);
    expect(Buffer.byteLength(doc)).toBeLessThan(8192);
    expect(doc).toContain(`80 x ${RECEIPT_LINES_TOO_LARGE}`);
    expect(doc).toContain('224.00');
    expect(doc).toContain('225.00');
    expect(doc).not.toContain('&apos;&apos;');
  });
});
