import { describe, expect, test } from 'bun:test';
import { DecimalCents, exportTable, safeCell, workbookText } from './table-export.ts';

async function text(body: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(body).text();
}

async function* rows<T>(list: readonly T[]): AsyncGenerator<T> {
  yield* list;
}

describe('table export', () => {
  test('DecimalCents writes cents as units with two decimals, the sign first', () => {
    expect([0, 5, -5, 220, -220, 12345, -100].map((c) => new DecimalCents(c).toString())).toEqual(['0.00', '0.05', '-0.05', '2.20', '-2.20', '123.45', '-1.00']);
  });

  test('a CSV defuses text that a spreadsheet would run, but writes a negative amount as a number', async () => {
    const f = exportTable({ basename: 'x', sheet: 'X', columns: ['name', 'net', 'net_eur'] as const, rows: rows([{ name: '-1+cmd', net: -220, net_eur: new DecimalCents(-220) }]), format: 'csv' });
    expect(await text(f.body)).toBe("name,net,net_eur\n'-1+cmd,-220,-2.20\n");
    expect(safeCell('=SUM(A1)')).toBe("'=SUM(A1)");
  });
});

describe('a workbook holds any name', () => {
  test('characters XML excludes (U+FFFE, U+FFFF, controls) are dropped and an unpaired surrogate is U+FFFD: the file opens (it was unreadable)', async () => {
    expect(workbookText('Eve\uFFFE')).toBe('Eve');
    expect(workbookText('a\u0001b\tc\nd')).toBe('ab\tc\nd');
    expect(workbookText('half \ud83d')).toBe('half \uFFFD');
    expect(workbookText('whole \ud83d\ude00')).toBe('whole \ud83d\ude00');
    const f = exportTable({ basename: 'x', sheet: 'X', columns: ['name'] as const, rows: rows([{ name: 'Latte\uFFFF' }, { name: 'Eve\uFFFE' }, { name: 'half \ud83d' }]), format: 'xlsx' });
    const { default: ExcelJS } = await import('exceljs');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await new Response(f.body).arrayBuffer()) as never);
    const names = wb.worksheets[0]!.getColumn(1).values.slice(2);
    expect(names).toEqual(['Latte', 'Eve', 'half \uFFFD']);
  });
});

describe('a download whose reader goes away', () => {
  /** Rows without end, each a few hundred bytes; counts the rows read and whether the reading was closed. */
  function endless() {
    const seen = { rows: 0, closed: false };
    async function* gen() {
      try {
        for (;;) {
          seen.rows++;
          yield { name: `row ${seen.rows} ${'x'.repeat(300)}` };
          if (seen.rows % 100 === 0) await Bun.sleep(0);
        }
      } finally {
        seen.closed = true;
      }
    }
    return { seen, rows: gen() };
  }

  for (const format of ['csv', 'xlsx'] as const) {
    test(`${format}: the export stops reading rows and settles (before, it waited for a drain that never came)`, async () => {
      const { seen, rows } = endless();
      const f = exportTable({ basename: 'x', sheet: 'X', columns: ['name'] as const, rows, format });
      const reader = f.body.getReader();
      expect((await reader.read()).done).toBe(false);
      await reader.cancel();
      const settled = await Promise.race([f.done.then(() => 'settled'), Bun.sleep(3000).then(() => 'still running')]);
      expect(settled).toBe('settled');
      const after = seen.rows;
      await Bun.sleep(50);
      expect(seen.rows).toBe(after);
      expect(seen.closed).toBe(true);
    });
  }
});
