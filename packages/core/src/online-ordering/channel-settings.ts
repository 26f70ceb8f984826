import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { isOpenAt, type OpeningWindow } from '@pos/domain';
import { isUuid } from '@pos/domain/ids';

/**
 * Channel settings of a location (spec 1 "Online ordering and table QR ordering"), one document per
 * kind in `channel_settings`. A location without a row reads the defaults; a PUT merges the fields it
 * sends over the stored ones (validated by the route schema) and answers the whole document.
 */
export type ChannelKind = 'online_ordering' | 'online' | 'in_house' | 'qr_ordering';

export interface OnlineOrderingSettings {
  enabled: boolean;
  pickup: boolean;
  delivery: boolean;
  opening_hours: OpeningWindow[];
  preparation_minutes: number;
  /** Orders per 15-minute slot; 0 = unlimited. */
  slot_capacity: number;
  /** How many days ahead a customer may order. */
  max_days_ahead: number;
  /** Smallest basket total, cents. */
  minimum_order: number;
  /** card-a local-debit payments: a payment intent (needs the customer's full name) rather than a hosted checkout. */
  local_debit_intent: boolean;
  /** Where the restaurant is, for nearby suggestions (null = not suggested by distance). */
  latitude: number | null;
  longitude: number | null;
  /** Cuisine categories shown in restaurant suggestions. */
  categories: string[];
}

export interface OnlineSettings {
  welcome_message: string;
  allow_guest_checkout: boolean;
  allow_tips: boolean;
  allow_notes: boolean;
}

export interface InHouseSettings {
  dine_in: boolean;
  takeaway: boolean;
  ask_customer_name: boolean;
  ask_table_number: boolean;
}

export interface QrOrderingSettings {
  enabled: boolean;
  pay_at_table: boolean;
  allow_guest_checkout: boolean;
}

export interface SettingsByKind {
  online_ordering: OnlineOrderingSettings;
  online: OnlineSettings;
  in_house: InHouseSettings;
  qr_ordering: QrOrderingSettings;
}

const everyDay = (open: string, close: string): OpeningWindow[] => ([1, 2, 3, 4, 5, 6, 7] as const).map((day) => ({ day, open, close }));

export const CHANNEL_DEFAULTS: { [K in ChannelKind]: SettingsByKind[K] } = {
  online_ordering: {
    enabled: false,
    pickup: true,
    delivery: false,
    opening_hours: everyDay('11:00', '22:00'),
    preparation_minutes: 20,
    slot_capacity: 0,
    max_days_ahead: 7,
    minimum_order: 0,
    local_debit_intent: true,
    latitude: null,
    longitude: null,
    categories: [],
  },
  online: { welcome_message: '', allow_guest_checkout: true, allow_tips: true, allow_notes: true },
  in_house: { dine_in: true, takeaway: true, ask_customer_name: false, ask_table_number: false },
  qr_ordering: { enabled: false, pay_at_table: true, allow_guest_checkout: true },
};


export interface LocationRow {
  id: string;
  name: string;
  address: string | null;
  country: string;
  timezone: string;
  /** `active` or `inactive` (settings > locations): an inactive location takes no new orders from the storefront. */
  status: string;
}

/**
 * The location of this tenant, or 404 `location`. `share`: held until the caller's transaction ends, so
 * a delete, rename or status change in flight commits first (and is read) or waits for the caller.
 */
export async function findLocation(tdb: TenantDb, locationId: string, opts: { share?: boolean } = {}): Promise<LocationRow> {
  const q = tdb.selectFrom('locations').select(['id', 'name', 'address', 'country', 'timezone', 'status']).where('id', '=', locationId);
  const loc = isUuid(locationId) ? await (opts.share ? q.forShare() : q).executeTakeFirst() : undefined;
  if (!loc) throw errors.notFound('location');
  return loc;
}

export interface StoredSettings<K extends ChannelKind> {
  settings: SettingsByKind[K];
  snoozed_until: Date | null;
  updated_at: Date | null;
}

export async function readSettings<K extends ChannelKind>(tdb: TenantDb, locationId: string, kind: K): Promise<StoredSettings<K>> {
  const row = await tdb.selectFrom('channel_settings').select(['settings', 'snoozed_until', 'updated_at']).where('location_id', '=', locationId).where('kind', '=', kind).executeTakeFirst();
  const settings = { ...CHANNEL_DEFAULTS[kind], ...((row?.settings ?? {}) as Partial<SettingsByKind[K]>) } as SettingsByKind[K];
  return { settings, snoozed_until: row?.snoozed_until ?? null, updated_at: row?.updated_at ?? null };
}

/**
 * Merges `patch` over the stored document (fields not sent keep their values), the location read under
 * a share lock in the same transaction: a delete in flight is the 404 (before: the insert hit the foreign
 * key, a 500), a rename or status change is read as committed. `after` runs in that transaction with the
 * location and the saved settings (the online-ordering listing follows them there).
 */
export async function writeSettings<K extends ChannelKind>(
  tdb: TenantDb,
  locationId: string,
  kind: K,
  patch: Partial<SettingsByKind[K]>,
  now: Date,
  after?: (tx: TenantDb, loc: LocationRow, saved: StoredSettings<K>) => Promise<void>,
): Promise<StoredSettings<K>> {
  await findLocation(tdb, locationId);
  return tdb.transaction().execute(async (tx) => {
    const loc = await findLocation(tx, locationId, { share: true });
    // The row is made first (the defaults, as read without one), so there is always a row to lock: two
    // saves of different fields on a location without stored settings merge instead of one overwriting the other.
    await tx
      .insertInto('channel_settings')
      .values({ location_id: locationId, kind, settings: JSON.stringify(CHANNEL_DEFAULTS[kind]), updated_at: now })
      .onConflict((oc) => oc.columns(['location_id', 'kind']).doNothing())
      .execute();
    const current = await tx.selectFrom('channel_settings').select('settings').where('location_id', '=', locationId).where('kind', '=', kind).forUpdate().executeTakeFirstOrThrow();
    const next = { ...CHANNEL_DEFAULTS[kind], ...(current.settings as object), ...patch };
    await tx.updateTable('channel_settings').set({ settings: JSON.stringify(next), updated_at: now }).where('location_id', '=', locationId).where('kind', '=', kind).execute();
    const saved = await readSettings(tx, locationId, kind);
    if (after) await after(tx, loc, saved);
    return saved;
  });
}

/** Pauses online ordering for `minutes` from now; 0 lifts the snooze. */
export async function snoozeOnlineOrdering(tdb: TenantDb, locationId: string, minutes: number, now: Date): Promise<StoredSettings<'online_ordering'>> {
  await findLocation(tdb, locationId);
  const until = minutes > 0 ? new Date(now.getTime() + minutes * 60_000) : null;
  return tdb.transaction().execute(async (tx) => {
    // As `writeSettings`: a location deleted meanwhile is the 404, not a foreign-key 500.
    await findLocation(tx, locationId, { share: true });
    await tx
      .insertInto('channel_settings')
      .values({ location_id: locationId, kind: 'online_ordering', settings: JSON.stringify(CHANNEL_DEFAULTS.online_ordering), snoozed_until: until, updated_at: now })
      .onConflict((oc) => oc.columns(['location_id', 'kind']).doUpdateSet({ snoozed_until: until, updated_at: now }))
      .execute();
    return readSettings(tx, locationId, 'online_ordering');
  });
}

/** The answer body of the online-ordering settings: the document, the snooze (ISO or null) and whether it is open now. */
export function onlineOrderingView(loc: LocationRow, s: StoredSettings<'online_ordering'>, now: Date) {
  const snoozed = s.snoozed_until && s.snoozed_until.getTime() > now.getTime() ? s.snoozed_until : null;
  return {
    location_id: loc.id,
    ...s.settings,
    snoozed_until: snoozed ? snoozed.toISOString() : null,
    open_now: s.settings.enabled && isOpenAt({ timeZone: loc.timezone, hours: s.settings.opening_hours, snoozedUntil: snoozed }, now),
  };
}

export interface ChannelEntry {
  channel: string;
  enabled: boolean;
}

/** In-house ordering channels of a location: register and kiosk (by their live devices), table QR (by its setting). */
export async function inHouseChannels(tdb: TenantDb, locationId: string): Promise<ChannelEntry[]> {
  await findLocation(tdb, locationId);
  const devices = await tdb.selectFrom('devices').select('type').distinct().where('location_id', '=', locationId).where('deleted_at', 'is', null).execute();
  const types = new Set(devices.map((d) => d.type));
  const qr = await readSettings(tdb, locationId, 'qr_ordering');
  return [
    { channel: 'pos', enabled: types.has('pos') },
    { channel: 'kiosk', enabled: types.has('kiosk') },
    { channel: 'qr_ordering', enabled: qr.settings.enabled },
  ];
}

/** Online ordering channels: pickup and delivery of online ordering (both off while it is disabled). */
export async function onlineChannels(tdb: TenantDb, locationId: string): Promise<ChannelEntry[]> {
  await findLocation(tdb, locationId);
  const { settings } = await readSettings(tdb, locationId, 'online_ordering');
  return [
    { channel: 'pickup', enabled: settings.enabled && settings.pickup },
    { channel: 'delivery', enabled: settings.enabled && settings.delivery },
  ];
}
