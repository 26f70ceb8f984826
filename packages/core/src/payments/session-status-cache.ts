import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { ProviderOutcome } from '@pos/domain';
import type { Logger } from '@pos/kernel';
import type { TransactionRow } from './transaction-records.ts';

/**
 * How long one provider answer serves the kiosk's `session-status` polls of a payment. The kiosk polls
 * about every second (more when a screen retries); each poll asked the provider, so one customer at a
 * terminal made a provider call a second or more. Within this window the next polls answer the same.
 */
export const SESSION_STATUS_CACHE_MS = 2_000;

/**
 * The cache key names what the provider is asked about: the transaction's id, status, current key and
 * snapshot. A retry (a new key, a new session), a capture, a cancel or anything written to the snapshot
 * is another key, so an answer about an earlier attempt or state is never served for a later one.
 */
function keyOf(tenantDatabase: string, t: TransactionRow): string {
  const asked = createHash('sha256').update(JSON.stringify([t.status, t.idempotency_key, t.payment_snapshot])).digest('hex').slice(0, 32);
  return `kiosk_session_status_${tenantDatabase}_${t.id}_${asked}`;
}

/**
 * The provider's outcome for the transaction as it stands, asked at most once per
 * `SESSION_STATUS_CACHE_MS`. A provider failure is not kept (the next poll asks again). Redis away: the
 * provider is asked (a poll writes nothing, capture stays with the details route and the webhooks).
 */
export async function cachedSessionOutcome(redis: Redis, log: Logger, tenantDatabase: string, t: TransactionRow, ask: () => Promise<ProviderOutcome>): Promise<ProviderOutcome> {
  const key = keyOf(tenantDatabase, t);
  const kept = await redis.get(key).catch((e: unknown) => {
    log.warn('session status cache not read', { transaction_id: t.id, err: e });
    return null;
  });
  if (kept !== null) return kept as ProviderOutcome;
  const outcome = await ask();
  await redis.set(key, outcome, 'PX', SESSION_STATUS_CACHE_MS).catch((e: unknown) => log.warn('session status cache not written', { transaction_id: t.id, err: e }));
  return outcome;
}
