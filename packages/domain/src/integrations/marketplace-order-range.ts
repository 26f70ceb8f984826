import { MAX_ORDER_CENTS } from '../money.ts';

/** What the import reads of a marketplace order's amounts (cents) and quantities. */
export interface MarketplaceOrderAmounts {
  readonly items: readonly { readonly quantity: number; readonly unit_price: number }[];
  readonly delivery_fee: number;
  readonly tip: number;
  readonly total: number;
}

/** The refusal an order gets when it cannot be held: sent to the marketplace as the deny reason. */
export const ORDER_OUT_OF_RANGE = 'Order amounts out of range';

/**
 * Whether a marketplace order fits what a transaction can hold: every quantity at least 1, every
 * amount not negative, each quantity, line gross, the subtotal, fee, tip and total within the 32-bit
 * columns (`MAX_ORDER_CENTS`). An order beyond that
 * can never be written, so it is refused once rather than failing the import on every retry.
 */
export function marketplaceOrderInRange(o: MarketplaceOrderAmounts): boolean {
  const fits = (n: number) => Number.isSafeInteger(n) && n >= 0 && n <= MAX_ORDER_CENTS;
  let subtotal = 0;
  for (const i of o.items) {
    const gross = i.quantity * i.unit_price;
    if (!fits(i.quantity) || i.quantity < 1 || !fits(i.unit_price) || !fits(gross)) return false;
    subtotal += gross;
  }
  return fits(subtotal) && fits(o.delivery_fee) && fits(o.tip) && fits(o.total) && fits(subtotal + o.delivery_fee + o.tip);
}
