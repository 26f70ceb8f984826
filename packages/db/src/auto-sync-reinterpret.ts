import { sql, type Kysely } from 'kysely';
import { DEFAULT_SYNC_TIMEZONE, isTimeZone, reinterpretUtcSyncTime } from '@pos/domain/integrations/auto-sync';
import { isTenantSchemaName } from './tenancy.ts';

/**
 * Rule 2's default zone (first write only): the integration's own location zone for a location-scoped
 * register-d provider, else the zone of the merchant's first location that has one, else Europe/Brussels.
 * Lives in @pos/db because the rule 7 migration needs it as much as the write path does.
 */
export async function defaultSyncZone(db: Kysely<any>, target: { tenantDatabase: string; provider: string; locationId: string | null }): Promise<string> {
  if (!isTenantSchemaName(target.tenantDatabase)) return DEFAULT_SYNC_TIMEZONE;
  const locations = sql.id(target.tenantDatabase, 'locations');
  try {
    if (target.provider.startsWith('register-d') && target.locationId) {
      const own = await sql<{ timezone: string | null }>`select timezone from ${locations} where id = ${target.locationId}::uuid`.execute(db);
      const tz = own.rows[0]?.timezone;
      if (tz && isTimeZone(tz)) return tz;
    }
    const first = await sql<{ timezone: string }>`select timezone from ${locations} where timezone is not null and timezone <> '' order by created_at, id limit 20`.execute(db);
    for (const r of first.rows) if (isTimeZone(r.timezone)) return r.timezone;
  } catch (e) {
    // A schema still being created has no locations table yet: the last default applies.
    if ((e as { code?: unknown } | null)?.code !== '42P01') throw e;
  }
  return DEFAULT_SYNC_TIMEZONE;
}

/**
 * Rule 7 (one time): a schedule with a `sync_time` and no zone was written as UTC. Each is read in its
 * resolved zone on the day of `at`, snapped to :00 or :30, stored with that zone and a next run to
 * recompute. Two sources: auto-sync rows without a zone, and connections whose legacy `settings`
 * carry `sync_time` without `sync_timezone` and have no auto-sync row yet. Returns how many changed.
 */
export async function reinterpretLegacySyncTimes(db: Kysely<any>, at: Date): Promise<number> {
  const rows = await sql<{ connection_id: string; merchant_id: string; provider: string; location_id: string | null; tenant_database: string; sync_time: string; from_settings: boolean }>`
    select c.id as connection_id, c.merchant_id, c.provider, c.location_id, m.tenant_database,
           coalesce(a.sync_time, c.settings->>'sync_time') as sync_time, (a.connection_id is null) as from_settings
      from integration_connections c
      join merchants m on m.id = c.merchant_id
      left join integration_auto_syncs a on a.connection_id = c.id
     where (a.connection_id is not null and a.sync_time is not null and a.sync_timezone is null)
        or (a.connection_id is null and c.settings ? 'sync_time' and jsonb_typeof(c.settings->'sync_time') = 'string'
            and coalesce(c.settings->>'sync_timezone', '') = '')`.execute(db);
  let changed = 0;
  for (const r of rows.rows) {
    const zone = await defaultSyncZone(db, { tenantDatabase: r.tenant_database, provider: r.provider, locationId: r.location_id });
    const local = reinterpretUtcSyncTime(r.sync_time, zone, at);
    if (!local) continue;
    if (r.from_settings) {
      await sql`insert into integration_auto_syncs (connection_id, merchant_id, provider, sync_time, sync_timezone, next_run_at, updated_at)
                values (${r.connection_id}::uuid, ${r.merchant_id}::uuid, ${r.provider}, ${local}, ${zone}, null, ${at})
                on conflict (connection_id) do nothing`.execute(db);
    } else {
      await sql`update integration_auto_syncs set sync_time = ${local}, sync_timezone = ${zone}, next_run_at = null, updated_at = ${at}
                where connection_id = ${r.connection_id}::uuid and sync_timezone is null`.execute(db);
    }
    changed++;
  }
  return changed;
}
