import { describe, expect, test } from 'bun:test';
import type { FiscalLine } from '@pos/fiscal';
import { fireFiscalLines } from './fire-fiscal-lines.ts';
import type { StoredLine } from './order-resource.ts';

const stored = (uuid: string, item_id: string, qty: number, unit_price: number, extra: Partial<StoredLine> = {}): StoredLine => ({
  uuid,
  item_id,
  qty,
  unit_price,
  price_source: 'catalog',
  name: item_id,
  vat_rate: 21,
  category: 'Drinks',
  line_total: qty * unit_price,
  modifiers: [],
  ...extra,
});
const delta = (uuid: string, item_id: string, qty: number, modifiers: unknown = []) => ({ position: 0, uuid, item_id, name: qty < 0 ? `VOID ${item_id}` : item_id, qty, modifiers });
const earlier = (productId: string, quantity: number, unitPrice: number, label: 'A' | 'C' = 'C'): FiscalLine => ({
  productId,
  productName: productId,
  departmentId: 'bakery',
  departmentName: 'Bakery',
  quantity,
  unitPrice,
  vats: [{ label, price: quantity * unitPrice }],
  lineTotal: quantity * unitPrice,
});

describe('fireFiscalLines', () => {
  test('a line on the order is priced from it (modifiers and per-unit discount included), with the delta quantity', () => {
    const shot = [{ name: 'Extra shot', price: 50 }];
    const line = stored('u1', 'espresso', 3, 280, { modifiers: shot });
    expect(fireFiscalLines([delta('u1', 'espresso', 2, shot), delta('u1', 'espresso', -1, shot)], [line], [])).toEqual([
      { productId: 'espresso', productName: 'espresso', departmentId: 'drinks', departmentName: 'Drinks', quantity: 2, unitPrice: 330, vatRate: 21 },
      { productId: 'espresso', productName: 'espresso', departmentId: 'drinks', departmentName: 'Drinks', quantity: -1, unitPrice: 330, vatRate: 21 },
    ]);
  });

  test('a VOID line whose order line now holds another item is priced as that item was signed, not as the new one', () => {
    const now = stored('u1', 'croissant', 1, 220, { vat_rate: 6, category: 'Bakery' });
    const signed = [earlier('espresso', 1, 280, 'A')];
    expect(fireFiscalLines([delta('u1', 'espresso', -1), delta('u1', 'croissant', 1)], [now], signed)).toEqual([
      { productId: 'espresso', productName: 'espresso', departmentId: 'bakery', departmentName: 'Bakery', quantity: -1, unitPrice: 280, vatRate: 21 },
      { productId: 'croissant', productName: 'croissant', departmentId: 'bakery', departmentName: 'Bakery', quantity: 1, unitPrice: 220, vatRate: 6 },
    ]);
  });

  test('a line taken off the order is priced as the latest earlier event signed that item; never signed: left out', () => {
    const signed = [earlier('croissant', 1, 200), earlier('croissant', 2, 220)];
    expect(fireFiscalLines([delta('gone', 'croissant', -2), delta('never', 'muffin', -1)], [], signed)).toEqual([
      { productId: 'croissant', productName: 'croissant', departmentId: 'bakery', departmentName: 'Bakery', quantity: -2, unitPrice: 220, vatRate: 6 },
    ]);
  });
});
