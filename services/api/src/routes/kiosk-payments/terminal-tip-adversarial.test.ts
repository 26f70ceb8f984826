import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { startCardASimulator, startCardBSimulator, startPlatformASimulator, type CardASimulator, type CardBSimulator, type PlatformASimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { reportInPersonProvider } from '../../testing/in-person-provider.ts';

// A tip the customer adds on the card terminal (spec 3 "Transaction": tip is a separate money field):
// the provider takes more than the order's total, and the capture books the excess as tip, once.
let cardB: CardBSimulator;
let cardA: CardASimulator;
let platformA: PlatformASimulator;
let api: TestApi;
let m: DemoSeedResult;
let kiosk: string;
const CREDS = { CARD_B_CLIENT_ID: 'tip-test', CARD_B_CLIENT_SECRET: 'tip-test-secret', CARD_A_SECRET_KEY: 'sk_test_tip', PLATFORM_A_ACCESS_TOKEN: 'pa-tip-token' };

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  cardA = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY });
  platformA = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: cardB.url, CARD_A_BASE_URL: cardA.url, PLATFORM_A_BASE_URL: platformA.url } });
  m = await api.seed('ktip');
  kiosk = await api.deviceToken(m, 'kiosk');
});
afterAll(async () => {
  await api.close();
  await Promise.all([cardB.stop(), cardA.stop(), platformA.stop()]);
});

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const item = (name: string) => m.items.find((i) => i.name === name)!;
const create = (body: unknown) => api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body });
const captureDeps = () => ({ tdb: tdb(), tenantDatabase: m.merchant.tenant_database, redis: api.deps.redis, providers: api.deps.payments, log: api.deps.log, now: () => new Date() });
const basket = () => ({ lines: [{ item_id: item('Espresso').id, qty: 2 }, { item_id: item('Croissant').id, qty: 1 }] });
const money = (id: string) => tdb().selectFrom('transactions').select(['status', 'subtotal', 'discount', 'tip_amount', 'total']).where('id', '=', id).executeTakeFirstOrThrow();

describe('a tip added on the terminal', () => {
  test('card-b: a 1.20 tip on the terminal beside the kiosk tip of 0.50 is booked as tip 1.70 and total 9.50, once', async () => {
    const t = (await create({ ...basket(), tip_amount: 50 })).body.data;
    expect(t).toMatchObject({ payment_provider: 'card-b', subtotal: 780, tip_amount: 50, total: 830 });
    await cardB.complete(t.idempotency_key, 120);
    expect(await capturePayment(captureDeps(), t.id, { kind: 'poll' })).toEqual({ status: 'Complete', completed: true, changed: true });
    expect(await money(t.id)).toEqual({ status: 'Complete', subtotal: 780, discount: 0, tip_amount: 170, total: 950 });
    // A second capture (webhook after poll) books nothing again.
    expect(await capturePayment(captureDeps(), t.id, { kind: 'poll' })).toEqual({ status: 'Complete', completed: false, changed: false });
    expect(await capturePayment(captureDeps(), t.id, { kind: 'webhook', outcome: 'succeeded', data: { captured_amount: 2000 } })).toEqual({ status: 'Complete', completed: false, changed: false });
    expect(await money(t.id)).toMatchObject({ tip_amount: 170, total: 950 });
  });

  test('card-b: no tip on the terminal leaves the totals as they were', async () => {
    const t = (await create(basket())).body.data;
    await cardB.complete(t.idempotency_key);
    expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).completed).toBe(true);
    expect(await money(t.id)).toMatchObject({ tip_amount: 0, total: 780 });
  });

  test('card-a: an on-reader tip of 0.75 (in the intent amount) is booked as tip', async () => {
    await reportInPersonProvider(tdb(), 'card-a');
    try {
      const t = (await create(basket())).body.data;
      expect(t.payment_provider).toBe('card-a');
      await cardA.complete(t.payment_snapshot.reader_id as string, 75);
      expect((await capturePayment(captureDeps(), t.id, { kind: 'poll', via: 'webhook' })).completed).toBe(true);
      expect(await money(t.id)).toMatchObject({ status: 'Complete', subtotal: 780, tip_amount: 75, total: 855 });
    } finally {
      await reportInPersonProvider(tdb(), null);
    }
  });

  test('platform-a: a tip on the terminal (tip_money) found by the poll is booked as tip, as the webhook does', async () => {
    await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-TIP' } }) }).where('id', '=', m.locations[0]!.id).execute();
    try {
      const t = (await create(basket())).body.data;
      await platformA.complete(t.payment_snapshot.checkout_id as string, 90);
      expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).completed).toBe(true);
      expect(await money(t.id)).toMatchObject({ status: 'Complete', subtotal: 780, tip_amount: 90, total: 870 });
    } finally {
      await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({}) }).where('id', '=', m.locations[0]!.id).execute();
    }
  });
});
