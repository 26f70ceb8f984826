import { createHash } from 'node:crypto';

/**
 * A storefront payment request's `Idempotency-Key` (docs/decisions.md "Online and table ordering
 * robustness"): the client mints one per checkout attempt (spec 3's `idemp_{deviceId}_{timestampMs}`
 * form, or a UUID) and sends it again with a retry; the retry answers the order the first request created.
 */
export const REQUEST_KEY_PATTERN = /^[A-Za-z0-9_-]{8,100}$/;
export const REQUEST_KEY_INVALID = 'The Idempotency-Key header must be 8 to 100 letters, digits, dashes or underscores (idemp_{deviceId}_{timestampMs}).';
export const REQUEST_KEY_REUSED = 'This Idempotency-Key was already used with another request.';
export const REQUEST_IN_PROGRESS = 'A request with this Idempotency-Key is still being processed; retry in a moment.';

/** JSON with object keys sorted at every depth: the same request whatever order its client wrote the keys in. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${sortedJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** What makes two requests the same: the location, who asks (a customer, or a guest) and the body. */
export function requestHash(locationId: string, customerId: string | null, body: unknown): string {
  return createHash('sha256').update(sortedJson({ location: locationId, customer: customerId, body })).digest('hex');
}
