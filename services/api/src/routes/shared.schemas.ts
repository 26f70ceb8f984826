import { t } from 'elysia';
import { Type, type IntegerOptions } from '@sinclair/typebox';
import { MAX_PER_PAGE } from '@pos/core/shared/datatable';

/**
 * Bounded building blocks shared by the route schemas. Every input string has a `maxLength`, every
 * array a `maxItems`, every number both bounds (hardening issue 8), so the limits are enforced by
 * validation and shown in the OpenAPI document. `request-guard/schema-bounds.test.ts` checks it.
 */

/** Ids are UUIDs (36 characters); 64 leaves room without accepting unbounded input. */
export const ID_MAX_LENGTH = 64;

/**
 * A path id: any string up to 64 characters. No `format: 'uuid'`: an id that is not a UUID is a 404
 * (checked by the use case, like any unknown id), never a 422.
 */
export const PathId = (options: { description?: string } = {}) => t.String({ ...options, maxLength: ID_MAX_LENGTH });

/** `admin-vendor-override`: the `vendor_id` query key (a merchant id) of the routes that honour it. */
export const vendorIdField = (description = 'admin-vendor-override: merchant id to act on') => ({
  vendor_id: t.Optional(t.String({ maxLength: ID_MAX_LENGTH, description })),
});

/**
 * An integer of a JSON body (and of a response): a JSON number, never a string. Elysia's `t.Integer`
 * also takes a numeric string and converts it as JavaScript's `Number()` does (`"0x10"` -> 16,
 * `"1e3"` -> 1000), which query and path values need (they are always strings: see `queryInt`) but
 * a JSON body must not: a string where a number goes is a 422 on the field (spec 1 section 7).
 * `routes/json-body-numbers.test.ts` checks that no route's body schema takes a numeric string.
 */
export const Int = (options?: IntegerOptions) => Type.Integer(options);

/** Highest page number a data table accepts. */
export const MAX_PAGE = 100_000;

/**
 * An integer query parameter from 1 to `max` (a power of ten). Query values are strings: the string
 * branch accepts only the decimal digits of an integer in range, so an out-of-range or malformed
 * value (`0`, `1000`, `1e308`, `2.5`) fails the schema check itself and the 422 names the field.
 * (Elysia's `t.Integer`/`t.Numeric` re-check the bounds after decoding and report that failure
 * under the key `property`.)
 */
export function queryInt(field: string, max: number, description: string) {
  const digits = String(max);
  if (!/^10+$/.test(digits)) throw new Error(`queryInt: ${max} is not a power of ten`);
  const error = `The ${field} field must be an integer from 1 to ${max}.`;
  const inRange = t.String({ pattern: `^0*(?:[1-9][0-9]{0,${digits.length - 2}}|${digits})$`, maxLength: 16 });
  return t
    .Transform(t.Union([inRange, Type.Integer({ minimum: 1, maximum: max })], { description, error }))
    .Decode((value) => Number(value))
    .Encode((value) => value);
}

/** Data-table paging of the back-office list routes (see `paging` in @pos/core/shared/datatable). */
export const Paging = {
  page: t.Optional(queryInt('page', MAX_PAGE, 'page number, from 1')),
  per_page: t.Optional(queryInt('per_page', MAX_PER_PAGE, `rows per page, 1-${MAX_PER_PAGE} (default 25)`)),
};

/** A one-use approval from `POST /pos/staff/escalate` (32 characters today). */
export const ApprovalToken = (options: { description?: string } = {}) => t.String({ ...options, maxLength: 128 });

/** A register PIN: 4 to 8 digits. */
export const Pin = (error: string) => t.String({ pattern: '^[0-9]{4,8}$', maxLength: 8, error });

/** A phone number as typed: digits, spaces, parentheses and dashes, an optional leading `+`. */
export const Phone = (options: { error?: string } = {}) => t.String({ maxLength: 32, pattern: '^\\+?[0-9 ()-]{4,32}$', ...options });

/** A calendar date, `YYYY-MM-DD`. */
export const DateString = (field: string) =>
  t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, error: `The ${field} field must be a date (YYYY-MM-DD).` });
