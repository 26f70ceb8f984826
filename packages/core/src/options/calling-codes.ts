import { getName } from 'i18n-iso-countries/index.js';
import { getCountries, getCountryCallingCode } from 'libphonenumber-js';
// Imported for its side effect of registering the English country names.
import './countries.ts';
import { sortByLabel, type OptionItem } from './types.ts';

export interface CallingCodeOption extends OptionItem {
  /** Calling code with `+`, e.g. `+32`. NOT unique: `+1` is shared by US, CA, ... */
  value: string;
  /** `<English country name> (<calling code>)`, e.g. `Belgium (+32)`; unique. */
  label: string;
  /** ISO 3166-1 alpha-2 code (libphonenumber region); unique. */
  country: string;
}

/**
 * libphonenumber-js knows a few dialling regions that are not ISO 3166-1
 * countries and therefore have no name in i18n-iso-countries.
 */
const EXTRA_REGION_NAMES: Readonly<Record<string, string>> = Object.freeze({
  AC: 'Ascension Island',
  TA: 'Tristan da Cunha',
});

let cache: readonly CallingCodeOption[] | undefined;

function build(): readonly CallingCodeOption[] {
  const items: CallingCodeOption[] = [];
  for (const country of getCountries()) {
    const name = getName(country, 'en', { select: 'official' }) ?? EXTRA_REGION_NAMES[country] ?? country;
    const value = `+${getCountryCallingCode(country)}`;
    items.push({ value, label: `${name} (${value})`, country });
  }
  return Object.freeze(sortByLabel(items));
}

/**
 * One entry per dialling region known to libphonenumber-js, sorted by label.
 * `value` repeats across regions sharing a code; use `country` as the key.
 */
export function callingCodeOptions(): CallingCodeOption[] {
  cache ??= build();
  return cache.map((c) => ({ ...c }));
}
