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
}

export interface CardAReader {
  readonly id: string;
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

/** card-a client: payment intents, hosted checkout sessions and terminal readers. Amounts are cents on this API. */
export class CardAClient {
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(private readonly config: CardAConfig) {
    this.base = trimSlash(config.baseUrl);
    this.timeoutMs = config.timeoutMs ?? 15_000;
  }

  private async call<T>(method: 'GET' | 'POST', path: string, form?: Record<string, unknown>, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.config.secretKey}` };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const res = await providerFetch('card-a', `${this.base}${path}`, { method, headers, body: form ? toForm(form) : undefined }, this.timeoutMs);
    const body = await readJson('card-a', res);
    if (!res.ok) {
      const e = body?.error ?? {};
      throw new ProviderError('card-a', 'http', typeof e.message === 'string' ? e.message : `HTTP ${res.status}`, res.status, typeof e.code === 'string' ? e.code : null);
    }
    if (!body || typeof body.id !== 'string') throw new ProviderError('card-a', 'invalid_response', `no object in the answer to ${method} ${path}`, res.status);
    return body as T;
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

  /** A hosted checkout session for one amount (online ordering's hosted path). */
  createCheckoutSession(input: { amount: number; currency: string; successUrl: string; cancelUrl: string; metadata: Record<string, string>; idempotencyKey: string }) {
    return this.call<CardACheckoutSession>(
      'POST',
      '/v1/checkout/sessions',
      { mode: 'payment', amount: input.amount, currency: input.currency.toLowerCase(), success_url: input.successUrl, cancel_url: input.cancelUrl, metadata: input.metadata },
      input.idempotencyKey,
    );
  }

  retrieveCheckoutSession(id: string) {
    return this.call<CardACheckoutSession>('GET', `/v1/checkout/sessions/${encodeURIComponent(id)}`);
  }

  retrievePaymentIntent(id: string) {
    return this.call<CardAPaymentIntent>('GET', `/v1/payment_intents/${encodeURIComponent(id)}`);
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

  cancelReaderAction(readerId: string) {
    return this.call<CardAReader>('POST', `/v1/terminal/readers/${encodeURIComponent(readerId)}/cancel_action`, {});
  }

  /** A subscription for one price, paid with `paymentMethod` (a SEPA debit method with its mandate). */
  createSubscription(input: { customer: string; price: string; paymentMethod: string | null; metadata: Record<string, string> }) {
    return this.call<CardASubscription>('POST', '/v1/subscriptions', {
      customer: input.customer,
      'items[0][price]': input.price,
      ...(input.paymentMethod ? { default_payment_method: input.paymentMethod } : {}),
      metadata: input.metadata,
    });
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

  /** Pays an open invoice now with the subscription's default payment method. */
  retryInvoice(invoiceId: string) {
    return this.call<CardAInvoice>('POST', `/v1/invoices/${encodeURIComponent(invoiceId)}/pay`, {});
  }

  /** Invoices of a customer (optionally one subscription, one status), newest first, at most 100. */
  async listInvoices(filter: { customer: string; subscription?: string; status?: string; limit?: number }): Promise<CardAInvoice[]> {
    const q = new URLSearchParams({ customer: filter.customer, limit: String(filter.limit ?? 100) });
    if (filter.subscription) q.set('subscription', filter.subscription);
    if (filter.status) q.set('status', filter.status);
    const res = await providerFetch('card-a', `${this.base}/v1/invoices?${q}`, { method: 'GET', headers: { authorization: `Bearer ${this.config.secretKey}` } }, this.timeoutMs);
    const body = await readJson('card-a', res);
    if (!res.ok) {
      const e = body?.error ?? {};
      throw new ProviderError('card-a', 'http', typeof e.message === 'string' ? e.message : `HTTP ${res.status}`, res.status, typeof e.code === 'string' ? e.code : null);
    }
    if (!body || !Array.isArray(body.data)) throw new ProviderError('card-a', 'invalid_response', 'no list in the answer to GET /v1/invoices', res.status);
    return body.data as CardAInvoice[];
  }

  retrieveCharge(id: string) {
    return this.call<CardACharge>('GET', `/v1/charges/${encodeURIComponent(id)}`);
  }
}
