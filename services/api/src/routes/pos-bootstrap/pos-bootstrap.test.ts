import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let device: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('bootstrap');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  device = await api.deviceToken(m, 'pos', 0);
});
afterAll(() => api.close());

const itemsNamed = (...names: string[]) =>
  names.map((name) => {
    const it = m.items.find((i) => i.name === name)!;
    return { id: it.id, name, unit_price: it.unit_price, vat_rate: it.vat_rate, modifiers: [] };
  });

describe('GET /pos/bootstrap', () => {
  test('answers the device, its location (normalised pos_tenders, fiscal device) and the published menu, without a staff session', async () => {
    const r = await api.call('GET', '/api/pos/bootstrap', { token: device, deviceKey: true });
    expect(r.status).toBe(200);
    const loc = m.locations[0]!;
    expect(r.body).toEqual({
      device: { id: m.devices[0]!.id, name: 'POS 1', type: 'pos', location_id: loc.id },
      location: {
        id: loc.id,
        name: loc.name,
        timezone: 'Europe/Brussels',
        pos_tenders: {
          enabled: ['card', 'meal_voucher', 'gift_voucher'],
          issuers: { card_debit: ['Bancontact'], card_credit: ['Visa', 'Mastercard'], meal_voucher: ['Pluxee'], gift_voucher: [] },
        },
        fiscal_device: { fdm_id: expect.stringMatching(/^FDM-/), regime: 'gks', status: 'active', signing: true },
      },
      display_groups: [
        { id: expect.any(String), name: 'Drinks', position: 0, items: itemsNamed('Espresso', 'Belgian beer', 'Sparkling water') },
        { id: expect.any(String), name: 'Food', position: 1, items: itemsNamed('Croissant', 'Fries with mayonnaise', 'Spaghetti bolognese') },
      ],
    });
  });

  test('needs the device key and a pos device token', async () => {
    expect((await api.call('GET', '/api/pos/bootstrap', { token: device })).status).toBe(401);
    expect(await api.call('GET', '/api/pos/bootstrap', { deviceKey: true })).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
    const kiosk = await api.deviceToken(m, 'kiosk');
    expect(await api.call('GET', '/api/pos/bootstrap', { token: kiosk, deviceKey: true })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
  });

  test('a location without configuration, menu or enrolment: cash only, no fiscal device, no groups; a retired enrolment does not sign', async () => {
    const id = Bun.randomUUIDv7();
    await api.deps.db.insertInto('device_registry').values({ id, merchant_id: m.merchant.id, type: 'pos', activation_code: null }).execute();
    await tdb.insertInto('devices').values({ id, location_id: m.locations[1]!.id, type: 'pos', name: 'Station till', network_info: JSON.stringify({}) }).execute();
    const reg = await api.deps.db.selectFrom('device_registry').select('token_version').where('id', '=', id).executeTakeFirstOrThrow();
    const token = await api.deps.tokens.sign({ type: 'pos', sub: id, merchant_id: m.merchant.id, tenant_database: m.merchant.tenant_database, ver: reg.token_version });
    const r = await api.call('GET', '/api/pos/bootstrap', { token, deviceKey: true });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      device: { id, name: 'Station till', type: 'pos', location_id: m.locations[1]!.id },
      location: {
        id: m.locations[1]!.id,
        name: m.locations[1]!.name,
        timezone: 'Europe/Brussels',
        pos_tenders: { enabled: [], issuers: { card_debit: [], card_credit: [], meal_voucher: [], gift_voucher: [] } },
        fiscal_device: null,
      },
      display_groups: [],
    });

    await tdb.updateTable('fdm_devices').set({ status: 'retired', retired_at: new Date() }).where('location_id', '=', m.locations[0]!.id).execute();
    const retired = await api.call('GET', '/api/pos/bootstrap', { token: device, deviceKey: true });
    expect(retired.body.location.fiscal_device).toEqual({ fdm_id: expect.stringMatching(/^FDM-/), regime: 'gks', status: 'retired', signing: false });
  });
});
