import { describe, expect, test } from 'bun:test';
import { toFieldErrorMap } from '../field-error.ts';
import { prng, prngUuidV4 } from '../testing/prng.ts';
import type { OrderLine } from './line-totals.ts';
import {
  isUuidV4,
  ORDER_FIRED_MESSAGE,
  planUpsert,
  requiredPermissions,
  sameLine,
  sameLines,
  STALE_VERSION_MESSAGE,
  validateLines,
  type StoredOrderView,
} from './order-rules.ts';

const U1 = '3b241101-e2bb-4255-8caf-4136c566a962';
const U2 = '6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b';
const U3 = 'c9bf9e57-1685-4c89-bafb-ff5af830be8a';
const line = (uuid: string, extra: Partial<OrderLine> = {}): OrderLine => ({
  uuid,
  item_id: 'item-1',
  qty: 1,
  unit_price: 450,
  price_source: 'catalog',
  modifiers: [],
  ...extra,
});
const stored = (extra: Partial<StoredOrderView> = {}): StoredOrderView => ({
  state: 'OPEN',
  version: 3,
  fired: false,
  lines: [line(U1), line(U2, { qty: 2 })],
  ...extra,
});

describe('planUpsert', () => {
  test('a new order is created at version 1 with expected_version 0, absent or null', () => {
    expect(planUpsert(null, [line(U1)], { expected_version: 0 })).toEqual({ kind: 'create', version: 1 });
    expect(planUpsert(null, [line(U1)])).toEqual({ kind: 'create', version: 1 });
    expect(planUpsert(null, [line(U1)], { expected_version: null })).toEqual({ kind: 'create', version: 1 });
    expect(planUpsert(null, [], {})).toEqual({ kind: 'create', version: 1 });
  });

  test('a new order with a non-zero expected_version is stale at 0', () => {
    expect(planUpsert(null, [line(U1)], { expected_version: 2 })).toEqual({
      kind: 'stale',
      reason: 'stale_version',
      message: STALE_VERSION_MESSAGE,
      current_version: 0,
    });
  });

  test('an update at the stored version bumps the version', () => {
    expect(planUpsert(stored(), [line(U1), line(U3)], { expected_version: 3 })).toEqual({ kind: 'update', version: 4, lines_changed: true });
    expect(planUpsert(stored(), stored().lines, { expected_version: 3 })).toEqual({ kind: 'update', version: 4, lines_changed: false });
  });

  test('a stale expected_version answers the current version', () => {
    for (const expected_version of [2, 4, 0, undefined]) {
      expect(planUpsert(stored(), [line(U1)], { expected_version })).toEqual({
        kind: 'stale',
        reason: 'stale_version',
        message: STALE_VERSION_MESSAGE,
        current_version: 3,
      });
    }
  });

  test('emptying an unfired order voids it; a fired one is a business-rule refusal', () => {
    expect(planUpsert(stored(), [], { expected_version: 3 })).toEqual({ kind: 'void', version: 4 });
    expect(planUpsert(stored({ fired: true }), [], { expected_version: 3 })).toEqual({
      kind: 'refuse',
      reason: 'order_fired',
      message: ORDER_FIRED_MESSAGE,
    });
  });

  test('SETTLED and VOIDED orders are refused before the version check', () => {
    expect(planUpsert(stored({ state: 'SETTLED' }), [line(U1)], { expected_version: 1 })).toEqual({
      kind: 'refuse',
      reason: 'not_open',
      message: 'This order is settled and can no longer be changed.',
      state: 'SETTLED',
    });
    expect(planUpsert(stored({ state: 'VOIDED' }), [], { expected_version: 3 })).toEqual({
      kind: 'refuse',
      reason: 'not_open',
      message: 'This order is voided and can no longer be changed.',
      state: 'VOIDED',
    });
  });
});

describe('sameLine', () => {
  test('ignores absent vs null vs default modifier qty, sees real changes', () => {
    const a = line(U1, { modifiers: [{ name: 'x', price: 10 }], discount: null });
    const b: OrderLine = { ...line(U1), modifiers: [{ name: 'x', price: 10, qty: 1, id: null }] };
    expect(sameLine(a, b)).toBe(true);
    expect(sameLine(a, { ...a, qty: 2 })).toBe(false);
    expect(sameLine(a, { ...a, discount: { type: 'pct', value: 5 } })).toBe(false);
    expect(sameLine(a, { ...a, modifiers: [{ name: 'x', price: 11 }] })).toBe(false);
    expect(sameLines([a], [b])).toBe(true);
    expect(sameLines([a, line(U2)], [line(U2), a])).toBe(false);
  });
});

describe('requiredPermissions', () => {
  test('a line priced away from the catalog needs apply_discount, once per price', () => {
    const catalog = (id: string) => (id === 'item-1' ? 280 : undefined);
    const manual = (price: number) => line(U1, { price_source: 'manual', unit_price: price });
    expect(requiredPermissions(null, [manual(1)], catalog)).toEqual(['take_orders', 'apply_discount']);
    expect(requiredPermissions(null, [manual(280)], catalog)).toEqual(['take_orders']);
    expect(requiredPermissions(null, [line(U1, { price_source: 'catalog', unit_price: 1 })], catalog)).toEqual(['take_orders']);
    const approved = { fired: false, lines: [manual(1)] };
    expect(requiredPermissions(approved, [manual(1)], catalog)).toEqual(['take_orders']);
    expect(requiredPermissions(approved, [manual(2)], catalog)).toEqual(['take_orders', 'apply_discount']);
  });

  test('a modifier priced away from the catalog, or a free modifier with a price, needs apply_discount, once per price', () => {
    const catalog = (id: string) => (id === 'item-1' ? 280 : undefined);
    const mods = (itemId: string, id: string) => (itemId === 'item-1' && id === 'oat' ? 50 : undefined);
    const withMods = (modifiers: { id?: string; name?: string; price: number; qty?: number }[], extra: Partial<OrderLine> = {}) => line(U1, { modifiers, ...extra });
    const need = (stored: { fired: boolean; lines: OrderLine[] } | null, l: OrderLine) => requiredPermissions(stored, [l], catalog, mods);
    expect(need(null, withMods([{ id: 'oat', name: 'Oat', price: 50 }], { price_source: 'manual', unit_price: 280 }))).toEqual(['take_orders']);
    expect(need(null, withMods([{ id: 'oat', name: 'Oat', price: 0 }], { price_source: 'manual', unit_price: 280 }))).toEqual(['take_orders', 'apply_discount']);
    expect(need(null, withMods([{ name: 'No ice', price: 0 }]))).toEqual(['take_orders']);
    expect(need(null, withMods([{ name: 'Extra shot', price: 50 }]))).toEqual(['take_orders', 'apply_discount']);
    // an id the catalog does not know for the item has no catalog price: a free modifier
    expect(need(null, withMods([{ id: 'soy', price: 30 }]))).toEqual(['take_orders', 'apply_discount']);
    const approved = { fired: false, lines: [withMods([{ name: 'Extra shot', price: 50 }])] };
    expect(need(approved, withMods([{ name: 'Extra shot', price: 50 }]))).toEqual(['take_orders']);
    expect(need(approved, withMods([{ name: 'Extra shot', price: 60 }]))).toEqual(['take_orders', 'apply_discount']);
    expect(need(approved, withMods([{ name: 'Extra shot', price: 50 }], { item_id: 'item-2' }))).toEqual(['take_orders', 'apply_discount']);
  });

  test('a modifier listed twice counts twice: an approval for one manual modifier does not cover two of it, by entries or by qty', () => {
    const mods = (itemId: string, id: string) => (itemId === 'item-1' && id === 'oat' ? 50 : undefined);
    const freeOat = { id: 'oat', name: 'Oat', price: 0 };
    const withMods = (modifiers: { id?: string; name?: string; price: number; qty?: number }[]) => line(U1, { modifiers });
    const need = (stored: { fired: boolean; lines: OrderLine[] } | null, l: OrderLine) => requiredPermissions(stored, [l], () => 280, mods);
    const approved = { fired: false, lines: [withMods([freeOat])] };
    expect(need(approved, withMods([freeOat]))).toEqual(['take_orders']);
    expect(need(approved, withMods([freeOat, freeOat]))).toEqual(['take_orders', 'apply_discount']);
    expect(need(approved, withMods([{ ...freeOat, qty: 2 }]))).toEqual(['take_orders', 'apply_discount']);
    expect(need({ fired: false, lines: [withMods([freeOat, freeOat])] }, withMods([{ ...freeOat, qty: 2 }]))).toEqual(['take_orders']);
    expect(need({ fired: false, lines: [withMods([{ name: 'Extra shot', price: 50 }])] }, withMods([{ name: 'Extra shot', price: 50, qty: 2 }]))).toEqual(['take_orders', 'apply_discount']);
  });

  test('a fired line listing a paid modifier twice that keeps it once has lost one: remove_fired_line', () => {
    const oat = { id: 'oat', name: 'Oat', price: 50 };
    const fired = stored({ fired: true, lines: [line(U1, { modifiers: [oat, oat] })] });
    const need = (modifiers: { id?: string; name?: string; price: number; qty?: number }[]) => requiredPermissions(fired, [line(U1, { modifiers })], () => 280, () => 50);
    expect(need([oat])).toEqual(['take_orders', 'remove_fired_line']);
    expect(need([{ ...oat, qty: 2 }])).toEqual(['take_orders']);
    expect(need([oat, oat])).toEqual(['take_orders']);
  });

  test('an approval covers the approved line only: another item or a higher qty needs apply_discount again', () => {
    const catalog = (id: string) => (id === 'item-1' ? 280 : id === 'item-2' ? 1450 : undefined);
    const pct100 = { type: 'pct', value: 100 } as const;
    const discounted = stored({ lines: [line(U1, { discount: pct100 })] });
    expect(requiredPermissions(discounted, [line(U1, { discount: pct100, item_id: 'item-2', unit_price: 1450 })], catalog)).toEqual(['take_orders', 'apply_discount']);
    expect(requiredPermissions(discounted, [line(U1, { discount: pct100, qty: 50 })], catalog)).toEqual(['take_orders', 'apply_discount']);
    // a pct discount with a paid modifier added takes more off each unit
    expect(requiredPermissions(discounted, [line(U1, { discount: pct100, modifiers: [{ name: 'x', price: 150 }] })], catalog)).toEqual(['take_orders', 'apply_discount']);
    const amount = stored({ lines: [line(U1, { qty: 2, discount: { type: 'amount', value: 100 } })] });
    expect(requiredPermissions(amount, [line(U1, { qty: 999, discount: { type: 'amount', value: 100 } })], catalog)).toEqual(['take_orders', 'apply_discount']);
    expect(requiredPermissions(amount, [line(U1, { qty: 1, discount: { type: 'amount', value: 100 } })], catalog)).toEqual(['take_orders']);
    const manual = (qty: number) => line(U1, { price_source: 'open_price', unit_price: 1, qty });
    expect(requiredPermissions(stored({ lines: [manual(1)] }), [manual(999)], catalog)).toEqual(['take_orders', 'apply_discount']);
    expect(requiredPermissions(stored({ lines: [manual(3)] }), [manual(2)], catalog)).toEqual(['take_orders']);
  });

  test('take_orders always', () => {
    expect(requiredPermissions(null, [line(U1)])).toEqual(['take_orders']);
    expect(requiredPermissions(stored(), stored().lines)).toEqual(['take_orders']);
  });

  test('apply_discount for a new or changed discount, not for an unchanged or removed one', () => {
    const pct10 = { type: 'pct', value: 10 } as const;
    expect(requiredPermissions(null, [line(U1, { discount: pct10 })])).toEqual(['take_orders', 'apply_discount']);
    const withDiscount = stored({ lines: [line(U1, { discount: pct10 })] });
    expect(requiredPermissions(withDiscount, [line(U1, { discount: { type: 'pct', value: 10 } }), line(U2)])).toEqual(['take_orders']);
    expect(requiredPermissions(withDiscount, [line(U1, { discount: { type: 'pct', value: 15 } })])).toEqual(['take_orders', 'apply_discount']);
    expect(requiredPermissions(withDiscount, [line(U1, { discount: { type: 'amount', value: 10 } })])).toEqual(['take_orders', 'apply_discount']);
    expect(requiredPermissions(withDiscount, [line(U1)])).toEqual(['take_orders']);
    // the same discount moved to another line uuid is new there
    expect(requiredPermissions(withDiscount, [line(U1, { discount: pct10 }), line(U2, { discount: pct10 })])).toEqual([
      'take_orders',
      'apply_discount',
    ]);
  });

  test('remove_fired_line when a fired line is removed, lowered or replaced; raising or adding is free', () => {
    const fired = stored({ fired: true });
    expect(requiredPermissions(fired, [line(U1)])).toEqual(['take_orders', 'remove_fired_line']);
    expect(requiredPermissions(fired, [line(U1), line(U2, { qty: 1 })])).toEqual(['take_orders', 'remove_fired_line']);
    expect(requiredPermissions(fired, [line(U1, { item_id: 'item-2' }), line(U2, { qty: 2 })])).toEqual(['take_orders', 'remove_fired_line']);
    expect(requiredPermissions(fired, [line(U1), line(U2, { qty: 5 }), line(U3)])).toEqual(['take_orders']);
    // unfired: removing is free
    expect(requiredPermissions(stored(), [line(U1)])).toEqual(['take_orders']);
  });

  test('a fired line losing a paid modifier (or some of its quantity) is lowered: remove_fired_line', () => {
    const shot = { name: 'Extra shot', price: 150 };
    const oat = { id: 'MOD-1', name: 'Oat milk', price: 50, qty: 2 };
    const fired = stored({ fired: true, lines: [line(U1, { modifiers: [shot, oat, { name: 'No ice', price: 0 }] })] });
    const need = (modifiers: { id?: string; name?: string; price: number; qty?: number }[]) => requiredPermissions(fired, [line(U1, { modifiers })], () => 280, () => 50);
    expect(need([oat])).toEqual(['take_orders', 'remove_fired_line']);
    expect(need([shot, { ...oat, qty: 1 }])).toEqual(['take_orders', 'remove_fired_line']);
    // a free modifier removed lowers nothing; the same modifiers (id matched case-insensitively) or more are free
    expect(need([shot, { ...oat, id: 'mod-1' }])).toEqual(['take_orders']);
    expect(need([shot, { ...oat, qty: 3 }])).toEqual(['take_orders']);
  });

  test('both, in catalogue order, and uuids matched case-insensitively', () => {
    const fired = stored({ fired: true });
    expect(requiredPermissions(fired, [line(U1, { discount: { type: 'amount', value: 50 } })])).toEqual([
      'take_orders',
      'apply_discount',
      'remove_fired_line',
    ]);
    expect(requiredPermissions(fired, [line(U1.toUpperCase()), line(U2.toUpperCase(), { qty: 2 })])).toEqual(['take_orders']);
  });
});

describe('isUuidV4', () => {
  test('version 4 and variant 8-b only', () => {
    expect(isUuidV4(U1)).toBe(true);
    expect(isUuidV4(U1.toUpperCase())).toBe(true);
    expect(isUuidV4('3b241101-e2bb-1255-8caf-4136c566a962')).toBe(false); // v1
    expect(isUuidV4('0190a6c5-5f4e-7c3a-8b2d-1e2f3a4b5c6d')).toBe(false); // v7
    expect(isUuidV4('3b241101-e2bb-4255-caf0-4136c566a962')).toBe(false); // variant c
    expect(isUuidV4('3b241101e2bb42558caf4136c566a962')).toBe(false);
    expect(isUuidV4(`${U1} `)).toBe(false);
    expect(isUuidV4(42)).toBe(false);
  });

  test('property: every generated v4 passes, any other version nibble fails', () => {
    const r = prng(99);
    for (let i = 0; i < 1000; i++) {
      const u = prngUuidV4(r);
      expect(isUuidV4(u)).toBe(true);
      const v = r.pick(['0', '1', '2', '3', '5', '6', '7', '8', '9', 'a', 'f']);
      expect(isUuidV4(`${u.slice(0, 14)}${v}${u.slice(15)}`)).toBe(false);
    }
  });
});

describe('validateLines', () => {
  test('valid lines give no errors', () => {
    expect(
      validateLines([
        line(U1, { discount: { type: 'pct', value: 100 }, modifiers: [{ id: 'm', name: 'n', price: 0, qty: 2 }] }),
        line(U2, { discount: { type: 'amount', value: 1 }, unit_price: 0, qty: 999 }),
        { uuid: U3, item_id: 'i', qty: 1, unit_price: 1, price_source: 'catalog' },
      ]),
    ).toEqual([]);
    expect(validateLines([])).toEqual([]);
  });

  test('not an array', () => {
    expect(validateLines({})).toEqual([{ field: 'lines', message: 'The lines field must be an array.' }]);
  });

  test('each rule, with plain-English messages and dot paths', () => {
    const errors = validateLines([
      { ...line('not-a-uuid'), qty: 0 },
      { ...line(U1), qty: 1000, unit_price: -1 },
      { ...line(U1), qty: 1.5, unit_price: 4.5, discount: { type: 'pct', value: 12.5 } },
      { ...line(U2), discount: { type: 'pct', value: 0 }, modifiers: [{ price: -5 }, { price: 1.5, qty: 0 }, 'x'] },
      { ...line(U3), discount: { type: 'amount', value: 0 }, item_id: '', price_source: 7 },
      { ...line('6ec0bd7f-11c0-43da-975e-2a8ad9ebae0c'), discount: { type: 'free', value: 1 }, modifiers: 'none', qty: '1' },
      'nope',
      { ...line('6ec0bd7f-11c0-43da-975e-2a8ad9ebae0d'), discount: 5, qty: undefined },
    ]);
    expect(errors).toEqual([
      { field: 'lines.0.uuid', message: 'The lines.0.uuid field must be a valid UUID v4.' },
      { field: 'lines.0.qty', message: 'The lines.0.qty field must be between 1 and 999.' },
      { field: 'lines.1.qty', message: 'The lines.1.qty field must be between 1 and 999.' },
      { field: 'lines.1.unit_price', message: 'The lines.1.unit_price field must be between 0 and 10000000.' },
      { field: 'lines.2.uuid', message: 'The lines.2.uuid field has a duplicate value.' },
      { field: 'lines.2.qty', message: 'The lines.2.qty field must be an integer.' },
      { field: 'lines.2.unit_price', message: 'The lines.2.unit_price field must be an integer.' },
      { field: 'lines.2.discount.value', message: 'The lines.2.discount.value field must be a whole percent.' },
      { field: 'lines.3.modifiers.0.price', message: 'The lines.3.modifiers.0.price field must be between 0 and 10000000.' },
      { field: 'lines.3.modifiers.1.price', message: 'The lines.3.modifiers.1.price field must be an integer.' },
      { field: 'lines.3.modifiers.1.qty', message: 'The lines.3.modifiers.1.qty field must be between 1 and 999.' },
      { field: 'lines.3.modifiers.2', message: 'The lines.3.modifiers.2 field must be an object.' },
      { field: 'lines.3.discount.value', message: 'The lines.3.discount.value field must be between 1 and 100.' },
      { field: 'lines.4.item_id', message: 'The lines.4.item_id field is required.' },
      { field: 'lines.4.price_source', message: 'The lines.4.price_source field must be a string.' },
      { field: 'lines.4.discount.value', message: 'The lines.4.discount.value field must be between 1 and 1000000.' },
      { field: 'lines.5.qty', message: 'The lines.5.qty field must be an integer.' },
      { field: 'lines.5.modifiers', message: 'The lines.5.modifiers field must be an array.' },
      { field: 'lines.5.discount.type', message: 'The lines.5.discount.type field must be pct or amount.' },
      { field: 'lines.6', message: 'The lines.6 field must be an object.' },
      { field: 'lines.7.qty', message: 'The lines.7.qty field is required.' },
      { field: 'lines.7.discount', message: 'The lines.7.discount field must be an object.' },
    ]);
    expect(toFieldErrorMap(errors.slice(0, 2))).toEqual({
      'lines.0.uuid': ['The lines.0.uuid field must be a valid UUID v4.'],
      'lines.0.qty': ['The lines.0.qty field must be between 1 and 999.'],
    });
  });

  test('duplicate uuids are found case-insensitively', () => {
    expect(validateLines([line(U1), line(U1.toUpperCase())])).toEqual([
      { field: 'lines.1.uuid', message: 'The lines.1.uuid field has a duplicate value.' },
    ]);
  });
});
