import { describe, expect, test } from 'bun:test';
import { itemRows, itemTotals } from './item-sales.ts';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';

describe('itemRows', () => {
  test('sales and refunds added per item across sources; catalog names first; net descending, then name, then id', () => {
    const rows = itemRows(
      [
        { item_id: A, name: 'Espresso', quantity: 2, amount: 560 },
        { item_id: B, name: 'Croissant', quantity: 1, amount: 220 },
        { item_id: A, name: 'Espresso (old)', quantity: 1, amount: 280 },
        { item_id: C, name: 'Bun', quantity: 1, amount: 220 },
      ],
      [{ item_id: B, name: 'Croissant', quantity: 1, amount: 220 }],
      new Map([[A, 'Ristretto']]),
    );
    expect(rows).toEqual([
      { item_id: A, name: 'Ristretto', quantity: 3, gross: 840, refunded_quantity: 0, refunds: 0, net: 840 },
      { item_id: C, name: 'Bun', quantity: 1, gross: 220, refunded_quantity: 0, refunds: 0, net: 220 },
      { item_id: B, name: 'Croissant', quantity: 1, gross: 220, refunded_quantity: 1, refunds: 220, net: 0 },
    ]);
    expect(itemTotals(rows)).toEqual({ quantity: 5, gross: 1280, refunded_quantity: 1, refunds: 220, net: 1060 });
  });

  test('an item only refunded in the window (sold before it) has a negative net', () => {
    expect(itemRows([], [{ item_id: A, name: 'Espresso', quantity: 2, amount: 560 }], new Map())).toEqual([{ item_id: A, name: 'Espresso', quantity: 0, gross: 0, refunded_quantity: 2, refunds: 560, net: -560 }]);
    expect(itemTotals([])).toEqual({ quantity: 0, gross: 0, refunded_quantity: 0, refunds: 0, net: 0 });
  });
});
