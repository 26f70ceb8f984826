import type { Selectable } from 'kysely';
import { errors } from '@pos/kernel';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { logActivity } from '../activity/log-activity.ts';
import { findDevice, findLocation, requireLocationAccess, type BackofficeScope } from '../devices/device-records.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { lockLocation } from '../settings/locations.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Kitchen stations (spec 2 "Back-office routes for the first-party register"): a station belongs to a
 * location and serves a set of categories; a line goes to every station serving its category, or to
 * the location's fallback station when none does (at most one per location). A KDS device shows one
 * station (`devices.station_id`). `first-party-pos` and the permission are checked by the route; the
 * use cases check the caller's location grant (403) and scope every id to the merchant (404).
 */

export type StationRow = Selectable<TenantTables['kitchen_stations']>;

export interface StationView {
  id: string;
  location_id: string;
  name: string;
  category_ids: string[];
  is_fallback: boolean;
  /** KDS devices bound to the station. */
  device_ids: string[];
  created_at: string;
  updated_at: string;
}

export const ONLY_KDS_ON_STATION = 'Only a kitchen display device can be bound to a station.';
export const STATION_ELSEWHERE = 'The station must be at the device\'s location.';

async function present(tdb: TenantDb | TenantTx, rows: StationRow[]): Promise<StationView[]> {
  const ids = rows.map((r) => r.id);
  const devices = ids.length
    ? await tdb.selectFrom('devices').select(['id', 'station_id']).where('station_id', 'in', ids).where('deleted_at', 'is', null).orderBy('id').execute()
    : [];
  return rows.map((r) => ({
    id: r.id,
    location_id: r.location_id,
    name: r.name,
    category_ids: [...r.category_ids].sort(),
    is_fallback: r.is_fallback,
    device_ids: devices.filter((d) => d.station_id === r.id).map((d) => d.id),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  }));
}

/** A station of the bound merchant, or 404 `Unable to locate the station you requested.` */
export async function findStation(tdb: TenantDb | TenantTx, id: string, opts: { lock?: boolean } = {}): Promise<StationRow> {
  if (!isUuid(id)) throw errors.notFound('station');
  let q = tdb.selectFrom('kitchen_stations').selectAll().where('id', '=', id);
  if (opts.lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw errors.notFound('station');
  return row;
}

/**
 * Category ids of the merchant, deduplicated; another merchant's (or an unknown) id is a 404. The rows
 * are held `FOR KEY SHARE` until the transaction ends: a category deleted at that moment either waits
 * for the station's commit (and then takes itself out of its list) or is gone before we look (404).
 */
async function requireCategories(tdb: TenantDb | TenantTx, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids.map((i) => i.toLowerCase()))];
  if (unique.some((i) => !isUuid(i))) throw errors.notFound('category');
  if (!unique.length) return [];
  const found = await tdb.selectFrom('categories').select('id').where('id', 'in', unique).forKeyShare().execute();
  if (found.length !== unique.length) throw errors.notFound('category');
  return unique.sort();
}

/**
 * Makes `id` the only fallback station of its location. Serialised per location (the location row is
 * locked, before any station row) so two stations marked the fallback at once end with the later one
 * holding the flag instead of tripping `kitchen_stations_one_fallback`. Call it before locking `id`.
 */
async function takeFallback(tx: TenantTx, locationId: string, id: string): Promise<void> {
  await lockLocation(tx, locationId, 'update');
  await tx.updateTable('kitchen_stations').set({ is_fallback: false }).where('location_id', '=', locationId).where('is_fallback', '=', true).where('id', '<>', id).execute();
}

/** A deleted category leaves every station's list (in the deletion's transaction): its lines go to the fallback station, as any line of no category. */
export async function forgetStationCategory(tx: TenantDb | TenantTx, categoryId: string, now: Date): Promise<void> {
  await (tx as TenantDb)
    .updateTable('kitchen_stations')
    .set((eb) => ({ category_ids: eb.fn<string[]>('array_remove', ['category_ids', eb.val(categoryId)]), updated_at: now }))
    .where((eb) => eb(eb.val(categoryId), '=', eb.fn.any('category_ids')))
    .execute();
}

export interface CreateStationInput {
  location_id: string;
  name: string;
  category_ids?: string[];
  is_fallback?: boolean;
}

/** `POST /back-office/devices/stations` (EDIT_DEVICES). Marking it the fallback moves the flag from the location's previous fallback. */
export async function createStation(scope: BackofficeScope, input: CreateStationInput): Promise<StationView> {
  await findLocation(scope.tdb, input.location_id);
  requireLocationAccess(scope.access, input.location_id, 'EDIT_DEVICES');
  const id = Bun.randomUUIDv7();
  const row = await inTenantTx(scope.tdb, async (tx) => {
    // The location held from here: deleted meanwhile, the create is its 404, not a foreign-key 500.
    await lockLocation(tx, input.location_id, input.is_fallback ? 'update' : 'key share');
    const category_ids = await requireCategories(tx, input.category_ids ?? []);
    if (input.is_fallback) await takeFallback(tx, input.location_id, id);
    const created = await tx
      .insertInto('kitchen_stations')
      .values({ id, location_id: input.location_id, name: input.name.trim(), category_ids, is_fallback: input.is_fallback ?? false, created_at: scope.now, updated_at: scope.now })
      .returningAll()
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'created', subject: 'station', subjectId: id, properties: { location_id: input.location_id, name: created.name } });
    return created;
  });
  return (await present(scope.tdb, [row]))[0]!;
}

/** `GET /back-office/devices/stations/location/{locationId}` (VIEW_DEVICES): the location's stations by name. */
export async function listStations(scope: BackofficeScope, locationId: string): Promise<StationView[]> {
  await findLocation(scope.tdb, locationId);
  requireLocationAccess(scope.access, locationId, 'VIEW_DEVICES');
  const rows = await scope.tdb.selectFrom('kitchen_stations').selectAll().where('location_id', '=', locationId).orderBy('name').orderBy('id').execute();
  return present(scope.tdb, rows);
}

/**
 * `GET /pos/kds-stations` (spec 2, the register's station picker): the stations of the register's own
 * location (from the device token, so no grant check), by name, as the back office lists them.
 */
export async function listLocationStations(tdb: TenantDb, locationId: string): Promise<StationView[]> {
  const rows = await tdb.selectFrom('kitchen_stations').selectAll().where('location_id', '=', locationId).orderBy('name').orderBy('id').execute();
  return present(tdb, rows);
}

/** `GET /back-office/devices/stations/{id}` (VIEW_DEVICES). */
export async function getStation(scope: BackofficeScope, id: string): Promise<StationView> {
  const row = await findStation(scope.tdb, id);
  requireLocationAccess(scope.access, row.location_id, 'VIEW_DEVICES');
  return (await present(scope.tdb, [row]))[0]!;
}

export interface UpdateStationInput {
  name?: string;
  category_ids?: string[];
  is_fallback?: boolean;
}

/** `PUT /back-office/devices/stations/{id}` (EDIT_DEVICES): name, categories (replaced as a whole), fallback flag. The location never changes. */
export async function updateStation(scope: BackofficeScope, id: string, input: UpdateStationInput): Promise<StationView> {
  const current = await findStation(scope.tdb, id);
  requireLocationAccess(scope.access, current.location_id, 'EDIT_DEVICES');
  const row = await inTenantTx(scope.tdb, async (tx) => {
    // The fallback flag is taken under the location lock first, then the station is locked (one order: no deadlock).
    if (input.is_fallback === true) await takeFallback(tx, current.location_id, id);
    await findStation(tx, id, { lock: true });
    const category_ids = input.category_ids === undefined ? undefined : await requireCategories(tx, input.category_ids);
    const updated = await tx
      .updateTable('kitchen_stations')
      .set({
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        ...(category_ids !== undefined ? { category_ids } : {}),
        ...(input.is_fallback !== undefined ? { is_fallback: input.is_fallback } : {}),
        updated_at: scope.now,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'updated', subject: 'station', subjectId: id, properties: { ...input } });
    return updated;
  });
  return (await present(scope.tdb, [row]))[0]!;
}

export const STATION_HAS_PRINTER = 'A kitchen printer prints for this station. Give the printer another station first.';
export const STATION_HAS_OPEN_ORDERS = 'This station has open orders. Complete them first.';

/**
 * `DELETE /back-office/devices/stations/{id}` (EDIT_DEVICES): removes the station; its KDS devices are
 * unbound. Returns how many. Refused (409, nothing changed) while a kitchen printer prints for it (it
 * would be left a kitchen printer without a station, printing nothing) or while it has open tickets
 * (they would vanish from every screen). Its finished tickets stay, with its id, for the kitchen reports.
 */
export async function deleteStation(scope: BackofficeScope, id: string): Promise<number> {
  const current = await findStation(scope.tdb, id);
  requireLocationAccess(scope.access, current.location_id, 'EDIT_DEVICES');
  return inTenantTx(scope.tdb, async (tx) => {
    await findStation(tx, id, { lock: true });
    const printer = await tx.selectFrom('printers').select('id').where('station_id', '=', id).where('role', '=', 'kitchen').where('state', '<>', 'retired').limit(1).executeTakeFirst();
    if (printer) throw errors.conflict(STATION_HAS_PRINTER, { reason: 'station_has_printer' });
    const open = await tx.selectFrom('kitchen_tickets').select('id').where('station_id', '=', id).where('status', '<>', 'Complete').limit(1).executeTakeFirst();
    if (open) throw errors.conflict(STATION_HAS_OPEN_ORDERS, { reason: 'station_has_open_orders' });
    const unbound = await tx.updateTable('devices').set({ station_id: null }).where('station_id', '=', id).executeTakeFirst();
    await tx.deleteFrom('kitchen_stations').where('id', '=', id).execute();
    await logActivity(tx, { userId: scope.userId, action: 'deleted', subject: 'station', subjectId: id, properties: { name: current.name } });
    return Number(unbound.numUpdatedRows);
  });
}

/**
 * `POST /back-office/devices/{id}/station` (EDIT_DEVICES): binds a KDS device to a station of its own
 * location, or unbinds it with null. Another type of device is 422 on `station_id`, a station at
 * another location of the merchant is 422 on `station_id`, another merchant's station is 404.
 */
export async function bindDeviceStation(scope: BackofficeScope, deviceId: string, stationId: string | null): Promise<{ device_id: string; station: StationView | null }> {
  const device = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, device.location_id, 'EDIT_DEVICES');
  const station = stationId === null ? null : await findStation(scope.tdb, stationId);
  if (device.type !== 'kds') throw errors.field('station_id', ONLY_KDS_ON_STATION);
  if (station && station.location_id !== device.location_id) throw errors.field('station_id', STATION_ELSEWHERE);
  await inTenantTx(scope.tdb, async (tx) => {
    // Checked again under locks: a station deleted meanwhile was waited for and is now a 404 (the
    // foreign key used to fail at the update: 500); a station delete coming second waits and unbinds.
    // The device row is locked too, so a move of the device is either seen here or comes after.
    if (station) {
      const moved = await tx.selectFrom('devices').select('location_id').where('id', '=', device.id).forUpdate().executeTakeFirst();
      const still = await tx.selectFrom('kitchen_stations').select('location_id').where('id', '=', station.id).forKeyShare().executeTakeFirst();
      if (!moved) throw errors.notFound('device');
      if (!still) throw errors.notFound('station');
      if (still.location_id !== moved.location_id) throw errors.field('station_id', STATION_ELSEWHERE);
    }
    await tx.updateTable('devices').set({ station_id: station?.id ?? null }).where('id', '=', device.id).execute();
    await logActivity(tx, { userId: scope.userId, action: station ? 'bound' : 'unbound', subject: 'device', subjectId: device.id, properties: { station_id: station?.id ?? null } });
  });
  return { device_id: device.id, station: station ? (await present(scope.tdb, [station]))[0]! : null };
}

/**
 * Routing (pure over the location's stations): the stations a line of `categoryId` goes to: every
 * station serving the category, else the location's fallback station, else none.
 */
export function stationsForCategory(stations: readonly Pick<StationRow, 'id' | 'category_ids' | 'is_fallback'>[], categoryId: string | null): string[] {
  const serving = categoryId === null ? [] : stations.filter((s) => s.category_ids.includes(categoryId)).map((s) => s.id);
  if (serving.length) return serving;
  const fallback = stations.find((s) => s.is_fallback);
  return fallback ? [fallback.id] : [];
}
