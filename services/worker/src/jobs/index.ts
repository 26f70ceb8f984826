import type { KnownJob } from '@pos/kernel/queues/index';
import type { JobHandler } from './job-handler.ts';
import { handleHeartbeat } from './heartbeat.handler.ts';
import { handleNotificationSend } from './notification-send.handler.ts';

export type { JobContext, JobHandler } from './job-handler.ts';

/** One handler per known job; the mapped type makes a job without a handler a compile error. */
export type JobHandlers = { readonly [D in KnownJob as D['name']]: JobHandler<D> };

export const HANDLERS: JobHandlers = {
  heartbeat: handleHeartbeat,
  'notification.send': handleNotificationSend,
};
