import type Redis from 'ioredis';
import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { deviceOnline } from './device-liveness.ts';
import { findDevice, requireLocationAccess, type BackofficeScope } from './device-records.ts';

/**
 * The closed set of remote commands (docs/decisions.md "Device routes"): `reload` the app's screen,
 * `restart` the app, `sync` its data again (settings, menu, profile), `identify` (the screen flashes
 * its name so staff can find it). None of them changes data or logs the device out.
 */
export const REMOTE_COMMANDS = ['reload', 'restart', 'sync', 'identify'] as const;
export type RemoteCommand = (typeof REMOTE_COMMANDS)[number];

/** The real-time channel of device commands: every API process routes each to the one device it names. */
export const deviceChannel = (tenantDatabase: string) => `rt:${tenantDatabase}:device`;

export const NOT_AN_APP = 'Remote commands reach register, kiosk and kitchen display apps only.';
export const NOT_SENT = 'The command could not be sent, try again.';

export interface RemoteCommandView {
  id: string;
  device_id: string;
  command: RemoteCommand;
  issued_at: string;
  /** Whether the device was seen recently: an offline device does not get the command (it is not queued). */
  online: boolean | null;
}

/**
 * `POST /back-office/devices/{id}/remote-control`: publishes `{type:"device.command", id, command,
 * device_id, location_id, issued_at}` on `rt:{tenant}:device`; a socket of that device (device token
 * on `GET /api/realtime`) receives it with no subscription. Delivery is at most once and not queued: a
 * device that is not connected misses it. Spec permission "-": the device's location must be in the grant.
 */
export async function sendRemoteCommand(scope: BackofficeScope, redis: Redis, deviceId: string, input: { command?: string }): Promise<RemoteCommandView> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id);
  if (!input.command) throw errors.field('command', 'The command field is required.');
  if (!(REMOTE_COMMANDS as readonly string[]).includes(input.command)) throw errors.field('command', 'The command must be one of reload, restart, sync, identify.');
  const command = input.command as RemoteCommand;
  if (d.type === 'printer') throw errors.businessRule(NOT_AN_APP, { reason: 'not_an_app' });
  const event = { type: 'device.command', id: Bun.randomUUIDv7(), command, device_id: d.id, location_id: d.location_id, issued_at: scope.now.toISOString() };
  try {
    await redis.publish(deviceChannel(scope.merchant.tenant_database), JSON.stringify(event));
  } catch (e) {
    throw errors.unavailable(NOT_SENT, { reason: 'realtime_unavailable', cause: e });
  }
  await logActivity(scope.tdb, { userId: scope.userId, action: 'sent_remote_command', subject: 'device', subjectId: d.id, properties: { command } });
  return { id: event.id, device_id: d.id, command, issued_at: event.issued_at, online: deviceOnline(d.type, d.last_seen_at, scope.now) };
}
