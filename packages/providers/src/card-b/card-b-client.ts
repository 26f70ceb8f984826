import { ProviderError, providerFetch, readJson, trimSlash } from '../shared/provider-error.ts';

export interface CardBConfig {
  /** ECR API base URL (`CARD_B_BASE_URL`). */
  readonly baseUrl: string;
  /** OAuth token endpoint base (`CARD_B_ACCOUNTS_URL`); the API base when absent. */
  readonly accountsUrl?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly timeoutMs?: number;
  /** Base of the hosted checkout page the customer is sent to (`CARD_B_CHECKOUT_URL`); the API base when absent. */
  readonly checkoutUrl?: string;
}

export interface CardBSaleInput {
  /** Our idempotency key: the session id at card-b. */
  readonly sessionId: string;
  readonly terminalId: string;
  readonly cashRegisterId: string;
  /** Cents. */
  readonly amount: number;
  readonly tipAmount?: number;
  readonly currencyCode: string;
  readonly merchantReference: string;
  readonly customerTrns: string;
}

/** A session as polled: `processing` while the terminal works (HTTP 202), else the final result. */
export type CardBSessionResult =
  | { readonly state: 'processing' }
  | {
      readonly state: 'final';
      readonly success: boolean;
      /** 0 success, 1003 timeout, 1006 declined, 1016 aborted. */
      readonly eventId: number;
      readonly message: string | null;
      readonly transactionId: string | null;
      readonly orderCode: string | null;
      /** Cents: the sale amount, without the tip. */
      readonly amount: number;
      /** Cents: the tip paid beside `amount` (the sale's, plus any added on the terminal). */
      readonly tipAmount: number;
    };

/** A hosted-checkout order as retrieved: `stateId` 0 pending, 1 expired, 2 cancelled, 3 paid; `amount` in cents. */
export interface CardBOrderState {
  readonly orderCode: string;
  readonly stateId: number;
  readonly amount: number;
  readonly transactionId: string | null;
}

/** A transaction of a hosted-checkout order (`GET /api/transactions?ordercode=`); `amount` in cents. */
export interface CardBOrderTransactionState {
  readonly transactionId: string;
  readonly statusId: string;
  /** 5 charge, 1 pre-authorisation, 0 capture of a pre-authorisation. */
  readonly transactionTypeId: number;
  readonly amount: number;
  readonly parentId: string | null;
}

/** card-b client: terminal (ECR) API in cents, legacy hosted checkout orders. */
export class CardBClient {
  private token: { value: string; expiresAt: number } | null = null;
  private readonly base: string;
  private readonly accounts: string;
  private readonly timeoutMs: number;

  constructor(private readonly config: CardBConfig) {
    this.base = trimSlash(config.baseUrl);
    this.accounts = trimSlash(config.accountsUrl ?? config.baseUrl);
    this.timeoutMs = config.timeoutMs ?? 15_000;
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now() + 30_000) return this.token.value;
    const basic = Buffer.from(`${this.config.clientId}:${this.config.clientSecret}`).toString('base64');
    const res = await providerFetch(
      'card-b',
      `${this.accounts}/connect/token`,
      { method: 'POST', headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' },
      this.timeoutMs,
    );
    const body = await readJson('card-b', res);
    if (!res.ok || typeof body?.access_token !== 'string') throw new ProviderError('card-b', 'http', `token request refused (HTTP ${res.status})`, res.status, body?.error ?? null);
    this.token = { value: body.access_token, expiresAt: Date.now() + Number(body.expires_in ?? 0) * 1000 };
    return body.access_token;
  }

  private async request(method: string, path: string, body?: unknown): Promise<Response> {
    const token = await this.accessToken();
    const res = await providerFetch(
      'card-b',
      `${this.base}${path}`,
      { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) },
      this.timeoutMs,
    );
    if (res.status === 401) this.token = null;
    return res;
  }

  private async fail(res: Response, what: string): Promise<never> {
    const body = await readJson('card-b', res).catch(() => null);
    throw new ProviderError('card-b', 'http', `${what}: ${typeof body?.message === 'string' ? body.message : `HTTP ${res.status}`}`, res.status, res.status === 409 ? 'conflict' : null);
  }

  /** Starts a sale on the terminal. A terminal busy with another session is a ProviderError with status 409. */
  async startSale(input: CardBSaleInput): Promise<void> {
    const res = await this.request('POST', '/ecr/v1/transactions:sale', {
      sessionId: input.sessionId,
      terminalId: input.terminalId,
      cashRegisterId: input.cashRegisterId,
      amount: input.amount,
      currencyCode: input.currencyCode,
      merchantReference: input.merchantReference,
      customerTrns: input.customerTrns,
      tipAmount: input.tipAmount ?? 0,
    });
    if (!res.ok) await this.fail(res, 'sale refused');
    await res.arrayBuffer();
  }

  /** Polls a session: 202 is `processing`. */
  async getSession(sessionId: string): Promise<CardBSessionResult> {
    const res = await this.request('GET', `/ecr/v1/sessions/${encodeURIComponent(sessionId)}`);
    if (res.status === 202) {
      await res.arrayBuffer();
      return { state: 'processing' };
    }
    if (!res.ok) await this.fail(res, 'session poll refused');
    const b = await readJson('card-b', res);
    if (!b || typeof b.success !== 'boolean' || typeof b.eventId !== 'number') throw new ProviderError('card-b', 'invalid_response', 'session without success/eventId', res.status);
    return {
      state: 'final',
      success: b.success,
      eventId: b.eventId,
      message: typeof b.message === 'string' ? b.message : null,
      transactionId: typeof b.transactionId === 'string' ? b.transactionId : null,
      orderCode: b.orderCode == null ? null : String(b.orderCode),
      amount: Number.isInteger(b.amount) ? b.amount : 0,
      tipAmount: Number.isSafeInteger(b.tipAmount) && b.tipAmount > 0 ? b.tipAmount : 0,
    };
  }

  /**
   * A hosted-checkout order (legacy online path); the customer is sent to `redirectUrl`, card-b's own
   * checkout page (`checkoutUrl`, else the configured one). Where the page sends the customer back is
   * card-b's payment-source setting, not a field of the order.
   */
  async createOrder(input: { amount: number; customerTrns: string; merchantTrns: string; tags: string[]; checkoutUrl?: string; preauth?: boolean }): Promise<{ orderCode: string; redirectUrl: string }> {
    const res = await this.request('POST', '/checkout/v2/orders', { amount: input.amount, customerTrns: input.customerTrns, merchantTrns: input.merchantTrns, tags: input.tags, ...(input.preauth ? { preauth: true } : {}) });
    if (!res.ok) await this.fail(res, 'order refused');
    const b = await readJson('card-b', res);
    if (b?.orderCode == null) throw new ProviderError('card-b', 'invalid_response', 'order without orderCode', res.status);
    const orderCode = String(b.orderCode);
    return { orderCode, redirectUrl: `${trimSlash(input.checkoutUrl ?? this.config.checkoutUrl ?? this.base)}/web/checkout?ref=${encodeURIComponent(orderCode)}` };
  }

  /** The order by its code; webhook amounts are major units, normalised here to cents. */
  async getOrder(orderCode: string): Promise<CardBOrderState> {
    const res = await this.request('GET', `/api/orders/${encodeURIComponent(orderCode)}`);
    if (!res.ok) await this.fail(res, 'order lookup refused');
    const b = await readJson('card-b', res);
    if (!b || typeof b.StateId !== 'number') throw new ProviderError('card-b', 'invalid_response', 'order without StateId', res.status);
    return { orderCode: String(b.OrderCode), stateId: b.StateId, amount: Math.round(Number(b.Amount) * 100), transactionId: typeof b.TransactionId === 'string' ? b.TransactionId : null };
  }

  /** The transactions of a hosted-checkout order (legacy API; amounts normalised to cents). */
  async transactionsOfOrder(orderCode: string): Promise<CardBOrderTransactionState[]> {
    const res = await this.request('GET', `/api/transactions?ordercode=${encodeURIComponent(orderCode)}`);
    if (!res.ok) await this.fail(res, 'transaction lookup refused');
    const b = await readJson('card-b', res);
    if (!b || !Array.isArray(b.Transactions)) throw new ProviderError('card-b', 'invalid_response', 'no Transactions in the answer', res.status);
    return (b.Transactions as Record<string, unknown>[]).map((t) => ({
      transactionId: String(t.TransactionId),
      statusId: String(t.StatusId),
      transactionTypeId: Number(t.TransactionTypeId),
      amount: Math.round(Number(t.Amount) * 100),
      parentId: typeof t.ParentId === 'string' ? t.ParentId : null,
    }));
  }

  /** Captures a pre-authorisation (amount in cents). An already captured one is a ProviderError 409. */
  async capturePreauthorisation(transactionId: string, amount: number): Promise<{ transactionId: string }> {
    const res = await this.request('POST', `/api/transactions/${encodeURIComponent(transactionId)}`, { amount });
    if (!res.ok) await this.fail(res, 'capture refused');
    const b = await readJson('card-b', res);
    if (typeof b?.TransactionId !== 'string') throw new ProviderError('card-b', 'invalid_response', 'capture without TransactionId', res.status);
    return { transactionId: b.TransactionId };
  }

  /** Aborts a session on the terminal. */
  async abortSession(sessionId: string, cashRegisterId: string): Promise<void> {
    const res = await this.request('DELETE', `/ecr/v1/sessions/${encodeURIComponent(sessionId)}?cashRegisterId=${encodeURIComponent(cashRegisterId)}`);
    if (!res.ok) await this.fail(res, 'abort refused');
    await res.arrayBuffer();
  }
}
