import { MAX_ORDER_CENTS } from '../money.ts';

/**
 * What a register's catalog entry must be before it becomes one of our items (register-b and
 * register-c syncs). A register is another system: its names may carry control characters (a NUL
 * cannot be stored in PostgreSQL text at all), its prices and VAT rates may be beyond what an item
 * holds (32-bit cents, a whole VAT percent) and its ids longer than our links keep. Such an entry is
 * skipped (and counted) rather than failing the whole sync on every run.
 */

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Text as our catalog stores it: C0/C1 control characters and NUL removed, trimmed, at most `max` characters. */
export function catalogText(raw: string, max: number): string {
  return raw.replace(CONTROL, '').trim().slice(0, max);
}

/** Whether a price in cents fits an item (`unit_price` is a non-negative 32-bit integer). */
export const itemPriceHoldable = (cents: number): boolean => Number.isSafeInteger(cents) && cents >= 0 && cents <= MAX_ORDER_CENTS;

/** Whether a VAT rate fits an item (`vat_rate` is a whole percent, 0-100). */
export const itemVatRateHoldable = (rate: number): boolean => Number.isInteger(rate) && rate >= 0 && rate <= 100;

/** Whether an external id fits our link tables (1-200 characters, no control characters). */
export const externalIdHoldable = (id: string): boolean => id.length >= 1 && id.length <= 200 && id.replace(CONTROL, '') === id;
