import { paging, likePattern, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { deviceRowsQuery, deviceViews, grantedLocationIds, type BackofficeScope, type DeviceType, type DeviceView } from './device-records.ts';

export interface ListDevicesInput extends DatatableQuery {
  location_id?: string;
  type?: DeviceType;
}

/**
 * `GET /back-office/devices`: live devices at locations in the caller's grant, newest first, with
 * optional location, type and name filters. A location outside the grant yields an empty page.
 */
export async function listDevices(scope: BackofficeScope, input: ListDevicesInput): Promise<Datatable<DeviceView>> {
  const { page, perPage, offset } = paging(input);
  const granted = grantedLocationIds(scope.access);
  let q = deviceRowsQuery(scope.tdb);
  if (granted !== 'all') q = granted.length ? q.where('devices.location_id', 'in', granted) : q.where((eb) => eb.val(false));
  if (input.location_id) q = q.where('devices.location_id', '=', input.location_id);
  if (input.type) q = q.where('devices.type', '=', input.type);
  if (input.search?.trim()) q = q.where('devices.name', 'ilike', likePattern(input.search.trim()));
  const [count, ids] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    q.select('devices.id').orderBy('devices.created_at', 'desc').orderBy('devices.id', 'desc').limit(perPage).offset(offset).execute(),
  ]);
  return { data: await deviceViews(scope.db, scope.tdb, ids.map((r) => r.id), scope.access), total: Number(count?.n ?? 0), page, per_page: perPage };
}
