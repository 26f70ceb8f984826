import { bindTenant, type CentralDb } from '@pos/db';
import { REGISTER_PERMISSIONS, CASHIER_PERMISSIONS } from '@pos/domain/permissions';
import { createMerchant, dropMerchant } from '../merchants/create-merchant.ts';
import { writePublished } from '../catalog/published/published-catalog.ts';
import { CHANNEL_DEFAULTS } from '../online-ordering/channel-settings.ts';
import { syncListing } from '../online-ordering/restaurant-suggestions.ts';
import { hashSecret, pinFingerprint, randomCode, randomDigits, randomSecret } from '../security/passwords.ts';

export interface DemoSeedOptions {
  slug: string;
  reset: boolean;
  apiKey: string;
  pinPepper: string;
  now?: Date;
}

/** CONTRACTS 1: the one JSON object `bun run seed:demo` prints. */
export interface DemoSeedResult {
  api_key: string;
  merchant: { id: string; slug: string; tenant_database: string };
  backoffice: { email: string; password: string };
  locations: { id: string; name: string; timezone: string }[];
  devices: { id: string; type: 'pos' | 'kiosk' | 'kds'; location_id: string; activation_code: string }[];
  staff: { role: 'manager' | 'cashier'; name: string; pin: string }[];
  items: { id: string; name: string; unit_price: number; vat_rate: number }[];
  drawers: { id: string; name: string; kind: 'physical' | 'virtual' }[];
  /** CONTRACTS 7: the kiosk device with its card-b terminal and platform-a device id. */
  kiosk: { device_id: string; card_b_terminal_id: string; platform_a_device_id: string };
  /** CONTRACTS 7: the KDS device and the station it is bound to, a station serving every category. */
  kds: { device_id: string; station_id: string };
  /** CONTRACTS 7: table sections for table QR ordering (one of 20 tables at location [0]). */
  table_sections: { id: string; location_id: string; tables: number }[];
  /** CONTRACTS 7: online ordering on at location [0] (every day, all day; card-a payments). */
  online_ordering: { slug: string; location_id: string };
}

export class SeedExistsError extends Error {
  constructor(slug: string) {
    super(`Merchant "${slug}" already exists; pass --reset to recreate it.`);
  }
}

const uuid = () => Bun.randomUUIDv7();

const DEMO_ITEMS = [
  { name: 'Espresso', unit_price: 280, vat_rate: 21, category: 'Drinks' },
  { name: 'Belgian beer', unit_price: 450, vat_rate: 21, category: 'Drinks' },
  { name: 'Sparkling water', unit_price: 300, vat_rate: 21, category: 'Drinks' },
  { name: 'Croissant', unit_price: 220, vat_rate: 6, category: 'Food' },
  { name: 'Fries with mayonnaise', unit_price: 395, vat_rate: 6, category: 'Food' },
  { name: 'Spaghetti bolognese', unit_price: 1450, vat_rate: 12, category: 'Food' },
] as const;

/** Creates (or with `reset`, recreates) the demo merchant of CONTRACTS 1. */
export async function seedDemo(db: CentralDb, opts: DemoSeedOptions): Promise<DemoSeedResult> {
  const existing = await db.selectFrom('merchants').select(['id', 'tenant_database']).where('slug', '=', opts.slug).executeTakeFirst();
  if (existing) {
    if (!opts.reset) throw new SeedExistsError(opts.slug);
    await dropMerchant(db, existing);
  }
  const now = opts.now ?? new Date();
  const title = opts.slug === 'demo' ? 'Demo Bistro' : `Demo ${opts.slug}`;
  const merchant = await createMerchant(db, { slug: opts.slug, name: title, posProvider: 'firstparty', isTest: true });
  const tdb = bindTenant(db, merchant.tenant_database);

  const email = `owner@${opts.slug}.example.com`;
  const password = randomSecret(12);
  const kdsStationId = uuid();
  const userId = uuid();
  const locations = [
    { id: uuid(), name: `${title} Centre`, timezone: 'Europe/Brussels' },
    { id: uuid(), name: `${title} Station`, timezone: 'Europe/Brussels' },
  ];
  const register = locations[0]!;
  const tableSections: DemoSeedResult['table_sections'] = [{ id: uuid(), location_id: register.id, tables: 20 }];
  const devices: DemoSeedResult['devices'] = (['pos', 'pos', 'kiosk', 'kds'] as const).map((type) => ({
    id: uuid(),
    type,
    location_id: register.id,
    activation_code: randomCode(8),
  }));
  const pins = new Set<string>();
  while (pins.size < 2) pins.add(randomDigits(4));
  const [managerPin, cashierPin] = [...pins] as [string, string];
  const staff: DemoSeedResult['staff'] = [
    { role: 'manager', name: 'Marie Manager', pin: managerPin },
    { role: 'cashier', name: 'Carl Cashier', pin: cashierPin },
  ];
  const items = DEMO_ITEMS.map((i) => ({ id: uuid(), ...i }));
  const terminalSuffix = crypto.randomUUID().replaceAll('-', '').slice(0, 12).toUpperCase();
  const kioskTerminals = {
    card_b_terminal_id: `CB${terminalSuffix}`,
    card_a_reader_id: `tmr_${terminalSuffix}`,
    platform_a_device_id: `PA-${terminalSuffix}`,
  };
  const drawers: DemoSeedResult['drawers'] = [{ id: uuid(), name: 'Main drawer', kind: 'physical' }];
  const passwordHash = await hashSecret(password);
  const staffRows = await Promise.all(
    staff.map(async (s) => ({
      id: uuid(),
      name: s.name,
      role: s.role,
      pin_hash: await hashSecret(s.pin),
      pin_fingerprint: pinFingerprint(opts.pinPepper, merchant.tenant_database, s.pin),
      permissions: s.role === 'manager' ? [...REGISTER_PERMISSIONS] : [...CASHIER_PERMISSIONS],
    })),
  );
  const subscriptionUntil = new Date(now.getTime() + 365 * 24 * 3600 * 1000);

  const onlineSettings = { ...CHANNEL_DEFAULTS.online_ordering, enabled: true, opening_hours: ([1, 2, 3, 4, 5, 6, 7] as const).map((day) => ({ day, open: '00:00', close: '00:00' })) };
  await db.transaction().execute(async (ctx) => {
    await ctx
      .insertInto('users')
      .values({ id: userId, email, password_hash: passwordHash, name: 'Demo Owner', business_info: JSON.stringify({}), email_verified_at: now, active_merchant_id: merchant.id })
      .execute();
    await ctx.insertInto('memberships').values({ user_id: userId, merchant_id: merchant.id, is_owner: true }).execute();
    await ctx
      .insertInto('device_registry')
      .values(devices.map((d) => ({ id: d.id, merchant_id: merchant.id, type: d.type, activation_code: d.activation_code })))
      .execute();

    const tx = bindTenant(ctx as unknown as CentralDb, merchant.tenant_database);
    await tx
      .insertInto('locations')
      .values(
        locations.map((l, i) => ({
          ...l,
          address: i === 0 ? 'Grote Markt 1, 1000 Brussels' : 'Stationsplein 2, 2000 Antwerp',
          country: 'BE',
          vat_no: 'BE0123456789',
          est_no: i === 0 ? '2123456789' : '2123456790',
          pos_tenders: JSON.stringify(
            i === 0
              ? {
                  enabled: ['card', 'meal_voucher', 'gift_voucher'],
                  issuers: { card_debit: ['Bancontact'], card_credit: ['Visa', 'Mastercard'], meal_voucher: ['Pluxee'], gift_voucher: [] },
                }
              : {},
          ),
        })),
      )
      .execute();
    const ownerRole = uuid();
    await tx.insertInto('roles').values({ id: ownerRole, name: 'Owner', is_owner: true, permissions: [] }).execute();
    await tx.insertInto('user_roles').values({ user_id: userId, role_id: ownerRole }).execute();
    await tx.insertInto('user_locations').values(locations.map((l) => ({ user_id: userId, location_id: l.id }))).execute();
    await tx
      .insertInto('devices')
      .values(
        devices.map((d, i) => ({
          id: d.id,
          location_id: d.location_id,
          type: d.type,
          name: `${d.type.toUpperCase()} ${i + 1}`,
          network_info: JSON.stringify({}),
          subscription_active_until: d.type === 'kiosk' || d.type === 'kds' ? subscriptionUntil : null,
          ...(d.type === 'kiosk' ? kioskTerminals : {}),
        })),
      )
      .execute();
    await tx.insertInto('staff_credentials').values(staffRows).execute();
    await tx
      .insertInto('tax_rates')
      .values([21, 12, 6, 0].map((rate) => ({ id: uuid(), name: `VAT ${rate}%`, rate, country: 'BE' })))
      .execute();
    const categories = ['Drinks', 'Food'].map((name, position) => ({ id: uuid(), name, position }));
    await tx.insertInto('categories').values(categories).execute();
    // CONTRACTS 7 `kds`: a station at the KDS device's location serving every category, the device bound to it.
    const kdsDevice = devices.find((d) => d.type === 'kds')!;
    await tx
      .insertInto('kitchen_stations')
      .values({ id: kdsStationId, location_id: kdsDevice.location_id, name: 'Kitchen', category_ids: categories.map((c) => c.id), created_at: now, updated_at: now })
      .execute();
    await tx.updateTable('devices').set({ station_id: kdsStationId }).where('id', '=', kdsDevice.id).execute();
    await tx
      .insertInto('items')
      .values(items.map((it) => ({ ...it, category_id: categories.find((c) => c.name === it.category)!.id })))
      .execute();
    const menuId = uuid();
    await tx.insertInto('menus').values({ id: menuId, location_id: register.id, name: 'All day', status: 'published', published_at: now }).execute();
    const groups = ['Drinks', 'Food'].map((name, position) => ({ id: uuid(), menu_id: menuId, name, position }));
    await tx.insertInto('display_groups').values(groups).execute();
    await tx
      .insertInto('display_group_items')
      .values(items.map((it, position) => ({ display_group_id: groups.find((g) => g.name === it.category)!.id, item_id: it.id, position })))
      .execute();
    // What the channels read: the published catalog of the register location.
    await writePublished(tx, register.id, menuId);
    await tx
      .insertInto('drawers')
      .values(drawers.map((d) => ({ ...d, location_id: register.id, fiscal_identity: JSON.stringify({ drawerId: d.id, drawerName: d.name }) })))
      .execute();
    const fdmId = `FDM-${merchant.tenant_database.slice(-8).toUpperCase()}-1`;
    await tx.insertInto('fdm_devices').values({ id: uuid(), location_id: register.id, fdm_id: fdmId, regime: 'gks', status: 'active', mode: 'software' }).execute();
    // Module ids are platform-wide (central `fdm_registry`): another merchant cannot enrol this one.
    await ctx.insertInto('fdm_registry').values({ fdm_id: fdmId, merchant_id: merchant.id }).execute();
    // A points program at the register location (issue 14): 1 point per euro, so a kiosk customer's balance grows.
    await tx.insertInto('loyalty_programs').values({ location_id: register.id, points_per_euro: 1, created_at: now, updated_at: now }).execute();
    // CONTRACTS 7 `table_sections`: a section of 20 tables at location [0], in the central QR directory too.
    await tx.insertInto('table_sections').values(tableSections.map((t) => ({ ...t, name: 'Dining room', created_at: now, updated_at: now }))).execute();
    await ctx.insertInto('table_qr_directory').values(tableSections.map((t) => ({ table_section_id: t.id, merchant_id: merchant.id, location_id: t.location_id }))).execute();
    // Online ordering at the register location (issue 16): open around the clock ('00:00' to '00:00' is a 24-hour window).
    await tx
      .insertInto('channel_settings')
      .values({ location_id: register.id, kind: 'online_ordering', settings: JSON.stringify(onlineSettings), updated_at: now })
      .execute();
    // Table QR ordering on where the table section is (a table order needs it: the default is off).
    await tx
      .insertInto('channel_settings')
      .values({ location_id: register.id, kind: 'qr_ordering', settings: JSON.stringify({ enabled: true }), updated_at: now })
      .execute();
  });
  // Listed in the restaurant suggestions like any location with online ordering on.
  await syncListing(db, merchant, register, onlineSettings, now);

  return {
    api_key: opts.apiKey,
    merchant: { id: merchant.id, slug: merchant.slug, tenant_database: merchant.tenant_database },
    backoffice: { email, password },
    locations,
    devices,
    staff,
    items: items.map(({ id, name, unit_price, vat_rate }) => ({ id, name, unit_price, vat_rate })),
    drawers,
    kiosk: { device_id: devices.find((d) => d.type === 'kiosk')!.id, card_b_terminal_id: kioskTerminals.card_b_terminal_id, platform_a_device_id: kioskTerminals.platform_a_device_id },
    kds: { device_id: devices.find((d) => d.type === 'kds')!.id, station_id: kdsStationId },
    table_sections: tableSections,
    online_ordering: { slug: merchant.slug, location_id: register.id },
  };
}
