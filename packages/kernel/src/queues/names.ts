/**
 * bee-queue queue names. A queue groups jobs that share a worker pool; each job names its queue in
 * its definition (`jobs/*.job.ts`), and the worker runs one processor per queue in use.
 */
export const QUEUES = {
  /** Housekeeping: heartbeats, recovery sweeps. */
  system: 'system',
  /** Outgoing e-mail and SMS. */
  notifications: 'notifications',
  /** Payments: asynchronous capture, the post-capture sequence and its jobs (register dispatch, stats, stock). */
  payments: 'payments',
  /** Medium-priority payments queue: the deferred finalisation job (spec 3 "Post-capture sequence"). */
  paymentsMedium: 'payments-medium',
  /**
   * High-priority payments queue: the post-capture job that writes the kitchen documents, so it never
   * waits behind the follow-up jobs (register dispatch, stats, stock) of earlier captures (issue 12 item 10).
   */
  paymentsHigh: 'payments-high',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Redis key prefix of every queue (`bq:<queue>:...`); tests pass their own to stay apart. */
export const QUEUE_PREFIX = 'bq';
