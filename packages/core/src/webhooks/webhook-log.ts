import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { CentralDb } from '@pos/db';
import type { Logger } from '@pos/kernel';

/** Retention of raw card-b webhooks (spec 3 section 8): 7,776,000 seconds (90 days), that type only. */
export const CARD_B_WEBHOOK_RETENTION_SECONDS = 7_776_000;
export const CARD_B_WEBHOOK_TYPE = 'card_b_webhook';

export type WebhookLogStatus = 'received' | 'processed' | 'duplicate' | 'location_not_resolved' | 'ignored' | 'failed';

/**
 * Text PostgreSQL can store: a NUL character (or, in a jsonb document, the `\u0000` escape) is
 * refused by text and jsonb columns, and so is an unpaired surrogate in a jsonb document (half an
 * emoji, a provider's note cut at its length limit); a delivery carrying one would otherwise leave no
 * log row at all. Each becomes U+FFFD in the log; the raw body keeps everything else.
 */
const storableText = <T extends string | null>(s: T): T => (s === null ? s : s.replaceAll('\u0000', '\uFFFD').toWellFormed()) as T;

/** A JSON document PostgreSQL's jsonb accepts (see `storableText`, for keys and values); null when it cannot be serialised (nesting too deep). */
function storableJson(value: unknown): string | null {
  try {
    return JSON.stringify(value ?? null, (_k, v: unknown) => (typeof v === 'string' ? storableText(v) : isPlainObject(v) ? storableKeys(v) : v));
  } catch {
    return null;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object with keys PostgreSQL accepts; the same object when they all are (the usual case). */
function storableKeys(o: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(o);
  if (keys.every((k) => storableText(k) === k)) return o;
  return Object.fromEntries(keys.map((k) => [storableText(k), o[k]]));
}

/** SHA-256 of the raw bytes received: the content hash a card-b event is stored under. */
export const contentHash = (raw: string | Uint8Array) => createHash('sha256').update(raw).digest('hex');

export interface StoredWebhook {
  readonly id: string;
  readonly occurrences: number;
}

/**
 * card-b rule 1: stored before duplicate detection and location resolution, upserted on the content
 * hash with an `occurrences` counter. A failure to store is a warning and never blocks the payment
 * (answers null).
 */
export async function storeCardBWebhook(
  db: CentralDb,
  log: Logger,
  input: { raw: string; payload: unknown; fields: Record<string, unknown>; eventType: string | null; eventId: string | null; now: Date },
): Promise<StoredWebhook | null> {
  try {
    const expires = new Date(input.now.getTime() + CARD_B_WEBHOOK_RETENTION_SECONDS * 1000);
    const row = await sql<{ id: string; occurrences: number }>`
      insert into webhook_logs (id, type, provider, webhook_id, status, event_type, event_id, fields, payload, raw_body, occurrences, expires_at, created_at, updated_at)
      values (${Bun.randomUUIDv7()}, ${CARD_B_WEBHOOK_TYPE}, 'card-b', ${contentHash(input.raw)}, 'received', ${storableText(input.eventType)}, ${storableText(input.eventId)},
              ${storableJson(input.fields) ?? '{}'}::jsonb, ${storableJson(input.payload)}::jsonb, ${storableText(input.raw)}, 1, ${expires}, ${input.now}, ${input.now})
      on conflict (webhook_id) where type = 'card_b_webhook'
      do update set occurrences = webhook_logs.occurrences + 1, updated_at = excluded.updated_at
      returning id, occurrences`.execute(db);
    return row.rows[0] ?? null;
  } catch (e) {
    log.warn('card-b webhook could not be stored', { err: e });
    return null;
  }
}

/** Any other provider's event: one row per delivery (their retries carry their own event ids). */
export async function storeWebhook(
  db: CentralDb,
  log: Logger,
  input: { type: string; provider: string; raw: string; payload: unknown; eventType: string | null; eventId: string | null; merchantId?: string | null; fields?: Record<string, unknown>; now: Date },
): Promise<StoredWebhook | null> {
  try {
    const id = Bun.randomUUIDv7();
    await db
      .insertInto('webhook_logs')
      .values({
        id,
        type: input.type,
        provider: input.provider,
        webhook_id: contentHash(input.raw),
        status: 'received',
        merchant_id: input.merchantId ?? null,
        event_type: storableText(input.eventType),
        event_id: storableText(input.eventId),
        fields: storableJson(input.fields ?? {}) ?? '{}',
        payload: storableJson(input.payload),
        raw_body: storableText(input.raw),
        created_at: input.now,
        updated_at: input.now,
      })
      .execute();
    return { id, occurrences: 1 };
  } catch (e) {
    log.warn('webhook could not be stored', { provider: input.provider, event_id: input.eventId, err: e });
    return null;
  }
}

/** Records what became of a stored event (and its tenant once resolved); never throws. */
export async function markWebhook(db: CentralDb, log: Logger, id: string | undefined, status: WebhookLogStatus, extra: { merchantId?: string | null; error?: string | null } = {}): Promise<void> {
  if (!id) return;
  try {
    await db
      .updateTable('webhook_logs')
      .set({
        status,
        updated_at: new Date(),
        ...(extra.merchantId !== undefined ? { merchant_id: extra.merchantId } : {}),
        // An outcome other than failed clears an earlier failure's error (a replay that succeeded).
        ...(extra.error !== undefined ? { error: extra.error === null ? null : extra.error.slice(0, 1000) } : status !== 'failed' ? { error: null } : {}),
      })
      .where('id', '=', id)
      .execute();
  } catch (e) {
    log.warn('webhook log status could not be written', { webhook_log_id: id, status, err: e });
  }
}

/** Retention (spec 3 rule 2): deletes expired rows (only card-b rows carry an expiry). Returns the count. */
export async function purgeExpiredWebhooks(db: CentralDb, now: Date): Promise<number> {
  const r = await db.deleteFrom('webhook_logs').where('expires_at', 'is not', null).where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
