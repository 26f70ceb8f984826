import { fromForm } from '../shared/form.ts';
import { route, type Route } from '../shared/sim-server.ts';
import type { BillingContext } from './card-a-billing-simulator.ts';

/**
 * The connected-account half of the card-a simulator, as the provider's Connect API behaves:
 * accounts (`POST /v1/accounts`, read, update of the statement descriptor, business website and payout
 * schedule with the provider's validation), embedded-component account sessions, onboarding account
 * links, payouts listed for a connected account (`Card-A-Account` header, cursor paging by
 * `starting_after`, at most 100), customers and card payment methods attached to them (test method ids
 * `pm_card_*` as the provider accepts them). `account.updated` is sent when onboarding completes.
 *
 * Test controls (`/_sim/…`): complete an account's onboarding, stop its charges, change its
 * `card_payments` capability (`capability.updated`), add or change a person of it (`person.created`,
 * `person.updated`; the provider may turn charges on or off after it), add payouts to an account.
 */
export interface ConnectedAccount {
  id: string;
  object: 'account';
  type: 'express' | 'standard';
  country: string;
  email: string | null;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  business_profile: { url: string | null; name: string | null };
  settings: {
    payments: { statement_descriptor: string | null };
    payouts: { schedule: { interval: 'manual' | 'daily' | 'weekly' | 'monthly'; delay_days: number; weekly_anchor?: string; monthly_anchor?: number } };
  };
  metadata: Record<string, string>;
  created: number;
}

export interface Payout {
  id: string;
  object: 'payout';
  amount: number;
  currency: string;
  arrival_date: number;
  created: number;
  status: 'paid' | 'pending' | 'in_transit' | 'canceled' | 'failed';
  method: 'standard' | 'instant';
  description: string | null;
}

export interface Customer {
  id: string;
  object: 'customer';
  name: string | null;
  email: string | null;
  metadata: Record<string, string>;
  invoice_settings: { default_payment_method: string | null };
}

export interface PaymentMethod {
  id: string;
  object: 'payment_method';
  type: 'card';
  customer: string | null;
  card: { brand: string; last4: string; exp_month: number; exp_year: number };
}

export interface CardAConnect {
  readonly routes: Route[];
  account(id: string): Readonly<ConnectedAccount> | undefined;
  customer(id: string): Readonly<Customer> | undefined;
  paymentMethod(id: string): Readonly<PaymentMethod> | undefined;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
/** The provider's test card methods (`pm_card_visa` …): brand and last four digits. */
const TEST_CARDS: Record<string, { brand: string; last4: string }> = {
  pm_card_visa: { brand: 'visa', last4: '4242' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
  pm_card_amex: { brand: 'amex', last4: '8431' },
  pm_card_bancontact: { brand: 'bancontact', last4: '0004' },
  /** Attaches, then every charge on it is declined (`card_declined`). */
  pm_card_chargeDeclined: { brand: 'visa', last4: '0341' },
};

/** The provider's descriptor rule: 5-22 characters, at least one letter, none of `< > \ ' " *`. */
export function statementDescriptorProblem(v: string): string | null {
  if (v.length < 5 || v.length > 22) return 'The statement descriptor must be between 5 and 22 characters long.';
  if (!/[A-Za-z]/.test(v)) return 'The statement descriptor must contain at least one letter.';
  if (/[<>\\'"*]/.test(v)) return 'The statement descriptor cannot contain any of the special characters < > \\ \' " *.';
  return null;
}

export function cardAConnect(ctx: BillingContext & { baseUrl: () => string }): CardAConnect {
  const accounts = new Map<string, ConnectedAccount>();
  const payouts = new Map<string, Payout[]>();
  const customers = new Map<string, Customer>();
  const methods = new Map<string, PaymentMethod>();
  const now = () => Math.floor(Date.now() / 1000);
  /** The form with one-level keys (`business_profile[url]`) also under their bracketed name, as deeper keys arrive. */
  const form = async (req: Request): Promise<Record<string, unknown>> => {
    const f = fromForm(await req.text()) as Record<string, unknown>;
    for (const [k, v] of Object.entries(f)) if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k2, v2] of Object.entries(v)) f[`${k}[${k2}]`] = v2;
    return f;
  };
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const meta = (v: unknown): Record<string, string> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {});
  /** A control's JSON body, or an empty one. */
  const body = async (req: Request): Promise<Record<string, unknown>> => {
    try {
      const v = await req.json();
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  const noAccount = (id: string) => ctx.error(404, 'resource_missing', `No such account: '${id}'`, 'account');

  /** A `pm_card_*` test id becomes a fresh method (as the provider does); an id it issued is itself. */
  function methodOf(id: string): PaymentMethod | undefined {
    const known = methods.get(id);
    if (known) return known;
    const test = TEST_CARDS[id];
    if (!test) return undefined;
    const pm: PaymentMethod = { id: ctx.rid('pm'), object: 'payment_method', type: 'card', customer: null, card: { ...test, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3 } };
    methods.set(pm.id, pm);
    return pm;
  }

  const routes: Route[] = [
    route(
      'POST',
      '/v1/accounts',
      ctx.guard(async (req) => {
        const f = await form(req);
        const type = str(f.type) ?? 'express';
        if (type !== 'express' && type !== 'standard') return ctx.error(400, 'parameter_invalid', `Invalid type: must be one of express or standard`, 'type');
        const country = str(f.country) ?? 'BE';
        if (!/^[A-Z]{2}$/.test(country)) return ctx.error(400, 'parameter_invalid', 'Invalid country', 'country');
        const a: ConnectedAccount = {
          id: ctx.rid('acct'),
          object: 'account',
          type,
          country,
          email: str(f.email) ?? null,
          charges_enabled: false,
          payouts_enabled: false,
          details_submitted: false,
          business_profile: { url: null, name: str(f['business_profile[name]']) ?? null },
          settings: { payments: { statement_descriptor: null }, payouts: { schedule: { interval: 'daily', delay_days: 2 } } },
          metadata: meta(f.metadata),
          created: now(),
        };
        accounts.set(a.id, a);
        payouts.set(a.id, []);
        return Response.json(a);
      }),
    ),
    route(
      'GET',
      '/v1/accounts/:id',
      ctx.guard((_req, p) => {
        const a = accounts.get(p.id!);
        return a ? Response.json(a) : noAccount(p.id!);
      }),
    ),
    route(
      'POST',
      '/v1/accounts/:id',
      ctx.guard(async (req, p) => {
        const a = accounts.get(p.id!);
        if (!a) return noAccount(p.id!);
        const f = await form(req);
        const next = structuredClone(a);
        const descriptor = str(f['settings[payments][statement_descriptor]']);
        if (descriptor !== undefined) {
          const problem = statementDescriptorProblem(descriptor);
          if (problem) return ctx.error(400, 'parameter_invalid', problem, 'settings[payments][statement_descriptor]');
          next.settings.payments.statement_descriptor = descriptor;
        }
        const url = str(f['business_profile[url]']);
        if (url !== undefined) {
          let ok = false;
          try {
            ok = ['http:', 'https:'].includes(new URL(url).protocol);
          } catch {}
          if (!ok) return ctx.error(400, 'url_invalid', 'Not a valid URL', 'business_profile[url]');
          next.business_profile.url = url;
        }
        const interval = str(f['settings[payouts][schedule][interval]']);
        if (interval !== undefined) {
          if (!['manual', 'daily', 'weekly', 'monthly'].includes(interval)) return ctx.error(400, 'parameter_invalid', 'Invalid interval: must be one of manual, daily, weekly, or monthly', 'settings[payouts][schedule][interval]');
          const schedule: ConnectedAccount['settings']['payouts']['schedule'] = { interval: interval as 'daily', delay_days: next.settings.payouts.schedule.delay_days };
          if (interval === 'weekly') {
            const anchor = str(f['settings[payouts][schedule][weekly_anchor]']);
            if (!anchor || !WEEKDAYS.includes(anchor)) return ctx.error(400, 'parameter_missing', 'Missing required param: settings[payouts][schedule][weekly_anchor].', 'settings[payouts][schedule][weekly_anchor]');
            schedule.weekly_anchor = anchor;
          }
          if (interval === 'monthly') {
            const anchor = Number(str(f['settings[payouts][schedule][monthly_anchor]']));
            if (!Number.isInteger(anchor) || anchor < 1 || anchor > 31) return ctx.error(400, 'parameter_missing', 'Missing required param: settings[payouts][schedule][monthly_anchor].', 'settings[payouts][schedule][monthly_anchor]');
            schedule.monthly_anchor = anchor;
          }
          next.settings.payouts.schedule = schedule;
        }
        accounts.set(a.id, next);
        return Response.json(next);
      }),
    ),
    route(
      'POST',
      '/v1/account_sessions',
      ctx.guard(async (req) => {
        const f = await form(req);
        const id = str(f.account);
        if (!id) return ctx.error(400, 'parameter_missing', 'Missing required param: account.', 'account');
        if (!accounts.has(id)) return noAccount(id);
        const components = Object.keys(f).flatMap((k) => /^components\[([a-z_]+)\]\[enabled\]$/.exec(k)?.[1] ?? []);
        if (components.length === 0) return ctx.error(400, 'parameter_missing', 'Missing required param: components.', 'components');
        return Response.json({
          object: 'account_session',
          account: id,
          client_secret: `${ctx.rid('accs')}_secret_${ctx.rid('x').slice(2)}`,
          expires_at: now() + 1800,
          livemode: false,
          components: Object.fromEntries(components.map((c) => [c, { enabled: true }])),
        });
      }),
    ),
    route(
      'POST',
      '/v1/account_links',
      ctx.guard(async (req) => {
        const f = await form(req);
        const id = str(f.account);
        if (!id) return ctx.error(400, 'parameter_missing', 'Missing required param: account.', 'account');
        if (!accounts.has(id)) return noAccount(id);
        if (str(f.type) !== 'account_onboarding' && str(f.type) !== 'account_update') return ctx.error(400, 'parameter_invalid', 'Invalid type: must be one of account_onboarding or account_update', 'type');
        for (const k of ['refresh_url', 'return_url']) if (!str(f[k])) return ctx.error(400, 'parameter_missing', `Missing required param: ${k}.`, k);
        return Response.json({ object: 'account_link', created: now(), expires_at: now() + 300, url: `${ctx.baseUrl()}/_sim/onboarding/${id}?return_url=${encodeURIComponent(str(f.return_url)!)}` });
      }),
    ),
    route(
      'GET',
      '/v1/payouts',
      ctx.guard((req, _p, url) => {
        const id = req.headers.get('card-a-account');
        if (!id) return ctx.error(400, 'parameter_missing', 'Payouts are listed for a connected account (Card-A-Account header).');
        const list = payouts.get(id);
        if (!list) return noAccount(id);
        const limit = url.searchParams.has('limit') ? Number(url.searchParams.get('limit')) : 10;
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) return ctx.error(400, 'parameter_invalid_integer', 'Invalid integer: limit must be between 1 and 100', 'limit');
        const after = url.searchParams.get('starting_after');
        let from = 0;
        if (after) {
          const i = list.findIndex((x) => x.id === after);
          if (i < 0) return ctx.error(400, 'resource_missing', `No such payout: '${after}'`, 'starting_after');
          from = i + 1;
        }
        const page = list.slice(from, from + limit);
        return Response.json({ object: 'list', url: '/v1/payouts', data: page, has_more: from + limit < list.length });
      }),
    ),
    route(
      'POST',
      '/v1/customers',
      ctx.guard(async (req) => {
        const f = await form(req);
        const c: Customer = { id: ctx.rid('cus'), object: 'customer', name: str(f.name) ?? null, email: str(f.email) ?? null, metadata: meta(f.metadata), invoice_settings: { default_payment_method: null } };
        customers.set(c.id, c);
        return Response.json(c);
      }),
    ),
    route(
      'GET',
      '/v1/customers/:id',
      ctx.guard((_req, p) => {
        const c = customers.get(p.id!);
        return c ? Response.json(c) : ctx.error(404, 'resource_missing', `No such customer: '${p.id}'`, 'id');
      }),
    ),
    route(
      'POST',
      '/v1/customers/:id',
      ctx.guard(async (req, p) => {
        const c = customers.get(p.id!);
        if (!c) return ctx.error(404, 'resource_missing', `No such customer: '${p.id}'`, 'id');
        const f = await form(req);
        const pm = str(f['invoice_settings[default_payment_method]']);
        if (pm !== undefined) {
          const m = methods.get(pm);
          if (!m) return ctx.error(400, 'resource_missing', `No such PaymentMethod: '${pm}'`, 'invoice_settings[default_payment_method]');
          if (m.customer !== c.id) return ctx.error(400, 'resource_missing', `The customer does not have a payment method with the ID ${pm}. The payment method must be attached to the customer.`, 'invoice_settings[default_payment_method]');
          c.invoice_settings.default_payment_method = pm;
        }
        return Response.json(c);
      }),
    ),
    route(
      'POST',
      '/v1/payment_methods/:id/attach',
      ctx.guard(async (req, p) => {
        const pm = methodOf(p.id!);
        if (!pm) return ctx.error(404, 'resource_missing', `No such PaymentMethod: '${p.id}'`, 'payment_method');
        const customer = str((await form(req)).customer);
        if (!customer) return ctx.error(400, 'parameter_missing', 'Missing required param: customer.', 'customer');
        if (!customers.has(customer)) return ctx.error(400, 'resource_missing', `No such customer: '${customer}'`, 'customer');
        if (pm.customer && pm.customer !== customer) return ctx.error(400, 'payment_method_unexpected_state', 'The payment method you provided has already been attached to a customer.');
        pm.customer = customer;
        return Response.json(pm);
      }),
    ),
    // --- test controls -------------------------------------------------------------------------
    // The merchant finishes onboarding on the provider's page: charges and payouts turn on.
    route('POST', '/_sim/accounts/:id/complete-onboarding', async (_req, p) => {
      const a = accounts.get(p.id!);
      if (!a) return noAccount(p.id!);
      Object.assign(a, { charges_enabled: true, payouts_enabled: true, details_submitted: true });
      await ctx.send('account.updated', structuredClone(a));
      return Response.json(a);
    }),
    // The provider stops the account's charges (requirements past due, or the merchant disconnected).
    route('POST', '/_sim/accounts/:id/disable-charges', async (_req, p) => {
      const a = accounts.get(p.id!);
      if (!a) return noAccount(p.id!);
      a.charges_enabled = false;
      await ctx.send('account.updated', structuredClone(a));
      return Response.json(a);
    }),
    // The account's `card_payments` capability changes (`active` turns charges on, anything else off);
    // card-a sends `capability.updated`, whose object names the account but not `charges_enabled`.
    route('POST', '/_sim/accounts/:id/capability', async (req, p) => {
      const a = accounts.get(p.id!);
      if (!a) return noAccount(p.id!);
      const b = await body(req);
      const status = str(b.status);
      if (status !== 'active' && status !== 'inactive' && status !== 'pending') return ctx.error(400, 'parameter_invalid', 'status must be active, inactive or pending', 'status');
      a.charges_enabled = status === 'active';
      const capability = { id: 'card_payments', object: 'capability', account: a.id, requested: true, status, requirements: { currently_due: [], past_due: [], disabled_reason: status === 'active' ? null : 'requirements.pending_verification' } };
      await ctx.send('capability.updated', capability);
      return Response.json(capability);
    }),
    // A person of the account is added (no `id`) or changed; `charges_enabled`, when given, is what the
    // provider decides for the account after it (a representative failing verification stops charges).
    route('POST', '/_sim/accounts/:id/persons', async (req, p) => {
      const a = accounts.get(p.id!);
      if (!a) return noAccount(p.id!);
      const b = await body(req);
      const id = str(b.id);
      const verification = str(b.verification) ?? 'pending';
      if (typeof b.charges_enabled === 'boolean') a.charges_enabled = b.charges_enabled;
      const person = { id: id ?? ctx.rid('person'), object: 'person', account: a.id, relationship: { representative: true }, verification: { status: verification } };
      await ctx.send(id ? 'person.updated' : 'person.created', person);
      return Response.json(person);
    }),
    // Payouts the provider made to the account, newest first as it lists them.
    route('POST', '/_sim/accounts/:id/payouts', async (req, p) => {
      const list = payouts.get(p.id!);
      if (!list) return noAccount(p.id!);
      let b: Record<string, unknown> = {};
      try {
        b = (await req.json()) as Record<string, unknown>;
      } catch {}
      const items = Array.isArray(b.payouts) ? (b.payouts as Record<string, unknown>[]) : [b];
      const made = items.map((x): Payout => ({
        id: ctx.rid('po'),
        object: 'payout',
        amount: typeof x.amount === 'number' ? x.amount : 10_000,
        currency: typeof x.currency === 'string' ? x.currency : 'eur',
        arrival_date: typeof x.arrival_date === 'number' ? x.arrival_date : now() + 2 * 86_400,
        created: typeof x.created === 'number' ? x.created : now(),
        status: typeof x.status === 'string' ? (x.status as Payout['status']) : 'paid',
        method: 'standard',
        description: typeof x.description === 'string' ? x.description : null,
      }));
      list.unshift(...made.reverse());
      return Response.json({ data: list });
    }),
  ];

  return { routes, account: (id) => accounts.get(id), customer: (id) => customers.get(id), paymentMethod: (id) => methods.get(id) };
}
