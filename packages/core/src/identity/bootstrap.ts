import type { CentralDb, TenantDb } from '@pos/db';
import type { Access } from '../auth/access.ts';
import { merchantFeatures } from './features.ts';
import { merchantOptions } from './merchant-access.ts';
import { getProfile } from './profile.ts';

/**
 * `GET /back-office/bootstrap`: one boot payload for the caller's own merchant (never under
 * admin-vendor-override): profile, merchant and location options, unread notifications, feature
 * flags and, per granted location, its channel, pricing and ordering options.
 */
export async function backofficeBootstrap(db: CentralDb, tdb: TenantDb, userId: string, merchant: { id: string; pos_provider: string | null; is_test: boolean }, access: Access, now: Date, staged = true) {
  const [user, merchants, locations, notifications, features, devices, rates] = await Promise.all([
    getProfile(db, userId, merchant.id),
    merchantOptions(db, userId),
    tdb.selectFrom('locations').select(['id', 'name', 'timezone', 'status', 'pos_tenders']).orderBy('name').execute(),
    db
      .selectFrom('notifications')
      .select(['id', 'title', 'body', 'created_at'])
      .where('user_id', '=', userId)
      .where('merchant_id', '=', merchant.id)
      .where('read_at', 'is', null)
      .orderBy('created_at', 'desc')
      .limit(50)
      .execute(),
    merchantFeatures(db, tdb, merchant, now, staged),
    tdb.selectFrom('devices').select(['location_id', 'type']).where('deleted_at', 'is', null).execute(),
    tdb.selectFrom('tax_rates').select('rate').distinct().orderBy('rate', 'desc').execute(),
  ]);
  const granted = locations.filter((l) => access.allLocations || access.locationIds.has(l.id));
  const channelsAt = (locationId: string) => {
    const here = new Set(devices.filter((d) => d.location_id === locationId).map((d) => d.type));
    return { pos: features.first_party_pos && here.has('pos'), kiosk: here.has('kiosk'), kitchen_display: here.has('kds') };
  };
  return {
    user,
    merchant_options: merchants,
    location_options: granted.map((l) => ({ value: l.id, label: l.name })),
    unread_notifications: notifications.map((n) => ({ ...n, created_at: n.created_at.toISOString() })),
    features,
    locations: granted.map((l) => ({
      id: l.id,
      name: l.name,
      timezone: l.timezone,
      status: l.status,
      channels: channelsAt(l.id),
      pricing: { currency: 'EUR', prices_include_vat: true, vat_rates: rates.map((r) => r.rate) },
      ordering: { dining_options: ['dine_in', 'take_away'] },
    })),
  };
}
