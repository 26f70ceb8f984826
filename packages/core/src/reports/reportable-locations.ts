import type { TenantDb } from '@pos/db';
import type { Access } from '../auth/access.ts';

/** A location a report may cover. */
export interface ReportLocation {
  readonly id: string;
  readonly name: string;
  readonly country: string;
  readonly timezone: string;
}

/**
 * The locations the caller may report on: the bound merchant's locations (after any
 * admin-vendor-override) intersected with the caller's location grant, ordered by name then id.
 * Never ids from the request: a location id a client sends can only narrow this set.
 */
export async function reportableLocations(tdb: TenantDb, access: Access): Promise<ReportLocation[]> {
  const rows = await tdb.selectFrom('locations').select(['id', 'name', 'country', 'timezone']).orderBy('name').orderBy('id').execute();
  return access.allLocations ? rows : rows.filter((l) => access.locationIds.has(l.id));
}

/** True when the caller holds at least one of `permissions` (merchant-wide role permissions). */
export function holdsAny(access: Access, permissions: readonly string[]): boolean {
  return permissions.some((p) => access.permissions.has(p));
}
