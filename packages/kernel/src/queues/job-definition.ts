import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { QueueName } from './names.ts';

/**
 * What a job is: its name (the outbox `job` column), the queue it runs on, the version of its
 * payload and the payload's TypeBox schema. One file per job under `jobs/`, registered in `jobs.ts`;
 * the worker holds the matching `<name>.handler.ts`.
 */
export interface JobDefinition<N extends string = string, S extends TSchema = TSchema> {
  readonly name: N;
  readonly queue: QueueName;
  /** Bumped when the payload changes incompatibly; the worker refuses a version it does not know. */
  readonly version: number;
  readonly payload: S;
  /** Retries after a failed run (exponential backoff from `backoffMs`); an invalid payload is never retried. */
  readonly retries: number;
  readonly backoffMs: number;
  /** A run taking longer fails (and is retried like any failure). For a batch, each row adds this much. */
  readonly timeoutMs: number;
  /**
   * Up to this many relayed outbox rows of the job travel in one bee-queue job (`JobEnvelope.items`),
   * run together by the job's batch handler: a queue round trip, a done-marker check and the handler's
   * statements then serve many rows instead of one. Unset: one row per bee-queue job.
   */
  readonly batch?: number;
}

export type JobPayload<D extends JobDefinition> = Static<D['payload']>;

/** Declares a job; `name` keeps its literal type so handler maps can be checked for exhaustiveness. */
export function defineJob<const N extends string, S extends TSchema>(def: {
  name: N;
  queue: QueueName;
  version: number;
  payload: S;
  retries?: number;
  backoffMs?: number;
  timeoutMs?: number;
  batch?: number;
}): JobDefinition<N, S> {
  return { retries: 3, backoffMs: 1000, timeoutMs: 60_000, ...def };
}

/** One outbox row of a batch (`JobEnvelope.items`). */
export const JobItem = Type.Object({
  outbox_id: Type.Integer(),
  enqueued_at: Type.String(),
  /** The message's place in a fan-out row (`fanOut`); absent for a row of one job. */
  part: Type.Optional(Type.Integer({ minimum: 0 })),
  payload: Type.Unknown(),
});
export type JobItem = Static<typeof JobItem>;

/**
 * What travels in a bee-queue job's data: the job name and payload version stamped by the outbox
 * relay from the registry, the payload as written to the outbox, and the outbox row it came from.
 * A batch (a job with `batch`) carries its rows in `items` instead, with a null `payload`.
 */
export const JobEnvelope = Type.Object({
  job: Type.String({ minLength: 1 }),
  version: Type.Integer({ minimum: 1 }),
  payload: Type.Unknown(),
  outbox_id: Type.Optional(Type.Integer()),
  enqueued_at: Type.Optional(Type.String()),
  items: Type.Optional(Type.Array(JobItem, { minItems: 1, maxItems: 1000 })),
});
export type JobEnvelope = Static<typeof JobEnvelope>;

/** The outbox row for a job (same shape as `OutboxMessage` of `@pos/db`'s `enqueueOutbox`). */
export interface JobMessage {
  queue: string;
  job: string;
  payload: Record<string, unknown>;
}

/** Thrown when code tries to enqueue a payload its job's schema refuses: caught by the writer, not the worker. */
export class InvalidJobPayloadError extends Error {
  constructor(readonly job: string, readonly problems: string[]) {
    super(`Invalid payload for job ${job}: ${problems.join('; ')}`);
    this.name = 'InvalidJobPayloadError';
  }
}

/** The first few schema violations as `path: message` (paths only, never values: payloads may carry personal data). */
export function payloadProblems(schema: TSchema, payload: unknown, max = 5): string[] {
  const out: string[] = [];
  for (const e of Value.Errors(schema, payload)) {
    out.push(`${e.path || '/'}: ${e.message}`);
    if (out.length >= max) break;
  }
  return out;
}

/** Schema checks compiled once per schema (`Value.Check` interprets the schema on every call). */
const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();
export function checkPayload<T extends TSchema>(schema: T, value: unknown): value is Static<T> {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = TypeCompiler.Compile(schema)));
  return c.Check(value);
}

/**
 * Builds the outbox message for `def` after checking the payload, for `enqueueOutbox(tx, jobMessage(...))`
 * inside the committing transaction.
 */
export function jobMessage<D extends JobDefinition>(def: D, payload: JobPayload<D>): JobMessage {
  if (!checkPayload(def.payload, payload)) throw new InvalidJobPayloadError(def.name, payloadProblems(def.payload, payload));
  return { queue: def.queue, job: def.name, payload: payload as Record<string, unknown> };
}
