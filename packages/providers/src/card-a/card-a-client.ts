import { toForm } from '../shared/form.ts';
import { ProviderError, providerFetch, readJson, trimSlash } from '../shared/provider-error.ts';

export interface CardAConfig {
  /** API base URL (`CARD_A_BASE_URL`). */
  readonly baseUrl: string;
  /** Secret API key (`CARD_A_SECRET_KEY`). */
  readonly secretKey: string;
  readonly timeoutMs?: number;
}

export type CardAIntentStatus = 'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'processing' | 'requires_capture' | 'canceled' | 'succeeded';

export interface CardAPaymentIntent {
  readonly id: string;
  /** Cents. */
  readonly amount: number;
  readonly currency: string;
  readonly status: CardAIntentStatus;
  readonly client_secret: string;
  readonly created: number;
  readonly metadata: Readonly<Record<string, string>>;
  readonly last_payment_error: { code: string; message: string } | null;
  /** On-reader tipping: the tip the customer added, already included in `amount`. */
  readonly amount_details?: { readonly tip?: { readonly amount?: number } };
}

export interface CardAReader {
  readonly id: string;
  readonly label?: string;
  readonly action: null | {
    readonly type: string;
    readonly status: 'in_progress' | 'succeeded' | 'failed';
    readonly failure_code: string | null;
    readonly failure_message: string | null;
    readonly process_payment_intent?: { readonly payment_intent: string };
  };
}

export interface CardACheckoutSession {
  readonly id: string;
  readonly url: string;
  readonly status: 'open' | 'complete' | 'expired';
  readonly payment_status: 'paid' | 'unpaid' | 'no_payment_required';
  readonly payment_intent: string | null;
  /** Cents. */
  readonly amount_total: number;
  readonly currency: string;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface CardASubscription {
  readonly id: string;
  readonly customer: string;
  readonly status: string;
  readonly current_period_end: number;
  readonly default_payment_method: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly cancel_at_period_end?: boolean;
  /** Its items (one per price): `id` (`si_…`) is what an update names to change a quantity. */
  readonly items?: { readonly data: readonly { readonly id: string; readonly quantity?: number }[] };
}

export interface CardAInvoice {
  readonly id: string;
  readonly customer: string;
  readonly subscription: string | null;
  readonly status: string;
  readonly amount_due: number;
  readonly attempt_count?: number;
  /** Unix seconds. */
  readonly created?: number;
}

export interface CardACharge {
  readonly id: string;
  readonly amount: number;
  readonly amount_refunded: number;
  readonly payment_intent: string | null;
}

export interface CardAAccount {
  readonly id: string;
  readonly charges_enabled: boolean;
  readonly payouts_enabled: boolean;
  readonly details_submitted: boolean;
  readonly business_profile: { readonly url: string | null };
  readonly settings: {
    readonly payments: { readonly statement_descriptor: string | null };
    readonly payouts: { readonly schedule: CardAPayoutSchedule & { readonly delay_days: number } };
  };
}

export interface CardAPayoutSchedule {
  readonly interval: 'manual' | 'daily' | 'weekly' | 'monthly';
  readonly weekly_anchor?: string;
  readonly monthly_anchor?: number;
}

export interface CardAPayout {
  readonly id: string;
  /** Cents. */
  readonly amount: number;
  readonly currency: string;
  /** Unix seconds. */
  readonly arrival_date: number;
  readonly created: number;
  readonly status: string;
  readonly description: string | null;
}

export interface CardACustomer {
  readonly id: string;
  readonly invoice_settings: { readonly default_payment_method: string | null };
}

export interface CardAPaymentMethod {
  readonly id: string;
  readonly customer: string | null;
  readonly card: { readonly brand: string; readonly last4: string; readonly exp_month: number; readonly exp_year: number };
}

/** card-a client: payment intents, hosted checkout sessions and terminal readers. Amounts are cents on this API. */
export class CardAClient {
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(private readonly config: CardAConfig) {
    this.base = trimSlash(config.baseUrl);
    this.timeoutMs = config.timeoutMs ?? 15_000;
  }

  private async call<T>(method: 'GET' | 'POST', path: string, form?: Record<string, unknown>, idempotencyKey?: string): Promise<T> {
    const body = await this.callObject(method, path, form, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
    if (typeof body.id !== 'string') throw new ProviderError('card-a', 'invalid_response', `no object in the answer to ${method} ${path}`, 200);
    return body as T;
  }

  /** Like `call`, for answers that are not objects with an id (lists, sessions, links). */
  private async callObject(method: 'GET' | 'POST', path: string, form?: Record<string, unknown>, extra: Record<string, string> = {}): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.config.secretKey}`, ...extra };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await providerFetch('card-a', `${this.base}${path}`, { method, headers, body: form ? toForm(form) : undefined }, this.timeoutMs);
    const body = await readJson('card-a', res);
    if (!res.ok) {
      const e = body?.error ?? {};
      throw new ProviderError('card-a', 'http', typeof e.message === 'string' ? e.message : `HTTP ${res.status}`, res.status, typeof e.code === 'string' ? e.code : null);
    }
    if (!body || typeof body !== 'object') throw new ProviderError('card-a', 'invalid_response', `no object in the answer to ${method} ${path}`, res.status);
    return body as Record<string, unknown>;
  }

  /** A card-present payment intent for a terminal reader (or a card intent for online payment). */
  createPaymentIntent(input: { amount: number; currency: string; paymentMethodTypes: string[]; metadata: Record<string, string>; idempotencyKey: string; captureMethod?: 'automatic' | 'manual' }) {
    return this.call<CardAPaymentIntent>(
      'POST',
      '/v1/payment_intents',
      { amount: input.amount, currency: input.currency.toLowerCase(), payment_method_types: input.paymentMethodTypes, capture_method: input.captureMethod ?? 'automatic', metadata: input.metadata },
      input.idempotencyKey,
    );
  }

  /**
   * A hosted checkout session for one amount (online ordering's hosted path), as card-a takes it: the
   * amount is one line item (`price_data` with `unit_amount`, `currency`, `product_data[name]`,
   * quantity 1; card-a knows no top-level amount here), and the metadata goes both on the session and,
   * through `payment_intent_data[metadata]`, on the payment intent card-a creates for it: card-a does not
   * copy a session's metadata onto its intent, and the payment-intent webhooks find the merchant by the
   * intent's `location_id` (spec 3).
   */
  createCheckoutSession(input: { amount: number; currency: string; productName: string; successUrl: string; cancelUrl: string; metadata: Record<string, string>; idempotencyKey: string }) {
    const intentMetadata = Object.fromEntries(Object.entries(input.metadata).map(([k, v]) => [`payment_intent_data[metadata][${k}]`, v]));
    return this.call<CardACheckoutSession>(
      'POST',
      '/v1/checkout/sessions',
      {
        mode: 'payment',
        'line_items[0][price_data][currency]': input.currency.toLowerCase(),
        'line_items[0][price_data][unit_amount]': String(input.amount),
        'line_items[0][price_data][product_data][name]': input.productName,
        'line_items[0][quantity]': '1',
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        metadata: input.metadata,
        ...intentMetadata,
      },
      input.idempotencyKey,
    );
  }

  retrieveCheckoutSession(id: string) {
    return this.call<CardACheckoutSession>('GET', `/v1/checkout/sessions/${encodeURIComponent(id)}`);
  }

  retrievePaymentIntent(id: string) {
    return this.call<CardAPaymentIntent>('GET', `/v1/payment_intents/${encodeURIComponent(id)}`);
  }

  /**
   * Payment intents matching a card-a search query (`GET /v1/payment_intents/search`, e.g.
   * `metadata['purchase_id']:'…'`), newest first, at most `limit`. card-a's search index trails its
   * writes (about a minute): not for reading back an intent just created.
   */
  async searchPaymentIntents(query: string, limit = 10): Promise<CardAPaymentIntent[]> {
    const body = await this.callObject('GET', `/v1/payment_intents/search?${new URLSearchParams({ query, limit: String(limit) })}`);
    if (!Array.isArray(body.data)) throw new ProviderError('card-a', 'invalid_response', 'no list in the answer to GET /v1/payment_intents/search', 200);
    return body.data as CardAPaymentIntent[];
  }

  cancelPaymentIntent(id: string) {
    return this.call<CardAPaymentIntent>('POST', `/v1/payment_intents/${encodeURIComponent(id)}/cancel`, {});
  }

  /** Hands the intent to the reader. A reader busy with another action is a ProviderError 409 `terminal_reader_busy`. */
  processPaymentIntent(readerId: string, paymentIntentId: string) {
    return this.call<CardAReader>('POST', `/v1/terminal/readers/${encodeURIComponent(readerId)}/process_payment_intent`, { payment_intent: paymentIntentId });
  }

  retrieveReader(readerId: string) {
    return this.call<CardAReader>('GET', `/v1/terminal/readers/${encodeURIComponent(readerId)}`);
  }

  /** Renames the reader at card-a (`POST /v1/terminal/readers/{id}` with `label`). */
  updateReaderLabel(readerId: string, label: string) {
    return this.call<CardAReader>('POST', `/v1/terminal/readers/${encodeURIComponent(readerId)}`, { label });
  }

  cancelReaderAction(readerId: string) {
    return this.call<CardAReader>('POST', `/v1/terminal/readers/${encodeURIComponent(readerId)}/cancel_action`, {});
  }

  /** A subscription for one price, paid with `paymentMethod` (a SEPA debit method with its mandate). */
  createSubscription(input: { customer: string; price: string; paymentMethod: string | null; metadata: Record<string, string>; quantity?: number; idempotencyKey: string }) {
    return this.call<CardASubscription>(
      'POST',
      '/v1/subscriptions',
      {
        customer: input.customer,
        'items[0][price]': input.price,
        ...(input.quantity !== undefined ? { 'items[0][quantity]': String(input.quantity) } : {}),
        ...(input.paymentMethod ? { default_payment_method: input.paymentMethod } : {}),
        metadata: input.metadata,
      },
      input.idempotencyKey,
    );
  }

  retrieveSubscription(id: string) {
    return this.call<CardASubscription>('GET', `/v1/subscriptions/${encodeURIComponent(id)}`);
  }

  /** Pays an open invoice now, off session, with a payment method and its mandate. */
  payInvoice(invoiceId: string, input: { paymentMethod: string; mandate: string }) {
    return this.call<CardAInvoice>('POST', `/v1/invoices/${encodeURIComponent(invoiceId)}/pay`, { payment_method: input.paymentMethod, mandate: input.mandate, off_session: 'true' });
  }

  /** Schedules (true) or withdraws (false) the cancellation at the end of the paid period. */
  setCancelAtPeriodEnd(id: string, cancel: boolean) {
    return this.call<CardASubscription>('POST', `/v1/subscriptions/${encodeURIComponent(id)}`, { cancel_at_period_end: cancel ? 'true' : 'false' });
  }

  /**
   * Changes a subscription (`POST /v1/subscriptions/{id}`): the quantity of one of its items (named by
   * its `si_…` id; without the id card-a would add an item), metadata keys (card-a merges them into the
   * subscription's; an empty value removes the key) and/or the cancellation at the end of the period.
   */
  updateSubscription(id: string, input: { item?: { id: string; quantity: number }; metadata?: Record<string, string>; cancelAtPeriodEnd?: boolean }) {
    return this.call<CardASubscription>('POST', `/v1/subscriptions/${encodeURIComponent(id)}`, {
      ...(input.item ? { 'items[0][id]': input.item.id, 'items[0][quantity]': String(input.item.quantity) } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
      ...(input.cancelAtPeriodEnd !== undefined ? { cancel_at_period_end: input.cancelAtPeriodEnd ? 'true' : 'false' } : {}),
    });
  }

  /** Pays an open invoice now with the subscription's default payment method. */
  retryInvoice(invoiceId: string) {
    return this.call<CardAInvoice>('POST', `/v1/invoices/${encodeURIComponent(invoiceId)}/pay`, {});
  }

  /** Invoices of a customer (optionally one subscription, one status), newest first, at most 100. */
  async listInvoices(filter: { customer: string; subscription?: string; status?: string; limit?: number }): Promise<CardAInvoice[]> {
    const q = new URLSearchParams({ customer: filter.customer, limit: String(filter.limit ?? 100) });
    if (filter.subscription) q.set('subscription', filter.subscription);
    if (filter.status) q.set('status', filter.status);
    const body = await this.callObject('GET', `/v1/invoices?${q}`);
    if (!Array.isArray(body.data)) throw new ProviderError('card-a', 'invalid_response', 'no list in the answer to GET /v1/invoices', 200);
    return body.data as CardAInvoice[];
  }


  /** A connected account for a payment profile (the merchant onboards on the provider's page). */
  createAccount(input: { country: string; email?: string; metadata: Record<string, string>; idempotencyKey?: string }) {
    return this.call<CardAAccount>('POST', '/v1/accounts', { type: 'express', country: input.country, ...(input.email ? { email: input.email } : {}), metadata: input.metadata }, input.idempotencyKey);
  }

  retrieveAccount(id: string) {
    return this.call<CardAAccount>('GET', `/v1/accounts/${encodeURIComponent(id)}`);
  }

  /** Statement descriptor, business website and payout schedule (the provider validates each). */
  updateAccount(id: string, input: { statementDescriptor?: string; businessUrl?: string; payoutSchedule?: CardAPayoutSchedule }) {
    const f: Record<string, unknown> = {};
    if (input.statementDescriptor !== undefined) f['settings[payments][statement_descriptor]'] = input.statementDescriptor;
    if (input.businessUrl !== undefined) f['business_profile[url]'] = input.businessUrl;
    if (input.payoutSchedule) {
      f['settings[payouts][schedule][interval]'] = input.payoutSchedule.interval;
      if (input.payoutSchedule.weekly_anchor !== undefined) f['settings[payouts][schedule][weekly_anchor]'] = input.payoutSchedule.weekly_anchor;
      if (input.payoutSchedule.monthly_anchor !== undefined) f['settings[payouts][schedule][monthly_anchor]'] = input.payoutSchedule.monthly_anchor;
    }
    return this.call<CardAAccount>('POST', `/v1/accounts/${encodeURIComponent(id)}`, f);
  }

  /** A short-lived client secret for the provider's embedded onboarding and payouts components. */
  async createAccountSession(account: string): Promise<{ client_secret: string; expires_at: number }> {
    const f = { account, 'components[account_onboarding][enabled]': 'true', 'components[payouts][enabled]': 'true' };
    const body = await this.callObject('POST', '/v1/account_sessions', f);
    if (typeof body.client_secret !== 'string' || typeof body.expires_at !== 'number') throw new ProviderError('card-a', 'invalid_response', 'no client secret in the account session', 200);
    return { client_secret: body.client_secret, expires_at: body.expires_at };
  }

  /** The provider's hosted onboarding page for the account (a single-use link). */
  async createAccountLink(input: { account: string; refreshUrl: string; returnUrl: string }): Promise<{ url: string; expires_at: number }> {
    const body = await this.callObject('POST', '/v1/account_links', { account: input.account, refresh_url: input.refreshUrl, return_url: input.returnUrl, type: 'account_onboarding' });
    if (typeof body.url !== 'string' || typeof body.expires_at !== 'number') throw new ProviderError('card-a', 'invalid_response', 'no url in the account link', 200);
    return { url: body.url, expires_at: body.expires_at };
  }

  /** Payouts to a connected account, newest first; `startingAfter` pages on. */
  async listPayouts(account: string, page: { limit: number; startingAfter?: string }): Promise<{ data: CardAPayout[]; has_more: boolean }> {
    const q = new URLSearchParams({ limit: String(page.limit) });
    if (page.startingAfter) q.set('starting_after', page.startingAfter);
    const body = await this.callObject('GET', `/v1/payouts?${q}`, undefined, { 'card-a-account': account });
    if (!Array.isArray(body.data)) throw new ProviderError('card-a', 'invalid_response', 'no list in the answer to GET /v1/payouts', 200);
    return { data: body.data as CardAPayout[], has_more: body.has_more === true };
  }

  createCustomer(input: { name: string; email?: string | null; metadata: Record<string, string>; idempotencyKey?: string }) {
    return this.call<CardACustomer>('POST', '/v1/customers', { name: input.name, ...(input.email ? { email: input.email } : {}), metadata: input.metadata }, input.idempotencyKey);
  }

  attachPaymentMethod(paymentMethod: string, customer: string) {
    return this.call<CardAPaymentMethod>('POST', `/v1/payment_methods/${encodeURIComponent(paymentMethod)}/attach`, { customer });
  }

  setDefaultPaymentMethod(customer: string, paymentMethod: string) {
    return this.call<CardACustomer>('POST', `/v1/customers/${encodeURIComponent(customer)}`, { 'invoice_settings[default_payment_method]': paymentMethod });
  }

  retrieveCustomer(id: string) {
    return this.call<CardACustomer>('GET', `/v1/customers/${encodeURIComponent(id)}`);
  }

  /** Charges a customer's saved card now, off session; a decline is a ProviderError 402 `card_declined`. */
  chargeSavedCard(input: { amount: number; currency: string; customer: string; paymentMethod: string; metadata: Record<string, string>; idempotencyKey: string }) {
    return this.call<CardAPaymentIntent>(
      'POST',
      '/v1/payment_intents',
      { amount: input.amount, currency: input.currency.toLowerCase(), customer: input.customer, payment_method: input.paymentMethod, confirm: 'true', off_session: 'true', metadata: input.metadata },
      input.idempotencyKey,
    );
  }

  retrieveCharge(id: string) {
    return this.call<CardACharge>('GET', `/v1/charges/${encodeURIComponent(id)}`);
  }
}
