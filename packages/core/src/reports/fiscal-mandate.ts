import { businessDate } from '@pos/domain/business-day/business-day';

/**
 * Belgian hospitality: since 1 July 2026 every hospitality business in Belgium that registers sales
 * must sign them with a certified fiscal data module (the GKS 2.0 regime, `gks`), whatever its
 * turnover. This project serves hospitality merchants only, so the mandate follows from the
 * location's country alone.
 */
export const BELGIAN_FDM_MANDATE_FROM = '2026-07-01';

/** Countries (ISO 3166-1 alpha-2) whose hospitality sales must be fiscally signed. */
const MANDATE_COUNTRY = 'BE';

/**
 * The one rule of whether a location must sign its register sales with a fiscal data module:
 * the location is in Belgium and its local calendar date (in its own time zone) is on or after
 * 2026-07-01. Pure: `at` comes from the injected clock. The back office reports it as `mandated`
 * (`GET /back-office/pos/fiscal-locations`). Every register path that needs the mandate must call
 * this function rather than restate the rule. Note: today the register signs at EVERY location and
 * refuses to settle without an active enrolment anywhere (422 `fiscal_not_enrolled`), which is
 * stricter than the mandate; `mandated` says where the law requires it.
 */
export function fiscalMandated(location: { readonly country: string; readonly timezone: string }, at: Date): boolean {
  if (location.country.trim().toUpperCase() !== MANDATE_COUNTRY) return false;
  return businessDate(at, location.timezone) >= BELGIAN_FDM_MANDATE_FROM;
}
