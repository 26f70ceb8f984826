/**
 * bee-queue queue names. A queue groups jobs that share a worker pool; each job names its queue in
 * its definition (`jobs/*.job.ts`), and the worker runs one processor per queue in use.
 */
export const QUEUES = {
  /** Housekeeping: heartbeats, recovery sweeps. */
  system: 'system',
  /** Outgoing e-mail and SMS. */
  notifications: 'notifications',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Redis key prefix of every queue (`bq:<queue>:...`); tests pass their own to stay apart. */
export const QUEUE_PREFIX = 'bq';
