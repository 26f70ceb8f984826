import { describe, expect, test } from 'bun:test';
import { fulfillmentBucket, sortedCounts } from './fulfillment-bucket.ts';
import { pointsEarned } from '../customers/loyalty-points.ts';

describe('fulfillment buckets (spec 2, first match wins)', () => {
  const ch = (channel: string, dining_option: string | null) => fulfillmentBucket({ kind: 'channel', channel, dining_option });
  test('delivery wins over every channel', () => {
    expect(ch('Kiosk', 'Delivery')).toBe('delivery');
    expect(ch('Table Qr Ordering', 'Delivery')).toBe('delivery');
    expect(ch('Online Ordering', 'Delivery')).toBe('delivery');
  });
  test('kiosk and table QR are self-serve whatever else they say (but delivery)', () => {
    for (const d of ['For Here', 'Dine In', 'Pickup', 'Takeout', 'Takeaway', null]) {
      expect(ch('Kiosk', d)).toBe('self_serve');
      expect(ch('Table Qr Ordering', d)).toBe('self_serve');
    }
  });
  test('dine-in: For Here and the legacy Dine In; pickup: Pickup, Takeout, Takeaway', () => {
    expect(ch('Online Ordering', 'For Here')).toBe('dine_in');
    expect(ch('Online Ordering', 'Dine In')).toBe('dine_in');
    expect(ch('Online Ordering', 'Pickup')).toBe('pickup');
    expect(ch('Online Ordering', 'Takeout')).toBe('pickup');
    expect(ch('Online Ordering', 'Takeaway')).toBe('pickup');
    expect(ch('Online Ordering', null)).toBe('pickup');
  });
  test('register orders: dine_in and take_away only, never self-serve or delivery', () => {
    expect(fulfillmentBucket({ kind: 'register', behavior: 'dine_in' })).toBe('dine_in');
    expect(fulfillmentBucket({ kind: 'register', behavior: 'take_away' })).toBe('pickup');
    expect(fulfillmentBucket({ kind: 'register', behavior: null })).toBe('dine_in');
  });
  test('counts: keys sorted, zeros omitted, {} when empty', () => {
    expect(JSON.stringify(sortedCounts({ self_serve: 2, all: 3, delivery: 0, dine_in: 1 }))).toBe('{"all":3,"dine_in":1,"self_serve":2}');
    expect(sortedCounts(new Map())).toEqual({});
  });
});

describe('loyalty points', () => {
  test('per whole euro of goods, tip excluded, rounded down', () => {
    expect(pointsEarned(1250, 0, 1)).toBe(12);
    expect(pointsEarned(1250, 300, 2)).toBe(18);
    expect(pointsEarned(99, 0, 10)).toBe(0);
    expect(pointsEarned(0, 0, 1)).toBe(0);
    expect(() => pointsEarned(100, 0, -1)).toThrow();
  });
});
