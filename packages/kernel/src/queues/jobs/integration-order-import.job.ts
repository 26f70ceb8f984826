import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

export const INTEGRATION_ORDER_IMPORT_JOB = 'integration.order-import';

/**
 * One marketplace order event (delivery-a, delivery-b; spec 3 section 6 "Other providers"), written to
 * the outbox by the webhook handler in the transaction that recorded the event: the worker reads the
 * order through the marketplace's client and makes it (or keeps it) one transaction here. Retried with
 * backoff while the marketplace cannot be reached; safe to repeat (keyed by the marketplace order id).
 */
export const integrationOrderImportJob = defineJob({
  name: INTEGRATION_ORDER_IMPORT_JOB,
  queue: QUEUES.payments,
  version: 1,
  payload: Type.Object(
    {
      provider: Type.Union([Type.Literal('delivery-a'), Type.Literal('delivery-b')]),
      connectionId: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', maxLength: 36 }),
      externalOrderId: Type.String({ minLength: 1, maxLength: 200 }),
      /** The marketplace event (its id in `integration_events.event_id`) this import answers. */
      eventId: Type.String({ minLength: 1, maxLength: 200 }),
    },
    { additionalProperties: false },
  ),
  retries: 5,
  backoffMs: 2000,
});
