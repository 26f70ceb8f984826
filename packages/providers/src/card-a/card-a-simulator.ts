import { createHmac } from 'node:crypto';
import { fromForm } from '../shared/form.ts';
import { dispatch, jsonBody, postWebhook, route } from '../shared/sim-server.ts';
import { cardABilling, type CardABilling } from './card-a-billing-simulator.ts';
import { cardAConnect, type CardAConnect } from './card-a-connect-simulator.ts';
import { cardAIdempotency } from './card-a-idempotency.ts';

/**
 * card-a over real HTTP (PROTOCOLS.md "card-a"): payment intents (`/v1/payment_intents`, create,
 * retrieve, cancel, search) and terminal readers (`/v1/terminal/readers/{id}`, `process_payment_intent`,
 * `cancel_action`), form-encoded requests, bearer secret key, errors as `{error:{type,code,message}}`.
 * Tests and e2e drive the reader through `POST /_sim/readers/{id}/complete|decline|timeout`; each
 * outcome can send the signed `terminal.reader.action_succeeded|action_failed` webhook
 * (`Card-A-Signature: t=…,v1=HMAC-SHA256(secret, "t.body")`).
 *
 * Online card intents (client secret) are confirmed through `POST /_sim/payment_intents/{id}/confirm`
 * `{client_secret}` (the browser with card-a.js), which sends `payment_intent.succeeded`.
 *
 * Hosted checkout sessions (`/v1/checkout/sessions`, mode `payment`, the amount as `line_items` with
 * `price_data`) have no intent until paid, as card-a from API version 2022-08-01: `payment_intent` is null
 * on creation and on GET. `POST /_sim/checkout/{id}/pay` (the customer on the hosted page) creates the
 * intent then, succeeded, with the `payment_intent_data[metadata]` (never the session's), completes the
 * session, and sends `payment_intent.succeeded` and `checkout.session.completed`.
 *
 * Readers exist when listed in `readers` (any id starting `tmr_` is created on first use otherwise).
 * `POST /v1/terminal/readers/{id}` updates the reader's `label` (1 to 1,000 characters, as card-a
 * allows); `reader(id)` reads a reader back.
 * A reader with an action in progress refuses another with 409 `terminal_reader_busy`.
 * Every POST honours `Idempotency-Key` per account, as card-a does (card-a-idempotency.ts).
 */
export interface CardASimulatorOptions {
  readonly port?: number;
  readonly hostname?: string;
  readonly secretKey: string;
  readonly webhookUrl?: string;
  readonly webhookSecret?: string;
  readonly autoCompleteMs?: number;
}

interface Intent {
  id: string;
  amount: number;
  currency: string;
  status: 'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'processing' | 'requires_capture' | 'canceled' | 'succeeded';
  capture_method: 'automatic' | 'manual';
  payment_method_types: string[];
  metadata: Record<string, string>;
  client_secret: string;
  created: number;
  last_payment_error: { code: string; message: string } | null;
  latest_charge: string | null;
  /** On-reader tipping: the tip the customer added on the reader, included in `amount` (as card-a does). */
  amount_details?: { tip: { amount: number } };
}

interface CheckoutSession {
  id: string;
  object: 'checkout.session';
  amount_total: number;
  currency: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'paid' | 'unpaid' | 'no_payment_required';
  /** Null until the customer pays (card-a creates the intent then). */
  payment_intent: string | null;
  url: string;
  success_url: string;
  cancel_url: string;
  metadata: Record<string, string>;
}

interface Reader {
  id: string;
  /** Set by `POST /v1/terminal/readers/{id}` (`label`); the default is `Reader {id}`. */
  label?: string;
  action: null | {
    type: 'process_payment_intent';
    status: 'in_progress' | 'succeeded' | 'failed';
    failure_code: string | null;
    failure_message: string | null;
    process_payment_intent: { payment_intent: string };
  };
}

export interface CardASimulator {
  readonly url: string;
  /** Where its webhooks go from now on (a test's API listens on a port the system picks, after the simulator started). */
  setWebhookUrl(url: string): void;
  intent(id: string): Readonly<Intent> | undefined;
  /** The customer pays on the hosted page; `{ webhooks: false }` loses card-a's events (a verify must find the payment). */
  payCheckout(sessionId: string, opts?: { webhooks?: boolean }): Promise<void>;
  /** The hosted page expires unpaid. */
  expireCheckout(sessionId: string): void;
  /** The customer's browser confirms an online intent with its client secret (`payment_intent.succeeded`). */
  confirmIntent(intentId: string, clientSecret: string): Promise<void>;
  /** The customer's browser confirms an online intent with a card that is declined (`payment_intent.payment_failed`); the intent takes another card. */
  declineIntent(intentId: string, clientSecret: string): Promise<void>;
  /** A terminal reader as card-a answers it (`label` included), or undefined for one never used. */
  reader(readerId: string): { readonly id: string; readonly label: string } | undefined;
  /** The customer pays on the reader; `tip` (cents) is an on-reader tip, added to the intent's `amount` and shown in `amount_details.tip`. */
  complete(readerId: string, tip?: number): Promise<void>;
  decline(readerId: string): Promise<void>;
  timeout(readerId: string): Promise<void>;
  readonly webhooks: readonly { body: unknown; result: { status: number } | { error: string } }[];
  /** Subscriptions, invoices, mandates, charges, refunds and fees (card-a-billing-simulator.ts). */
  readonly billing: Omit<CardABilling, 'routes'>;
  /** Connected accounts, payouts, customers and their payment methods (card-a-connect-simulator.ts). */
  readonly connect: Omit<CardAConnect, 'routes'>;
  /** Sends one signed event of `type` about `object` to the webhook URL (what the provider would send). */
  sendEvent(type: string, object: unknown): Promise<void>;
  /** Resolves once every event delivery under way has been answered. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const stripeError = (status: number, code: string, message: string, param?: string) =>
  Response.json({ error: { type: status === 401 ? 'invalid_request_error' : 'invalid_request_error', code, message, ...(param ? { param } : {}) } }, { status });

/**
 * A payment intent search query as card-a takes it (`GET /v1/payment_intents/search`): clauses
 * `field:'value'` joined by ` AND `, on `status` or `metadata['key']`. Returns the clauses, or null for
 * a query this simulator does not understand (card-a answers 400 for a malformed one).
 */
export function parseIntentSearch(query: string): { field: string; value: string }[] | null {
  const clauses = query.trim().split(/\s+AND\s+/);
  const out: { field: string; value: string }[] = [];
  for (const c of clauses) {
    const m = /^(status|metadata\[(['"])([^'"]+)\2\]):(['"])(.*)\4$/.exec(c.trim());
    if (!m) return null;
    out.push({ field: m[3] !== undefined ? `metadata.${m[3]}` : m[1]!, value: m[5]! });
  }
  return out.length ? out : null;
}

const rid = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;

/**
 * The line items of a checkout session form (`line_items[i][price_data][unit_amount|currency]`,
 * `[product_data][name]`, `[quantity]`): their total and currency, or card-a's message for what is missing.
 */
function checkoutLineItems(f: Record<string, unknown>): { amount: number; currency: string } | string {
  let amount = 0;
  let currency: string | null = null;
  let i = 0;
  for (; f[`line_items[${i}][quantity]`] !== undefined || f[`line_items[${i}][price_data][unit_amount]`] !== undefined; i++) {
    const at = (k: string) => f[`line_items[${i}]${k}`];
    const unit = at('[price_data][unit_amount]');
    const cur = at('[price_data][currency]');
    const name = at('[price_data][product_data][name]');
    const qty = at('[quantity]');
    if (typeof unit !== 'string' || !/^[0-9]{1,9}$/.test(unit)) return `Missing required param: line_items[${i}][price_data][unit_amount].`;
    if (typeof cur !== 'string' || !/^[a-z]{3}$/.test(cur)) return `Missing required param: line_items[${i}][price_data][currency].`;
    if (typeof name !== 'string' || name.length === 0) return `Missing required param: line_items[${i}][price_data][product_data][name].`;
    if (typeof qty !== 'string' || !/^[1-9][0-9]{0,5}$/.test(qty)) return `Missing required param: line_items[${i}][quantity].`;
    if (currency !== null && cur !== currency) return 'All line items must share one currency.';
    currency = cur;
    amount += Number(unit) * Number(qty);
  }
  if (i === 0 || currency === null) return 'Missing required param: line_items.';
  if (amount < 1) return 'The total of the line items must be at least 1.';
  return { amount, currency };
}

export function startCardASimulator(options: CardASimulatorOptions): CardASimulator {
  let webhookUrl = options.webhookUrl;
  const intents = new Map<string, Intent>();
  const readers = new Map<string, Reader>();
  const sessions = new Map<string, CheckoutSession>();
  /** What `payment_intent_data[metadata]` gave each session: its intent gets it when the customer pays. */
  const sessionIntentMetadata = new Map<string, Record<string, string>>();
  const webhooks: { body: unknown; result: { status: number } | { error: string } }[] = [];

  const intentBody = (i: Intent) => ({ object: 'payment_intent', ...i, livemode: false });
  const readerBody = (r: Reader) => ({
    id: r.id,
    object: 'terminal.reader',
    action: r.action,
    device_type: 'simulated_wisepos_e',
    label: r.label ?? `Reader ${r.id}`,
    location: 'tml_simulated',
    metadata: {},
    serial_number: r.id.slice(4).toUpperCase(),
    status: 'online',
  });
  const readerOf = (id: string): Reader | null => {
    if (!/^tmr_[A-Za-z0-9]{1,60}$/.test(id)) return null;
    let r = readers.get(id);
    if (!r) readers.set(id, (r = { id, action: null }));
    return r;
  };

  const inFlight = new Set<Promise<void>>();
  function sendEvent(type: string, object: unknown): Promise<void> {
    const p = deliver(type, object).finally(() => inFlight.delete(p));
    inFlight.add(p);
    return p;
  }
  async function deliver(type: string, object: unknown) {
    if (!webhookUrl) return;
    const body = JSON.stringify({ id: rid('evt'), object: 'event', api_version: '2024-06-20', created: Math.floor(Date.now() / 1000), type, data: { object }, livemode: false });
    const t = Math.floor(Date.now() / 1000);
    const sig = createHmac('sha256', options.webhookSecret ?? '').update(`${t}.${body}`).digest('hex');
    webhooks.push({ body: JSON.parse(body), result: await postWebhook(webhookUrl, body, { 'Card-A-Signature': `t=${t},v1=${sig}` }) });
  }

  async function finish(readerId: string, outcome: 'succeeded' | 'declined' | 'timeout', tip = 0) {
    const r = readers.get(readerId);
    if (!r?.action || r.action.status !== 'in_progress') throw new Error(`card-a simulator: reader ${readerId} has no action in progress`);
    const pi = intents.get(r.action.process_payment_intent.payment_intent)!;
    if (outcome === 'succeeded') {
      r.action.status = 'succeeded';
      if (tip > 0) {
        pi.amount += tip;
        pi.amount_details = { tip: { amount: tip } };
      }
      pi.status = pi.capture_method === 'manual' ? 'requires_capture' : 'succeeded';
      pi.latest_charge = billing.chargeFor(pi.id, pi.amount).id;
      pi.last_payment_error = null;
    } else {
      r.action.status = 'failed';
      r.action.failure_code = outcome === 'declined' ? 'card_declined' : 'reader_timeout';
      r.action.failure_message = outcome === 'declined' ? 'Your card was declined.' : 'The reader timed out waiting for a card.';
      pi.status = 'requires_payment_method';
      pi.last_payment_error = { code: r.action.failure_code, message: r.action.failure_message };
    }
    await sendEvent(outcome === 'succeeded' ? 'terminal.reader.action_succeeded' : 'terminal.reader.action_failed', readerBody(r));
  }

  async function payCheckout(id: string, opts: { webhooks?: boolean } = {}) {
    const cs = sessions.get(id);
    if (!cs || cs.status !== 'open') throw new Error(`card-a simulator: checkout session ${id} is not open`);
    // The intent is born with the payment, carrying the `payment_intent_data[metadata]` given at creation.
    const pi: Intent = {
      id: rid('pi'),
      amount: cs.amount_total,
      currency: cs.currency,
      status: 'succeeded',
      capture_method: 'automatic',
      payment_method_types: ['card'],
      metadata: sessionIntentMetadata.get(id) ?? {},
      client_secret: `secret_${crypto.randomUUID().replaceAll('-', '')}`,
      created: Math.floor(Date.now() / 1000),
      last_payment_error: null,
      latest_charge: null,
    };
    pi.latest_charge = billing.chargeFor(pi.id, pi.amount).id;
    intents.set(pi.id, pi);
    cs.payment_intent = pi.id;
    cs.status = 'complete';
    cs.payment_status = 'paid';
    if (opts.webhooks === false) return;
    await sendEvent('payment_intent.succeeded', intentBody(pi));
    await sendEvent('checkout.session.completed', cs);
  }

  async function declineIntent(id: string, clientSecret: string) {
    const pi = intents.get(id);
    if (!pi || pi.client_secret !== clientSecret) throw new Error(`card-a simulator: no intent ${id} with that client secret`);
    if (pi.status !== 'requires_payment_method' && pi.status !== 'requires_confirmation') throw new Error(`card-a simulator: intent ${id} is ${pi.status}`);
    // As the provider: the intent goes back to waiting for a payment method, with the decline on it.
    pi.status = 'requires_payment_method';
    pi.last_payment_error = { code: 'card_declined', message: 'Your card was declined.' };
    await sendEvent('payment_intent.payment_failed', intentBody(pi));
  }

  /** An online card intent confirmed in the browser (card-a.js with the client secret): it succeeds at once. */
  async function confirmIntent(id: string, clientSecret: string) {
    const pi = intents.get(id);
    if (!pi || pi.client_secret !== clientSecret) throw new Error(`card-a simulator: no intent ${id} with that client secret`);
    if (pi.status !== 'requires_payment_method' && pi.status !== 'requires_confirmation') throw new Error(`card-a simulator: intent ${id} is ${pi.status}`);
    pi.status = 'succeeded';
    pi.latest_charge = billing.chargeFor(pi.id, pi.amount).id;
    pi.last_payment_error = null;
    await sendEvent('payment_intent.succeeded', intentBody(pi));
  }

  const authorised = (req: Request) => req.headers.get('authorization') === `Bearer ${options.secretKey}`;
  const guard = (h: (req: Request, p: Record<string, string>, url: URL) => Response | Promise<Response>) => (req: Request, p: Record<string, string>, url: URL) =>
    authorised(req) ? h(req, p, url) : stripeError(401, 'invalid_api_key', 'Invalid API Key provided.');
  const control = (outcome: 'succeeded' | 'declined' | 'timeout') => async (req: Request, p: Record<string, string>) => {
    try {
      const b = outcome === 'succeeded' ? await jsonBody(req).catch(() => null) : null;
      const tip = typeof b?.tip === 'number' && Number.isSafeInteger(b.tip) && b.tip > 0 ? b.tip : 0;
      await finish(p.id!, outcome, tip);
      return Response.json(readerBody(readers.get(p.id!)!));
    } catch (e) {
      return stripeError(409, 'simulator_state', (e as Error).message);
    }
  };

  const billing = cardABilling({ send: sendEvent, guard, error: stripeError, rid });
  let selfUrl = '';
  const connect = cardAConnect({ send: sendEvent, guard, error: stripeError, rid, baseUrl: () => selfUrl });
  const routes = [
    ...billing.routes,
    ...connect.routes,
    route(
      'POST',
      '/v1/payment_intents',
      guard(async (req) => {
        const f = fromForm(await req.text());
        const amount = Number(f.amount);
        if (typeof f.amount !== 'string' || !/^[0-9]{1,9}$/.test(f.amount) || amount < 1) return stripeError(400, 'parameter_invalid_integer', 'Invalid integer: amount', 'amount');
        if (typeof f.currency !== 'string' || !/^[a-z]{3}$/.test(f.currency)) return stripeError(400, 'parameter_missing', 'Missing required param: currency.', 'currency');
        const id = rid('pi');
        const i: Intent = {
          id,
          amount,
          currency: f.currency,
          status: 'requires_payment_method',
          capture_method: f.capture_method === 'manual' ? 'manual' : 'automatic',
          payment_method_types: Array.isArray(f.payment_method_types) ? f.payment_method_types : ['card'],
          metadata: f.metadata && typeof f.metadata === 'object' && !Array.isArray(f.metadata) ? f.metadata : {},
          client_secret: `${id}_secret_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`,
          created: Math.floor(Date.now() / 1000),
          last_payment_error: null,
          latest_charge: null,
        };
        intents.set(id, i);
        // An off-session confirmation with a customer's saved card settles at once, as the provider does.
        if (f.confirm === 'true' && typeof f.customer === 'string' && typeof f.payment_method === 'string') {
          const pm = connect.paymentMethod(f.payment_method);
          if (!pm || pm.customer !== f.customer) {
            intents.delete(id);
            return stripeError(400, 'resource_missing', `No such PaymentMethod: '${f.payment_method}'`, 'payment_method');
          }
          if (pm.card.last4 === '0341') {
            i.status = 'requires_payment_method';
            i.last_payment_error = { code: 'card_declined', message: 'Your card was declined.' };
            return Response.json({ error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.', payment_intent: intentBody(i) } }, { status: 402 });
          }
          i.status = 'succeeded';
          i.latest_charge = billing.chargeFor(i.id, i.amount).id;
          void sendEvent('payment_intent.succeeded', intentBody(i));
        }
        return Response.json(intentBody(i));
      }),
    ),
    // Before `/:id`, which would take `search` for an id.
    route(
      'GET',
      '/v1/payment_intents/search',
      guard((_req, _p, url) => {
        const clauses = parseIntentSearch(url.searchParams.get('query') ?? '');
        if (!clauses) return stripeError(400, 'parameter_invalid', 'Invalid search query.', 'query');
        const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 10) || 10));
        const found = [...intents.values()]
          .filter((i) => clauses.every((c) => (c.field === 'status' ? i.status === c.value : i.metadata[c.field.slice('metadata.'.length)] === c.value)))
          .sort((x, y) => y.created - x.created);
        return Response.json({ object: 'search_result', url: '/v1/payment_intents/search', data: found.slice(0, limit).map(intentBody), has_more: found.length > limit, next_page: null });
      }),
    ),
    route(
      'GET',
      '/v1/payment_intents/:id',
      guard((_req, p) => {
        const i = intents.get(p.id!);
        return i ? Response.json(intentBody(i)) : stripeError(404, 'resource_missing', `No such payment_intent: '${p.id}'`, 'intent');
      }),
    ),
    route(
      'POST',
      '/v1/payment_intents/:id/cancel',
      guard((_req, p) => {
        const i = intents.get(p.id!);
        if (!i) return stripeError(404, 'resource_missing', `No such payment_intent: '${p.id}'`, 'intent');
        if (i.status === 'succeeded' || i.status === 'canceled') {
          return stripeError(400, 'payment_intent_unexpected_state', `You cannot cancel this PaymentIntent because it has a status of ${i.status}.`);
        }
        i.status = 'canceled';
        return Response.json(intentBody(i));
      }),
    ),
    route(
      'GET',
      '/v1/terminal/readers/:id',
      guard((_req, p) => {
        const r = readerOf(p.id!);
        return r ? Response.json(readerBody(r)) : stripeError(404, 'resource_missing', `No such terminal.reader: '${p.id}'`);
      }),
    ),
    route(
      'POST',
      '/v1/terminal/readers/:id',
      guard(async (req, p) => {
        const r = readerOf(p.id!);
        if (!r) return stripeError(404, 'resource_missing', `No such terminal.reader: '${p.id}'`);
        const f = fromForm(await req.text());
        if (f.label !== undefined) {
          if (typeof f.label !== 'string' || f.label.length === 0 || f.label.length > 1000) return stripeError(400, 'parameter_invalid_string', 'Invalid string: label must be 1 to 1000 characters.', 'label');
          r.label = f.label;
        }
        return Response.json(readerBody(r));
      }),
    ),
    route(
      'POST',
      '/v1/terminal/readers/:id/process_payment_intent',
      guard(async (req, p) => {
        const r = readerOf(p.id!);
        if (!r) return stripeError(404, 'resource_missing', `No such terminal.reader: '${p.id}'`);
        const f = fromForm(await req.text());
        const pi = typeof f.payment_intent === 'string' ? intents.get(f.payment_intent) : undefined;
        if (!pi) return stripeError(400, 'resource_missing', `No such payment_intent: '${String(f.payment_intent ?? '')}'`, 'payment_intent');
        if (r.action?.status === 'in_progress') {
          return stripeError(409, 'terminal_reader_busy', 'Reader is currently busy processing another request. Please reference the integration guide for more details on how to handle busy readers.');
        }
        if (pi.status !== 'requires_payment_method') return stripeError(400, 'payment_intent_unexpected_state', `This PaymentIntent's status is ${pi.status}.`);
        r.action = { type: 'process_payment_intent', status: 'in_progress', failure_code: null, failure_message: null, process_payment_intent: { payment_intent: pi.id } };
        if (options.autoCompleteMs !== undefined) setTimeout(() => void finish(r.id, 'succeeded').catch(() => {}), options.autoCompleteMs);
        return Response.json(readerBody(r));
      }),
    ),
    route(
      'POST',
      '/v1/terminal/readers/:id/cancel_action',
      guard((_req, p) => {
        const r = readerOf(p.id!);
        if (!r) return stripeError(404, 'resource_missing', `No such terminal.reader: '${p.id}'`);
        if (r.action?.status !== 'in_progress') return stripeError(400, 'terminal_reader_no_action', 'This reader has no action in progress.');
        r.action = null;
        return Response.json(readerBody(r));
      }),
    ),
    route(
      'POST',
      '/v1/checkout/sessions',
      guard(async (req, _p, url) => {
        const f = fromForm(await req.text());
        // As card-a: the amount comes from line items; a top-level amount or currency is an unknown parameter.
        for (const unknown of ['amount', 'currency']) if (f[unknown] !== undefined) return stripeError(400, 'parameter_unknown', `Received unknown parameter: ${unknown}`, unknown);
        if (f.mode !== 'payment') return stripeError(400, 'parameter_invalid_string', 'Only mode=payment is simulated.', 'mode');
        if (typeof f.success_url !== 'string' || typeof f.cancel_url !== 'string') return stripeError(400, 'parameter_missing', 'Missing required param: success_url.', 'success_url');
        const items = checkoutLineItems(f);
        if (typeof items === 'string') return stripeError(400, 'parameter_missing', items, 'line_items');
        const { amount, currency } = items;
        const metadata = f.metadata && typeof f.metadata === 'object' && !Array.isArray(f.metadata) ? f.metadata : {};
        // card-a puts only `payment_intent_data[metadata]` on the intent it creates, never the session's metadata.
        const prefix = 'payment_intent_data[metadata][';
        const intentMetadata = Object.fromEntries(
          Object.entries(f)
            .filter(([k, v]) => k.startsWith(prefix) && k.endsWith(']') && typeof v === 'string')
            .map(([k, v]) => [k.slice(prefix.length, -1), v as string]),
        );
        const id = rid('cs');
        const cs: CheckoutSession = {
          id,
          object: 'checkout.session',
          amount_total: amount,
          currency,
          status: 'open',
          payment_status: 'unpaid',
          payment_intent: null,
          url: `${url.origin}/_sim/checkout/${id}`,
          success_url: f.success_url,
          cancel_url: f.cancel_url,
          metadata,
        };
        sessions.set(id, cs);
        sessionIntentMetadata.set(id, intentMetadata);
        return Response.json(cs);
      }),
    ),
    route(
      'GET',
      '/v1/checkout/sessions/:id',
      guard((_req, p) => {
        const cs = sessions.get(p.id!);
        return cs ? Response.json(cs) : stripeError(404, 'resource_missing', `No such checkout.session: '${p.id}'`);
      }),
    ),
    route('POST', '/_sim/checkout/:id/pay', async (_req, p) => {
      try {
        await payCheckout(p.id!);
        return Response.json(sessions.get(p.id!));
      } catch (e) {
        return stripeError(409, 'simulator_state', (e as Error).message);
      }
    }),
    route('POST', '/_sim/payment_intents/:id/confirm', async (req, p) => {
      try {
        const body = (await req.json().catch(() => ({}))) as { client_secret?: unknown };
        await confirmIntent(p.id!, typeof body.client_secret === 'string' ? body.client_secret : '');
        return Response.json(intentBody(intents.get(p.id!)!));
      } catch (e) {
        return stripeError(409, 'simulator_state', (e as Error).message);
      }
    }),
    route('POST', '/_sim/payment_intents/:id/decline', async (req, p) => {
      try {
        const body = (await req.json().catch(() => ({}))) as { client_secret?: unknown };
        await declineIntent(p.id!, typeof body.client_secret === 'string' ? body.client_secret : '');
        return Response.json(intentBody(intents.get(p.id!)!));
      } catch (e) {
        return stripeError(409, 'simulator_state', (e as Error).message);
      }
    }),
    route('POST', '/_sim/readers/:id/complete', control('succeeded')),
    route('POST', '/_sim/readers/:id/decline', control('declined')),
    route('POST', '/_sim/readers/:id/timeout', control('timeout')),
  ];

  // A repeated POST with the same `Idempotency-Key` answers the first answer (card-a-idempotency.ts).
  const idempotent = cardAIdempotency(stripeError);
  const server = Bun.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? '127.0.0.1',
    fetch: (req) => idempotent(req, (r) => dispatch(routes, r, () => stripeError(404, 'resource_missing', 'Unrecognized request URL.'))),
  });

  selfUrl = `http://${server.hostname}:${server.port}`;
  return {
    url: selfUrl,
    setWebhookUrl: (url: string) => {
      webhookUrl = url;
    },
    intent: (id) => intents.get(id),
    payCheckout,
    confirmIntent,
    declineIntent,
    expireCheckout: (id) => {
      const cs = sessions.get(id);
      if (cs && cs.status === 'open') cs.status = 'expired';
    },
    reader: (id) => {
      const r = readers.get(id);
      return r ? { id: r.id, label: readerBody(r).label } : undefined;
    },
    complete: (id, tip) => finish(id, 'succeeded', tip ?? 0),
    decline: (id) => finish(id, 'declined'),
    timeout: (id) => finish(id, 'timeout'),
    webhooks,
    billing,
    connect,
    sendEvent,
    async idle() {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
    async stop() {
      await server.stop(true);
    },
  };
}
