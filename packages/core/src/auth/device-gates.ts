import type Redis from 'ioredis';
import { errors } from '@pos/kernel';
import type { AuthCache } from './auth-cache.ts';
import { findLiveDevice, recordDeviceSeen, type DeviceRecord } from './auth-records.ts';
import type { TenantContext } from './tenant-context.ts';

export type { DeviceRecord };

/** The device behind a device token; a deleted device's token is invalid. */
export async function loadDevice(tenant: TenantContext, deviceId: string, cache?: AuthCache): Promise<DeviceRecord> {
  const key = `device:${deviceId}`;
  const hit = cache?.get<DeviceRecord>(tenant.merchant.id, key);
  if (hit) return hit;
  const d = await findLiveDevice(tenant.db, deviceId);
  if (!d) throw errors.invalidToken();
  cache?.set(tenant.merchant.id, key, d);
  return d;
}

/** Kiosk and kds tokens without an active subscription: 402. POS devices are never gated. */
export function requireSubscription(device: DeviceRecord, now: Date): void {
  if (device.type === 'pos') return;
  if (!device.subscription_active_until || device.subscription_active_until.getTime() <= now.getTime()) throw errors.paymentRequired();
}

/** Liveness for kds, kiosk and pos: `last_seen_at`, written at most every 30 s per device. */
const SEEN_WINDOW_MS = 30_000;
/** Devices this process marked seen, and when: inside the window it asks Redis nothing. */
const seenHere = new Map<string, number>();

export async function touchDevice(tenant: TenantContext, redis: Redis, device: DeviceRecord, now: Date): Promise<void> {
  const at = seenHere.get(device.id);
  if (at !== undefined && now.getTime() - at < SEEN_WINDOW_MS && now.getTime() >= at) return;
  if (seenHere.size > 100_000) seenHere.clear();
  seenHere.set(device.id, now.getTime());
  const first = await redis.set(`device-seen:${device.id}`, '1', 'EX', 30, 'NX');
  if (first) await recordDeviceSeen(tenant.db, device.id, now);
}
