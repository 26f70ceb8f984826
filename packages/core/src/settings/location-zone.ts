import { sql } from 'kysely';
import type { TenantDb, TenantTx } from '@pos/db';
import { ianaZone } from '@pos/domain/time-zones';

/**
 * A location's zone is used on both sides: by date-fns-tz (the runtime's ICU) and by PostgreSQL
 * (`AT TIME ZONE` in reports, register settle and statements). The two zone databases differ (ICU
 * still knows `US/Pacific-New`, PostgreSQL no longer does), so a zone only one of them knows would
 * pass validation and then fail every SQL conversion. Answers the zone as ICU spells it when both know
 * it, or null.
 */
export async function usableZone(db: TenantDb | TenantTx, tz: string): Promise<string | null> {
  const zone = ianaZone(tz);
  if (!zone) return null;
  return (await databaseZones(db)).has(zone.toLowerCase()) ? zone : null;
}

/** PostgreSQL's zone names (lower-case: it matches them without case), read once per process. */
let cached: Promise<Set<string>> | undefined;
function databaseZones(db: TenantDb | TenantTx): Promise<Set<string>> {
  // Raw SQL: `pg_timezone_names` is in pg_catalog, never in the tenant schema the builder would add.
  cached ??= sql<{ name: string }>`select name from pg_timezone_names`
    .execute(db)
    .then((r) => new Set(r.rows.map((x) => x.name.toLowerCase())))
    .catch((e: unknown) => {
      cached = undefined; // a failed read is not remembered
      throw e;
    });
  return cached;
}
