import type { VatCheckClient } from '@pos/providers/vat-check/vat-check-client';

/**
 * `POST /settings/vat/verify` (spec 1 "Transactions and reports"): an EU VAT live check that fails
 * open, always answering one of `valid`, `invalid`, `unavailable`, `skipped`:
 * - `skipped`: no check service configured, or a country outside the EU VAT area;
 * - `invalid`: the number's shape is wrong for any VAT number, or the registry says so;
 * - `unavailable`: the service or the member state's registry did not answer.
 */
export const EU_VAT_COUNTRIES = new Set(['AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'EL', 'ES', 'FI', 'FR', 'HR', 'HU', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK', 'XI']);

export type VatVerifyResult = 'valid' | 'invalid' | 'unavailable' | 'skipped';

export interface VatVerification {
  result: VatVerifyResult;
  country_code: string | null;
  vat_number: string;
  name: string | null;
  address: string | null;
}

/**
 * Splits `BE 0123.456.749` (or `0123456749` with `country_code` BE) into the VIES prefix and the
 * number: separators dropped, upper-case, Greece's ISO code GR written EL as VIES does.
 */
export function normaliseVat(input: string, countryCode?: string): { country: string | null; number: string } {
  const compact = input.replace(/[\s.\-/]/g, '').toUpperCase();
  const prefixed = /^[A-Z]{2}/.test(compact) ? compact.slice(0, 2) : null;
  let country = prefixed ?? (countryCode ? countryCode.toUpperCase() : null);
  if (country === 'GR') country = 'EL';
  const number = prefixed ? compact.slice(2) : compact;
  return { country, number };
}

export async function verifyVat(client: VatCheckClient | null, input: { vat_number: string; country_code?: string }): Promise<VatVerification> {
  const { country, number } = normaliseVat(input.vat_number, input.country_code);
  const base = { country_code: country, vat_number: number, name: null, address: null };
  if (!country || !EU_VAT_COUNTRIES.has(country)) return { ...base, result: 'skipped' };
  if (!/^[0-9A-Z+*]{2,12}$/.test(number)) return { ...base, result: 'invalid' };
  if (!client) return { ...base, result: 'skipped' };
  const answer = await client.check(country, number);
  if (answer.result === 'valid') return { ...base, result: 'valid', name: answer.name, address: answer.address };
  return { ...base, result: answer.result };
}
