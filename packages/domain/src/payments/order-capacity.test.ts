import { describe, expect, test } from 'bun:test';
import { capacitySlotOf, ORDER_CAPACITY_SLOT_MINUTES } from './order-capacity.ts';

describe('capacitySlotOf', () => {
  test('floors an instant to the start of its 15-minute slot', () => {
    expect(ORDER_CAPACITY_SLOT_MINUTES).toBe(15);
    expect(capacitySlotOf(new Date('2026-11-24T12:14:59.999Z')).toISOString()).toBe('2026-11-24T12:00:00.000Z');
    expect(capacitySlotOf(new Date('2026-11-24T12:15:00.000Z')).toISOString()).toBe('2026-11-24T12:15:00.000Z');
    expect(capacitySlotOf(new Date('2026-11-24T23:59:00.000Z')).toISOString()).toBe('2026-11-24T23:45:00.000Z');
  });

  test('other slot lengths that divide a day; others are refused', () => {
    expect(capacitySlotOf(new Date('2026-11-24T12:29:00Z'), 30).toISOString()).toBe('2026-11-24T12:00:00.000Z');
    expect(capacitySlotOf(new Date('2026-11-24T12:31:00Z'), 30).toISOString()).toBe('2026-11-24T12:30:00.000Z');
    expect(() => capacitySlotOf(new Date(), 7)).toThrow(RangeError);
    expect(() => capacitySlotOf(new Date(), 0)).toThrow(RangeError);
  });
});
