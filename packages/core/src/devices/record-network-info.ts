import type { TenantDb } from '@pos/db';

export interface NetworkInfoInput {
  ip_address?: string;
  ssid?: string;
  mac_address?: string;
  connection_type?: string;
  app_version?: string;
}

/** `POST /device-auth/network-info`: replaces the device's last network report (a snapshot), stamped with when it came. */
export async function recordNetworkInfo(tdb: TenantDb, deviceId: string, input: NetworkInfoInput, now: Date): Promise<Record<string, unknown>> {
  const info: Record<string, unknown> = {};
  for (const key of ['ip_address', 'ssid', 'mac_address', 'connection_type', 'app_version'] as const) {
    if (input[key] !== undefined) info[key] = input[key];
  }
  info.reported_at = now.toISOString();
  await tdb.updateTable('devices').set({ network_info: JSON.stringify(info) }).where('id', '=', deviceId).execute();
  return info;
}
