import { fromForm } from '../shared/form.ts';
import { route, type Route } from '../shared/sim-server.ts';

/**
 * The billing half of the card-a simulator (PROTOCOLS.md "card-a", event envelope as there):
 * subscriptions, their invoices, SEPA setup intents with mandates, charges, refunds and application
 * fees. Each state change sends the provider's signed event through `send`, as the provider does:
 * `customer.subscription.created|updated|deleted`, `setup_intent.succeeded`, `invoice.payment_failed`,
 * `invoice.paid`, `invoice.voided`, `charge.refunded`, `application_fee.created`. A paid invoice has
 * its charge (`charge`, whose `invoice` names it back), unless it was paid out of band.
 *
 * Test controls (`/_sim/…`): set up a SEPA mandate for a customer, fail a subscription's invoice
 * (optionally cancelling the subscription for that failure at the same moment, as the provider does
 * after its last attempt), pay a subscription's next invoice (or mark it paid out of band), void an
 * open invoice, decline retries with a mandate, change a subscription, attach an application fee to a
 * charge. In process: make the next changes of a subscription fail (an outage) or
 * answer late (`failUpdates`, `delayUpdateAnswer`).
 */
export interface Subscription {
  id: string;
  object: 'subscription';
  customer: string;
  status: 'active' | 'trialing' | 'past_due' | 'canceled' | 'unpaid' | 'paused' | 'incomplete';
  current_period_end: number;
  default_payment_method: string | null;
  /** One item per price; `id` (`si_…`) is what an update names to change its quantity. */
  items: { data: { id: string; price: { id: string }; quantity: number }[] };
  metadata: Record<string, string>;
  cancellation_details: { reason: 'cancellation_requested' | 'payment_failed' | null };
  canceled_at: number | null;
  /** Cancel at the end of the paid period (the subscription serves until then; reversible). */
  cancel_at_period_end: boolean;
}

export interface Invoice {
  id: string;
  object: 'invoice';
  customer: string;
  subscription: string;
  subscription_details: { metadata: Record<string, string> };
  amount_due: number;
  /** What card-a collected (cents); the whole amount once paid, out of band included. */
  amount_paid: number;
  /** The charge that paid it; null while unpaid or when paid out of band. */
  charge: string | null;
  attempt_count: number;
  status: 'open' | 'paid' | 'void';
  paid_out_of_band: boolean;
  payment_settings: { payment_method_types: string[] };
  created: number;
}

export interface Charge {
  id: string;
  object: 'charge';
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  payment_intent: string;
  /** The invoice the charge paid (a subscription's), or null. */
  invoice: string | null;
  application_fee: string | null;
  application_fee_amount: number | null;
}

export interface BillingContext {
  send(type: string, object: unknown): Promise<void>;
  guard(h: (req: Request, p: Record<string, string>, url: URL) => Response | Promise<Response>): (req: Request, p: Record<string, string>, url: URL) => Response | Promise<Response>;
  error(status: number, code: string, message: string, param?: string): Response;
  rid(prefix: string): string;
}

export interface CardABilling {
  readonly routes: Route[];
  subscription(id: string): Readonly<Subscription> | undefined;
  subscriptionsOf(customer: string): readonly Readonly<Subscription>[];
  invoice(id: string): Readonly<Invoice> | undefined;
  charge(id: string): Readonly<Charge> | undefined;
  /** A charge for a succeeded payment intent (the terminal and checkout paths call this). */
  chargeFor(paymentIntent: string, amount: number): Charge;
  /** Invoice pay calls received with a mandate (what the platform retried). */
  readonly mandateRetries: readonly { invoice: string; mandate: string; ok: boolean }[];
  /** The next `times` updates of the subscription (`POST /v1/subscriptions/{id}`) answer 500, nothing changed. */
  failUpdates(id: string, times?: number): void;
  /** The next update of the subscription is applied at once and answered `ms` later (a slow answer). */
  delayUpdateAnswer(id: string, ms: number): void;
}

const PERIOD_S = 30 * 24 * 3600;

export function cardABilling(ctx: BillingContext): CardABilling {
  const subscriptions = new Map<string, Subscription>();
  const invoices = new Map<string, Invoice>();
  const charges = new Map<string, Charge>();
  /** customer -> the SEPA payment method and mandate set up for it */
  const mandates = new Map<string, { payment_method: string; mandate: string }>();
  /** mandates whose retries decline (the account has no funds) */
  const declining = new Set<string>();
  const mandateRetries: { invoice: string; mandate: string; ok: boolean }[] = [];
  /** subscription -> updates still to fail; subscription -> the delay of its next update's answer */
  const failing = new Map<string, number>();
  const delayed = new Map<string, number>();
  const now = () => Math.floor(Date.now() / 1000);
  /** The next invoice of subscription `s` (no charge yet), with what differs between paid and failed. */
  const periodInvoice = (s: Subscription, fields: Pick<Invoice, 'amount_due' | 'amount_paid' | 'attempt_count' | 'status' | 'paid_out_of_band' | 'payment_settings'>): Invoice => ({
    id: ctx.rid('in'),
    object: 'invoice',
    customer: s.customer,
    subscription: s.id,
    subscription_details: { metadata: { ...s.metadata } },
    charge: null,
    created: now(),
    ...fields,
  });
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const meta = (v: unknown): Record<string, string> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {});
  const json = async (req: Request): Promise<Record<string, unknown>> => {
    try {
      const v = await req.json();
      return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };

  function createSubscription(customer: string, price: string, paymentMethod: string | null, metadata: Record<string, string>, quantity = 1): Subscription {
    const s: Subscription = {
      id: ctx.rid('sub'),
      object: 'subscription',
      customer,
      status: 'active',
      current_period_end: now() + PERIOD_S,
      default_payment_method: paymentMethod,
      items: { data: [{ id: ctx.rid('si'), price: { id: price }, quantity }] },
      metadata,
      cancellation_details: { reason: null },
      canceled_at: null,
      cancel_at_period_end: false,
    };
    subscriptions.set(s.id, s);
    return s;
  }

  function chargeFor(paymentIntent: string, amount: number, invoice: string | null = null): Charge {
    const c: Charge = { id: ctx.rid('ch'), object: 'charge', amount, amount_refunded: 0, refunded: false, payment_intent: paymentIntent, invoice, application_fee: null, application_fee_amount: null };
    charges.set(c.id, c);
    return c;
  }

  const routes: Route[] = [
    route(
      'POST',
      '/v1/subscriptions',
      ctx.guard(async (req) => {
        const f = fromForm(await req.text());
        const customer = text(f.customer);
        const price = text(f['items[0][price]']);
        if (!customer) return ctx.error(400, 'parameter_missing', 'Missing required param: customer.', 'customer');
        if (!price) return ctx.error(400, 'parameter_missing', 'Missing required param: items[0][price].', 'items');
        const q = f['items[0][quantity]'] === undefined ? 1 : Number(f['items[0][quantity]']);
        if (!Number.isInteger(q) || q < 1) return ctx.error(400, 'parameter_invalid_integer', 'Invalid integer: items[0][quantity].', 'items');
        const s = createSubscription(customer, price, text(f.default_payment_method), meta(f.metadata), q);
        // The provider answers first and delivers its events afterwards (never inside the API call).
        void ctx.send('customer.subscription.created', { ...s });
        return Response.json(s);
      }),
    ),
    route(
      'GET',
      '/v1/subscriptions/:id',
      ctx.guard((_req, p) => {
        const s = subscriptions.get(p.id!);
        return s ? Response.json(s) : ctx.error(404, 'resource_missing', `No such subscription: '${p.id}'`);
      }),
    ),
    route(
      'DELETE',
      '/v1/subscriptions/:id',
      ctx.guard(async (_req, p) => {
        const s = subscriptions.get(p.id!);
        if (!s) return ctx.error(404, 'resource_missing', `No such subscription: '${p.id}'`);
        if (s.status === 'canceled') return ctx.error(400, 'resource_missing', 'This subscription is already canceled.');
        Object.assign(s, { status: 'canceled', canceled_at: now(), cancellation_details: { reason: 'cancellation_requested' } });
        void ctx.send('customer.subscription.deleted', { ...s });
        return Response.json(s);
      }),
    ),
    // The provider's subscription update: the cancellation at the period end (scheduled or withdrawn), an
    // item's quantity (`items[0][id]` names the item; an item without an id would be a new item, which
    // needs a price) and metadata (merged into the subscription's; an empty value removes the key).
    route(
      'POST',
      '/v1/subscriptions/:id',
      ctx.guard(async (req, p) => {
        const s = subscriptions.get(p.id!);
        if (!s) return ctx.error(404, 'resource_missing', `No such subscription: '${p.id}'`);
        const f = fromForm(await req.text());
        const failures = failing.get(s.id) ?? 0;
        if (failures > 0) {
          failing.set(s.id, failures - 1);
          return Response.json({ error: { type: 'api_error', message: 'An error occurred with our connection to card-a.' } }, { status: 500 });
        }
        const flag = text(f.cancel_at_period_end);
        if (flag !== null && flag !== 'true' && flag !== 'false') return ctx.error(400, 'parameter_invalid_boolean', 'Invalid boolean: cancel_at_period_end', 'cancel_at_period_end');
        const itemId = text(f['items[0][id]']);
        const rawQuantity = f['items[0][quantity]'];
        if (rawQuantity !== undefined && !itemId) return ctx.error(400, 'parameter_missing', 'Missing required param: items[0][price].', 'items');
        const item = itemId ? s.items.data.find((i) => i.id === itemId) : undefined;
        if (itemId && !item) return ctx.error(400, 'resource_missing', `No such subscription item: '${itemId}'`, 'items');
        const quantity = rawQuantity === undefined ? null : Number(rawQuantity);
        if (quantity !== null && (!Number.isInteger(quantity) || quantity < 0)) return ctx.error(400, 'parameter_invalid_integer', 'Invalid integer: items[0][quantity].', 'items');
        if (s.status === 'canceled' && (flag !== null || item)) return ctx.error(400, 'resource_missing', 'A canceled subscription can only update its cancellation_details and metadata.');
        if (flag !== null) s.cancel_at_period_end = flag === 'true';
        if (item && quantity !== null) item.quantity = quantity;
        for (const [k, v] of Object.entries(meta(f.metadata))) {
          if (v === '') delete s.metadata[k];
          else s.metadata[k] = v;
        }
        const answer = JSON.parse(JSON.stringify(s)) as Subscription;
        void ctx.send('customer.subscription.updated', answer);
        const delay = delayed.get(s.id);
        if (delay !== undefined) {
          delayed.delete(s.id);
          await Bun.sleep(delay);
        }
        return Response.json(answer);
      }),
    ),
    // Invoices of a customer and/or subscription, newest first (a list object, as the provider answers).
    route(
      'GET',
      '/v1/invoices',
      ctx.guard((_req, _p, url) => {
        const customer = url.searchParams.get('customer');
        const subscription = url.searchParams.get('subscription');
        const status = url.searchParams.get('status');
        const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 10) || 10));
        const all = [...invoices.values()]
          .filter((i) => (!customer || i.customer === customer) && (!subscription || i.subscription === subscription) && (!status || i.status === status))
          .reverse();
        return Response.json({ object: 'list', url: '/v1/invoices', data: all.slice(0, limit), has_more: all.length > limit });
      }),
    ),
    route(
      'GET',
      '/v1/invoices/:id',
      ctx.guard((_req, p) => {
        const i = invoices.get(p.id!);
        return i ? Response.json(i) : ctx.error(404, 'resource_missing', `No such invoice: '${p.id}'`);
      }),
    ),
    route(
      'POST',
      '/v1/invoices/:id/pay',
      ctx.guard(async (req, p) => {
        const i = invoices.get(p.id!);
        if (!i) return ctx.error(404, 'resource_missing', `No such invoice: '${p.id}'`);
        if (i.status !== 'open') return ctx.error(400, 'invoice_not_open', `Invoice is already ${i.status}.`);
        const f = fromForm(await req.text());
        const mandate = text(f.mandate);
        const pm = text(f.payment_method);
        const set = mandates.get(i.customer);
        if (mandate && (!set || set.mandate !== mandate || (pm && set.payment_method !== pm))) return ctx.error(400, 'resource_missing', `No such mandate: '${mandate}'`, 'mandate');
        const ok = !(mandate && declining.has(mandate));
        if (mandate) mandateRetries.push({ invoice: i.id, mandate, ok });
        i.attempt_count++;
        if (!ok) {
          void ctx.send('invoice.payment_failed', { ...i });
          return Response.json({ error: { type: 'card_error', code: 'payment_intent_payment_attempt_failed', message: 'The payment attempt failed.' } }, { status: 402 });
        }
        i.status = 'paid';
        i.amount_paid = i.amount_due;
        i.charge = chargeFor(ctx.rid('pi'), i.amount_due, i.id).id;
        const s = subscriptions.get(i.subscription);
        if (s && s.status === 'past_due') {
          s.status = 'active';
          void ctx.send('customer.subscription.updated', { ...s });
        }
        void ctx.send('invoice.paid', { ...i });
        return Response.json(i);
      }),
    ),
    route(
      'GET',
      '/v1/charges/:id',
      ctx.guard((_req, p) => {
        const c = charges.get(p.id!);
        return c ? Response.json(c) : ctx.error(404, 'resource_missing', `No such charge: '${p.id}'`);
      }),
    ),
    route(
      'POST',
      '/v1/refunds',
      ctx.guard(async (req) => {
        const f = fromForm(await req.text());
        const c = text(f.charge) ? charges.get(text(f.charge)!) : [...charges.values()].find((x) => x.payment_intent === text(f.payment_intent));
        if (!c) return ctx.error(400, 'resource_missing', 'No such charge.', 'charge');
        const amount = f.amount === undefined ? c.amount - c.amount_refunded : Number(f.amount);
        if (!Number.isInteger(amount) || amount < 1 || amount > c.amount - c.amount_refunded) return ctx.error(400, 'amount_too_large', 'Refund amount is greater than the unrefunded amount.', 'amount');
        c.amount_refunded += amount;
        c.refunded = c.amount_refunded === c.amount;
        const refund = { id: ctx.rid('re'), object: 'refund', amount, charge: c.id, payment_intent: c.payment_intent, status: 'succeeded' };
        void ctx.send('charge.refunded', { ...c });
        return Response.json(refund);
      }),
    ),
    // --- test controls -------------------------------------------------------------------------
    // The customer signs a SEPA mandate (on the provider's page); `metadata` is what the platform set on the setup intent.
    route('POST', '/_sim/customers/:id/sepa', async (req, p) => {
      const set = { payment_method: ctx.rid('pm'), mandate: ctx.rid('mandate') };
      mandates.set(p.id!, set);
      const metadata = meta((await json(req)).metadata);
      await ctx.send('setup_intent.succeeded', { id: ctx.rid('seti'), object: 'setup_intent', customer: p.id, status: 'succeeded', payment_method: set.payment_method, mandate: set.mandate, payment_method_types: ['sepa_debit'], metadata });
      return Response.json(set);
    }),
    route('POST', '/_sim/mandates/:id/decline', (_req, p) => {
      declining.add(p.id!);
      return Response.json({ mandate: p.id, declining: true });
    }),
    route('POST', '/_sim/subscriptions/:id/update', async (req, p) => {
      const s = subscriptions.get(p.id!);
      if (!s) return ctx.error(404, 'resource_missing', `No such subscription: '${p.id}'`);
      const b = await json(req);
      const was = s.status;
      if (typeof b.status === 'string') s.status = b.status as Subscription['status'];
      if (typeof b.current_period_end === 'number') s.current_period_end = b.current_period_end;
      // Pausing and resuming have their own event types (the provider sends those instead of `updated`).
      const type = s.status === 'paused' && was !== 'paused' ? 'customer.subscription.paused' : was === 'paused' && s.status === 'active' ? 'customer.subscription.resumed' : 'customer.subscription.updated';
      await ctx.send(type, { ...s });
      return Response.json(s);
    }),
    // The invoice of the next period fails; with `cancel` the subscription is cancelled for that failure
    // and both events leave at the same moment (the race the platform's database lock guards).
    route('POST', '/_sim/subscriptions/:id/invoice-failed', async (req, p) => {
      const s = subscriptions.get(p.id!);
      if (!s) return ctx.error(404, 'resource_missing', `No such subscription: '${p.id}'`);
      const b = await json(req);
      const i = periodInvoice(s, { amount_due: typeof b.amount === 'number' ? b.amount : 4900, amount_paid: 0, attempt_count: 1, status: 'open', paid_out_of_band: false, payment_settings: { payment_method_types: ['sepa_debit'] } });
      invoices.set(i.id, i);
      const sends = [ctx.send('invoice.payment_failed', { ...i })];
      if (b.cancel === true) {
        Object.assign(s, { status: 'canceled', canceled_at: now(), cancellation_details: { reason: 'payment_failed' } });
        sends.push(ctx.send('customer.subscription.deleted', { ...s }));
      } else {
        s.status = 'past_due';
      }
      await Promise.all(sends);
      return Response.json(i);
    }),
    // The subscription's next invoice is paid: charged to its payment method, or (`out_of_band`) marked
    // paid outside card-a, as the provider's dashboard does (no charge then).
    route('POST', '/_sim/subscriptions/:id/invoice-paid', async (req, p) => {
      const s = subscriptions.get(p.id!);
      if (!s) return ctx.error(404, 'resource_missing', `No such subscription: '${p.id}'`);
      const b = await json(req);
      const amount = typeof b.amount === 'number' && Number.isInteger(b.amount) && b.amount >= 0 ? b.amount : 4900;
      const outOfBand = b.out_of_band === true;
      const i = periodInvoice(s, { amount_due: amount, amount_paid: amount, attempt_count: outOfBand ? 0 : 1, status: 'paid', paid_out_of_band: outOfBand, payment_settings: { payment_method_types: ['card'] } });
      if (!outOfBand && amount > 0) i.charge = chargeFor(ctx.rid('pi'), amount, i.id).id;
      invoices.set(i.id, i);
      await ctx.send('invoice.paid', { ...i });
      return Response.json(i);
    }),
    // The merchant (or the provider's dunning) voids an open invoice; a paid one cannot be voided.
    route('POST', '/_sim/invoices/:id/void', async (_req, p) => {
      const i = invoices.get(p.id!);
      if (!i) return ctx.error(404, 'resource_missing', `No such invoice: '${p.id}'`);
      if (i.status !== 'open') return ctx.error(400, 'invoice_not_open', `You can only void an open invoice; this one is ${i.status}.`);
      i.status = 'void';
      await ctx.send('invoice.voided', { ...i });
      return Response.json(i);
    }),
    route('POST', '/_sim/charges/:id/application_fee', async (req, p) => {
      const c = charges.get(p.id!);
      if (!c) return ctx.error(404, 'resource_missing', `No such charge: '${p.id}'`);
      const b = await json(req);
      const amount = typeof b.amount === 'number' && Number.isInteger(b.amount) && b.amount > 0 ? b.amount : null;
      if (amount === null) return ctx.error(400, 'parameter_invalid_integer', 'Invalid integer: amount', 'amount');
      const fee = { id: ctx.rid('fee'), object: 'application_fee', amount, charge: c.id, account: 'acct_simulated', originating_transaction: c.id, refunded: false };
      c.application_fee = fee.id;
      c.application_fee_amount = amount;
      await ctx.send('application_fee.created', { ...fee });
      return Response.json(fee);
    }),
  ];

  return {
    routes,
    subscription: (id) => subscriptions.get(id),
    subscriptionsOf: (customer) => [...subscriptions.values()].filter((s) => s.customer === customer),
    invoice: (id) => invoices.get(id),
    charge: (id) => charges.get(id),
    chargeFor,
    mandateRetries,
    failUpdates: (id, times = 1) => void failing.set(id, times),
    delayUpdateAnswer: (id, ms) => void delayed.set(id, ms),
  };
}
