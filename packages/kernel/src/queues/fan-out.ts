import { Type, type Static } from '@sinclair/typebox';
import type { JobMessage } from './job-definition.ts';

/**
 * The outbox `job` of a row that carries the messages of several jobs written together (`fanOut`).
 * The relay writes each message to its own job's queue, as if it had its own row: its own bee-queue
 * job or batch item, retries and done marker (the row id and the message's place, `part`). One row
 * instead of one per job is what the post-capture sequence's follow-up jobs cost in the database: a
 * batch's transactions share one row (`queuePostCaptureJobs`).
 */
export const FAN_OUT_JOB = 'outbox.fan-out';

/** The `queue` column of a fan-out row: its messages name their queues through their jobs. */
export const FAN_OUT_QUEUE = 'fan-out';

/** Messages in one fan-out row at most: a post-capture batch of 100 transactions writes up to 5 each. */
export const MAX_FAN_OUT_MESSAGES = 1000;

export const FanOutPayload = Type.Object({
  messages: Type.Array(Type.Object({ job: Type.String({ minLength: 1 }), payload: Type.Record(Type.String(), Type.Unknown()) }), { minItems: 1, maxItems: MAX_FAN_OUT_MESSAGES }),
});
export type FanOutPayload = Static<typeof FanOutPayload>;

/** One outbox row for `messages` (each already checked by `jobMessage`), relayed in this order. */
export function fanOut(messages: readonly JobMessage[]): JobMessage {
  if (messages.length === 0 || messages.length > MAX_FAN_OUT_MESSAGES) throw new Error(`a fan-out row carries 1 to ${MAX_FAN_OUT_MESSAGES} messages, not ${messages.length}`);
  return { queue: FAN_OUT_QUEUE, job: FAN_OUT_JOB, payload: { messages: messages.map((m) => ({ job: m.job, payload: m.payload })) } };
}

/** The jobs' messages an outbox row carries, in relay order: its own, or each of a fan-out row's. */
export function rowMessages(row: { job: string; payload: unknown }): { job: string; payload: unknown; part: number | undefined }[] {
  if (row.job !== FAN_OUT_JOB) return [{ job: row.job, payload: row.payload, part: undefined }];
  return (row.payload as FanOutPayload).messages.map((m, part) => ({ job: m.job, payload: m.payload, part }));
}
