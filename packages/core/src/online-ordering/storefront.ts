import type { Redis } from 'ioredis';
import { bindTenant, type CentralDb, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { addLocalDays, applySlotCapacity, candidateSlots, localDateOf } from '@pos/domain';
import { slotUsage } from '../payments/order-capacity.ts';
import type { PublishedMenu } from '../catalog/published/published-catalog.ts';
import { readPublishedCatalog } from '../catalog/published/read-published-catalog.ts';
import { quoteBasket, type QuoteLineInput } from '../catalog/quote-basket.ts';
import { findLocation, onlineOrderingView, readSettings, type LocationRow } from './channel-settings.ts';
import { currentTableSession, SESSION_CLOSED } from '../table-qr/table-sessions.ts';

/** The public side of online ordering: a merchant found by its slug, its locations, menus and timeslots. */
export interface Storefront {
  merchant: { id: string; slug: string; name: string };
  tdb: TenantDb;
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The merchant of a public slug, bound to its tenant store; an unknown slug is 404 `restaurant`. */
export async function storefrontOf(db: CentralDb, slug: string): Promise<Storefront> {
  const m = SLUG.test(slug) ? await db.selectFrom('merchants').select(['id', 'slug', 'name', 'tenant_database']).where('slug', '=', slug).executeTakeFirst() : undefined;
  if (!m) throw errors.notFound('restaurant');
  return { merchant: { id: m.id, slug: m.slug, name: m.name }, tdb: bindTenant(db, m.tenant_database) };
}

/** A location of the storefront that takes online orders (active, online ordering on); otherwise 404 `location`. */
export async function onlineLocation(sf: Storefront, locationId: string): Promise<{ loc: LocationRow; view: ReturnType<typeof onlineOrderingView> }> {
  const loc = await findLocation(sf.tdb, locationId);
  if (loc.status !== 'active') throw errors.notFound('location');
  const s = await readSettings(sf.tdb, loc.id, 'online_ordering');
  if (!s.settings.enabled) throw errors.notFound('location');
  return { loc, view: onlineOrderingView(loc, s, new Date()) };
}

/** A location taking table QR orders (active, its `qr_ordering.enabled`); otherwise 404 `location`. */
export async function tableQrLocation(sf: Storefront, locationId: string): Promise<{ loc: LocationRow; view: null }> {
  const loc = await findLocation(sf.tdb, locationId);
  if (loc.status !== 'active' || !(await readSettings(sf.tdb, loc.id, 'qr_ordering')).settings.enabled) throw errors.notFound('location');
  return { loc, view: null };
}

/** A table session of the location still open for orders: unknown is 404 `table session`, closed (or idle, closed now) a 422 `session_closed`. */
export async function requireOpenTableSession(sf: Storefront, locationId: string, sessionId: string, now: Date): Promise<void> {
  const session = await currentTableSession(sf.tdb, locationId, sessionId, now);
  if (!session) throw errors.notFound('table session');
  if (session.status !== 'open') throw errors.businessRule(SESSION_CLOSED, { reason: 'session_closed' });
}

/** The online-ordering part of a published menu: only items sold online, empty groups left out. */
export function onlineMenu(menu: PublishedMenu | null) {
  if (!menu || !menu.channels.includes('online_ordering')) return null;
  return {
    menu_id: menu.menu_id,
    name: menu.name,
    display_groups: menu.display_groups
      .map((g) => ({ ...g, items: g.items.filter((it) => it.channels.includes('online_ordering')) }))
      .filter((g) => g.items.length > 0),
  };
}

/** `GET /online-ordering/{slug}`: the merchant and every location with online ordering on, each with hours, channels and menu. */
export async function describeStorefront(db: CentralDb, redis: Redis, slug: string, now: Date) {
  const sf = await storefrontOf(db, slug);
  const locs = await sf.tdb.selectFrom('locations').select(['id', 'name', 'address', 'country', 'timezone', 'status']).where('status', '=', 'active').orderBy('name').orderBy('id').execute();
  const locations = [];
  for (const loc of locs) {
    const s = await readSettings(sf.tdb, loc.id, 'online_ordering');
    if (!s.settings.enabled) continue;
    const v = onlineOrderingView(loc, s, now);
    const catalog = await readPublishedCatalog(sf.tdb, redis, sf.merchant.id, loc.id);
    locations.push({
      id: loc.id,
      name: loc.name,
      address: loc.address,
      country: loc.country,
      timezone: loc.timezone,
      opening_hours: v.opening_hours,
      open_now: v.open_now,
      snoozed_until: v.snoozed_until,
      preparation_minutes: v.preparation_minutes,
      minimum_order: v.minimum_order,
      channels: { pickup: v.pickup, delivery: v.delivery },
      menu: onlineMenu(catalog.menu),
    });
  }
  return { merchant: { slug: sf.merchant.slug, name: sf.merchant.name }, locations };
}

/**
 * `POST …/available-timeslots`: the slots of a business day (today in the location's zone when no date
 * is sent) within `max_days_ahead`, each with the orders it still takes. A date outside that range
 * is 422 on `date`. Yesterday is in range too: a window crossing midnight lists its after-midnight slots
 * under the day it opened, so after midnight they are yesterday's (and without a date they come first).
 */
export async function availableTimeslots(db: CentralDb, slug: string, locationId: string, date: string | undefined, now: Date) {
  const sf = await storefrontOf(db, slug);
  const { loc } = await onlineLocation(sf, locationId);
  const { settings, snoozed_until } = await readSettings(sf.tdb, loc.id, 'online_ordering');
  const today = localDateOf(now, loc.timezone);
  const yesterday = addLocalDays(today, -1);
  const day = date ?? today;
  if (day < yesterday || day > addLocalDays(today, settings.max_days_ahead)) {
    throw errors.field('date', `The date must be between ${yesterday} and ${addLocalDays(today, settings.max_days_ahead)}.`);
  }
  const rules = { timeZone: loc.timezone, hours: settings.opening_hours, preparationMinutes: settings.preparation_minutes, snoozedUntil: snoozed_until };
  // candidateSlots leaves out what has started: of yesterday's windows only their slots still to come.
  const merged = [...(date === undefined ? candidateSlots(rules, yesterday, now) : []), ...candidateSlots(rules, day, now)];
  // A window of today opening at midnight may list a slot yesterday's crossing window lists too: once.
  const slots = merged.filter((s, i) => merged.findIndex((x) => x.start.getTime() === s.start.getTime()) === i).sort((a, b) => a.start.getTime() - b.start.getTime());
  const taken = settings.slot_capacity > 0 && slots.length > 0 ? await slotUsage(sf.tdb, loc.id, slots[0]!.start, slots[slots.length - 1]!.start, now) : new Map<number, number>();
  return {
    location_id: loc.id,
    date: day,
    timezone: loc.timezone,
    slots: applySlotCapacity(slots, settings.slot_capacity, taken).map((s) => ({ start: s.start.toISOString(), end: s.end.toISOString(), time: s.local, remaining: s.remaining })),
  };
}

/**
 * `POST …/offers/validate`: the basket priced with the location's active offers (the one pricing
 * function), so the storefront shows which offers apply and the discount before paying. A guest at a
 * table (`table_session_id`) is priced as their payment will be: on the table QR channel, under its
 * setting, in an open session. The payment prices the same basket again; nothing is stored.
 */
export async function validateOnlineOffers(db: CentralDb, redis: Redis, slug: string, locationId: string, input: { lines: readonly QuoteLineInput[]; table_session_id?: string }, now: Date) {
  const sf = await storefrontOf(db, slug);
  const tableQr = input.table_session_id !== undefined;
  const { loc } = tableQr ? await tableQrLocation(sf, locationId) : await onlineLocation(sf, locationId);
  if (tableQr) await requireOpenTableSession(sf, loc.id, input.table_session_id!, now);
  const q = await quoteBasket({ tdb: sf.tdb, redis, merchantId: sf.merchant.id, now }, { locationId: loc.id, channel: tableQr ? 'qr_ordering' : 'online_ordering' }, input.lines);
  return { location_id: loc.id, subtotal: q.subtotal, discount: q.discount, vat: q.vat, total: q.total, offers: q.offers };
}
