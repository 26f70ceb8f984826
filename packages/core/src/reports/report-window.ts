import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { isBusinessDate } from '@pos/domain/business-day/business-day';
import { isUuid } from '@pos/domain/ids';
import type { Access } from '../auth/access.ts';
import { reportableLocations, type ReportLocation } from './reportable-locations.ts';

/** Longest range one report covers, in days (inclusive). */
export const MAX_REPORT_DAYS = 366;

/** The query every back-office report takes. */
export interface ReportQuery {
  /** `YYYY-MM-DD`, first date, inclusive. */
  from: string;
  /** `YYYY-MM-DD`, last date, inclusive. */
  to: string;
  /** Narrows the report to one location of the caller's grant. */
  location_id?: string;
}

/** A checked report query: its dates and the locations it covers, sorted by id. */
export interface ReportScope {
  readonly from: string;
  readonly to: string;
  readonly locations: readonly ReportLocation[];
  readonly locationIds: readonly string[];
}

function dayCount(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

/**
 * Checks a report query (422 on a date that is not a calendar date, a range backwards or longer than
 * `MAX_REPORT_DAYS`) and resolves its locations: the bound merchant's intersected with the caller's
 * grant; `location_id` narrows them (another merchant's, or no location, is 404; one outside the grant 403).
 */
export async function resolveReportScope(tdb: TenantDb, access: Access, input: ReportQuery): Promise<ReportScope> {
  if (!isBusinessDate(input.from)) throw errors.field('from', 'The from field must be a valid date (YYYY-MM-DD).');
  if (!isBusinessDate(input.to)) throw errors.field('to', 'The to field must be a valid date (YYYY-MM-DD).');
  if (input.to < input.from) throw errors.field('to', 'The to field must be a date after or equal to from.');
  if (dayCount(input.from, input.to) > MAX_REPORT_DAYS) throw errors.field('to', `A report covers at most ${MAX_REPORT_DAYS} days.`);
  let locations = await reportableLocations(tdb, access);
  if (input.location_id !== undefined) {
    const wanted = input.location_id.toLowerCase();
    const granted = locations.find((l) => l.id === wanted);
    if (!granted) {
      const exists = isUuid(wanted) && (await tdb.selectFrom('locations').select('id').where('id', '=', wanted).executeTakeFirst());
      if (!exists) throw errors.notFound('location');
      throw errors.insufficientPermissions();
    }
    locations = [granted];
  }
  const sorted = [...locations].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { from: input.from, to: input.to, locations: sorted, locationIds: sorted.map((l) => l.id) };
}

/**
 * The UTC instants that surely contain every local date from `from` to `to` in any time zone
 * (UTC-12 to UTC+14): a range an index can answer, narrowed to local dates by the query itself.
 */
export function utcEnvelope(from: string, to: string): { start: Date; end: Date } {
  return { start: new Date(Date.parse(`${from}T00:00:00Z`) - 15 * 3_600_000), end: new Date(Date.parse(`${to}T00:00:00Z`) + 24 * 3_600_000 + 13 * 3_600_000) };
}
