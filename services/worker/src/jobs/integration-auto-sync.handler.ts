import type { integrationAutoSyncJob } from '@pos/kernel/queues/index';
import type { JobHandler } from './job-handler.ts';

/**
 * Runs one scheduled auto-sync: records the run on the schedule and asks the connection for a menu
 * sync (`menu_sync_requested_at`, the request the integration's sync picks up). A connection deleted
 * since the claim is skipped.
 */
export const handleIntegrationAutoSync: JobHandler<typeof integrationAutoSyncJob> = async (payload, ctx) => {
  const now = ctx.clock.now();
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable('integration_connections')
      .set({ menu_sync_requested_at: now, updated_at: now })
      .where('id', '=', payload.connectionId)
      .executeTakeFirst();
    await trx.updateTable('integration_auto_syncs').set({ last_run_at: now }).where('connection_id', '=', payload.connectionId).execute();
    return Number(r.numUpdatedRows);
  });
  if (updated === 0) ctx.log.info('auto-sync skipped: connection gone', { connection_id: payload.connectionId });
  else ctx.log.info('auto-sync run', { connection_id: payload.connectionId, provider: payload.provider, scheduled_for: payload.scheduledFor });
};
