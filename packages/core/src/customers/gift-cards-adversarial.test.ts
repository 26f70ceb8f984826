import { describe, expect, test } from 'bun:test';
import { MAX_ORDER_TOTAL } from '@pos/domain/orders/order-rules';
import { issueGiftCard } from './gift-cards.ts';

// The balance is refused before any write, so no database is reached (a null one would throw otherwise).
describe('issueGiftCard refuses a balance the card cannot hold', () => {
  test('negative, fractional, above the order-total cap or past the 32-bit column: 422 on balance', async () => {
    for (const balance of [-1, 10.5, MAX_ORDER_TOTAL + 1, 3_000_000_000, Number.MAX_SAFE_INTEGER + 2]) {
      const e = await issueGiftCard(null as never, { balance }, new Date()).then(() => null, (x: unknown) => x as { status?: number; errors?: unknown });
      expect([balance, e?.status, e?.errors]).toEqual([balance, 422, { balance: [`The balance must be a whole number of cents from 0 to ${MAX_ORDER_TOTAL}.`] }]);
    }
  });
});
