import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, createDatabase, migrateCentral, type DatabaseHandle } from '@pos/db';
import { REGISTER_PERMISSIONS } from '@pos/domain/permissions';
import { dropMerchant } from '../merchants/create-merchant.ts';
import { verifySecret } from '../security/passwords.ts';
import { SeedExistsError, seedDemo, type DemoSeedResult } from './demo-seed.ts';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';
let h: DatabaseHandle;
const slug = `seed-${crypto.randomUUID().slice(0, 8)}`;
const opts = { slug, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) };
let seeded: DemoSeedResult;

beforeAll(async () => {
  h = createDatabase(URL, { max: 4 });
  await migrateCentral(h.db);
  seeded = await seedDemo(h.db, opts);
});
afterAll(async () => {
  const m = await h.db.selectFrom('merchants').select(['id', 'tenant_database']).where('slug', '=', slug).executeTakeFirst();
  if (m) await dropMerchant(h.db, m);
  await h.close();
});

describe('demo seed (CONTRACTS 1)', () => {
  test('prints the contract shape', () => {
    expect(Object.keys(seeded).sort()).toEqual(['api_key', 'backoffice', 'devices', 'drawers', 'items', 'kds', 'kiosk', 'locations', 'merchant', 'online_ordering', 'staff', 'table_sections'].sort());
    expect(seeded.api_key).toBe(opts.apiKey);
    expect(seeded.merchant.slug).toBe(slug);
    expect(seeded.locations.length).toBeGreaterThanOrEqual(2);
    expect(seeded.locations.every((l) => l.timezone === 'Europe/Brussels')).toBe(true);
    const reg = seeded.locations[0]!.id;
    const types = seeded.devices.filter((d) => d.location_id === reg).map((d) => d.type);
    expect(types.filter((t) => t === 'pos').length).toBeGreaterThanOrEqual(2);
    expect(types).toContain('kiosk');
    expect(types).toContain('kds');
    expect(seeded.staff.map((s) => s.role)).toEqual(['manager', 'cashier']);
    expect(seeded.items.length).toBeGreaterThanOrEqual(5);
    expect(new Set(seeded.items.map((i) => i.vat_rate))).toContain(6);
    expect(new Set(seeded.items.map((i) => i.vat_rate))).toContain(21);
    expect(seeded.drawers[0]!.kind).toBe('physical');
  });

  test('stores what it prints: merchant marker, owner, devices, hashed PINs, menu, tenders, enrolment', async () => {
    const m = await h.db.selectFrom('merchants').selectAll().where('slug', '=', slug).executeTakeFirstOrThrow();
    expect(m.pos_provider).toBe('firstparty');
    expect(m.is_test).toBe(true);
    const user = await h.db.selectFrom('users').selectAll().where('email', '=', seeded.backoffice.email).executeTakeFirstOrThrow();
    expect(await verifySecret(seeded.backoffice.password, user.password_hash)).toBe(true);
    expect(user.email_verified_at).not.toBeNull();
    const tdb = bindTenant(h.db, m.tenant_database);
    const devices = await tdb.selectFrom('devices').selectAll().execute();
    expect(devices.length).toBe(seeded.devices.length);
    for (const d of devices.filter((d) => d.type === 'kiosk' || d.type === 'kds')) expect(d.subscription_active_until!.getTime()).toBeGreaterThan(Date.now());
    // CONTRACTS 7: the kiosk key names the kiosk device and its terminals, as stored.
    const kiosk = devices.find((d) => d.type === 'kiosk')!;
    expect(Object.keys(seeded.kiosk).sort()).toEqual(['card_b_terminal_id', 'device_id', 'platform_a_device_id']);
    expect(seeded.kiosk).toEqual({ device_id: kiosk.id, card_b_terminal_id: kiosk.card_b_terminal_id!, platform_a_device_id: kiosk.platform_a_device_id! });
    expect(seeded.kiosk.card_b_terminal_id).toMatch(/^CB[0-9A-F]{12}$/);
    expect(kiosk.card_a_reader_id).toMatch(/^tmr_[0-9A-F]{12}$/);
    // CONTRACTS 7: the kds key names the KDS device and its station, which serves every category.
    const kds = devices.find((d) => d.type === 'kds')!;
    expect(seeded.kds).toEqual({ device_id: kds.id, station_id: kds.station_id! });
    const station = await tdb.selectFrom('kitchen_stations').selectAll().where('id', '=', seeded.kds.station_id).executeTakeFirstOrThrow();
    const categoryIds = (await tdb.selectFrom('categories').select('id').execute()).map((c) => c.id).sort();
    expect(station.location_id).toBe(kds.location_id);
    expect([...station.category_ids].sort()).toEqual(categoryIds);
    // CONTRACTS 7: online ordering on at location [0], open every day around the clock.
    expect(seeded.online_ordering).toEqual({ slug: seeded.merchant.slug, location_id: seeded.locations[0]!.id });
    const online = await tdb.selectFrom('channel_settings').selectAll().where('kind', '=', 'online_ordering').execute();
    expect(online.map((r) => r.location_id)).toEqual([seeded.locations[0]!.id]);
    expect(online[0]!.settings).toMatchObject({ enabled: true, opening_hours: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: '00:00', close: '00:00' })) });
    const listing = await h.db.selectFrom('restaurant_listings').select(['location_id', 'slug', 'listed']).where('merchant_id', '=', m.id).execute();
    expect(listing).toEqual([{ location_id: seeded.locations[0]!.id, slug: seeded.merchant.slug, listed: true }]);
    const codes = await h.db.selectFrom('device_registry').select('activation_code').where('merchant_id', '=', m.id).execute();
    expect(codes.map((c) => c.activation_code).sort()).toEqual(seeded.devices.map((d) => d.activation_code).sort());
    const staff = await tdb.selectFrom('staff_credentials').selectAll().orderBy('role', 'desc').execute();
    expect(staff.map((s) => s.role)).toEqual(['manager', 'cashier']);
    expect(staff[0]!.pin_hash).not.toContain(seeded.staff[0]!.pin);
    expect(await verifySecret(seeded.staff[0]!.pin, staff[0]!.pin_hash)).toBe(true);
    expect([...staff[0]!.permissions].sort()).toEqual([...REGISTER_PERMISSIONS].sort());
    expect([...staff[1]!.permissions].sort()).toEqual(['count_till', 'open_till', 'settle', 'take_orders']);
    const loc = await tdb.selectFrom('locations').selectAll().where('id', '=', seeded.locations[0]!.id).executeTakeFirstOrThrow();
    expect(loc.pos_tenders).toEqual({
      enabled: ['card', 'meal_voucher', 'gift_voucher'],
      issuers: { card_debit: ['Bancontact'], card_credit: ['Visa', 'Mastercard'], meal_voucher: ['Pluxee'], gift_voucher: [] },
    });
    const menu = await tdb.selectFrom('menus').selectAll().where('location_id', '=', loc.id).where('status', '=', 'published').execute();
    expect(menu.length).toBe(1);
    const onMenu = await tdb.selectFrom('display_group_items').innerJoin('display_groups', 'display_groups.id', 'display_group_items.display_group_id').select('item_id').where('menu_id', '=', menu[0]!.id).execute();
    expect(onMenu.length).toBe(seeded.items.length);
    const fdm = await tdb.selectFrom('fdm_devices').selectAll().where('location_id', '=', loc.id).execute();
    expect(fdm.map((f) => f.status)).toEqual(['active']);
  });

  test('a second run with the same slug refuses; --reset recreates from scratch', async () => {
    expect(seedDemo(h.db, opts)).rejects.toBeInstanceOf(SeedExistsError);
    const again = await seedDemo(h.db, { ...opts, reset: true });
    expect(again.merchant.id).not.toBe(seeded.merchant.id);
    expect(again.merchant.tenant_database).not.toBe(seeded.merchant.tenant_database);
    const schemas = await h.db.selectFrom('merchants').select('tenant_database').where('slug', '=', slug).execute();
    expect(schemas).toEqual([{ tenant_database: again.merchant.tenant_database }]);
    seeded = again;
  });
});
