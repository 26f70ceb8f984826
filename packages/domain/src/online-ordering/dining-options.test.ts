import { describe, expect, test } from 'bun:test';
import { DELIVERY_NOT_OFFERED, diningOptionRefusal, PICKUP_NOT_OFFERED } from './dining-options.ts';

describe('diningOptionRefusal', () => {
  test('an option the location offers is accepted; one it does not offer is refused with its message', () => {
    expect(diningOptionRefusal('Pickup', { pickup: true, delivery: false })).toBeNull();
    expect(diningOptionRefusal('Delivery', { pickup: true, delivery: false })).toBe(DELIVERY_NOT_OFFERED);
    expect(diningOptionRefusal('Pickup', { pickup: false, delivery: true })).toBe(PICKUP_NOT_OFFERED);
    expect(diningOptionRefusal('Delivery', { pickup: false, delivery: true })).toBeNull();
    expect(diningOptionRefusal('Delivery', { pickup: true, delivery: true })).toBeNull();
  });
});
