import type { TenantDb } from '@pos/db';
import type { ProfileType } from './device-records.ts';

/** `GET /back-office/device-profiles/options` (ungated): `{value, label, type}` by name, optionally of one type. */
export async function listDeviceProfileOptions(tdb: TenantDb, filter: { type?: ProfileType } = {}): Promise<{ value: string; label: string; type: ProfileType }[]> {
  let q = tdb.selectFrom('device_profiles').select(['id', 'name', 'type']);
  if (filter.type) q = q.where('type', '=', filter.type);
  const rows = await q.orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ value: r.id, label: r.name, type: r.type }));
}
