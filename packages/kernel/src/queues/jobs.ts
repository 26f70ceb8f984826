import type { JobDefinition } from './job-definition.ts';
import type { QueueName } from './names.ts';
import { fiscalRecoverJob } from './jobs/fiscal-recover.job.ts';
import { fiscalWorkEventJob } from './jobs/fiscal-work-event.job.ts';
import { heartbeatJob } from './jobs/heartbeat.job.ts';
import { notificationSendJob } from './jobs/notification-send.job.ts';
import { accountMailJob } from './jobs/account-mail.job.ts';
import { teamInvitationMailJob } from './jobs/team-invitation-mail.job.ts';
import { webhooksPurgeJob } from './jobs/webhooks-purge.job.ts';
import { postCaptureSweepJob } from './jobs/post-capture-sweep.job.ts';
import { integrationAutoSyncJob } from './jobs/integration-auto-sync.job.ts';
import { integrationOrderImportJob } from './jobs/integration-order-import.job.ts';
import { integrationOrderImportSweepJob } from './jobs/integration-order-import-sweep.job.ts';
import { orderDispatchJob, paymentCaptureJob, paymentFinaliseJob, paymentPostCaptureJob, statsDailyJob, stockEdgeSyncJob, stockReleaseReservationJob } from './jobs/payments.job.ts';

export { fiscalRecoverJob, FISCAL_RECOVER_JOB } from './jobs/fiscal-recover.job.ts';
export { fiscalWorkEventJob, FISCAL_WORK_EVENT_JOB } from './jobs/fiscal-work-event.job.ts';
export { heartbeatJob, HEARTBEAT_JOB } from './jobs/heartbeat.job.ts';
export { notificationSendJob, NOTIFICATION_SEND_JOB } from './jobs/notification-send.job.ts';
export { accountMailJob, ACCOUNT_MAIL_JOB } from './jobs/account-mail.job.ts';
export { teamInvitationMailJob, TEAM_INVITATION_MAIL_JOB } from './jobs/team-invitation-mail.job.ts';
export * from './jobs/payments.job.ts';
export { webhooksPurgeJob, WEBHOOKS_PURGE_JOB } from './jobs/webhooks-purge.job.ts';
export { postCaptureSweepJob, POST_CAPTURE_SWEEP_JOB } from './jobs/post-capture-sweep.job.ts';
export { integrationAutoSyncJob, INTEGRATION_AUTO_SYNC_JOB } from './jobs/integration-auto-sync.job.ts';
export { integrationOrderImportJob, INTEGRATION_ORDER_IMPORT_JOB } from './jobs/integration-order-import.job.ts';
export { integrationOrderImportSweepJob, INTEGRATION_ORDER_IMPORT_SWEEP_JOB } from './jobs/integration-order-import-sweep.job.ts';

/** Every job the platform knows. Add a job: a `jobs/<name>.job.ts` here, a `<name>.handler.ts` in the worker. */
export const JOBS = [
  heartbeatJob,
  notificationSendJob,
  accountMailJob,
  teamInvitationMailJob,
  fiscalRecoverJob,
  fiscalWorkEventJob,
  paymentCaptureJob,
  paymentPostCaptureJob,
  orderDispatchJob,
  stockReleaseReservationJob,
  statsDailyJob,
  paymentFinaliseJob,
  stockEdgeSyncJob,
  postCaptureSweepJob,
  webhooksPurgeJob,
  integrationAutoSyncJob,
  integrationOrderImportJob,
  integrationOrderImportSweepJob,
] as const;

export type KnownJob = (typeof JOBS)[number];
export type JobName = KnownJob['name'];

const BY_NAME: ReadonlyMap<string, JobDefinition> = new Map(JOBS.map((j) => [j.name, j as JobDefinition]));

/** The definition of `name`, or undefined for a job this build does not know. */
export function findJob(name: string): JobDefinition | undefined {
  return BY_NAME.get(name);
}

/** The queues at least one known job runs on (one worker processor each). */
export const JOB_QUEUES: readonly QueueName[] = [...new Set(JOBS.map((j) => j.queue))];
