import type { Selectable } from 'kysely';
import type { CentralDb, CentralTables, TenantDb, TenantTables } from '@pos/db';

// The records authentication reads and writes (device registry, membership, merchant, device row,
// liveness). The API's middleware decides with them (and caches them); the SQL lives here.

export type MerchantRecord = Selectable<CentralTables['merchants']>;
export type DeviceRecord = Selectable<TenantTables['devices']>;

/** A device's registry entry (token version and type) under its merchant, or undefined. */
export function findDeviceRegistration(db: CentralDb, deviceId: string, merchantId: string): Promise<{ token_version: number; type: string } | undefined> {
  return db.selectFrom('device_registry').select(['token_version', 'type']).where('id', '=', deviceId).where('merchant_id', '=', merchantId).executeTakeFirst();
}

/**
 * The memberships in effect: a membership whose team invitation is not accepted yet (a pending
 * invitee, `status: invited`) gives no way into the merchant until it is accepted (join-merchant).
 * The founding owner's membership has no invitation. Every "is this user a member" of sign-in,
 * merchant options, set-merchant and token authentication reads through this.
 */
export function acceptedMemberships(db: CentralDb) {
  return db
    .selectFrom('memberships')
    .leftJoin('invitations', (j) => j.onRef('invitations.user_id', '=', 'memberships.user_id').onRef('invitations.merchant_id', '=', 'memberships.merchant_id'))
    .where((eb) => eb.or([eb('invitations.id', 'is', null), eb('invitations.accepted_at', 'is not', null)]));
}

/**
 * True when a back-office user may hold a token for the merchant: a member (invitation accepted), or
 * an internal admin (who gets tokens for merchants it is not a member of via set-merchant). A reseller
 * acts for its merchants through `vendor_id` only, so set-merchant refuses it those merchants.
 */
export async function mayActForMerchant(db: CentralDb, userId: string, merchantId: string): Promise<boolean> {
  const member = await acceptedMemberships(db).select('memberships.user_id').where('memberships.user_id', '=', userId).where('memberships.merchant_id', '=', merchantId).executeTakeFirst();
  if (member) return true;
  const user = await db.selectFrom('users').select(['is_global_admin']).where('id', '=', userId).executeTakeFirst();
  return !!user?.is_global_admin;
}

export function findMerchant(db: CentralDb, merchantId: string): Promise<MerchantRecord | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', merchantId).executeTakeFirst();
}

/** The device row, unless deleted. */
export function findLiveDevice(tdb: TenantDb, deviceId: string): Promise<DeviceRecord | undefined> {
  return tdb.selectFrom('devices').selectAll().where('id', '=', deviceId).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Liveness: the device was seen `now`. */
export async function recordDeviceSeen(tdb: TenantDb, deviceId: string, now: Date): Promise<void> {
  await tdb.updateTable('devices').set({ last_seen_at: now }).where('id', '=', deviceId).execute();
}

/** What decides whether a user may act for another merchant (admin-vendor-override, global-admin). */
export function findUserStanding(db: CentralDb, userId: string): Promise<{ is_global_admin: boolean; reseller_id: string | null } | undefined> {
  return db.selectFrom('users').select(['is_global_admin', 'reseller_id']).where('id', '=', userId).executeTakeFirst();
}

/** check-user-activity: the user was active `now`. */
export async function recordUserActive(db: CentralDb, userId: string, now: Date): Promise<void> {
  await db.updateTable('users').set({ last_active_at: now }).where('id', '=', userId).execute();
}

/** True when the location exists in the bound merchant's schema (the id must be a UUID). */
export async function locationExists(tdb: TenantDb, locationId: string): Promise<boolean> {
  return !!(await tdb.selectFrom('locations').select('id').where('id', '=', locationId).executeTakeFirst());
}
