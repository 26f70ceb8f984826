import { describe, expect, test } from 'bun:test';
import { kitchenFireDelta } from './fire-delta.ts';

const burger = { uuid: 'a', item_id: 'i1', name: 'Burger', modifiers: [] };
const sent = (qty: number, ref = 'a', name = 'Burger') => ({ line_ref: ref, item_id: 'i1', name, qty, modifiers: [] });

describe('kitchenFireDelta', () => {
  test('a new line goes out whole; a line sent in full sends nothing', () => {
    expect(kitchenFireDelta([{ ...burger, qty: 2 }], [])).toEqual([{ position: 0, uuid: 'a', item_id: 'i1', name: 'Burger', qty: 2, modifiers: [] }]);
    expect(kitchenFireDelta([{ ...burger, qty: 2 }], [sent(2)])).toEqual([]);
  });

  test('a raised quantity sends the extra', () => {
    expect(kitchenFireDelta([{ ...burger, qty: 3 }], [sent(1)])).toEqual([{ position: 0, uuid: 'a', item_id: 'i1', name: 'Burger', qty: 2, modifiers: [] }]);
  });

  test('a lowered quantity sends a VOID line of the difference', () => {
    expect(kitchenFireDelta([{ ...burger, qty: 1 }], [sent(3)])).toEqual([{ position: 0, uuid: 'a', item_id: 'i1', name: 'VOID Burger', qty: -2, modifiers: [] }]);
  });

  test('a fired line taken off the order sends a VOID line of all that was sent, after the order\'s lines', () => {
    const cola = { uuid: 'b', item_id: 'i2', name: 'Cola', qty: 1, modifiers: [] };
    expect(kitchenFireDelta([cola], [sent(2), { line_ref: 'b', item_id: 'i2', name: 'Cola', qty: 1, modifiers: [] }])).toEqual([{ position: 1, uuid: 'a', item_id: 'i1', name: 'VOID Burger', qty: -2, modifiers: [] }]);
    // Already voided in full by an earlier fire: nothing more.
    expect(kitchenFireDelta([cola], [sent(0), { line_ref: 'b', item_id: 'i2', name: 'Cola', qty: 1, modifiers: [] }])).toEqual([]);
  });

  test('a fired line whose item changed voids what was sent and sends the new item', () => {
    const croissant = { uuid: 'a', item_id: 'i9', name: 'Croissant', qty: 1, modifiers: [] };
    expect(kitchenFireDelta([croissant], [sent(1)])).toEqual([
      { position: 0, uuid: 'a', item_id: 'i9', name: 'Croissant', qty: 1, modifiers: [] },
      { position: 1, uuid: 'a', item_id: 'i1', name: 'VOID Burger', qty: -1, modifiers: [] },
    ]);
    // Fired again after that: both dishes are settled, nothing more.
    expect(kitchenFireDelta([croissant], [sent(0), { line_ref: 'a', item_id: 'i9', name: 'Croissant', qty: 1, modifiers: [] }])).toEqual([]);
  });

  test('a fired line whose modifiers changed is another dish; the same modifiers in another key order are not', () => {
    const shot = [{ id: 'm1', name: 'Extra shot', price: 150 }];
    expect(kitchenFireDelta([{ ...burger, qty: 1, modifiers: shot }], [sent(1)])).toEqual([
      { position: 0, uuid: 'a', item_id: 'i1', name: 'Burger', qty: 1, modifiers: shot },
      { position: 1, uuid: 'a', item_id: 'i1', name: 'VOID Burger', qty: -1, modifiers: [] },
    ]);
    const stored = [{ price: 150, name: 'Extra shot', id: 'm1' }];
    expect(kitchenFireDelta([{ ...burger, qty: 1, modifiers: shot }], [{ line_ref: 'a', item_id: 'i1', name: 'Burger', qty: 1, modifiers: stored }])).toEqual([]);
  });
});
