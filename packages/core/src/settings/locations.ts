import type { Selectable } from 'kysely';
import { stringify } from 'csv-stringify/sync';
import { errors } from '@pos/kernel';
import { isForeignKeyViolation, type TenantDb, type TenantTables, type TenantTx } from '@pos/db';
import { isCountryCode } from '../options/countries.ts';
import { requireAllLocations, requirePermission, type Access } from '../auth/access.ts';
import { normalisePosTenders, type PosTenders } from '@pos/tenders';
import { logActivity } from '../activity/log-activity.ts';
import { requireLocationAccess } from '../devices/device-records.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { runDatatable, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { safeCell } from '../shared/table-export.ts';
import { merchantDate } from '../shared/merchant-date.ts';
import { isUuid } from '@pos/domain/ids';
import { usableZone } from './location-zone.ts';
import { listingFollowsStatus, locationHeldOutside, releaseCentralRows, renameListing } from './location-references.ts';
import { inPersonProviderOf } from '../payments/in-person-provider.ts';
import { locationPaymentProfile } from './location-payment-profile.ts';
import { forgetLocationInCatalog } from '../catalog/forget-location.ts';

/**
 * Settings > locations (spec 1 "Settings", no permission of their own): every read and write is
 * limited to the caller's location grant (403 outside it; creating and deleting need every location),
 * and every id is scoped to the bound merchant (404). A location's zone is an IANA zone that both the
 * runtime and PostgreSQL know.
 */

export const LOCATION_STATUSES = ['active', 'inactive'] as const;
export type LocationStatus = (typeof LOCATION_STATUSES)[number];
export const UNKNOWN_ZONE = 'The timezone field must be a valid IANA time zone.';
export const UNKNOWN_COUNTRY = 'The country field must be a two-letter ISO country code.';
export const LOCATION_IN_USE = 'The location is in use (devices, orders or menus) and cannot be deleted.';

type Row = Selectable<TenantTables['locations']>;

export interface LocationView {
  id: string;
  name: string;
  timezone: string;
  address: string | null;
  city: string | null;
  postal_code: string | null;
  country: string;
  phone: string | null;
  email: string | null;
  vat_no: string | null;
  est_no: string | null;
  status: string;
  /** The payment profile the location uses; null: the merchant's default one. */
  payment_profile_id: string | null;
  /** What the register takes besides cash (spec 2 "Location tender configuration"), normalised. */
  pos_tenders: { enabled: string[]; issuers: Record<keyof PosTenders['issuers'], string[]> };
  created_at: string;
  updated_at: string;
}

const COLUMNS = ['id', 'name', 'timezone', 'address', 'city', 'postal_code', 'country', 'phone', 'email', 'vat_no', 'est_no', 'status', 'payment_profile_id', 'pos_tenders', 'created_at', 'updated_at'] as const;

const tendersView = (p: PosTenders): LocationView['pos_tenders'] => ({
  enabled: [...p.enabled],
  issuers: { card_debit: [...p.issuers.card_debit], card_credit: [...p.issuers.card_credit], meal_voucher: [...p.issuers.meal_voucher], gift_voucher: [...p.issuers.gift_voucher] },
});

function view(r: Pick<Row, (typeof COLUMNS)[number]>): LocationView {
  return {
    id: r.id,
    name: r.name,
    timezone: r.timezone,
    address: r.address,
    city: r.city,
    postal_code: r.postal_code,
    country: r.country,
    phone: r.phone,
    email: r.email,
    vat_no: r.vat_no,
    est_no: r.est_no,
    status: r.status,
    payment_profile_id: r.payment_profile_id,
    pos_tenders: tendersView(normalisePosTenders(r.pos_tenders)),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** The caller's locations as a query (all of them for owners and members with every location). */
function visible(tdb: TenantDb, access: Access) {
  let q = tdb.selectFrom('locations');
  if (!access.allLocations) {
    const ids = [...access.locationIds];
    q = ids.length ? q.where('id', 'in', ids) : q.where((eb) => eb.val(false));
  }
  return q;
}

/** A location of the merchant the caller may reach: 404 when absent, 403 outside the grant. */
export async function findVisibleLocation(tdb: TenantDb, access: Access, id: string): Promise<Row> {
  const row = isUuid(id) ? await tdb.selectFrom('locations').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
  if (!row) throw errors.notFound('location');
  requireLocationAccess(access, row.id);
  return row;
}

export interface LocationFilters extends DatatableQuery {
  sort?: string;
  status?: LocationStatus;
}

export function locationDatatable(tdb: TenantDb, access: Access, q: LocationFilters): Promise<Datatable<LocationView>> {
  let base = visible(tdb, access);
  if (q.status) base = base.where('status', '=', q.status);
  return runDatatable<Row, LocationView>(base, q, {
    searchColumns: ['name', 'address', 'city'],
    sortable: ['name', 'created_at', 'status', 'city'],
    defaultSort: { column: 'name', direction: 'asc' },
    select: (qb) => qb.select([...COLUMNS]),
    map: view,
  });
}

/** `GET /location-options`: select options `{value: id, label: name, timezone, status}` of the caller's locations, by name. */
export async function locationOptions(tdb: TenantDb, access: Access): Promise<{ value: string; label: string; timezone: string; status: string }[]> {
  const rows = await visible(tdb, access).select(['id', 'name', 'timezone', 'status']).orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ value: r.id, label: r.name, timezone: r.timezone, status: r.status }));
}

export async function showLocation(tdb: TenantDb, access: Access, id: string): Promise<LocationView> {
  return view(await findVisibleLocation(tdb, access, id));
}

export interface LocationInput {
  name: string;
  timezone: string;
  address?: string | null;
  city?: string | null;
  postal_code?: string | null;
  country: string;
  phone?: string | null;
  email?: string | null;
  vat_no?: string | null;
  est_no?: string | null;
  /** A payment profile of the merchant; null: the default one. */
  payment_profile_id?: string | null;
  /** Update only: what the register takes besides cash (permission `edit-locations`). */
  pos_tenders?: { enabled: readonly string[]; issuers?: Partial<Record<'card_debit' | 'card_credit' | 'meal_voucher' | 'gift_voucher', readonly string[]>> };
}

async function zoneOf(tdb: TenantDb, tz: string): Promise<string> {
  const zone = await usableZone(tdb, tz);
  if (!zone) throw errors.field('timezone', UNKNOWN_ZONE);
  return zone;
}

const trimOrNull = (s: string | null | undefined) => (s === undefined ? undefined : s === null ? null : s.trim() || null);

async function columns(tdb: TenantDb, input: Partial<LocationInput>) {
  const out: Record<string, unknown> = {};
  if (input.name !== undefined) out.name = input.name.trim();
  if (input.timezone !== undefined) out.timezone = await zoneOf(tdb, input.timezone);
  if (input.country !== undefined) {
    // One of `GET /country-options`: a well-formed pair of letters that is no country (`ZZ`) is refused too.
    if (!isCountryCode(input.country)) throw errors.field('country', UNKNOWN_COUNTRY);
    out.country = input.country.toUpperCase();
  }
  for (const k of ['address', 'city', 'postal_code', 'phone', 'email', 'vat_no', 'est_no'] as const) {
    const v = trimOrNull(input[k]);
    if (v !== undefined) out[k] = v;
  }
  // Stored as the register reads it: normalised (unknown methods dropped, issuer names trimmed, once each).
  if (input.pos_tenders !== undefined) out.pos_tenders = JSON.stringify(normalisePosTenders(input.pos_tenders));
  return out;
}

export async function createLocation(tdb: TenantDb, access: Access, userId: string, input: LocationInput): Promise<LocationView> {
  requireAllLocations(access);
  const values = await columns(tdb, input);
  const id = Bun.randomUUIDv7();
  return inTenantTx(tdb, async (tx) => {
    Object.assign(values, await locationPaymentProfile(tx, input));
    const row = await tx
      .insertInto('locations')
      .values({ id, ...(values as { name: string; timezone: string; country: string }), pos_tenders: JSON.stringify({}) })
      .returning([...COLUMNS])
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId, action: 'created', subject: 'location', subjectId: id, properties: { name: row.name } });
    return view(row);
  });
}

/**
 * The location's row, locked in the writer's transaction: a writer that waited on a delete finds it
 * gone, the 404 a later request gets (before, the update found no row, or the receipt insert hit the
 * foreign key: a 500).
 */
export async function lockLocation(tx: TenantDb, id: string, mode: LocationLock): Promise<void> {
  const locked = await LOCK[mode](locationRow(tx, id)).executeTakeFirst();
  if (!locked) throw errors.notFound('location');
}

/**
 * `update` serialises location-wide rules (one device per register, one fallback station); `key share`
 * is the lock a row's foreign key takes, held from the check on: a record created at the location
 * either commits before its delete (which then sees it) or finds the location gone.
 */
export type LocationLock = 'update' | 'no key update' | 'share' | 'key share';
type LocationQuery = ReturnType<typeof locationRow>;
const locationRow = (tx: TenantDb, id: string) => tx.selectFrom('locations').select('id').where('id', '=', id);
const LOCK: Record<LocationLock, (q: LocationQuery) => LocationQuery> = {
  update: (q) => q.forUpdate(),
  'no key update': (q) => q.forNoKeyUpdate(),
  share: (q) => q.forShare(),
  'key share': (q) => q.forKeyShare(),
};

export const FISCAL_IDENTITY_KEPT = 'A location with an active fiscal data module keeps its VAT and establishment numbers: every signed event carries them.';

/** Whether the location has an active fiscal data module enrolment. */
async function activeFdmAt(tx: TenantTx, locationId: string): Promise<boolean> {
  return !!(await tx.selectFrom('fdm_devices').select('id').where('location_id', '=', locationId).where('status', '=', 'active').executeTakeFirst());
}

export async function updateLocation(tdb: TenantDb, access: Access, merchantId: string, userId: string, id: string, input: Partial<LocationInput>, now: Date): Promise<LocationView> {
  const row = await findVisibleLocation(tdb, access, id);
  // Spec 2: the key `pos_tenders` needs `edit-locations` at the location (the other fields need none).
  if (input.pos_tenders !== undefined) requirePermission(access, 'edit-locations', row.id);
  const values = await columns(tdb, input);
  return inTenantTx(tdb, async (tx) => {
    await lockLocation(tx, row.id, 'update');
    // Every signed event carries them (`requireFiscalIdentity`): clearing one under an active fiscal
    // module would make the register's next fire, sale or report a 422 with nothing to show why here.
    for (const k of ['vat_no', 'est_no'] as const) {
      if (values[k] === null && (await activeFdmAt(tx, row.id))) throw errors.field(k, FISCAL_IDENTITY_KEPT);
    }
    Object.assign(values, await locationPaymentProfile(tx, input));
    const updated = await tx.updateTable('locations').set({ ...values, updated_at: now }).where('id', '=', row.id).returning([...COLUMNS]).executeTakeFirstOrThrow();
    if (values.name !== undefined) await renameListing(tx, merchantId, row.id, updated.name, now);
    await logActivity(tx, { userId, action: 'updated', subject: 'location', subjectId: row.id, properties: { fields: Object.keys(values).sort() } });
    return view(updated);
  });
}

export async function setLocationStatus(tdb: TenantDb, access: Access, merchantId: string, userId: string, id: string, status: LocationStatus, now: Date = new Date()): Promise<LocationView> {
  const row = await findVisibleLocation(tdb, access, id);
  return inTenantTx(tdb, async (tx) => {
    await lockLocation(tx, row.id, 'update');
    const updated = await tx.updateTable('locations').set({ status, updated_at: now }).where('id', '=', row.id).returning([...COLUMNS]).executeTakeFirstOrThrow();
    // Restaurant suggestions stop listing an inactive location (its storefront takes no new orders).
    await listingFollowsStatus(tx, merchantId, row.id, status, now);
    if (row.status !== status) await logActivity(tx, { userId, action: 'updated', subject: 'location', subjectId: row.id, properties: { status: { from: row.status, to: status } } });
    return view(updated);
  });
}

/**
 * Deletes a location nothing refers to; one with devices, orders, menus..., a card-a subscription still
 * billing or a live integration connection is a 409 and stays. Central rows that only point at it
 * (table-QR directory, restaurant listing) go with it.
 */
export async function deleteLocation(tdb: TenantDb, access: Access, merchantId: string, userId: string, id: string): Promise<void> {
  const row = await findVisibleLocation(tdb, access, id);
  requireAllLocations(access);
  try {
    await inTenantTx(tdb, async (tx) => {
      // Locked and read again: of deletes sent at once, one deletes it and the others (waiting on the
      // lock) find it gone, a 404 as when they come one after the other.
      await lockLocation(tx, row.id, 'update');
      if (await locationHeldOutside(tx, merchantId, row.id)) throw errors.conflict(LOCATION_IN_USE);
      await tx.deleteFrom('user_locations').where('location_id', '=', row.id).execute();
      await tx.deleteFrom('locations').where('id', '=', row.id).execute();
      await forgetLocationInCatalog(tx, row.id);
      await releaseCentralRows(tx, merchantId, row.id);
      await logActivity(tx, { userId, action: 'deleted', subject: 'location', subjectId: row.id, properties: { name: row.name } });
    });
  } catch (e) {
    if (isForeignKeyViolation(e)) throw errors.conflict(LOCATION_IN_USE);
    throw e;
  }
}

/** `POST /locations/export`: the caller's locations (optionally some of them) as CSV. */
export async function exportLocations(tdb: TenantDb, access: Access, ids: readonly string[] | undefined, now: Date): Promise<{ filename: string; contentType: string; body: string }> {
  let q = visible(tdb, access).select([...COLUMNS]);
  if (ids) {
    // As for a path id: an id that is not one of the merchant's locations is a 404, one outside the grant a 403.
    const wanted = [...new Set(ids.map((i) => i.toLowerCase()))];
    if (wanted.some((i) => !isUuid(i))) throw errors.notFound('location');
    const found = wanted.length ? await tdb.selectFrom('locations').select('id').where('id', 'in', wanted).execute() : [];
    if (found.length !== wanted.length) throw errors.notFound('location');
    for (const f of found) requireLocationAccess(access, f.id);
    q = wanted.length ? q.where('id', 'in', wanted) : q.where((eb) => eb.val(false));
  }
  const rows = (await q.orderBy('name').orderBy('id').execute()).map(view);
  // The tender block is a nested structure, not a cell: the file keeps its columns.
  const columns = COLUMNS.filter((c) => c !== 'pos_tenders');
  const body = stringify(
    rows.map((r) => columns.map((c) => (typeof r[c] === 'string' ? safeCell(r[c] as string) : (r[c] ?? '')))),
    { header: true, columns: [...columns], bom: true },
  );
  return { filename: `locations-${await merchantDate(tdb, now)}.csv`, contentType: 'text/csv; charset=utf-8', body };
}

export interface TerminalOption {
  provider: 'card-a' | 'card-b' | 'platform-a';
  terminal_id: string;
  device_id: string;
  device_name: string;
}

/**
 * `GET /locations/{id}/terminal-options`: the payment terminals bound to the location's live devices
 * (card-a readers, card-b terminals, platform-a devices) and the location's in-person provider.
 */
export async function terminalOptions(tdb: TenantDb, access: Access, id: string): Promise<{ in_person_provider: string | null; terminals: TerminalOption[] }> {
  const row = await findVisibleLocation(tdb, access, id);
  const devices = await tdb
    .selectFrom('devices')
    .select(['id', 'name', 'card_a_reader_id', 'card_b_terminal_id', 'platform_a_device_id'])
    .where('location_id', '=', row.id)
    .where('deleted_at', 'is', null)
    .orderBy('name')
    .orderBy('id')
    .execute();
  const terminals: TerminalOption[] = [];
  for (const d of devices) {
    if (d.card_a_reader_id) terminals.push({ provider: 'card-a', terminal_id: d.card_a_reader_id, device_id: d.id, device_name: d.name });
    if (d.card_b_terminal_id) terminals.push({ provider: 'card-b', terminal_id: d.card_b_terminal_id, device_id: d.id, device_name: d.name });
    if (d.platform_a_device_id) terminals.push({ provider: 'platform-a', terminal_id: d.platform_a_device_id, device_id: d.id, device_name: d.name });
  }
  return { in_person_provider: await inPersonProviderOf(tdb, row.id), terminals };
}
