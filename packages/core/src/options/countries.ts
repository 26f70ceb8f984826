// The library without its node entry, which loads and registers all of its ~80 locales (about 8 MB
// of the API's resident memory); only English is offered, so only English is registered.
import { getNames, registerLocale } from 'i18n-iso-countries/index.js';
import en from 'i18n-iso-countries/langs/en.json';
import { getCountryCallingCode, isSupportedCountry } from 'libphonenumber-js';
import { sortByLabel, type OptionItem } from './types.ts';

registerLocale(en);

export interface CountryOption extends OptionItem {
  /** ISO 3166-1 alpha-2 code, e.g. `BE`. */
  value: string;
  /** English short name, e.g. `Belgium`. */
  label: string;
  /** International calling code with `+`, e.g. `+32`; omitted if unknown (e.g. `AQ`). */
  calling_code?: string;
}

export type CountryOptionsLang = 'en';

export interface CountryOptionsParams {
  /** Restrict to countries where a merchant can be onboarded for card payments. */
  forPaymentProfile?: boolean;
  /** Label language; only English is supported for now. */
  lang?: CountryOptionsLang;
}

/**
 * Countries in which a card-payment provider (acquirer / payment facilitator)
 * can onboard merchants for a payment profile.
 *
 * Why this list: the major card-payment platforms we can integrate with
 * (Stripe, Adyen, Mollie-class PSPs) only accept merchants that are legally
 * established in a jurisdiction they are licensed in. The common denominator is:
 *  - the European Economic Area (EU 27 + Iceland, Liechtenstein, Norway), which is
 *    covered by a single PSD2 licence passported across the area;
 *  - the United Kingdom and Switzerland (separately licensed, but universally supported);
 *  - United States, Canada, Australia, New Zealand, Singapore, Hong Kong and Japan.
 * Merchants elsewhere cannot complete KYC/onboarding, so offering those countries
 * in the payment-profile form would only lead to rejected applications.
 * Overseas territories with their own ISO code (e.g. GF, RE, GI) are deliberately
 * left out; add them here if/when the provider confirms support.
 */
export const PAYMENT_PROFILE_COUNTRIES: readonly string[] = Object.freeze([
  // EU member states (27)
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE',
  'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE',
  // Rest of the EEA (3)
  'IS', 'LI', 'NO',
  // Europe outside the EEA
  'GB', 'CH',
  // Other supported markets
  'US', 'CA', 'AU', 'NZ', 'SG', 'HK', 'JP',
]);

const PAYMENT_PROFILE_SET: ReadonlySet<string> = new Set(PAYMENT_PROFILE_COUNTRIES);

/** Calling code for an ISO alpha-2 code, or undefined if libphonenumber-js does not know it. */
export function callingCodeFor(alpha2: string): string | undefined {
  if (!isSupportedCountry(alpha2)) return undefined;
  return `+${getCountryCallingCode(alpha2)}`;
}

function buildCountryOptions(): readonly CountryOption[] {
  // `select: 'official'` returns the first (canonical) English name per code.
  const names = getNames('en', { select: 'official' });
  const items: CountryOption[] = [];
  for (const [code, name] of Object.entries(names)) {
    const item: CountryOption = { value: code, label: name };
    const calling = callingCodeFor(code);
    if (calling !== undefined) item.calling_code = calling;
    items.push(item);
  }
  return Object.freeze(sortByLabel(items));
}

let cache: readonly CountryOption[] | undefined;

/**
 * All ISO 3166-1 countries (≈250, incl. Kosovo `XK`), sorted by English label.
 * With `forPaymentProfile`, only {@link PAYMENT_PROFILE_COUNTRIES}.
 * Returns fresh objects on every call, so callers may mutate the result.
 */
export function countryOptions(params: CountryOptionsParams = {}): CountryOption[] {
  cache ??= buildCountryOptions();
  const list = params.forPaymentProfile
    ? cache.filter((c) => PAYMENT_PROFILE_SET.has(c.value))
    : cache;
  return list.map((c) => ({ ...c }));
}

let codes: ReadonlySet<string> | undefined;

/** True for a code of {@link countryOptions} (`GET /country-options`), in either case: `be`, `BE`. */
export function isCountryCode(code: string): boolean {
  codes ??= new Set((cache ??= buildCountryOptions()).map((c) => c.value));
  return codes.has(code.toUpperCase());
}
