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

const checks: Readonly<Record<string, (value: string) => boolean>> = Object.fromEntries(
  Object.entries(STRING_FORMATS).map(([name, pattern]) => [name, (value: string) => pattern.test(value)]),
);

/** The check this module registers for a format, or undefined (the format is not one of these). */
export const stringFormatCheck = (name: string) => checks[name];

/** Registers the checks, replacing `@elysiajs/openapi`'s; call after that package is imported. Idempotent. */
export function registerStringFormats(): void {
  for (const [name, check] of Object.entries(checks)) FormatRegistry.Set(name, check);
}
