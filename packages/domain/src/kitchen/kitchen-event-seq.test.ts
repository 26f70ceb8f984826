import { describe, expect, test } from 'bun:test';
import { crossesMultiple, eventCountsByLocation, numberEvents, placesInLocation } from './kitchen-event-seq.ts';

describe('kitchen event numbering', () => {
  test('counts per location in order of first appearance', () => {
    expect([...eventCountsByLocation(['b', 'a', 'b', 'b'])]).toEqual([
      ['b', 3],
      ['a', 1],
    ]);
  });

  test("each event's place among its location's, in the order given", () => {
    expect(placesInLocation(['a', 'b', 'a', 'b', 'a', 'c'])).toEqual([1, 1, 2, 2, 3, 1]);
    expect(placesInLocation([])).toEqual([]);
  });

  test("each location's events take last-n+1 .. last in the order given", () => {
    const last = new Map([
      ['a', 12],
      ['b', 3],
    ]);
    expect(numberEvents(['a', 'b', 'a', 'b', 'a', 'b'], last)).toEqual([10, 1, 11, 2, 12, 3]);
    expect(numberEvents(['a'], new Map([['a', 1]]))).toEqual([1]);
    expect(numberEvents([], last)).toEqual([]);
  });

  test('a location without a counter is an error, not a wrong number', () => {
    expect(() => numberEvents(['c'], new Map())).toThrow('no kitchen event counter for location c');
  });

  test('pruning is due when a multiple of every is among the new numbers', () => {
    expect(crossesMultiple(500, 1, 500)).toBe(true);
    expect(crossesMultiple(499, 1, 500)).toBe(false);
    expect(crossesMultiple(501, 1, 500)).toBe(false);
    expect(crossesMultiple(501, 2, 500)).toBe(true);
    expect(crossesMultiple(1499, 1000, 500)).toBe(true);
    expect(crossesMultiple(520, 20, 500)).toBe(false);
    expect(crossesMultiple(520, 21, 500)).toBe(true);
    expect(crossesMultiple(500, 0, 500)).toBe(false);
  });
});
