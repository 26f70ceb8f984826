import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { storeWebhook } from '@pos/core/webhooks/webhook-log';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/** The back-office webhook log as a hostile reader: never a secret or card data, never another merchant's event. */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;
const P = '/api/back-office/webhook-logs';

/** A stored event of `merchant`, through the store the webhook routes use. */
async function stored(merchant: DemoSeedResult, provider: string, type: string, payload: unknown, fields: Record<string, unknown> = {}): Promise<string> {
  const raw = JSON.stringify(payload);
  const row = await storeWebhook(api.deps.db, api.deps.log, { type, provider, raw, payload, eventType: 'payment_intent.succeeded', eventId: `evt_${crypto.randomUUID()}`, merchantId: merchant.merchant.id, fields, now: new Date() });
  return row!.id;
}

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('wlog-adv');
  other = await api.seed('wlog-adv-o');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
}, 60_000);
afterAll(() => api.close());

describe('event detail', () => {
  test('a card-a intent\'s client_secret, card expiry and fingerprint read [redacted]; ids, amounts, brand and last4 stay; the stored row is unchanged', async () => {
    const intent = {
      id: 'evt_adv_1',
      object: 'event',
      type: 'payment_intent.succeeded',
      data: {
        object: {
          id: 'pi_adv_1',
          object: 'payment_intent',
          amount: 450,
          currency: 'eur',
          client_secret: 'pi_adv_1_secret_0123456789abcdef',
          metadata: { location_id: m.locations[0]!.id },
          charges: { data: [{ id: 'ch_1', payment_method_details: { card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, fingerprint: 'Xt5EWLLDS7FJjR1c' } } }] },
        },
      },
    };
    const id = await stored(m, 'card-a', 'card_a_webhook', intent);
    const r = await api.call('GET', `${P}/${id}`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body.data.payload).toEqual({
      ...intent,
      data: {
        object: {
          ...intent.data.object,
          client_secret: '[redacted]',
          charges: { data: [{ id: 'ch_1', payment_method_details: { card: { brand: 'visa', last4: '4242', exp_month: '[redacted]', exp_year: '[redacted]', fingerprint: '[redacted]' } } }] },
        },
      },
    });
    expect(r.text).not.toContain('secret_0123456789abcdef');
    const row = await api.deps.db.selectFrom('webhook_logs').select(['payload', 'raw_body']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.payload).toEqual(intent);
    expect(row.raw_body).toBe(JSON.stringify(intent));
  });

  test('a card number, however a provider spells the key, and signing material in the stored fields read [redacted]', async () => {
    const payload = { EventTypeId: 1796, EventData: { CardNumber: '4111111111111111', card_number: '5555555555554444', OrderCode: '1234567890123456', Amount: 2.8, CardExpirationDate: '2030-12' } };
    const id = await stored(m, 'shop-a', 'shop_a_webhook', payload, { topic: 'orders/create', signature: 'abc123', webhook_secret: 'whsec_x' });
    const r = await api.call('GET', `${P}/${id}`, { token: owner });
    expect(r.body.data.payload).toEqual({ EventTypeId: 1796, EventData: { CardNumber: '[redacted]', card_number: '[redacted]', OrderCode: '1234567890123456', Amount: 2.8, CardExpirationDate: '[redacted]' } });
    expect(r.body.data.fields).toEqual({ topic: 'orders/create', signature: '[redacted]', webhook_secret: '[redacted]' });
    expect(r.text).not.toContain('4111111111111111');
    expect(r.text).not.toContain('whsec_x');
  });

  test('another merchant\'s event: 404 on detail and replay, never listed; without VIEW_TRANSACTIONS 403', async () => {
    const id = await stored(m, 'card-a', 'card_a_webhook', { id: 'evt_private' });
    expect(await api.call('GET', `${P}/${id}`, { token: otherOwner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the webhook event you requested.' } });
    expect((await api.call('POST', `${P}/${id}/replay`, { token: otherOwner })).status).toBe(404);
    // An id that is not a UUID is not found either (it was a 422).
    for (const [method, path] of [['GET', `${P}/not-a-uuid`], ['POST', `${P}/123/replay`]] as const)
      expect(await api.call(method, path, { token: otherOwner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the webhook event you requested.' } });
    expect((await api.call('GET', `${P}/${id}?vendor_id=${m.merchant.id}`, { token: otherOwner })).status).toBe(403);
    const theirs = await api.call('GET', `${P}/datatable?per_page=100`, { token: otherOwner });
    expect(theirs.body.data.some((e: { id: string }) => e.id === id)).toBe(false);
    const member = await makeMember(api, m, ['VIEW_ITEMS']);
    expect(await api.call('GET', `${P}/${id}`, { token: member.token })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect((await api.call('GET', `${P}/datatable`, { token: member.token })).status).toBe(403);
  });

  test("a replay acts only for the merchant replaying: an event of theirs whose body now names another merchant's location stays failed and touches nothing", async () => {
    // Stored for m (as resolved when it arrived); its payment intent now names the other merchant's location.
    const eventId = `evt_${crypto.randomUUID()}`;
    const payload = { id: eventId, type: 'payment_intent.succeeded', created: 1, data: { object: { id: `pi_${crypto.randomUUID()}`, object: 'payment_intent', amount: 500, metadata: { location_id: other.locations[0]!.id } } } };
    const raw = JSON.stringify(payload);
    const row = await storeWebhook(api.deps.db, api.deps.log, { type: 'card_a_webhook', provider: 'card-a', raw, payload, eventType: 'payment_intent.succeeded', eventId, merchantId: m.merchant.id, now: new Date() });
    await api.deps.db.updateTable('webhook_logs').set({ status: 'failed', error: 'transaction_not_found' }).where('id', '=', row!.id).execute();

    const r = await api.call('POST', `${P}/${row!.id}/replay`, { token: owner });
    expect(r).toMatchObject({ status: 200, body: { data: { status: 'failed' } } });
    const after = await api.deps.db.selectFrom('webhook_logs').select(['status', 'error', 'merchant_id']).where('id', '=', row!.id).executeTakeFirstOrThrow();
    expect(after).toEqual({ status: 'failed', error: 'replay_resolves_to_another_merchant', merchant_id: m.merchant.id });
    // Nothing was claimed or run for the other merchant.
    expect(await api.deps.db.selectFrom('webhook_claims').select('event_id').where('provider', '=', 'card-a').where('event_id', '=', eventId).execute()).toEqual([]);
  });
});
