import { describe, expect, test } from 'bun:test';
import { orderChargeRows, orderTenderLabel, orderTenderRows } from './order-receipt.ts';
import { renderEpos } from './render.ts';

const texts = (xml: string) => [...xml.matchAll(/<text>([^<]*)&#10;<\/text>/g)].map((m) => m[1]!);

describe('orderChargeRows', () => {
  test('tip and fees, then what is left: the rows and the lines add up to the total', () => {
    expect(orderChargeRows({ linesTotal: 990, tip: 200, fees: 150, total: 1340 })).toEqual([
      { label: 'Tip', amount: 200 },
      { label: 'Fees', amount: 150 },
    ]);
    // A marketplace discount not spread on its lines.
    expect(orderChargeRows({ linesTotal: 2000, tip: 0, fees: 250, total: 2000 })).toEqual([
      { label: 'Fees', amount: 250 },
      { label: 'Discount', amount: -250 },
    ]);
    expect(orderChargeRows({ linesTotal: 1000, tip: 0, fees: 0, total: 1030 })).toEqual([{ label: 'Other charges', amount: 30 }]);
    expect(orderChargeRows({ linesTotal: 990, tip: 0, fees: 0, total: 990 })).toEqual([]);
  });

  test('printed under a subtotal of the lines, above the TOTAL', () => {
    const xml = renderEpos({ kind: 'order', channel: 'Online', header: { title: 'Demo' }, number: '5151', date: '24/11/2026 12:00', lines: [{ name: 'Pasta', qty: 1, amount: 990 }], charges: orderChargeRows({ linesTotal: 990, tip: 200, fees: 150, total: 1340 }), vat: [], total: 1340, tenders: [{ label: 'Card', amount: 1340 }] });
    const t = texts(xml);
    const at = (prefix: string) => t.findIndex((x) => x.startsWith(prefix));
    expect(t[at('Subtotal')]).toBe(`Subtotal${' '.repeat(36)}9.90`);
    expect(t[at('Tip')]).toBe(`Tip${' '.repeat(41)}2.00`);
    expect(t[at('Fees')]).toBe(`Fees${' '.repeat(40)}1.50`);
    expect(t[at('TOTAL')]).toBe(`TOTAL${' '.repeat(38)}13.40`);
    expect(at('1 x Pasta')).toBeLessThan(at('Subtotal'));
    expect(at('Fees')).toBeLessThan(at('TOTAL'));
    // Without charges the receipt stays as it was: no subtotal line.
    expect(renderEpos({ kind: 'order', header: { title: 'Demo' }, number: '1', date: 'd', lines: [{ name: 'Pasta', qty: 1, amount: 990 }], vat: [], total: 990, tenders: [] })).not.toContain('Subtotal');
  });
});

describe('orderTenderLabel', () => {
  test('card providers print Card; a marketplace order was paid to the marketplace', () => {
    expect(['card-a', 'card-b', 'platform-a'].map(orderTenderLabel)).toEqual(['Card', 'Card', 'Card']);
    expect(orderTenderLabel('delivery-a')).toBe('Paid via delivery-a');
    expect(orderTenderLabel('delivery-b')).toBe('Paid via delivery-b');
  });
});

describe('orderTenderRows', () => {
  test('a free order prints no tender line, whatever provider is stamped on it; a paid one its tender', () => {
    expect(orderTenderRows({ payment_provider: 'card-b', total: 0, is_free: true })).toEqual([]);
    expect(orderTenderRows({ payment_provider: 'card-b', total: 990, is_free: false })).toEqual([{ label: 'Card', amount: 990 }]);
    expect(orderTenderRows({ payment_provider: 'delivery-a', total: 990, is_free: false })).toEqual([{ label: 'Paid via delivery-a', amount: 990 }]);
  });
});
