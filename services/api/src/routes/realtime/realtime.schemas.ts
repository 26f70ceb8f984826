import { t } from 'elysia';
import { isUuid } from '@pos/domain/ids';

/** Browsers cannot set headers on a WebSocket: the token and the device key may come as query parameters. */
export const RealtimeQuery = t.Object({
  token: t.Optional(t.String({ minLength: 1, maxLength: 4096, pattern: '^[A-Za-z0-9._-]+$' })),
  api_key: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
});

/** Server messages: JSON text with a `type` (`ready`, `subscribed`, `unsubscribed`, `error`, `payment.status`, `kitchen.order`). */
export const RealtimeEvent = t.Unknown({ description: 'JSON text events: ready, subscribed, unsubscribed, error, payment.status, kitchen.order' });


/**
 * Largest client frame, in bytes. The longest legitimate message (an `unsubscribe` of a transaction,
 * or a kitchen subscription with a 16-digit cursor) is under 100 bytes; 16 KiB leaves a wide margin
 * and bounds what one frame costs to parse (Elysia runs JSON.parse before the handler). Bun closes a
 * socket sending more with 1009 (message too big) without delivering the frame.
 */
export const REALTIME_MAX_FRAME_BYTES = 16 * 1024;

/** A client message: subscribe to one transaction, or to a whole channel. */
export type RealtimeCommand =
  | { action: 'subscribe' | 'unsubscribe'; channel: 'transaction'; id: string }
  | { action: 'subscribe' | 'unsubscribe'; channel: 'payments' | 'location' }
  /** `cursor`: the last kitchen event number the screen saw; the ones after it are replayed. */
  | { action: 'subscribe' | 'unsubscribe'; channel: 'kitchen'; cursor?: number };

/** Parses a client message strictly (unknown keys, wrong types and long values refused). */
export function parseCommand(raw: unknown): RealtimeCommand | string {
  // A binary frame arrives as bytes: refused before Object.keys would list every byte.
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || ArrayBuffer.isView(raw) || raw instanceof ArrayBuffer) return 'A message must be a JSON object.';
  const m = raw as Record<string, unknown>;
  const allowed = new Set(['action', 'channel', 'id', 'cursor']);
  const extra = Object.keys(m).find((k) => !allowed.has(k));
  if (extra) return `Unknown field ${extra.slice(0, 40)}.`;
  if (m.action !== 'subscribe' && m.action !== 'unsubscribe') return 'The action must be subscribe or unsubscribe.';
  if (m.channel === 'transaction') {
    if (typeof m.id !== 'string' || !isUuid(m.id)) return 'The id must be a transaction id.';
    return { action: m.action, channel: 'transaction', id: m.id.toLowerCase() };
  }
  if (m.channel !== 'kitchen' && m.cursor !== undefined) return 'The cursor field is only for the kitchen channel.';
  if (m.channel === 'payments' || m.channel === 'kitchen' || m.channel === 'location') {
    if (m.id !== undefined) return 'The id field is only for the transaction channel.';
    if (m.channel === 'kitchen' && m.cursor !== undefined) {
      if (typeof m.cursor !== 'number' || !Number.isSafeInteger(m.cursor) || m.cursor < 0) return 'The cursor must be a whole number from 0.';
      return { action: m.action, channel: 'kitchen', cursor: m.cursor };
    }
    return { action: m.action, channel: m.channel };
  }
  return 'The channel must be transaction, payments, kitchen or location.';
}
