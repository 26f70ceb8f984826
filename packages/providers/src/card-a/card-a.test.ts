import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ProviderError } from '../shared/provider-error.ts';
import { CardAClient } from './card-a-client.ts';
import { startCardASimulator, type CardASimulator } from './card-a-simulator.ts';

let sim: CardASimulator;
let client: CardAClient;
const hooks: { body: string; signature: string | null }[] = [];
let hookServer: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  hookServer = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: async (req) => (hooks.push({ body: await req.text(), signature: req.headers.get('card-a-signature') }), new Response('ok')) });
  sim = startCardASimulator({ secretKey: 'sk_test_sim', webhookUrl: `http://127.0.0.1:${hookServer.port}/`, webhookSecret: 'whsec_sim' });
  client = new CardAClient({ baseUrl: sim.url, secretKey: 'sk_test_sim' });
});
afterAll(async () => {
  await sim.stop();
  await hookServer.stop(true);
});

const intent = () => client.createPaymentIntent({ amount: 1875, currency: 'EUR', paymentMethodTypes: ['card_present'], metadata: { location_id: 'loc-1', transaction_id: 'tx-1' }, idempotencyKey: crypto.randomUUID() });

describe('card-a client against the simulator', () => {
  test('payment intent, process on a reader, complete: intent succeeded, signed action_succeeded webhook', async () => {
    const pi = await intent();
    expect(pi).toMatchObject({ amount: 1875, currency: 'eur', status: 'requires_payment_method', metadata: { location_id: 'loc-1', transaction_id: 'tx-1' } });
    expect(pi.id).toMatch(/^pi_/);
    expect(pi.client_secret.startsWith(`${pi.id}_secret_`)).toBe(true);
    const reader = await client.processPaymentIntent('tmr_kiosk1', pi.id);
    expect(reader.action).toEqual({ type: 'process_payment_intent', status: 'in_progress', failure_code: null, failure_message: null, process_payment_intent: { payment_intent: pi.id } });
    await sim.complete('tmr_kiosk1');
    expect((await client.retrievePaymentIntent(pi.id)).status).toBe('succeeded');
    expect((await client.retrieveReader('tmr_kiosk1')).action?.status).toBe('succeeded');
    const hook = hooks.at(-1)!;
    const evt = JSON.parse(hook.body);
    expect(evt).toMatchObject({ object: 'event', type: 'terminal.reader.action_succeeded', data: { object: { id: 'tmr_kiosk1', object: 'terminal.reader', action: { status: 'succeeded', process_payment_intent: { payment_intent: pi.id } } } } });
    const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(hook.signature ?? '')!;
    expect(m).not.toBeNull();
    expect(m[2]).toBe(createHmac('sha256', 'whsec_sim').update(`${m[1]}.${hook.body}`).digest('hex'));
  });

  test('a busy reader answers 409 terminal_reader_busy; cancel_action frees it; decline leaves the intent payable', async () => {
    const a = await intent();
    const b = await intent();
    await client.processPaymentIntent('tmr_kiosk2', a.id);
    const e = (await client.processPaymentIntent('tmr_kiosk2', b.id).then(() => null, (x: unknown) => x)) as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect([e.status, e.code]).toEqual([409, 'terminal_reader_busy']);
    expect((await client.cancelReaderAction('tmr_kiosk2')).action).toBeNull();
    await client.processPaymentIntent('tmr_kiosk2', b.id);
    await sim.decline('tmr_kiosk2');
    const declined = await client.retrievePaymentIntent(b.id);
    expect(declined.status).toBe('requires_payment_method');
    expect(declined.last_payment_error).toEqual({ code: 'card_declined', message: 'Your card was declined.' });
    expect(JSON.parse(hooks.at(-1)!.body)).toMatchObject({ type: 'terminal.reader.action_failed', data: { object: { action: { status: 'failed', failure_code: 'card_declined' } } } });
    expect((await client.cancelPaymentIntent(b.id)).status).toBe('canceled');
  });

  test('time-out, unknown objects, bad key and bad amounts are refused', async () => {
    const pi = await intent();
    await client.processPaymentIntent('tmr_kiosk3', pi.id);
    await sim.timeout('tmr_kiosk3');
    expect((await client.retrieveReader('tmr_kiosk3')).action).toMatchObject({ status: 'failed', failure_code: 'reader_timeout' });
    const missing = (await client.retrievePaymentIntent('pi_nope').then(() => null, (x: unknown) => x)) as ProviderError;
    expect([missing.status, missing.code]).toEqual([404, 'resource_missing']);
    const badKey = new CardAClient({ baseUrl: sim.url, secretKey: 'sk_wrong' });
    const unauth = (await badKey.retrievePaymentIntent(pi.id).then(() => null, (x: unknown) => x)) as ProviderError;
    expect([unauth.status, unauth.code]).toEqual([401, 'invalid_api_key']);
    const zero = (await client.createPaymentIntent({ amount: 0, currency: 'eur', paymentMethodTypes: ['card'], metadata: {}, idempotencyKey: 'k' }).then(() => null, (x: unknown) => x)) as ProviderError;
    expect([zero.status, zero.code]).toEqual([400, 'parameter_invalid_integer']);
    const notReader = (await client.retrieveReader('reader-1').then(() => null, (x: unknown) => x)) as ProviderError;
    expect(notReader.status).toBe(404);
  });

  test('hosted checkout session: open and unpaid, paid on the hosted page, its intent succeeded; events sent', async () => {
    const cs = await client.createCheckoutSession({ amount: 2350, currency: 'EUR', successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/cancel', metadata: { location_id: 'loc-9' }, idempotencyKey: 'k-cs' });
    expect(cs).toMatchObject({ status: 'open', payment_status: 'unpaid', amount_total: 2350, metadata: { location_id: 'loc-9' } });
    expect(cs.id).toMatch(/^cs_/);
    expect(cs.url).toBe(`${sim.url}/_sim/checkout/${cs.id}`);
    const paid = await fetch(`${sim.url}/_sim/checkout/${cs.id}/pay`, { method: 'POST' });
    expect(paid.status).toBe(200);
    expect(await client.retrieveCheckoutSession(cs.id)).toMatchObject({ status: 'complete', payment_status: 'paid' });
    expect((await client.retrievePaymentIntent(cs.payment_intent!)).status).toBe('succeeded');
    expect(hooks.slice(-2).map((h) => JSON.parse(h.body).type)).toEqual(['checkout.session.completed', 'payment_intent.succeeded']);
    expect((await fetch(`${sim.url}/_sim/checkout/${cs.id}/pay`, { method: 'POST' })).status).toBe(409);
    const expired = await client.createCheckoutSession({ amount: 100, currency: 'eur', successUrl: 'https://s/ok', cancelUrl: 'https://s/no', metadata: {}, idempotencyKey: 'k2' });
    sim.expireCheckout(expired.id);
    expect((await client.retrieveCheckoutSession(expired.id)).status).toBe('expired');
    const missing = (await client.retrieveCheckoutSession('cs_nope').then(() => null, (x: unknown) => x)) as ProviderError;
    expect([missing.status, missing.code]).toEqual([404, 'resource_missing']);
  });
});
