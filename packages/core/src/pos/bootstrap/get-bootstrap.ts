import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { normalisePosTenders } from '@pos/tenders';
import type Redis from 'ioredis';
import { isSigning } from '../../fiscal/active-fdm.ts';
import { readChannelView } from '../../catalog/published/read-published-catalog.ts';
import type { PublishedMenu } from '../../catalog/published/published-catalog.ts';

/** The fiscal-device block of the bootstrap; `signing` is an active Belgian-regime (`gks`) enrolment. */
export interface BootstrapFiscalDevice {
  fdm_id: string;
  regime: string;
  status: 'active' | 'retired';
  signing: boolean;
}

export interface BootstrapItem {
  id: string;
  name: string;
  unit_price: number;
  vat_rate: number;
  modifiers: unknown[];
}

export interface BootstrapDisplayGroup {
  id: string;
  name: string;
  position: number;
  items: BootstrapItem[];
}

/** The location's normalised `pos_tenders` (spec 2 "Location tender configuration"). */
export interface BootstrapTenders {
  enabled: string[];
  issuers: { card_debit: string[]; card_credit: string[]; meal_voucher: string[]; gift_voucher: string[] };
}

/** `GET /pos/bootstrap` (spec 2 section 4). */
export interface Bootstrap {
  device: { id: string; name: string; type: string; location_id: string };
  location: { id: string; name: string; timezone: string; pos_tenders: BootstrapTenders; fiscal_device: BootstrapFiscalDevice | null };
  display_groups: BootstrapDisplayGroup[];
}

function tendersOf(raw: unknown): BootstrapTenders {
  const t = normalisePosTenders(raw);
  return {
    enabled: [...t.enabled],
    issuers: { card_debit: [...t.issuers.card_debit], card_credit: [...t.issuers.card_credit], meal_voucher: [...t.issuers.meal_voucher], gift_voucher: [...t.issuers.gift_voucher] },
  };
}

/**
 * What a register needs at start: itself, its location (normalised `pos_tenders`, the location's
 * fiscal device: the active enrolment, else the latest retired one, else null) and the menu
 * (`display_groups` of the location's published catalog as sold on the register channel, read through
 * the cached published-catalog reader; groups depth-first by position; items by position; no published
 * menu gives `[]`; `modifiers` holds the item's modifier groups).
 *
 * The register's menu (`display_groups`) of a published catalog: the groups, and the items sold on the `pos` channel. */
export function registerMenu(menu: PublishedMenu | null): BootstrapDisplayGroup[] {
  if (!menu || !menu.channels.includes('pos')) return [];
  return menu.display_groups.map((g) => ({
    id: g.id,
    name: g.name,
    position: g.position,
    items: g.items
      .filter((it) => it.channels.includes('pos'))
      .map((it) => ({ id: it.id, name: it.name, unit_price: it.unit_price, vat_rate: it.vat_rate, modifiers: it.modifier_groups })),
  }));
}

/**
 * The bootstrap as JSON text. The menu part comes from the published-catalog reader as text already
 * serialised for this catalog version, so a 500-item menu is not parsed and re-serialised per request.
 */
export async function getBootstrapJson(
  db: TenantDb,
  device: { id: string; name: string; type: string; location_id: string },
  catalog: { redis: Redis; merchantId: string },
): Promise<string> {
  // The device's location id is known: the head's queries and the menu read run side by side.
  const [head, groups] = await Promise.all([bootstrapHead(db, device), readChannelView(db, catalog.redis, catalog.merchantId, device.location_id, 'pos', registerMenu)]);
  return `${JSON.stringify(head).slice(0, -1)},"display_groups":${groups}}`;
}

/** The bootstrap as an object (see `getBootstrapJson`). */
export async function getBootstrap(
  db: TenantDb,
  device: { id: string; name: string; type: string; location_id: string },
  catalog: { redis: Redis; merchantId: string },
): Promise<Bootstrap> {
  return JSON.parse(await getBootstrapJson(db, device, catalog)) as Bootstrap;
}

async function bootstrapHead(db: TenantDb, device: { id: string; name: string; type: string; location_id: string }): Promise<Omit<Bootstrap, 'display_groups'>> {
  const [location, fdm] = await Promise.all([
    db.selectFrom('locations').select(['id', 'name', 'timezone', 'pos_tenders']).where('id', '=', device.location_id).executeTakeFirst(),
    db
      .selectFrom('fdm_devices')
      .select(['id', 'location_id', 'fdm_id', 'regime', 'status', 'mode'])
      .where('location_id', '=', device.location_id)
      .orderBy((eb) => eb.case().when('status', '=', 'active').then(0).else(1).end())
      .orderBy('created_at', 'desc')
      .executeTakeFirst(),
  ]);
  if (!location) throw errors.notFound('location');

  return {
    device: { id: device.id, name: device.name, type: device.type, location_id: device.location_id },
    location: {
      id: location.id,
      name: location.name,
      timezone: location.timezone,
      pos_tenders: tendersOf(location.pos_tenders),
      fiscal_device: fdm ? { fdm_id: fdm.fdm_id, regime: fdm.regime, status: fdm.status, signing: isSigning(fdm) } : null,
    },
  };
}
