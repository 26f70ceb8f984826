import { describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { capturePayment } from '@pos/core/payments/capture-payment';
import type { CardASimulator, CardBSimulator, PlatformASimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { TestApi } from '../../testing/harness.ts';
import { kioskTestbed } from './kiosk-payments.test-support.ts';
import { reportInPersonProvider } from '../../testing/in-person-provider.ts';
import { kioskCardBPayment } from '../../testing/card-b-events.ts';

// A tip the customer adds on the card terminal (spec 3 "Transaction": tip is a separate money field):
// the provider takes more than the order's total, and the capture books the excess as tip, once.
/** card-b commission, basis points of what the customer was charged. */
const BPS = 200;
let cardB: CardBSimulator, cardA: CardASimulator, platformA: PlatformASimulator, api: TestApi, m: DemoSeedResult, kiosk: string;
// Listening, so the simulator can deliver card-b's webhooks to the route (from the allowed address).
kioskTestbed('ktip', (bed) => ({ cardB, cardA, platformA, api, m, kiosk } = bed), { env: { CARD_B_WEBHOOK_IPS: '127.0.0.1', CARD_B_WEBHOOK_KEY: 'ktip-verification-key', CARD_B_COMMISSION_BPS: String(BPS) }, listen: true });

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

describe('a card-b terminal tip reported by the webhook (spec 3 card-b rule 5; PROTOCOLS card-b)', () => {
  const hook = () => `http://127.0.0.1:${api.app.server!.port}/api/card-b-webhook/BE/1796`;
  const logOf = (raw: string) => api.deps.db.selectFrom('webhook_logs').select(['status', 'error']).where('type', '=', 'card_b_webhook').where('raw_body', '=', raw).executeTakeFirst();
  const ledgerOf = (eventId: string) => api.deps.db.selectFrom('commission_ledger').select(['commission_amount', 'is_adjustment']).where('source', '=', 'card_b_terminal').where('source_ref', '=', eventId).execute();
  /** Delivered from the allowed address, as card-b sends it. */
  const deliver = async (raw: string) => (await fetch(hook(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw })).status;

  test('the simulator\'s event for a 1.20 tip on the terminal beside the kiosk\'s 0.50: booked as tip 1.70, total 9.50, commission on the 9.50 charged', async () => {
    cardB.setWebhookUrl(hook());
    try {
      const t = (await create({ ...basket(), tip_amount: 50 })).body.data;
      // The sale sends the tip apart: amount 7.80, tipAmount 0.50.
      expect(cardB.session(t.idempotency_key)).toMatchObject({ amount: 780, tipAmount: 50 });
      await cardB.complete(t.idempotency_key, 120);
      const sent = cardB.webhooks.at(-1)!;
      expect([sent.result, (sent.body as { EventData: Record<string, unknown> }).EventData]).toMatchObject([{ status: 200 }, { Amount: 7.8, TipAmount: 1.7 }]);
      const raw = JSON.stringify(sent.body);
      expect(await logOf(raw)).toEqual({ status: 'processed', error: null });
      expect(await money(t.id)).toEqual({ status: 'Complete', subtotal: 780, discount: 0, tip_amount: 170, total: 950 });
      const eventId = (sent.body as { EventData: { TransactionId: string } }).EventData.TransactionId;
      expect(await ledgerOf(eventId)).toEqual([{ commission_amount: Math.round((950 * BPS) / 10_000), is_adjustment: false }]);
    } finally {
      cardB.setWebhookUrl('');
    }
  });

  test('amounts that are not the sale are stored failed with their reason, nothing captured or commissioned; the consistent event then captures', async () => {
    const t = (await create({ ...basket(), tip_amount: 50 })).body.data as { id: string; order_no: number; total: number; idempotency_key: string };
    expect(t.total).toBe(830);
    const cases: [Record<string, unknown>, string][] = [
      // The goods charged above the sale's 7.80 with no tip reported: not booked as a tip.
      [{ Amount: 8.3, TipAmount: 0 }, 'amount_mismatch'],
      [{ Amount: 9.3 }, 'amount_mismatch'],
      // A short sale made up by a "tip".
      [{ Amount: 5, TipAmount: 3.3 }, 'amount_mismatch'],
      // A negative tip, one that is not money, one below the 0.50 the kiosk's sale sent, none at all.
      [{ Amount: 7.8, TipAmount: -0.5 }, 'tip_mismatch'],
      [{ Amount: 7.8, TipAmount: 'abc' }, 'tip_mismatch'],
      [{ Amount: 7.8, TipAmount: 0.2 }, 'tip_mismatch'],
      [{ Amount: 7.8 }, 'tip_mismatch'],
      // A tip past the money columns.
      [{ Amount: 7.8, TipAmount: 30_000_000 }, 'tip_mismatch'],
    ];
    const bodies = cases.map(([over]) => kioskCardBPayment(m, t, over));
    for (const raw of bodies) expect(await deliver(raw)).toBe(200);
    expect(await Promise.all(bodies.map(logOf))).toEqual(cases.map(([, error]) => ({ status: 'failed', error })));
    expect(await money(t.id)).toEqual({ status: 'Awaiting Payment', subtotal: 780, discount: 0, tip_amount: 50, total: 830 });
    for (const raw of bodies) expect(await ledgerOf(JSON.parse(raw).EventData.TransactionId)).toEqual([]);
    // The sale as sent, with 0.40 more tip given on the terminal.
    const good = kioskCardBPayment(m, t, { Amount: 7.8, TipAmount: 0.9 });
    expect(await deliver(good)).toBe(200);
    expect(await logOf(good)).toEqual({ status: 'processed', error: null });
    expect(await money(t.id)).toEqual({ status: 'Complete', subtotal: 780, discount: 0, tip_amount: 90, total: 870 });
    expect(await ledgerOf(JSON.parse(good).EventData.TransactionId)).toEqual([{ commission_amount: Math.round((870 * BPS) / 10_000), is_adjustment: false }]);
    await cardB.complete(t.idempotency_key).catch(() => undefined);
  });

  test('a full reversal of a tipped sale (Amount and TipAmount given back) claws back all of its commission', async () => {
    const t = (await create(basket())).body.data as { id: string; order_no: number; total: number; idempotency_key: string };
    const pay = kioskCardBPayment(m, t, { Amount: 7.8, TipAmount: 1.5 });
    expect(await deliver(pay)).toBe(200);
    const paymentId = JSON.parse(pay).EventData.TransactionId as string;
    expect(await ledgerOf(paymentId)).toEqual([{ commission_amount: Math.round((930 * BPS) / 10_000), is_adjustment: false }]);
    const reversal = JSON.stringify({ EventTypeId: 1797, EventData: { Amount: 7.8, TipAmount: 1.5, OrderCode: `R${paymentId}`, StatusId: 'F', TransactionId: crypto.randomUUID(), ParentId: paymentId, MerchantTrns: `${m.locations[0]!.id}:0`, TransactionTypeId: 7 } });
    expect((await fetch(hook().replace(/1796$/, '1797'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: reversal })).status).toBe(200);
    expect(await logOf(reversal)).toEqual({ status: 'processed', error: null });
    const rows = await api.deps.db.selectFrom('commission_ledger').select('commission_amount').where('source', '=', 'card_b_terminal').where((eb) => eb.or([eb('source_ref', '=', paymentId), eb('source_ref', '=', JSON.parse(reversal).EventData.TransactionId)])).execute();
    expect(rows.reduce((sum, r) => sum + r.commission_amount, 0)).toBe(0);
    await cardB.complete(t.idempotency_key).catch(() => undefined);
  });
});
