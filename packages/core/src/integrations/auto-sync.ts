import { defaultSyncZone, enqueueOutbox, type CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { jobMessage, integrationAutoSyncJob } from '@pos/kernel/queues/index';
import { isTimeZone, nextSyncRun, parseSyncTime } from '@pos/domain/integrations/auto-sync';
import { ianaZone } from '@pos/domain/time-zones';

/**
 * The daily auto-sync schedule of an integration connection (spec 1 "Auto-sync schedule payload",
 * rules 1-6), kept in central `integration_auto_syncs`, and the scheduler's claim of due work.
 */
export interface AutoSyncPayload {
  readonly sync_time?: string | null;
  readonly sync_timezone?: string | null;
  readonly enable_auto_sync?: boolean;
}

export interface AutoSyncTarget {
  readonly connectionId: string;
  readonly merchantId: string;
  readonly tenantDatabase: string;
  readonly provider: string;
  readonly locationId: string | null;
}

/** The schedule as status payloads show it: `sync_timezone` is never null (rule 6). */
export interface AutoSyncStatus {
  readonly sync_time: string | null;
  readonly sync_timezone: string;
  readonly enable_auto_sync: boolean;
  readonly next_sync_at: string | null;
  /** The last scheduled provider sync (issue 17): outcome, error text, counts, when it finished; null before the first. */
  readonly last_sync: LastSync | null;
}

export interface LastSync {
  readonly status: string;
  readonly error: string | null;
  readonly counts: Readonly<Record<string, number>> | null;
  readonly finished_at: string | null;
}

function lastSyncOf(row: { last_status: string | null; last_error: string | null; last_counts: Record<string, number> | null; last_finished_at: Date | null } | undefined): LastSync | null {
  if (!row?.last_status) return null;
  return { status: row.last_status, error: row.last_error, counts: row.last_counts, finished_at: row.last_finished_at ? new Date(row.last_finished_at).toISOString() : null };
}

/**
 * Payload rules: `sync_time` `HH:MM` with minutes 00 or 30, required (non-null) on platform-a and
 * nullable elsewhere; `sync_timezone` null or an IANA zone; `enable_auto_sync` only on platform-a.
 * Throws the 422 with every failing field.
 */
export function validateAutoSyncPayload(body: AutoSyncPayload, opts: { platformA: boolean }): void {
  const errs: Record<string, string[]> = {};
  if (opts.platformA && (body.sync_time === undefined || body.sync_time === null)) errs.sync_time = ['The sync time field is required.'];
  else if (typeof body.sync_time === 'string' && !parseSyncTime(body.sync_time))
    errs.sync_time = ['The sync time must be a time in HH:MM format with minutes 00 or 30.'];
  if (typeof body.sync_timezone === 'string' && !isTimeZone(body.sync_timezone)) errs.sync_timezone = ['The sync timezone must be a valid timezone.'];
  if (!opts.platformA && body.enable_auto_sync !== undefined) errs.enable_auto_sync = ['The enable auto sync field is prohibited.'];
  if (Object.keys(errs).length > 0) throw errors.validation(errs);
}

/**
 * Writes the schedule (call `validateAutoSyncPayload` first). An absent `sync_time` key leaves the time
 * as stored; null clears it (auto-sync off). Zone: request, else stored, else the default chain (rules
 * 1-2), and written only together with a non-empty time (rule 3). The next run is reset (rule 4).
 */
export async function writeAutoSync(db: CentralDb, target: AutoSyncTarget, body: AutoSyncPayload, now: Date): Promise<AutoSyncStatus> {
  return db.transaction().execute(async (trx) => {
    // The connection's row first: two first writes of a schedule both found no row to lock, and the
    // second insert failed on the key (a 500). Now they take turns and the second updates.
    await trx.selectFrom('integration_connections').select('id').where('id', '=', target.connectionId).forNoKeyUpdate().execute();
    const stored = await trx.selectFrom('integration_auto_syncs').selectAll().where('connection_id', '=', target.connectionId).forUpdate().executeTakeFirst();
    const syncTime = body.sync_time === undefined ? (stored?.sync_time ?? null) : body.sync_time === null ? null : body.sync_time;
    let zone = stored?.sync_timezone ?? null;
    // The zone as the zone database spells it (`europe/brussels` is stored as `Europe/Brussels`).
    if (syncTime !== null) zone = (body.sync_timezone ? (ianaZone(body.sync_timezone) ?? body.sync_timezone) : null) || zone || (await defaultSyncZone(trx, target));
    // Only platform-a has a switch; elsewhere a time means on.
    const enabled = target.provider === 'platform-a' ? (body.enable_auto_sync ?? (stored ? stored.enabled : true)) : true;
    const values = { sync_time: syncTime, sync_timezone: zone, enabled, next_run_at: null, updated_at: now };
    if (stored) await trx.updateTable('integration_auto_syncs').set(values).where('connection_id', '=', target.connectionId).execute();
    else await trx.insertInto('integration_auto_syncs').values({ connection_id: target.connectionId, merchant_id: target.merchantId, provider: target.provider, ...values }).execute();
    // As the status reads it: no time, no auto-sync (a cleared time answered `enable_auto_sync: true`).
    return { sync_time: syncTime, sync_timezone: zone ?? (await defaultSyncZone(trx, target)), enable_auto_sync: enabled && syncTime !== null, next_sync_at: null, last_sync: lastSyncOf(stored) };
  });
}

/** Rule 6: the schedule of a status payload, with the default zone substituted when none is stored. */
export async function autoSyncStatus(db: CentralDb, target: AutoSyncTarget): Promise<AutoSyncStatus> {
  const row = await db.selectFrom('integration_auto_syncs').selectAll().where('connection_id', '=', target.connectionId).executeTakeFirst();
  return {
    sync_time: row?.sync_time ?? null,
    sync_timezone: row?.sync_timezone ?? (await defaultSyncZone(db, target)),
    enable_auto_sync: row ? row.enabled && row.sync_time !== null : false,
    next_sync_at: row?.next_run_at ? new Date(row.next_run_at).toISOString() : null,
    last_sync: lastSyncOf(row),
  };
}

export interface ClaimSummary {
  /** Rows whose next run was unset and got one computed. */
  readonly scheduled: number;
  /** Sync jobs written to the outbox (due rows). */
  readonly started: number;
}

/**
 * One scheduler pass (rule 5): in one transaction, locks up to `limit` enabled rows with a time whose
 * next run is due or unset, skipping rows another worker holds (FOR UPDATE SKIP LOCKED). A due row gets
 * its `integration.auto-sync` job written to the outbox in the same transaction and its next run moved
 * strictly after now, so two workers never start one run twice; an unset row only gets its next run.
 */
export async function claimDueAutoSyncs(db: CentralDb, now: Date, limit = 100): Promise<ClaimSummary> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('integration_auto_syncs')
      .select(['connection_id', 'merchant_id', 'provider', 'sync_time', 'sync_timezone', 'next_run_at'])
      .where('enabled', '=', true)
      .where('sync_time', 'is not', null)
      .where((eb) => eb.or([eb('next_run_at', 'is', null), eb('next_run_at', '<=', now)]))
      // A disabled connection keeps its schedule for a reconnect but is not synced.
      .where((eb) =>
        eb.exists(eb.selectFrom('integration_connections as c').select('c.id').whereRef('c.id', '=', 'integration_auto_syncs.connection_id').where('c.status', '=', 'active')),
      )
      .orderBy('next_run_at', (o) => o.asc().nullsFirst())
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    let scheduled = 0;
    let started = 0;
    for (const r of rows) {
      const next = nextSyncRun(r.sync_time!, r.sync_timezone ?? '', now);
      if (r.next_run_at !== null) {
        await enqueueOutbox(
          trx,
          jobMessage(integrationAutoSyncJob, { connectionId: r.connection_id, provider: r.provider, scheduledFor: new Date(r.next_run_at).toISOString() }),
        );
        started++;
      } else scheduled++;
      // A row whose zone no longer resolves stays unscheduled rather than looping every pass.
      await trx
        .updateTable('integration_auto_syncs')
        .set({ next_run_at: next, ...(next === null ? { enabled: false } : {}) })
        .where('connection_id', '=', r.connection_id)
        .execute();
    }
    return { scheduled, started };
  });
}

/**
 * The merchant's connection of a merchant-level provider (platform-a, register-c, register-b), newest
 * first, as an auto-sync target; null when the merchant has none.
 */
export async function merchantConnection(db: CentralDb, merchant: { id: string; tenant_database: string }, provider: string): Promise<(AutoSyncTarget & { status: string; connectedAt: Date | null }) | null> {
  const r = await db
    .selectFrom('integration_connections')
    .select(['id', 'location_id', 'status', 'connected_at'])
    .where('merchant_id', '=', merchant.id)
    .where('provider', '=', provider)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!r) return null;
  return { connectionId: r.id, merchantId: merchant.id, tenantDatabase: merchant.tenant_database, provider, locationId: r.location_id, status: r.status, connectedAt: r.connected_at ? new Date(r.connected_at) : null };
}
