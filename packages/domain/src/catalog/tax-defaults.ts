/**
 * Default VAT rates by country, as data (whole percent; the catalog stores whole-percent rates, so
 * fractional national rates such as France's 5.5 % are not offered as defaults: see docs/decisions.md).
 * Belgium first: it is the home market (21 standard, 12 and 6 reduced, 0).
 */
export interface DefaultTaxRate {
  readonly country: string;
  readonly name: string;
  readonly rate: number;
}

const table: Readonly<Record<string, readonly number[]>> = {
  BE: [21, 12, 6, 0],
  NL: [21, 9, 0],
  LU: [17, 14, 8, 3, 0],
  DE: [19, 7, 0],
  FR: [20, 10, 0],
  ES: [21, 10, 4, 0],
  IT: [22, 10, 5, 4, 0],
  PT: [23, 13, 6, 0],
  AT: [20, 13, 10, 0],
  IE: [23, 9, 0],
};

export const DEFAULT_TAX_RATES: readonly DefaultTaxRate[] = Object.freeze(
  Object.entries(table).flatMap(([country, rates]) => rates.map((rate) => Object.freeze({ country, name: `VAT ${rate}%`, rate }))),
);

/** The default rates of the given countries (unknown countries fall back to Belgium's). */
export function defaultTaxRates(countries: readonly string[]): DefaultTaxRate[] {
  const known = [...new Set(countries.map((c) => c.toUpperCase()))].filter((c) => c in table);
  const list = known.length > 0 ? known : ['BE'];
  return DEFAULT_TAX_RATES.filter((r) => list.includes(r.country));
}
