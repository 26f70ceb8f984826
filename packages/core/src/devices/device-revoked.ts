import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';
import { deviceChannel } from './remote-control.ts';

/**
 * Tells the real-time channel that a device's earlier tokens stopped working (logout, delete, admin
 * switch, re-activation): `{type:"device.revoked", device_id}` on `rt:{tenant}:device`. A socket of
 * that device checks its credentials at once instead of at its next periodic check, so a revoked
 * screen stops receiving kitchen orders now, not up to `REALTIME_RECHECK_SECONDS` later; a socket
 * opened with the device's new token passes the check and stays. Sent after the commit; a failed
 * publish is logged and the periodic check still closes the socket.
 */
export async function announceDeviceRevoked(redis: Redis, tenantDatabase: string, deviceId: string, log: Logger): Promise<void> {
  try {
    await redis.publish(deviceChannel(tenantDatabase), JSON.stringify({ type: 'device.revoked', device_id: deviceId }));
  } catch (e) {
    log.warn('device revocation not announced', { device_id: deviceId, err: e });
  }
}
