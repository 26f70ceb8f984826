import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { encryptSecret, parseTokenKey } from '@pos/core/integrations/token-crypto';
import { startRegisterCSimulator, type RegisterCSimulator } from '@pos/providers/register-c/register-c-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { tenantOf } from '../team/team.test-support.ts';

/**
 * register-c administration probed as a hostile register would: items our catalog cannot hold as
 * sent (prices, VAT rates, skus, names) must not fail the sync, nor be stored wrong.
 */
const TOKEN_KEY = 'e'.repeat(64);
const BASE = '/api/back-office/register-c';
const ACCOUNT = `acct-rc-adv-${crypto.randomUUID().slice(0, 8)}`;
const RC_LOC = `${ACCOUNT}-loc`;
const TOKEN = `tok-rc-adv-${crypto.randomUUID().slice(0, 8)}`;

let api: TestApi;
let rc: RegisterCSimulator;
let m: DemoSeedResult;
let owner: string;
let loc: string;

beforeAll(async () => {
  rc = startRegisterCSimulator({});
  rc.addAccount(ACCOUNT, [RC_LOC]);
  rc.addToken(TOKEN, ACCOUNT);
  api = await createTestApi({ env: { INTEGRATION_TOKEN_KEY: TOKEN_KEY, REGISTER_C_API_URL: rc.url } });
  m = await api.seed('register-c-adversarial');
  owner = await api.ownerToken(m);
  loc = m.locations[0]!.id;
  const now = new Date();
  const connectionId = Bun.randomUUIDv7();
  await api.deps.db
    .insertInto('integration_connections')
    .values({ id: connectionId, provider: 'register-c', external_ref: ACCOUNT, merchant_id: m.merchant.id, access_token_encrypted: encryptSecret(parseTokenKey(TOKEN_KEY)!, TOKEN), settings: JSON.stringify({}), connected_at: now, created_at: now, updated_at: now })
    .execute();
  await api.deps.db.insertInto('register_c_mappings').values({ merchant_id: m.merchant.id, location_id: loc, connection_id: connectionId, register_c_location_id: RC_LOC, menu_source: true, created_at: now, updated_at: now }).execute();
}, 60_000);
afterAll(async () => {
  await api.close();
  await rc.stop();
});

const linked = () =>
  tenantOf(api, m)
    .selectFrom('register_c_item_links as l')
    .innerJoin('items as i', 'i.id', 'l.item_id')
    .select(['l.sku', 'i.name', 'i.unit_price', 'i.vat_rate', 'i.visible'])
    .where('l.location_id', '=', loc)
    .orderBy('l.sku')
    .execute();

describe('register-c sync: items our catalog cannot hold', () => {
  test('negative, oversized and fractional-VAT items are left out, a doubled sku is taken once, names lose control characters; the rest is synced', async () => {
    const l = rc.location(RC_LOC)!;
    l.taxRates.push({ id: 'tr-half', name: 'Reduced', rate: '5.50' });
    const item = (sku: string, name: string, price: string, taxRateId = 'tr-std') => ({ sku, name, price, accountingGroupId: 'ag-food', taxRateId, description: name, imageUrl: null, allergenCodes: [], available: true });
    l.items = [
      item('OK', 'Plain\u0000 soup\u001b', '4.50'),
      item('NEG', 'Refund line', '-1.00'),
      item('HUGE', 'Gold bar', '99999999.99'),
      item('HALF', 'Five and a half', '2.00', 'tr-half'),
      item('TWICE', 'First twice', '1.00'),
      item('TWICE', 'Second twice', '2.00'),
      item('BAD\u0000SKU', 'Bad sku', '1.00'),
    ];
    const r = await api.call('POST', `${BASE}/mappings/${loc}/sync`, { token: owner });
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { counts: { created: 2, updated: 0, hidden: 0, suggested: 0 } } } });
    expect(await linked()).toEqual([
      { sku: 'OK', name: 'Plain soup', unit_price: 450, vat_rate: 21, visible: true },
      { sku: 'TWICE', name: 'First twice', unit_price: 100, vat_rate: 21, visible: true },
    ]);
    // Again: nothing flips between the two TWICE items.
    expect((await api.call('POST', `${BASE}/mappings/${loc}/sync`, { token: owner })).body.data.counts).toEqual({ created: 0, updated: 0, hidden: 0, suggested: 0 });
  });
});
