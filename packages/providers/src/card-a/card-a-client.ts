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
}
