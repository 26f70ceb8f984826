import type { Transaction } from 'kysely';
import { deviceOnline } from './device-liveness.ts';
import { kdsSettingsErrors } from '@pos/domain/kitchen/kds-settings';
import { bindTenant, withWriteRetry, type CentralDb, type CentralTables, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { accessCan, requireGrantedLocations, type Access } from '../auth/access.ts';
import type { BackofficeScope } from '../auth/backoffice-scope.ts';
import { randomCode } from '../security/passwords.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Queries and shapes shared by the device and device-profile use cases of this folder. A device lives
 * in two places: the tenant `devices` row (what the back office manages) and the central
 * `device_registry` row (activation code and token version, so an unauthenticated activation can find
 * its merchant and a token can be revoked).
 */

export const DEVICE_TYPES = ['pos', 'kiosk', 'kds', 'printer'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];
/** Device profiles exist for devices that run an app (not printers). */
export const PROFILE_TYPES = ['pos', 'kiosk', 'kds'] as const;
export type ProfileType = (typeof PROFILE_TYPES)[number];

export const DEVICE_TYPE_LABELS: Readonly<Record<DeviceType, string>> = {
  pos: 'Register (POS)',
  kiosk: 'Kiosk',
  kds: 'Kitchen display',
  printer: 'Printer',
};

/** The device use cases work in the back-office scope (`auth/backoffice-scope.ts`). */
export type { BackofficeScope };

/** One transaction over the central and the merchant's schema (same database), retried on write conflicts. */
export function inMerchantTx<T>(db: CentralDb, tenantDatabase: string, work: (tx: { central: Transaction<CentralTables>; tenant: TenantDb }) => Promise<T>): Promise<T> {
  return withWriteRetry(() => db.transaction().execute((central) => work({ central, tenant: bindTenant(central as unknown as CentralDb, tenantDatabase) })));
}

/** Locations the caller may see: every one for owners and elevated admins, else the grant. */
export function grantedLocationIds(access: Access): readonly string[] | 'all' {
  return access.allLocations ? 'all' : [...access.locationIds];
}

/** 403 unless `permission` (when given) is held for `locationId`; without a permission, only the grant counts. */
export function requireLocationAccess(access: Access, locationId: string, permission?: string): void {
  const ok = permission ? accessCan(access, permission, locationId) : access.allLocations || access.locationIds.has(locationId);
  if (!ok) throw errors.insufficientPermissions();
}

/**
 * Who may hold a device's activation code: VIEW_DEVICES (the device list shows it) or CREATE_DEVICES
 * (creating a device answers it). A code activates a device and so takes over the one already running
 * (docs/decisions.md "Device routes"); a member with neither permission is refused (403), whatever the grant.
 */
export const ACTIVATION_CODE_PERMISSIONS = ['VIEW_DEVICES', 'CREATE_DEVICES'] as const;

/** 403 unless the caller holds one of `ACTIVATION_CODE_PERMISSIONS` for the device's location. */
export function requireActivationCodeAccess(access: Access, locationId: string): void {
  if (!ACTIVATION_CODE_PERMISSIONS.some((p) => accessCan(access, p, locationId))) throw errors.insufficientPermissions();
}

/** A location of the bound merchant, or 404 `Unable to locate the location you requested.` */
export async function findLocation(tdb: TenantDb, locationId: string): Promise<{ id: string; name: string; timezone: string }> {
  const loc = isUuid(locationId) ? await tdb.selectFrom('locations').select(['id', 'name', 'timezone']).where('id', '=', locationId).executeTakeFirst() : undefined;
  if (!loc) throw errors.notFound('location');
  return loc;
}

/** A live (not deleted) device of the bound merchant, or 404 `Unable to locate the device you requested.` */
export async function findDevice(tdb: TenantDb, deviceId: string) {
  const d = isUuid(deviceId) ? await tdb.selectFrom('devices').selectAll().where('id', '=', deviceId).where('deleted_at', 'is', null).executeTakeFirst() : undefined;
  if (!d) throw errors.notFound('device');
  return d;
}

/** A device profile of the bound merchant, or 404 `Unable to locate the device profile you requested.` */
export async function findProfile(tdb: TenantDb, profileId: string) {
  const p = isUuid(profileId) ? await tdb.selectFrom('device_profiles').selectAll().where('id', '=', profileId).executeTakeFirst() : undefined;
  if (!p) throw errors.notFound('device profile');
  return p;
}

/**
 * The profile's row, locked inside the caller's transaction (or 404): `update` for a write of the
 * profile (type, settings, delete), `share` for a binding, so a type change and a binding of the same
 * profile run one after the other and each sees the other's outcome.
 */
export async function lockProfile(tx: TenantDb, profileId: string, mode: 'update' | 'share') {
  const q = tx.selectFrom('device_profiles').selectAll().where('id', '=', profileId);
  const p = await (mode === 'update' ? q.forUpdate() : q.forShare()).executeTakeFirst();
  if (!p) throw errors.notFound('device profile');
  return p;
}

/**
 * 403 `Unauthorized: Insufficient permissions` while a live device using the profile is at a location
 * outside the caller's grant: a profile drives every device bound to it, so rewriting or deleting it
 * acts on those devices. A profile no device uses, or a caller holding every location, passes.
 */
export async function requireProfileWithinGrant(tx: TenantDb, access: Access, profileId: string): Promise<void> {
  if (access.allLocations) return;
  const rows = await tx.selectFrom('devices').select('location_id').distinct().where('device_profile_id', '=', profileId).where('deleted_at', 'is', null).execute();
  requireGrantedLocations(access, rows.map((r) => r.location_id));
}

/** 422 when the settings of a profile of `type` break that type's rules (a `kds` profile: the display's bounds, no other keys). */
export function requireTypedSettings(type: string, settings: Record<string, unknown>): void {
  if (type !== 'kds') return;
  const bad = kdsSettingsErrors(settings);
  if (bad) throw errors.validation(bad);
}

/** A profile can be bound only to a device of its own type (printers take none). */
export function requireProfileFits(profile: { type: string }, deviceType: string): void {
  if (profile.type !== deviceType) throw errors.field('device_profile_id', 'The selected device profile is for another type of device.');
}

/** Fresh activation code, unique across merchants (the registry column is unique). */
export async function uniqueActivationCode(db: CentralDb | Transaction<CentralTables>): Promise<string> {
  for (let i = 0; i < 5; i++) {
    const code = randomCode(8);
    const taken = await db.selectFrom('device_registry').select('id').where('activation_code', '=', code).executeTakeFirst();
    if (!taken) return code;
  }
  throw new Error('Could not generate a unique activation code');
}

/** The back-office view of a device. `activation_code` is shown while it has not been used. */
export interface DeviceView {
  id: string;
  name: string;
  type: DeviceType;
  location_id: string;
  location: { id: string; name: string };
  device_profile_id: string | null;
  device_profile: { id: string; name: string; type: string } | null;
  activation_code: string | null;
  activated_at: string | null;
  last_seen_at: string | null;
  /** kds, kiosk, pos: seen within `DEVICE_OFFLINE_AFTER_SECONDS`; null for other types. */
  online: boolean | null;
  subscription_active_until: string | null;
  /** Kiosks: the terminal payment switch (`activate-payment` / `deactivate-payment`); null for other types. */
  payment_enabled: boolean | null;
  /**
   * Kiosks: the terminals its payments start on (`PUT /devices/{id}` binds the card-b terminal and the
   * card-a reader, `platform-a-device-code` pairs the platform-a device); the ids
   * `GET /locations/{id}/terminal-options` lists as `terminal_id`. Null when unbound, and for other types.
   */
  card_b_terminal_id: string | null;
  card_a_reader_id: string | null;
  platform_a_device_id: string | null;
  network_info: Record<string, unknown>;
  created_at: string;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** Selects devices with their location and profile; `narrow` adds the caller's filters. */
export function deviceRowsQuery(tdb: TenantDb) {
  return tdb
    .selectFrom('devices')
    .innerJoin('locations', 'locations.id', 'devices.location_id')
    .leftJoin('device_profiles', 'device_profiles.id', 'devices.device_profile_id')
    .where('devices.deleted_at', 'is', null);
}

/** Loads the views of the given device ids, in the given order (registry looked up centrally). */
/**
 * The devices as the back office shows them. `activation_code` only to a caller who may hold it at the
 * device's location (`ACTIVATION_CODE_PERMISSIONS`), null to anyone else: every route answering a device
 * passes its caller's access, so an edit or a payment switch never hands the code out.
 */
export async function deviceViews(db: CentralDb | Transaction<CentralTables>, tdb: TenantDb, ids: readonly string[], access: Access): Promise<DeviceView[]> {
  if (ids.length === 0) return [];
  const rows = await deviceRowsQuery(tdb)
    .select([
      'devices.id',
      'devices.name',
      'devices.type',
      'devices.location_id',
      'locations.name as location_name',
      'devices.device_profile_id',
      'device_profiles.name as profile_name',
      'device_profiles.type as profile_type',
      'devices.activated_at',
      'devices.last_seen_at',
      'devices.subscription_active_until',
      'devices.payment_enabled',
      'devices.card_b_terminal_id',
      'devices.card_a_reader_id',
      'devices.platform_a_device_id',
      'devices.network_info',
      'devices.created_at',
    ])
    .where('devices.id', 'in', ids)
    .execute();
  const registry = await db.selectFrom('device_registry').select(['id', 'activation_code', 'activation_code_used_at']).where('id', 'in', ids).execute();
  const codes = new Map(registry.map((r) => [r.id, r.activation_code_used_at ? null : r.activation_code]));
  const now = new Date();
  const byId = new Map(
    rows.map((r): [string, DeviceView] => [
      r.id,
      {
        id: r.id,
        name: r.name,
        type: r.type,
        location_id: r.location_id,
        location: { id: r.location_id, name: r.location_name },
        device_profile_id: r.device_profile_id,
        device_profile: r.device_profile_id && r.profile_name && r.profile_type ? { id: r.device_profile_id, name: r.profile_name, type: r.profile_type } : null,
        activation_code: ACTIVATION_CODE_PERMISSIONS.some((p) => accessCan(access, p, r.location_id)) ? (codes.get(r.id) ?? null) : null,
        activated_at: iso(r.activated_at),
        last_seen_at: iso(r.last_seen_at),
        online: deviceOnline(r.type, r.last_seen_at, now),
        subscription_active_until: iso(r.subscription_active_until),
        payment_enabled: r.type === 'kiosk' ? r.payment_enabled : null,
        card_b_terminal_id: r.type === 'kiosk' ? r.card_b_terminal_id : null,
        card_a_reader_id: r.type === 'kiosk' ? r.card_a_reader_id : null,
        platform_a_device_id: r.type === 'kiosk' ? r.platform_a_device_id : null,
        network_info: r.network_info ?? {},
        created_at: r.created_at.toISOString(),
      },
    ]),
  );
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function deviceView(db: CentralDb | Transaction<CentralTables>, tdb: TenantDb, id: string, access: Access): Promise<DeviceView> {
  const [v] = await deviceViews(db, tdb, [id], access);
  if (!v) throw errors.notFound('device');
  return v;
}

/** The back-office view of a device profile. */
export interface DeviceProfileView {
  id: string;
  name: string;
  type: ProfileType;
  settings: Record<string, unknown>;
  devices_count: number;
  created_at: string;
  updated_at: string;
}

/** Profile settings are free-form but bounded. */
export const MAX_PROFILE_SETTINGS_BYTES = 16_384;
export function requireSettingsSize(settings: Record<string, unknown>): void {
  if (JSON.stringify(settings).length > MAX_PROFILE_SETTINGS_BYTES) throw errors.field('settings', `The settings may not be greater than ${MAX_PROFILE_SETTINGS_BYTES} bytes.`);
}

export async function profileViews(tdb: TenantDb, ids: readonly string[]): Promise<DeviceProfileView[]> {
  if (ids.length === 0) return [];
  const rows = await tdb
    .selectFrom('device_profiles')
    .select((eb) => [
      'device_profiles.id',
      'device_profiles.name',
      'device_profiles.type',
      'device_profiles.settings',
      'device_profiles.created_at',
      'device_profiles.updated_at',
      eb
        .selectFrom('devices')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('devices.device_profile_id', '=', 'device_profiles.id')
        .where('devices.deleted_at', 'is', null)
        .as('devices_count'),
    ])
    .where('device_profiles.id', 'in', ids)
    .execute();
  const byId = new Map(
    rows.map((r): [string, DeviceProfileView] => [
      r.id,
      {
        id: r.id,
        name: r.name,
        type: r.type,
        settings: r.settings ?? {},
        devices_count: Number(r.devices_count ?? 0),
        created_at: r.created_at.toISOString(),
        updated_at: r.updated_at.toISOString(),
      },
    ]),
  );
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function profileView(tdb: TenantDb, id: string): Promise<DeviceProfileView> {
  const [v] = await profileViews(tdb, [id]);
  if (!v) throw errors.notFound('device profile');
  return v;
}
