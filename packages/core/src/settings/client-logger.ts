import type Redis from 'ioredis';

/**
 * `POST /client-logger` (spec 1 "Loyalty, setup, utilities"): devices report client errors. Events on
 * the watchlist are counted per device, per event, per fixed time bucket in Redis (INCR, the key
 * expiring with its bucket, so replicas share the count); the request whose increment reaches the
 * threshold exactly is the crossing, so the alert webhook gets one post per device, event and
 * bucket however many replicas serve the device. No webhook configured: nothing is counted.
 */
export interface ClientLoggerConfig {
  readonly webhookUrl: string | null;
  readonly watchlist: ReadonlySet<string>;
  readonly threshold: number;
  readonly bucketSeconds: number;
  readonly timeoutMs?: number;
}

export const DEFAULT_WATCHLIST = ['payment_failed', 'printer_offline', 'app_crash', 'sync_failed'];

export function clientLoggerConfig(env: {
  CLIENT_LOGGER_ALERT_WEBHOOK_URL?: string;
  CLIENT_LOGGER_WATCHLIST?: string;
  CLIENT_LOGGER_ALERT_THRESHOLD?: string;
  CLIENT_LOGGER_BUCKET_SECONDS?: string;
}): ClientLoggerConfig {
  return {
    webhookUrl: env.CLIENT_LOGGER_ALERT_WEBHOOK_URL || null,
    watchlist: new Set(env.CLIENT_LOGGER_WATCHLIST ? env.CLIENT_LOGGER_WATCHLIST.split(',') : DEFAULT_WATCHLIST),
    threshold: Number(env.CLIENT_LOGGER_ALERT_THRESHOLD ?? 5),
    bucketSeconds: Number(env.CLIENT_LOGGER_BUCKET_SECONDS ?? 300),
  };
}

export interface ClientLogEntry {
  device_id: string;
  level: 'debug' | 'info' | 'warning' | 'error' | 'critical';
  event: string;
  message?: string;
  app_version?: string;
}

export interface ClientLogOutcome {
  /** The count of this event for this device in the current bucket; null when not counted. */
  count: number | null;
  alerted: boolean;
}

export async function recordClientLog(
  redis: Redis,
  config: ClientLoggerConfig,
  entry: ClientLogEntry,
  now: Date,
  onAlertFailure: (detail: string) => void,
): Promise<ClientLogOutcome> {
  if (!config.webhookUrl || !config.watchlist.has(entry.event)) return { count: null, alerted: false };
  const bucketMs = config.bucketSeconds * 1000;
  const bucketStart = Math.floor(now.getTime() / bucketMs) * bucketMs;
  const key = `client-logger:${entry.device_id}:${entry.event}:${bucketStart}`;
  const [[, count]] = (await redis.multi().incr(key).pexpire(key, bucketMs + 60_000).exec()) as [[Error | null, number]];
  if (count !== config.threshold) return { count, alerted: false };
  const body = JSON.stringify({
    type: 'client_logger.threshold_crossed',
    device_id: entry.device_id,
    event: entry.event,
    count,
    threshold: config.threshold,
    bucket_start: new Date(bucketStart).toISOString(),
    bucket_seconds: config.bucketSeconds,
    last_message: entry.message ?? null,
    app_version: entry.app_version ?? null,
  });
  try {
    const res = await fetch(config.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(config.timeoutMs ?? 5_000) });
    await res.arrayBuffer();
    if (!res.ok) onAlertFailure(`alert webhook answered ${res.status}`);
  } catch (e) {
    onAlertFailure(e instanceof Error ? e.message : String(e));
  }
  return { count, alerted: true };
}
