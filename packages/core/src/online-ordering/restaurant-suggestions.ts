import { sql } from 'kysely';
import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import type { OnlineOrderingSettings } from './channel-settings.ts';
import { isUuid } from '@pos/domain/ids';
import { sha256 } from '../accounts/account-tokens.ts';

/**
 * Restaurant suggestions (spec 1 "Online ordering"): every merchant's locations with online ordering
 * on, platform-wide, from the central `restaurant_listings` kept in step with the online ordering
 * settings. Nearby by great-circle distance, top by upvotes, categories with their counts; a customer
 * upvotes a restaurant once, and so does a client without a customer token (per client address).
 */
export interface Suggestion {
  location_id: string;
  slug: string;
  name: string;
  categories: string[];
  upvotes: number;
  latitude: number | null;
  longitude: number | null;
  distance_km?: number;
}

/** After a change of a location's online ordering settings: the listing follows (listed while enabled and the location active). */
export async function syncListing(db: CentralDb, merchant: { id: string; slug: string }, loc: { id: string; name: string; status?: string }, s: OnlineOrderingSettings, now: Date): Promise<void> {
  const values = {
    merchant_id: merchant.id,
    slug: merchant.slug,
    name: loc.name,
    latitude: s.latitude,
    longitude: s.longitude,
    categories: [...new Set(s.categories.map((c) => c.trim()).filter(Boolean))],
    listed: s.enabled && (loc.status ?? 'active') === 'active',
    updated_at: now,
  };
  await db
    .insertInto('restaurant_listings')
    .values({ location_id: loc.id, ...values })
    .onConflict((oc) => oc.column('location_id').doUpdateSet(values))
    .execute();
}

const view = (r: { location_id: string; slug: string; name: string; categories: string[]; upvotes: number; latitude: number | null; longitude: number | null }): Suggestion => ({
  location_id: r.location_id,
  slug: r.slug,
  name: r.name,
  categories: [...r.categories],
  upvotes: r.upvotes,
  latitude: r.latitude,
  longitude: r.longitude,
});

export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const h = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/** Listed restaurants within `radiusKm` of the point, nearest first (ties by name). */
export async function nearbyRestaurants(db: CentralDb, at: { lat: number; lng: number; radiusKm: number; limit: number; category?: string }): Promise<Suggestion[]> {
  // A bounding box narrows the rows; the exact distance decides.
  const dLat = at.radiusKm / 111;
  const dLng = at.radiusKm / (111 * Math.max(Math.cos((at.lat * Math.PI) / 180), 0.01));
  let q = db
    .selectFrom('restaurant_listings')
    .selectAll()
    .where('listed', '=', true)
    .where('latitude', 'is not', null)
    .where('longitude', 'is not', null)
    .where('latitude', '>=', at.lat - dLat)
    .where('latitude', '<=', at.lat + dLat);
  if (at.lat + dLat < 90 && at.lat - dLat > -90 && dLng < 180) {
    const [west, east] = [at.lng - dLng, at.lng + dLng];
    // A box across the 180° meridian is two ranges: [west + 360, 180] and [-180, east - 360].
    if (west < -180) q = q.where((eb) => eb.or([eb('longitude', '>=', west + 360), eb('longitude', '<=', east)]));
    else if (east > 180) q = q.where((eb) => eb.or([eb('longitude', '>=', west), eb('longitude', '<=', east - 360)]));
    else q = q.where('longitude', '>=', west).where('longitude', '<=', east);
  }
  if (at.category) q = q.where(sql<boolean>`${at.category} = any(categories)`);
  const rows = await q.execute();
  return rows
    .map((r) => ({ ...view(r), distance_km: Math.round(haversineKm(at.lat, at.lng, r.latitude!, r.longitude!) * 100) / 100 }))
    .filter((r) => r.distance_km <= at.radiusKm)
    .sort((a, b) => a.distance_km - b.distance_km || a.name.localeCompare(b.name))
    .slice(0, at.limit);
}

/** Listed restaurants by upvotes, most first (ties by name). */
export async function topRestaurants(db: CentralDb, opts: { limit: number; category?: string }): Promise<Suggestion[]> {
  let q = db.selectFrom('restaurant_listings').selectAll().where('listed', '=', true);
  if (opts.category) q = q.where(sql<boolean>`${opts.category} = any(categories)`);
  const rows = await q.orderBy('upvotes', 'desc').orderBy('name').orderBy('location_id').limit(opts.limit).execute();
  return rows.map(view);
}

/** Categories of listed restaurants with how many restaurants carry each, most first. */
export async function restaurantCategories(db: CentralDb): Promise<{ category: string; restaurants: number }[]> {
  const r = await sql<{ category: string; n: string }>`select c as category, count(*)::text as n from restaurant_listings, unnest(categories) as c where listed group by c order by count(*) desc, c`.execute(db);
  return r.rows.map((x) => ({ category: x.category, restaurants: Number(x.n) }));
}

/**
 * The upvoter key of a client without a customer token (spec 1: the upvote is optional auth): a hash of
 * its address as the throttles count it, so no address is stored. The `anon:` prefix keeps it apart from
 * the `{merchantId}:{customerId}` keys of customers in the same `customer_id` column.
 */
export function anonymousUpvoter(clientAddress: string): string {
  return `anon:${sha256(`restaurant-upvote\0${clientAddress}`)}`;
}

/**
 * One upvote per upvoter and restaurant: a second is answered with the same count (`counted: false`).
 * `upvoter` is `{merchantId}:{customerId}` for a customer, `anonymousUpvoter(address)` otherwise.
 */
export async function upvoteRestaurant(db: CentralDb, locationId: string, upvoter: string, now: Date): Promise<{ location_id: string; upvotes: number; counted: boolean }> {
  return db.transaction().execute(async (tx) => {
    const listing = isUuid(locationId) ? await tx.selectFrom('restaurant_listings').select(['location_id']).where('location_id', '=', locationId).where('listed', '=', true).forUpdate().executeTakeFirst() : undefined;
    if (!listing) throw errors.notFound('restaurant');
    const added = await tx.insertInto('restaurant_upvotes').values({ location_id: locationId, customer_id: upvoter, created_at: now }).onConflict((oc) => oc.columns(['location_id', 'customer_id']).doNothing()).returning('customer_id').executeTakeFirst();
    const row = added
      ? await tx.updateTable('restaurant_listings').set((eb) => ({ upvotes: eb('upvotes', '+', 1) })).where('location_id', '=', locationId).returning('upvotes').executeTakeFirstOrThrow()
      : await tx.selectFrom('restaurant_listings').select('upvotes').where('location_id', '=', locationId).executeTakeFirstOrThrow();
    return { location_id: locationId, upvotes: row.upvotes, counted: !!added };
  });
}
