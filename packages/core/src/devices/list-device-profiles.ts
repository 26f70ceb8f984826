import { likePattern, paging, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { profileViews, type DeviceProfileView, type ProfileType } from './device-records.ts';
import type { TenantDb } from '@pos/db';

export interface ListDeviceProfilesInput extends DatatableQuery {
  type?: ProfileType;
}

/** `GET /back-office/device-profiles`: the merchant's device profiles by name, with how many live devices use each. */
export async function listDeviceProfiles(tdb: TenantDb, input: ListDeviceProfilesInput): Promise<Datatable<DeviceProfileView>> {
  const { page, perPage, offset } = paging(input);
  let q = tdb.selectFrom('device_profiles');
  if (input.type) q = q.where('type', '=', input.type);
  if (input.search?.trim()) q = q.where('name', 'ilike', likePattern(input.search.trim()));
  const [count, ids] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    q.select('id').orderBy('name').orderBy('id').limit(perPage).offset(offset).execute(),
  ]);
  return { data: await profileViews(tdb, ids.map((r) => r.id)), total: Number(count?.n ?? 0), page, per_page: perPage };
}
