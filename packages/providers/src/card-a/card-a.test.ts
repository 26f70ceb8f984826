import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ProviderError } from '../shared/provider-error.ts';
import { CardAClient } from './card-a-client.ts';
import { cardAIdempotency, IDEMPOTENCY_TTL_MS } from './card-a-idempotency.ts';
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
    const cs = await client.createCheckoutSession({ amount: 2350, currency: 'EUR', productName: 'Order 12', successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/cancel', metadata: { location_id: 'loc-9' }, idempotencyKey: 'k-cs' });
    // As card-a from API version 2022-08-01: no intent until the customer pays.
    expect(cs).toMatchObject({ status: 'open', payment_status: 'unpaid', amount_total: 2350, metadata: { location_id: 'loc-9' }, payment_intent: null });
    expect(cs.id).toMatch(/^cs_/);
    expect(cs.url).toBe(`${sim.url}/_sim/checkout/${cs.id}`);
    expect((await client.retrieveCheckoutSession(cs.id)).payment_intent).toBeNull();
    const paid = await fetch(`${sim.url}/_sim/checkout/${cs.id}/pay`, { method: 'POST' });
    expect(paid.status).toBe(200);
    const done = await client.retrieveCheckoutSession(cs.id);
    expect(done).toMatchObject({ status: 'complete', payment_status: 'paid' });
    expect(done.payment_intent).toMatch(/^pi_/);
    expect((await client.retrievePaymentIntent(done.payment_intent!)).status).toBe('succeeded');
    const sent = hooks.slice(-2).map((h) => JSON.parse(h.body));
    expect(sent.map((e) => e.type)).toEqual(['payment_intent.succeeded', 'checkout.session.completed']);
    expect([sent[0].data.object.id, sent[1].data.object.payment_intent, sent[1].data.object.payment_status]).toEqual([done.payment_intent, done.payment_intent, 'paid']);
    expect((await fetch(`${sim.url}/_sim/checkout/${cs.id}/pay`, { method: 'POST' })).status).toBe(409);
    const expired = await client.createCheckoutSession({ amount: 100, currency: 'eur', productName: 'Order 13', successUrl: 'https://s/ok', cancelUrl: 'https://s/no', metadata: {}, idempotencyKey: 'k2' });
    sim.expireCheckout(expired.id);
    expect((await client.retrieveCheckoutSession(expired.id)).status).toBe('expired');
    const missing = (await client.retrieveCheckoutSession('cs_nope').then(() => null, (x: unknown) => x)) as ProviderError;
    expect([missing.status, missing.code]).toEqual([404, 'resource_missing']);
  });

  // card-a does not copy a session's metadata onto the intent it creates; the payment-intent webhooks
  // find the merchant by the intent's `location_id` (spec 3), so it must travel in payment_intent_data.
  test('a hosted checkout session carries the metadata onto its payment intent (payment_intent_data[metadata]) and its amount as a line item', async () => {
    let seen = new URLSearchParams();
    const wire = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        seen = new URLSearchParams(await req.text());
        return Response.json({ id: 'cs_1', object: 'checkout.session', payment_intent: 'pi_1', url: 'http://x', status: 'open', payment_status: 'unpaid', metadata: {} });
      },
    });
    try {
      await new CardAClient({ baseUrl: `http://127.0.0.1:${wire.port}`, secretKey: 'sk_test_x' }).createCheckoutSession({ amount: 1200, currency: 'EUR', productName: 'Order 7', successUrl: 'http://s', cancelUrl: 'http://c', metadata: { location_id: 'loc-1', transaction_id: 't-1' }, idempotencyKey: 'k1' });
    } finally {
      await wire.stop(true);
    }
    expect(Object.fromEntries(seen)).toEqual({
      mode: 'payment',
      'line_items[0][price_data][currency]': 'eur',
      'line_items[0][price_data][unit_amount]': '1200',
      'line_items[0][price_data][product_data][name]': 'Order 7',
      'line_items[0][quantity]': '1',
      success_url: 'http://s',
      cancel_url: 'http://c',
      'metadata[location_id]': 'loc-1',
      'metadata[transaction_id]': 't-1',
      'payment_intent_data[metadata][location_id]': 'loc-1',
      'payment_intent_data[metadata][transaction_id]': 't-1',
    });
    // The simulator as card-a: the intent has the payment_intent_data metadata only; a top-level amount is unknown.
    const form = (extra: Record<string, string>) =>
      fetch(`${sim.url}/v1/checkout/sessions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_sim', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ mode: 'payment', success_url: 'https://s', cancel_url: 'https://c', 'metadata[only_session]': 'x', ...extra }).toString(),
      });
    const lines = { 'line_items[0][price_data][currency]': 'eur', 'line_items[0][price_data][unit_amount]': '450', 'line_items[0][price_data][product_data][name]': 'Order 8', 'line_items[0][quantity]': '2' };
    const made = await form({ ...lines, 'payment_intent_data[metadata][location_id]': 'loc-2' });
    const cs = (await made.json()) as { id: string; amount_total: number; payment_intent: string | null; metadata: Record<string, string> };
    expect([made.status, cs.amount_total, cs.metadata, cs.payment_intent]).toEqual([200, 900, { only_session: 'x' }, null]);
    await sim.payCheckout(cs.id);
    const intent = (await client.retrieveCheckoutSession(cs.id)).payment_intent!;
    expect((await client.retrievePaymentIntent(intent)).metadata).toEqual({ location_id: 'loc-2' });
    const topLevel = await form({ amount: '900', currency: 'eur' });
    expect([topLevel.status, ((await topLevel.json()) as { error: { code: string } }).error.code]).toEqual([400, 'parameter_unknown']);
    const noItems = await form({});
    expect([noItems.status, ((await noItems.json()) as { error: { message: string } }).error.message]).toEqual([400, 'Missing required param: line_items.']);
  });
});

describe('card-a billing in the simulator (subscriptions, SEPA mandates, invoices, refunds, fees)', () => {
  const events = (type: string) => hooks.map((h) => JSON.parse(h.body)).filter((e) => e.type === type);
  const control = async (path: string, body: unknown = {}) => {
    const r = await fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as any };
  };

  test('a subscription is created with its metadata and price, and its signed created event follows the answer', async () => {
    const s = await client.createSubscription({ customer: 'cus_bill1', price: 'price_monthly', paymentMethod: null, metadata: { location_id: 'loc-1' }, idempotencyKey: crypto.randomUUID() });
    expect(s).toMatchObject({ customer: 'cus_bill1', status: 'active', metadata: { location_id: 'loc-1' }, default_payment_method: null });
    expect(s.current_period_end).toBeGreaterThan(Date.now() / 1000);
    await sim.idle();
    const evt = events('customer.subscription.created').find((e) => e.data.object.id === s.id)!;
    expect(evt.data.object.items.data[0].price.id).toBe('price_monthly');
    const hook = hooks.find((h) => JSON.parse(h.body).id === evt.id)!;
    const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(hook.signature ?? '')!;
    expect(m[2]).toBe(createHmac('sha256', 'whsec_sim').update(`${m[1]}.${hook.body}`).digest('hex'));
    expect((await client.retrieveSubscription(s.id)).status).toBe('active');
  });

  test('a failed invoice is paid with the customer\'s mandate; a declining mandate fails (402) and another mandate is refused', async () => {
    const s = await client.createSubscription({ customer: 'cus_bill2', price: 'price_monthly', paymentMethod: null, metadata: {}, idempotencyKey: crypto.randomUUID() });
    const sepa = (await control('/_sim/customers/cus_bill2/sepa')).body;
    expect(events('setup_intent.succeeded').at(-1).data.object).toMatchObject({ customer: 'cus_bill2', payment_method: sepa.payment_method, mandate: sepa.mandate, status: 'succeeded' });
    const inv = (await control(`/_sim/subscriptions/${s.id}/invoice-failed`)).body;
    expect(events('invoice.payment_failed').at(-1).data.object).toMatchObject({ id: inv.id, subscription: s.id, customer: 'cus_bill2', status: 'open' });
    expect(sim.billing.subscription(s.id)!.status).toBe('past_due');
    const wrong = await client.payInvoice(inv.id, { paymentMethod: sepa.payment_method, mandate: 'mandate_other' }).then(() => null, (e: unknown) => e);
    expect((wrong as ProviderError).status).toBe(400);
    await control(`/_sim/mandates/${sepa.mandate}/decline`);
    const declined = await client.payInvoice(inv.id, { paymentMethod: sepa.payment_method, mandate: sepa.mandate }).then(() => null, (e: unknown) => e);
    expect((declined as ProviderError).status).toBe(402);
    expect(sim.billing.invoice(inv.id)!.status).toBe('open');
    const s2 = await client.createSubscription({ customer: 'cus_bill3', price: 'price_monthly', paymentMethod: null, metadata: {}, idempotencyKey: crypto.randomUUID() });
    const sepa2 = (await control('/_sim/customers/cus_bill3/sepa')).body;
    const inv2 = (await control(`/_sim/subscriptions/${s2.id}/invoice-failed`)).body;
    expect(await client.payInvoice(inv2.id, { paymentMethod: sepa2.payment_method, mandate: sepa2.mandate })).toMatchObject({ id: inv2.id, status: 'paid' });
    await sim.idle();
    expect(sim.billing.subscription(s2.id)!.status).toBe('active');
    expect(events('invoice.paid').at(-1).data.object.id).toBe(inv2.id);
    expect(sim.billing.mandateRetries.slice(-2)).toEqual([{ invoice: inv.id, mandate: sepa.mandate, ok: false }, { invoice: inv2.id, mandate: sepa2.mandate, ok: true }]);
  });

  test('a failure with cancel sends the failed invoice and the deletion (reason payment_failed) together', async () => {
    const s = await client.createSubscription({ customer: 'cus_bill4', price: 'price_monthly', paymentMethod: null, metadata: { location_id: 'loc-4' }, idempotencyKey: crypto.randomUUID() });
    const inv = (await control(`/_sim/subscriptions/${s.id}/invoice-failed`, { cancel: true })).body;
    expect(inv.subscription_details.metadata).toEqual({ location_id: 'loc-4' });
    expect(events('customer.subscription.deleted').at(-1).data.object).toMatchObject({ id: s.id, status: 'canceled', cancellation_details: { reason: 'payment_failed' } });
    expect(events('invoice.payment_failed').at(-1).data.object.id).toBe(inv.id);
  });

  test('a paid intent has a charge; refunds are cumulative on it (charge.refunded); a fee attaches with application_fee.created', async () => {
    const pi = await intent();
    await client.processPaymentIntent('tmr_bill', pi.id);
    await sim.complete('tmr_bill');
    const chargeId = sim.intent(pi.id)!.latest_charge!;
    expect(await client.retrieveCharge(chargeId)).toMatchObject({ id: chargeId, amount: 1875, amount_refunded: 0, payment_intent: pi.id });
    const fee = (await control(`/_sim/charges/${chargeId}/application_fee`, { amount: 56 })).body;
    expect(events('application_fee.created').at(-1).data.object).toEqual(fee);
    expect(fee).toMatchObject({ amount: 56, charge: chargeId });
    const refund = (amount?: number) =>
      fetch(`${sim.url}/v1/refunds`, { method: 'POST', headers: { authorization: 'Bearer sk_test_sim', 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ payment_intent: pi.id, ...(amount ? { amount: String(amount) } : {}) }) });
    expect((await refund(500)).status).toBe(200);
    expect((await refund(2000)).status).toBe(400);
    expect((await refund()).status).toBe(200);
    await sim.idle();
    expect(events('charge.refunded').slice(-2).map((e) => [e.data.object.amount_refunded, e.data.object.refunded])).toEqual([[500, false], [1875, true]]);
  });
});


describe('card-a Idempotency-Key in the simulator (per account and key, 24 hours)', () => {
  const form = (f: Record<string, string>) => new URLSearchParams(f).toString();
  type Json = { id: string; amount: number; error: { code: string } };
  const postRaw = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${sim.url}${path}`, { method: 'POST', headers: { authorization: 'Bearer sk_test_sim', 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });

  test('the same key and request answers the first answer again (Idempotent-Replayed); nothing is created twice', async () => {
    const key = crypto.randomUUID();
    const input = { amount: 990, currency: 'EUR', paymentMethodTypes: ['card'], metadata: { transaction_id: 'tx-idem' }, idempotencyKey: key };
    const a = await client.createPaymentIntent(input);
    const b = await client.createPaymentIntent(input);
    expect(b).toEqual(a);
    const raw = await postRaw('/v1/payment_intents', form({ amount: '990', currency: 'eur', 'payment_method_types[0]': 'card', capture_method: 'automatic', 'metadata[transaction_id]': 'tx-idem' }), { 'idempotency-key': crypto.randomUUID() });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('idempotent-replayed')).toBeNull();
    const again = await postRaw('/v1/checkout/sessions', form({ mode: 'payment', 'line_items[0][price_data][currency]': 'eur', 'line_items[0][price_data][unit_amount]': '100', 'line_items[0][price_data][product_data][name]': 'Order 9', 'line_items[0][quantity]': '1', success_url: 'https://s/ok', cancel_url: 'https://s/no' }), { 'idempotency-key': 'k-replay' });
    expect(again.status).toBe(200);
    const replay = await postRaw('/v1/checkout/sessions', form({ mode: 'payment', 'line_items[0][price_data][currency]': 'eur', 'line_items[0][price_data][unit_amount]': '100', 'line_items[0][price_data][product_data][name]': 'Order 9', 'line_items[0][quantity]': '1', success_url: 'https://s/ok', cancel_url: 'https://s/no' }), { 'idempotency-key': 'k-replay' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(await again.json());
    // Subscriptions go through the same rule.
    const sub = { customer: 'cus_idem', price: 'price_monthly', paymentMethod: null, metadata: {}, idempotencyKey: 'k-sub' };
    expect((await client.createSubscription(sub)).id).toBe((await client.createSubscription(sub)).id);
  });

  test('the same key with other parameters or another path is 400 idempotency_error; nothing is created', async () => {
    const key = 'k-reused';
    const first = await client.createPaymentIntent({ amount: 500, currency: 'EUR', paymentMethodTypes: ['card'], metadata: {}, idempotencyKey: key });
    const err = (await client.createPaymentIntent({ amount: 501, currency: 'EUR', paymentMethodTypes: ['card'], metadata: {}, idempotencyKey: key }).then(() => null, (x: unknown) => x)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.status).toBe(400);
    const raw = await postRaw('/v1/checkout/sessions', form({ mode: 'payment', 'line_items[0][price_data][currency]': 'eur', 'line_items[0][price_data][unit_amount]': '500', 'line_items[0][price_data][product_data][name]': 'Order 10', 'line_items[0][quantity]': '1', success_url: 'https://s/ok', cancel_url: 'https://s/no' }), { 'idempotency-key': key });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({
      error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.` },
    });
    // The first request still answers as before.
    expect((await client.createPaymentIntent({ amount: 500, currency: 'EUR', paymentMethodTypes: ['card'], metadata: {}, idempotencyKey: key })).id).toBe(first.id);
  });

  test('keys are per account: the same key on a connected account is a new request', async () => {
    const body = form({ amount: '700', currency: 'eur' });
    const platform = (await (await postRaw('/v1/payment_intents', body, { 'idempotency-key': 'k-acct' })).json()) as Json;
    const connected = (await (await postRaw('/v1/payment_intents', body, { 'idempotency-key': 'k-acct', 'card-a-account': 'acct_one' })).json()) as Json;
    expect(connected.id).not.toBe(platform.id);
    expect(((await (await postRaw('/v1/payment_intents', body, { 'idempotency-key': 'k-acct', 'card-a-account': 'acct_one' })).json()) as Json).id).toBe(connected.id);
  });

  test('a request that failed validation or authentication keeps no answer: the key can be used again', async () => {
    const bad = await postRaw('/v1/payment_intents', form({ amount: '0', currency: 'eur' }), { 'idempotency-key': 'k-invalid' });
    expect(bad.status).toBe(400);
    const unauth = await fetch(`${sim.url}/v1/payment_intents`, { method: 'POST', headers: { authorization: 'Bearer sk_wrong', 'idempotency-key': 'k-invalid' }, body: form({ amount: '300', currency: 'eur' }) });
    expect(unauth.status).toBe(401);
    const ok = await postRaw('/v1/payment_intents', form({ amount: '300', currency: 'eur' }), { 'idempotency-key': 'k-invalid' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Json).amount).toBe(300);
  });
});

describe('cardAIdempotency', () => {
  const error = (status: number, code: string, message: string) => Response.json({ error: { type: 'invalid_request_error', code, message } }, { status });
  const req = (body: string) => new Request('http://sim/v1/refunds', { method: 'POST', headers: { 'idempotency-key': 'k' }, body });

  test('a key is kept 24 hours, then a new request with it runs again', async () => {
    let clock = 0;
    let runs = 0;
    const idempotent = cardAIdempotency(error, () => clock);
    const handle = () => Response.json({ id: `re_${++runs}` });
    expect(await (await idempotent(req('a=1'), handle)).json()).toEqual({ id: 're_1' });
    clock = IDEMPOTENCY_TTL_MS - 1;
    expect(await (await idempotent(req('a=1'), handle)).json()).toEqual({ id: 're_1' });
    expect((await idempotent(req('a=2'), handle)).status).toBe(400);
    clock = IDEMPOTENCY_TTL_MS;
    expect(await (await idempotent(req('a=2'), handle)).json()).toEqual({ id: 're_2' });
  });

  test('the same key while its first request runs is 409 idempotency_key_in_use', async () => {
    const idempotent = cardAIdempotency(error);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = idempotent(req('a=1'), async () => (await gate, Response.json({ id: 're_slow' })));
    const second = await idempotent(req('a=1'), () => Response.json({ id: 're_other' }));
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('idempotency_key_in_use');
    release();
    expect(await (await first).json()).toEqual({ id: 're_slow' });
  });
});
