import type { TenantDb } from '@pos/db';
import { businessDate, isValidTimeZone, type BusinessDate } from '@pos/domain/business-day/business-day';
import { DEFAULT_SYNC_TIMEZONE } from '@pos/domain/integrations/auto-sync';

/**
 * The one zone that stands for the whole merchant (an export's file name): its first location's
 * (created first) valid zone, else Europe/Brussels, the rule `defaultSyncZone` applies to sync times.
 * Locations in several zones: the first location's.
 */
export async function merchantZone(tdb: TenantDb): Promise<string> {
  const rows = await tdb.selectFrom('locations').select('timezone').orderBy('created_at').orderBy('id').limit(20).execute();
  return rows.find((r) => isValidTimeZone(r.timezone))?.timezone ?? DEFAULT_SYNC_TIMEZONE;
}

/** The date on the merchant's calendar (`merchantZone`): at 00:30 on 1 December in Brussels, 1 December, where UTC still says 30 November. */
export async function merchantDate(tdb: TenantDb, now: Date): Promise<BusinessDate> {
  return businessDate(now, await merchantZone(tdb));
}
