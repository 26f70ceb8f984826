import { hostname } from 'node:os';
import type { heartbeatJob } from '@pos/kernel/queues/index';
import type { JobHandler } from './job-handler.ts';

const INSTANCE = `${hostname()}:${process.pid}`;

/** Upserts the `heartbeats` row of `payload.service`: proof that outbox, relay, queue and processor all work. */
export const handleHeartbeat: JobHandler<typeof heartbeatJob> = async (payload, ctx) => {
  const now = ctx.clock.now();
  const scheduled = new Date(payload.at);
  const info = {
    instance: INSTANCE,
    scheduled_at: payload.at,
    lag_ms: Number.isNaN(scheduled.getTime()) ? null : Math.max(0, now.getTime() - scheduled.getTime()),
    job_id: ctx.jobId,
  };
  await ctx.db
    .insertInto('heartbeats')
    .values({ service: payload.service, beat_at: now, info: JSON.stringify(info) })
    .onConflict((oc) => oc.column('service').doUpdateSet({ beat_at: now, info: JSON.stringify(info) }))
    .execute();
};
