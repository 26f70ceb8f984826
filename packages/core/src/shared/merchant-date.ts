import { defaultSyncZone, schemaOf, type TenantDb } from '@pos/db';
import { businessDate, type BusinessDate } from '@pos/domain/business-day/business-day';

/**
 * The one zone that stands for the whole merchant (an export's file name): the rule `defaultSyncZone`
 * applies to sync times (its first location's valid zone, else Europe/Brussels). Locations in several
 * zones: the first location's.
 */
export function merchantZone(tdb: TenantDb): Promise<string> {
  return defaultSyncZone(tdb, { tenantDatabase: schemaOf(tdb), provider: '', locationId: null });
}

/** The date on the merchant's calendar (`merchantZone`): at 00:30 on 1 December in Brussels, 1 December, where UTC still says 30 November. */
export async function merchantDate(tdb: TenantDb, now: Date): Promise<BusinessDate> {
  return businessDate(now, await merchantZone(tdb));
}
