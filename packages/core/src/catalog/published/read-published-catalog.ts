import type Redis from 'ioredis';
import type { TenantDb } from '@pos/db';
import type { PublishedCatalog, PublishedMenu } from './published-catalog.ts';

/**
 * The one reader of the published catalog (register bootstrap, kiosk quote, online ordering).
 *
 * Redis holds, per merchant and location, a pointer to the current version and the payload under a
 * key that names the version (`catalog:{merchant}:{location}:v{version}`). A publish moves the pointer
 * after its commit (`invalidatePublished`), so the next read fetches the new version. The pointer only
 * ever moves forward (a Lua compare-and-set), so a slow reader that loaded an older version from the
 * database cannot put it back. The pointer expires after a short while, so even a lost invalidation
 * (Redis down at commit time) heals by itself; Redis errors fall back to the database.
 */
const POINTER_TTL_S = 60;
const PAYLOAD_TTL_S = 3600;

const pointerKey = (merchantId: string, locationId: string) => `catalog:${merchantId}:${locationId}:current`;
const payloadKey = (merchantId: string, locationId: string, version: number) => `catalog:${merchantId}:${locationId}:v${version}`;

const ADVANCE = `local c = redis.call('GET', KEYS[1])
if (not c) or tonumber(c) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) return 1 end
if tonumber(c) == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 0`;

async function advancePointer(redis: Redis, merchantId: string, locationId: string, version: number): Promise<void> {
  await redis.eval(ADVANCE, 1, pointerKey(merchantId, locationId), String(version), String(POINTER_TTL_S));
}

async function fromDatabase(tdb: TenantDb, locationId: string): Promise<PublishedCatalog> {
  const row = await tdb.selectFrom('published_catalogs').select(['version', 'payload']).where('location_id', '=', locationId).executeTakeFirst();
  if (!row) return { location_id: locationId, version: 0, menu: null };
  return { location_id: locationId, version: Number(row.version), menu: (row.payload as PublishedMenu | null) ?? null };
}

/** The location's published catalog, from the cache when it holds the current version. */
export async function readPublishedCatalog(tdb: TenantDb, redis: Redis, merchantId: string, locationId: string): Promise<PublishedCatalog> {
  try {
    const current = await redis.get(pointerKey(merchantId, locationId));
    if (current !== null) {
      const cached = await redis.get(payloadKey(merchantId, locationId, Number(current)));
      if (cached !== null) return JSON.parse(cached) as PublishedCatalog;
    }
  } catch {
    return fromDatabase(tdb, locationId);
  }
  const catalog = await fromDatabase(tdb, locationId);
  try {
    await redis.set(payloadKey(merchantId, locationId, catalog.version), JSON.stringify(catalog), 'EX', PAYLOAD_TTL_S);
    await advancePointer(redis, merchantId, locationId, catalog.version);
  } catch {
    // The answer is right; only the cache is cold.
  }
  return catalog;
}

/** After a commit that changed these locations' published catalogs: point the cache at the new versions. */
export async function invalidatePublished(tdb: TenantDb, redis: Redis, merchantId: string, locationIds: readonly string[]): Promise<void> {
  const ids = [...new Set(locationIds)];
  if (ids.length === 0) return;
  const rows = await tdb.selectFrom('published_catalogs').select(['location_id', 'version']).where('location_id', 'in', ids).execute();
  for (const r of rows) {
    try {
      await advancePointer(redis, merchantId, r.location_id, Number(r.version));
    } catch {
      // The pointer expires within POINTER_TTL_S; readers then load the new version.
    }
  }
}

/** Items of a published menu sold on a channel, by id (the kiosk quote's price list). */
export function itemsOnChannel(menu: PublishedMenu | null, channel: string): Map<string, PublishedMenu['display_groups'][number]['items'][number]> {
  const out = new Map<string, PublishedMenu['display_groups'][number]['items'][number]>();
  if (!menu || !menu.channels.includes(channel)) return out;
  for (const g of menu.display_groups) for (const it of g.items) if (it.channels.includes(channel) && !out.has(it.id)) out.set(it.id, it);
  return out;
}

/**
 * A channel's view of the published catalog, serialised once per catalog version and kept in this
 * process (a payload of one version never changes, so the memo needs no invalidation: a publish
 * moves the Redis pointer to a new version and the next read builds the new view). The hot path of a
 * read is one small Redis GET for the version; Redis errors fall back to the database.
 */
const views = new Map<string, string>();
const MAX_VIEWS = 256;

export async function readChannelView(
  tdb: TenantDb,
  redis: Redis,
  merchantId: string,
  locationId: string,
  channel: string,
  project: (menu: PublishedMenu | null) => unknown,
): Promise<string> {
  let version: number | null = null;
  try {
    const current = await redis.get(pointerKey(merchantId, locationId));
    if (current !== null) version = Number(current);
  } catch {
    version = null;
  }
  const memo = (v: number) => `${merchantId}:${locationId}:${v}:${channel}`;
  if (version !== null) {
    const hit = views.get(memo(version));
    if (hit !== undefined) return hit;
  }
  const catalog = await readPublishedCatalog(tdb, redis, merchantId, locationId);
  const json = JSON.stringify(project(catalog.menu));
  if (views.size >= MAX_VIEWS) views.delete(views.keys().next().value!);
  views.set(memo(catalog.version), json);
  return json;
}
