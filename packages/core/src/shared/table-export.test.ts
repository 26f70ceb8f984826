import { describe, expect, test } from 'bun:test';
import { DecimalCents, exportTable, safeCell } from './table-export.ts';

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
