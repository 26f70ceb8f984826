import type { integrationAutoSyncJob } from '@pos/kernel/queues/index';
import { runProviderSync, syncConnection, syncRunners, type SyncClients, type SyncOutcome } from '@pos/core/integrations/sync-runners';
import type { JobHandler } from './job-handler.ts';
import { EXTERNAL_ID_MAX } from '@pos/db';

/**
 * Runs one scheduled auto-sync (spec 1 rule 5; issue 17): the provider's sync through its client
 * (`sync-runners.ts`), its outcome recorded on the schedule (`last_status`, `last_error`,
 * `last_counts`, `last_finished_at`, the status routes' `last_sync`) and in the connection's log
 * (`integration_events`, kind `sync`). A failure worth retrying (provider unreachable, 5xx) throws
 * after recording, so bee-queue retries the job with backoff; a refusal is final. A job for an instant
 * already synced (`last_scheduled_for`, outcome final) is not run again; a connection deleted or
 * disabled since the claim is skipped.
 */
export function createIntegrationAutoSyncHandler(clients: SyncClients): JobHandler<typeof integrationAutoSyncJob> {
  const runners = syncRunners(clients);
  return async (payload, ctx) => {
    const db = ctx.db;
    const scheduledFor = new Date(payload.scheduledFor);
    const schedule = await db
      .selectFrom('integration_auto_syncs')
      .select(['last_status', 'last_scheduled_for', 'attempts', 'last_run_at', 'last_finished_at'])
      .where('connection_id', '=', payload.connectionId)
      .executeTakeFirst();
    const connection = await syncConnection(db, payload.connectionId);
    if (!schedule || !connection || connection.status !== 'active') {
      ctx.log.info('auto-sync skipped: connection gone or not active', { connection_id: payload.connectionId });
      return;
    }
    const sameInstant = schedule.last_scheduled_for !== null && new Date(schedule.last_scheduled_for).getTime() === scheduledFor.getTime();
    // The outcome is this instant's only when it finished after this instant's last start: a run cut
    // short after recording its start (a killed worker, the database gone) left the previous instant's
    // outcome in place, and its redelivery must run.
    const finishedThisInstant = schedule.last_finished_at !== null && schedule.last_run_at !== null && new Date(schedule.last_finished_at).getTime() >= new Date(schedule.last_run_at).getTime();
    if (sameInstant && finishedThisInstant && (schedule.last_status === 'ok' || schedule.last_status === 'not_configured')) {
      ctx.log.info('auto-sync already ran for this instant', { connection_id: payload.connectionId, scheduled_for: payload.scheduledFor });
      return;
    }
    const started = ctx.clock.now();
    const attempts = sameInstant ? schedule.attempts + 1 : 1;
    await db.updateTable('integration_auto_syncs').set({ last_run_at: started, last_scheduled_for: scheduledFor, attempts }).where('connection_id', '=', payload.connectionId).execute();

    const outcome: SyncOutcome = await runProviderSync({ central: db, connection, now: () => ctx.clock.now() }, runners);
    const finished = ctx.clock.now();
    const detail = outcome.status === 'ok' ? null : outcome.detail;
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('integration_auto_syncs')
        .set({ last_status: outcome.status, last_error: detail, last_counts: outcome.status === 'ok' ? JSON.stringify(outcome.counts) : null, last_finished_at: finished })
        .where('connection_id', '=', payload.connectionId)
        .execute();
      await trx
        .insertInto('integration_events')
        .values({
          id: Bun.randomUUIDv7(),
          connection_id: connection.id,
          merchant_id: connection.merchantId,
          location_id: connection.locationId,
          provider: connection.provider,
          kind: 'sync',
          event_type: 'auto_sync',
          event_id: `auto-sync:${payload.scheduledFor}:${attempts}`,
          external_id: (outcome.status === 'ok' ? Object.entries(outcome.counts).map(([k, v]) => `${k}=${v}`).join(' ') : detail)?.slice(0, EXTERNAL_ID_MAX) ?? null,
          status: outcome.status === 'ok' ? 'done' : outcome.status === 'not_configured' ? 'not_configured' : 'failed',
          created_at: finished,
        })
        .onConflict((oc) => oc.columns(['provider', 'event_id', 'connection_id']).doNothing())
        .execute();
    });
    ctx.log.info('auto-sync run', { connection_id: payload.connectionId, provider: payload.provider, scheduled_for: payload.scheduledFor, status: outcome.status, attempt: attempts });
    if (outcome.status === 'error' && outcome.retry) throw new Error(`auto-sync of ${payload.provider} ${payload.connectionId} failed and will be retried: ${outcome.detail}`);
  };
}
