import { FormatRegistry } from '@sinclair/typebox';

/**
 * The TypeBox string formats the API's schemas use that `@elysiajs/openapi` replaces, each checked
 * by a pattern compiled once.
 *
 * Importing `@elysiajs/openapi` runs its bundled `@sinclair/typemap`, which registers every Zod string
 * format in TypeBox's global FormatRegistry as `(v) => z.string().uuid().safeParse(v).success`: a new
 * Zod schema for every value checked, on every request (about 60 µs and tens of KB of garbage per
 * uuid, 10,000 times for one hostile array of ids). The patterns are Zod 4's own, so the formats
 * accept exactly what they accepted through Zod: a uuid with version 1-8 and variant 8-b (or the
 * nil and max uuids, lower case), an e-mail address without leading, trailing or doubled dots in its
 * local part and with a top-level domain of two letters or more.
 */
export const STRING_FORMATS: Readonly<Record<string, RegExp>> = {
  uuid: /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/,
  email: /^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$/,
};

const DATE_TIME = /^(\d{4}|[+-]\d{6})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-](\d{2})(?::?(\d{2}))?)$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * `date-time`: an ISO 8601 / RFC 3339 date and time with its zone (`Z` or an offset), seconds and
 * fraction optional, `T` or a space between, the year in four digits or expanded (`+275760`, as
 * `Date#toISOString` writes years beyond 9999, within the JavaScript date range; never before year 0000), and a date and time that exist: month 01-12, a day the
 * month has (29 February in leap years), hour 00-23, minute and second 00-59, offset up to 23:59.
 * Elysia's own check accepted any string containing such a shape that `new Date` could read, so
 * `2030-02-31T12:00:00Z` (read as 3 March) and `2030-01-01T24:00:00Z` (the next day) passed and were
 * stored shifted; it also took loose forms (`2030/01/01`, `Date#toString` output) no client sends.
 */
export function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offH, offM] = m.slice(1).map((v) => (v === undefined ? 0 : Number(v)));
  // No year before 0000: PostgreSQL stores nothing before 4713 BC, and a time that far back is no input (a 500 on insert).
  if (year! < 0 || month! < 1 || month! > 12 || day! < 1) return false;
  const leap = year! % 4 === 0 && (year! % 100 !== 0 || year! % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month! - 1]!;
  return day! <= days && hour! <= 23 && minute! <= 59 && second! <= 59 && offH! <= 23 && offM! <= 59 && !Number.isNaN(new Date(value).getTime());
}

const checks: Readonly<Record<string, (value: string) => boolean>> = {
  ...Object.fromEntries(Object.entries(STRING_FORMATS).map(([name, pattern]) => [name, (value: string) => pattern.test(value)])),
  'date-time': isDateTime,
};

/** The check this module registers for a format, or undefined (the format is not one of these). */
export const stringFormatCheck = (name: string) => checks[name];

/** Registers the checks, replacing `@elysiajs/openapi`'s (and Elysia's `date-time`); call after that package is imported. Idempotent. */
export function registerStringFormats(): void {
  for (const [name, check] of Object.entries(checks)) FormatRegistry.Set(name, check);
}
