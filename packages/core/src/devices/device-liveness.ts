/**
 * Device liveness (spec 1 section 5 item 4): kds, kiosk and pos devices record `last_seen_at` on their
 * requests (at most every 30 s, `touchDevice`); the back office shows a device offline after a
 * configured silence (`DEVICE_OFFLINE_AFTER_SECONDS`, default 120, at least 60 so the 30 s write
 * throttle never makes a busy device look offline). Printers have their own poll liveness: null.
 */
export const DEFAULT_OFFLINE_AFTER_MS = 120_000;
let offlineAfterMs = DEFAULT_OFFLINE_AFTER_MS;

/** Set once at start from the environment. */
export function configureDeviceLiveness(ms: number): void {
  if (!Number.isFinite(ms) || ms < 60_000) throw new RangeError('DEVICE_OFFLINE_AFTER_SECONDS must be at least 60');
  offlineAfterMs = ms;
}

export function deviceOfflineAfterMs(): number {
  return offlineAfterMs;
}

/** Online: seen within the silence window; never seen is offline; printers are not tracked here (null). */
export function deviceOnline(type: string, lastSeenAt: Date | null, now: Date, afterMs = offlineAfterMs): boolean | null {
  if (type !== 'kds' && type !== 'kiosk' && type !== 'pos') return null;
  return lastSeenAt !== null && now.getTime() - lastSeenAt.getTime() <= afterMs;
}
