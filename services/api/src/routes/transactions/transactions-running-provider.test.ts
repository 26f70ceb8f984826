import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { startCardBSimulator, startPlatformASimulator, type CardBSimulator, type PlatformASimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * Spec 3 "Provider choice": `payment_provider` is the stamped provider; an active platform-a
 * integration overrides it at payment time. The back office's figures, filters and export count a
 * payment under the provider it ran on: a kiosk order (stamped card-b) and an online order (stamped
 * card-a) paid through platform-a are platform-a's money.
 */
let cardB: CardBSimulator;
let platformA: PlatformASimulator;
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let kiosk: string;
const CREDS = { CARD_B_CLIENT_ID: 'bo-run', CARD_B_CLIENT_SECRET: 'bo-run-secret', PLATFORM_A_ACCESS_TOKEN: 'pa-bo-run' };

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  platformA = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: cardB.url, PLATFORM_A_BASE_URL: platformA.url } });
  m = await api.seed('bo-run');
  owner = await api.ownerToken(m);
  kiosk = await api.deviceToken(m, 'kiosk');
}, 60_000);
afterAll(async () => {
  await api.close();
  await cardB.stop();
  await platformA.stop();
});

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const loc0 = () => m.locations[0]!.id;
const bo = (path: string) => api.call('GET', `/api/back-office/transactions${path}`, { token: owner });
const verify = (id: string) => api.call('POST', `/api/back-office/transactions/${id}/verify-payment-status`, { token: owner });
const kioskOrder = (qty: number) => api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty }] } });
const setPlatformA = (active: boolean) =>
  tdb().updateTable('locations').set({ payment_settings: JSON.stringify(active ? { platform_a: { active: true, location_id: 'PA-LOC-RUN' } } : {}) }).where('id', '=', loc0()).execute();

describe('the provider a payment ran on, in the back office', () => {
  test('stats by_provider, the payment_provider filter and the export count platform-a payments of kiosk and online orders under platform-a; payment_provider stays the stamp', async () => {
    // A kiosk order on card-b (platform-a off).
    const onCardB = (await kioskOrder(1)).body.data;
    await cardB.complete(onCardB.idempotency_key);
    expect((await verify(onCardB.id)).body.data).toMatchObject({ status: 'Complete', payment_provider: 'card-b', running_provider: 'card-b' });

    await setPlatformA(true);
    // A kiosk order (stamped card-b) paid on the platform-a terminal.
    const kioskPa = (await kioskOrder(2)).body.data;
    expect(kioskPa.payment_snapshot.provider).toBe('platform-a');
    await platformA.complete(kioskPa.payment_snapshot.checkout_id);
    expect((await verify(kioskPa.id)).body.data).toMatchObject({ status: 'Complete', payment_provider: 'card-b', running_provider: 'platform-a' });
    // An online order (stamped card-a) paid through platform-a.
    const online = await api.call('POST', `/api/online-ordering/${m.merchant.slug}/${loc0()}/payment`, { body: { lines: [{ item_id: m.items[0]!.id, qty: 3 }] } });
    expect(online.body.data.provider).toBe('platform-a');
    const onlineId = online.body.data.transaction_id;
    const paid = await api.call('POST', '/api/online-ordering/payment/process', { body: { slug: m.merchant.slug, location_id: loc0(), transaction_id: onlineId, source_id: 'cnon:card-nonce-ok' } });
    expect(paid.body.data.status).toBe('Complete');
    await setPlatformA(false);

    const total = (id: string) => tdb().selectFrom('transactions').select(['total', 'payment_provider']).where('id', '=', id).executeTakeFirstOrThrow();
    const [b, k, o] = [await total(onCardB.id), await total(kioskPa.id), await total(onlineId)];
    // The stamp is kept (spec 3: `payment_provider` is the stamped provider).
    expect([b.payment_provider, k.payment_provider, o.payment_provider]).toEqual(['card-b', 'card-b', 'card-a']);

    expect((await bo('/stats')).body.data.by_provider).toEqual({ 'card-b': { count: 1, total: b.total }, 'platform-a': { count: 2, total: k.total + o.total } });
    expect((await bo('/stats?payment_provider=platform-a')).body.data.complete).toMatchObject({ count: 2, total: k.total + o.total });

    const ids = async (q: string) => (await bo(`/datatable?${q}&sort=order_no`)).body.data.map((t: { id: string }) => t.id).sort();
    expect(await ids('payment_provider=platform-a')).toEqual([kioskPa.id, onlineId].sort());
    expect(await ids('payment_provider=card-b')).toEqual([onCardB.id]);
    expect(await ids('payment_provider=card-a')).toEqual([]);
    const detail = (await bo(`/${onlineId}`)).body.data;
    expect([detail.payment_provider, detail.running_provider]).toEqual(['card-a', 'platform-a']);

    const csv = (await bo('/export?payment_provider=platform-a')).text.replace(/^\uFEFF/, '').trim().split('\n');
    const header = csv[0]!.split(',');
    expect(header.slice(-4)).toEqual(['running_provider', 'fees', 'is_test', 'order_status']);
    const col = (name: string) => header.indexOf(name);
    expect(csv.slice(1).map((l) => l.split(',')).map((c) => [c[0], c[col('payment_provider')], c[col('running_provider')]]).sort()).toEqual(
      [
        [kioskPa.id, 'card-b', 'platform-a'],
        [onlineId, 'card-a', 'platform-a'],
      ].sort(),
    );
  });
});
