import { dispatch, jsonBody, route } from '../shared/sim-server.ts';
import { webhookRetries, type RetriedDelivery } from '../shared/webhook-retries.ts';
import { cardBEventBody } from './card-b-events.ts';
import { cardBHandshake } from './card-b-handshake.ts';

/**
 * card-b over real HTTP (PROTOCOLS.md "card-b"): an OAuth token endpoint (client credentials), the
 * ECR terminal API (`POST /ecr/v1/transactions:sale`, `GET /ecr/v1/sessions/{id}` answering 202 while
 * the customer is at the terminal, `DELETE /ecr/v1/sessions/{id}?cashRegisterId=` to abort), and a
 * control API that tests and e2e drive (`POST /_sim/sessions/{id}/complete|decline|timeout`). A sale
 * on a terminal busy with another session answers 409 (the spec's conflict). Terminal amounts are
 * cents; the webhook `Amount` is major units, as the provider sends it.
 *
 * Hosted checkout (legacy): `POST /checkout/v2/orders` answers an `orderCode`; `GET /api/orders/{code}`
 * answers its `StateId` (0 pending, 3 paid); `POST /_sim/orders/{code}/pay` is the customer paying.
 *
 * Webhooks: before the first event goes to a URL the simulator verifies it as card-b does (`GET`, the
 * answer must be `{"Key": …}` with the merchant's key); events are not sent to a URL that fails, and each
 * is recorded refused. An event answered non-2xx or not answered is sent again, same body, every
 * `webhookRetryMs` (one hour, as card-b does) up to CARD_B_WEBHOOK_ATTEMPTS attempts (card-b's 72 retries
 * over 3 days, after the first). `GET /_sim/webhooks` shows the verification and the deliveries.
 *
 * Connected accounts (marketplace / ISV): `POST /_sim/accounts/{id}/connected` and
 * `POST /_sim/accounts/{id}/verification` (`{"verified": bool}`) send the account events 8193 and 8194
 * with `EventData.ConnectedAccountId` (and `Verified`), as card-b's documentation shows them.
 *
 * Simulator assumptions (not from the vendor): a sale repeated with the same `sessionId` answers 200
 * again without a second session; aborting a finished session changes nothing and answers 200. card-b
 * verifies a URL when the merchant enters it in its dashboard; the simulator does at the first event
 * after the URL is set (dev starts it before the API listens), and asks again at the next event after
 * a failed verification.
 */
export interface CardBSimulatorOptions {
  readonly port?: number;
  readonly hostname?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where completed and failed payments are notified (1796 / 1798); none when absent. */
  readonly webhookUrl?: string;
  /** The merchant's verification key the URL must answer to the handshake; absent, any non-empty `Key` passes. */
  readonly webhookKey?: string;
  /** Interval between attempts of an event answered non-2xx or not answered; one hour by default. */
  readonly webhookRetryMs?: number;
  /** Dev convenience: every session completes by itself after this many ms. */
  readonly autoCompleteMs?: number;
}

export type CardBSessionState = 'processing' | 'succeeded' | 'declined' | 'timed_out' | 'aborted';

export interface CardBSession {
  readonly sessionId: string;
  readonly terminalId: string;
  readonly cashRegisterId: string;
  readonly amount: number;
  /** The sale's tip, plus any the customer added on the terminal. */
  tipAmount: number;
  readonly currencyCode: string;
  readonly merchantReference: string;
  readonly customerTrns: string;
  state: CardBSessionState;
  transactionId: string | null;
  orderCode: string | null;
}

/** A hosted-checkout order (legacy path): `StateId` 0 pending, 1 expired, 2 cancelled, 3 paid. */
export interface CardBOrder {
  readonly orderCode: string;
  readonly amount: number;
  readonly customerTrns: string;
  readonly merchantTrns: string;
  readonly tags: readonly string[];
  stateId: 0 | 1 | 2 | 3;
  transactionId: string | null;
  /** A pre-authorisation order: paying it authorises (`TransactionTypeId` 1); the merchant captures it. */
  readonly preauth: boolean;
  /** The transactions of the order (payment or pre-authorisation, then its capture). */
  readonly transactions: CardBOrderTransaction[];
}

/** A transaction as `GET /api/transactions?ordercode=` lists it; `Amount` in major units there. */
export interface CardBOrderTransaction {
  readonly TransactionId: string;
  readonly OrderCode: string;
  readonly StatusId: 'F' | 'E';
  /** 5 charge, 1 pre-authorisation, 0 capture of a pre-authorisation. */
  readonly TransactionTypeId: 0 | 1 | 5;
  readonly Amount: number;
  readonly ParentId: string | null;
}

/** One event sent (or refused: attempts 0 and the verification's failure as `result.error`); updated by its retries. */
export interface CardBWebhookDelivery extends RetriedDelivery {
  readonly body: unknown;
  readonly url: string;
}

/** The state of the webhook URL's verification (`GET /_sim/webhooks`). */
export interface CardBWebhookVerification {
  readonly url: string;
  readonly verified: boolean;
  /** Why the last handshake failed; null once verified. */
  readonly reason: string | null;
}

/** card-b's first attempt plus its 72 hourly retries. */
export const CARD_B_WEBHOOK_ATTEMPTS = 73;

export interface CardBSimulator {
  readonly url: string;
  /** Where its webhooks go from now on (a test's API listens on a port the system picks, after the simulator started). */
  setWebhookUrl(url: string): void;
  order(orderCode: string): CardBOrder | undefined;
  /** The customer pays the hosted checkout (webhook 1796 with the order code). */
  payOrder(orderCode: string): Promise<void>;
  session(id: string): CardBSession | undefined;
  /** Pre-authorisation captures received (`POST /api/transactions/{id}`), by capture transaction id. */
  readonly captures: readonly string[];
  /** Sale requests received (including 409s and replays). */
  readonly saleRequests: number;
  /** The customer pays; `terminalTip` (cents) is a tip the customer adds on the terminal, reported in `TipAmount`/`tipAmount`. */
  complete(sessionId: string, terminalTip?: number): Promise<void>;
  decline(sessionId: string): Promise<void>;
  timeout(sessionId: string): Promise<void>;
  /** The merchant's account is connected to the platform (webhook 8193). */
  connectAccount(accountId: string): Promise<void>;
  /** card-b's verification (KYC) of the account changes (webhook 8194). */
  verifyAccount(accountId: string, verified: boolean): Promise<void>;
  /** Webhook events so far, newest last; each follows its retries. */
  readonly webhooks: readonly CardBWebhookDelivery[];
  /** The verification of the current webhook URL; null before the first event is sent to it. */
  readonly webhookVerification: CardBWebhookVerification | null;
  stop(): Promise<void>;
}

const EVENT = { succeeded: 0, timed_out: 1003, declined: 1006, aborted: 1016 } as const;
const MESSAGE = { succeeded: 'Transaction successful', timed_out: 'Transaction timed out', declined: 'Transaction declined', aborted: 'Transaction aborted' } as const;

const err = (status: number, message: string) => Response.json({ message }, { status });
const str = (v: unknown, max = 200) => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : null);
const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

export function startCardBSimulator(options: CardBSimulatorOptions): CardBSimulator {
  let webhookUrl = options.webhookUrl;
  const sessions = new Map<string, CardBSession>();
  const orders = new Map<string, CardBOrder>();
  let orderSeq = 0;
  /** terminal id -> session id it is busy with */
  const busy = new Map<string, string>();
  const tokens = new Set<string>();
  const webhooks: CardBWebhookDelivery[] = [];
  let verification: CardBWebhookVerification | null = null;
  const retries = webhookRetries(options.webhookRetryMs ?? 60 * 60_000, CARD_B_WEBHOOK_ATTEMPTS);
  let saleRequests = 0;
  /** Pre-authorisation captures received (what a test counts to prove a capture happened once). */
  const captures: string[] = [];

  const authorised = (req: Request) => {
    const m = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '');
    return m !== null && tokens.has(m[1]!);
  };

  /** Sends `body` to the webhook URL once it passed the handshake; recorded refused when it does not. */
  async function notify(body: Record<string, unknown>): Promise<void> {
    const url = webhookUrl;
    if (!url) return;
    if (verification?.url !== url || !verification.verified) {
      const reason = await cardBHandshake(url, options.webhookKey);
      verification = { url, verified: reason === null, reason };
    }
    const d: CardBWebhookDelivery = { body, url, attempts: 0, delivered: false, result: { error: `webhook URL not verified: ${verification.reason}` } };
    if (verification.verified) await retries.deliver(url, JSON.stringify(body), {}, d);
    webhooks.push(d);
  }

  async function finish(id: string, state: Exclude<CardBSessionState, 'processing'>, terminalTip = 0): Promise<void> {
    const s = sessions.get(id);
    if (!s) throw new Error(`card-b simulator: no session ${id}`);
    if (s.state !== 'processing') throw new Error(`card-b simulator: session ${id} is already ${s.state}`);
    s.state = state;
    if (state === 'succeeded') s.tipAmount += terminalTip;
    if (busy.get(s.terminalId) === id) busy.delete(s.terminalId);
    if (state === 'succeeded') {
      s.transactionId = crypto.randomUUID();
      s.orderCode = String(Date.now()).padStart(16, '7').slice(-16);
    }
    if (state === 'succeeded' || state === 'declined') {
      const body = cardBEventBody(state === 'succeeded' ? 1796 : 1798, {
        Amount: Math.round(s.amount) / 100,
        OrderCode: s.orderCode,
        StatusId: state === 'succeeded' ? 'F' : 'E',
        TransactionId: s.transactionId ?? crypto.randomUUID(),
        MerchantTrns: s.merchantReference,
        CustomerTrns: s.customerTrns,
        CurrencyCode: s.currencyCode,
        TerminalId: s.terminalId,
        TipAmount: s.tipAmount / 100,
      });
      await notify(body);
    }
  }

  async function payOrder(code: string): Promise<void> {
    const o = orders.get(code);
    if (!o || o.stateId !== 0) throw new Error(`card-b simulator: order ${code} is not pending`);
    o.stateId = 3;
    o.transactionId = crypto.randomUUID();
    const typeId = o.preauth ? 1 : 5;
    o.transactions.push({ TransactionId: o.transactionId, OrderCode: o.orderCode, StatusId: 'F', TransactionTypeId: typeId, Amount: o.amount / 100, ParentId: null });
    await notify(cardBEventBody(1796, { Amount: o.amount / 100, OrderCode: o.orderCode, StatusId: 'F', TransactionId: o.transactionId, MerchantTrns: o.merchantTrns, CustomerTrns: o.customerTrns, TransactionTypeId: typeId, Tags: [...o.tags] }));
  }

  /** An account event (8193, 8194): no transaction fields, the connected account's ids in `EventData`. */
  function accountEvent(eventTypeId: 8193 | 8194, accountId: string, extra: Record<string, unknown> = {}): Promise<void> {
    return notify({
      EventTypeId: eventTypeId,
      EventData: { PersonId: crypto.randomUUID(), ...(eventTypeId === 8193 ? { WalletId: 3_059_898_763_296 } : {}), PlatformPersonId: crypto.randomUUID(), ConnectedAccountId: accountId, ...extra },
      Created: new Date().toISOString(),
      CorrelationId: crypto.randomUUID(),
      MessageId: crypto.randomUUID(),
      MessageTypeId: 512,
    });
  }
  const connectAccount = (id: string) => accountEvent(8193, id);
  const verifyAccount = (id: string, verified: boolean) => accountEvent(8194, id, { Verified: verified });

  const orderBody = (o: CardBOrder) => ({ OrderCode: o.orderCode, Amount: o.amount / 100, StateId: o.stateId, CustomerTrns: o.customerTrns, MerchantTrns: o.merchantTrns, Tags: o.tags, TransactionId: o.transactionId });

  const sessionBody = (s: CardBSession) => ({
    sessionId: s.sessionId,
    terminalId: s.terminalId,
    cashRegisterId: s.cashRegisterId,
    amount: s.amount,
    currencyCode: s.currencyCode,
    merchantReference: s.merchantReference,
    customerTrns: s.customerTrns,
    tipAmount: s.tipAmount,
    success: s.state === 'succeeded',
    eventId: s.state === 'processing' ? null : EVENT[s.state],
    message: s.state === 'processing' ? null : MESSAGE[s.state],
    transactionId: s.transactionId,
    orderCode: s.orderCode,
  });

  const control = (fn: (id: string) => Promise<void>) => async (_req: Request, p: Record<string, string>) => {
    try {
      await fn(p.id!);
      return Response.json(sessionBody(sessions.get(p.id!)!));
    } catch (e) {
      return err(409, (e as Error).message);
    }
  };

  const routes = [
    route('POST', '/connect/token', async (req) => {
      const m = /^Basic (.+)$/.exec(req.headers.get('authorization') ?? '');
      const [id, secret] = m ? Buffer.from(m[1]!, 'base64').toString('utf8').split(':') : [];
      const form = new URLSearchParams(await req.text());
      if (id !== options.clientId || secret !== options.clientSecret) return Response.json({ error: 'invalid_client' }, { status: 400 });
      if (form.get('grant_type') !== 'client_credentials') return Response.json({ error: 'unsupported_grant_type' }, { status: 400 });
      const token = crypto.randomUUID().replaceAll('-', '');
      tokens.add(token);
      return Response.json({ access_token: token, expires_in: 3600, token_type: 'Bearer', scope: 'urn:viva:payments:ecr:api' });
    }),
    route('POST', '/ecr/v1/transactions:sale', async (req) => {
      if (!authorised(req)) return err(401, 'Unauthorized');
      saleRequests++;
      const b = await jsonBody(req);
      const sessionId = str(b?.sessionId, 100);
      const terminalId = str(b?.terminalId, 100);
      const cashRegisterId = str(b?.cashRegisterId, 100);
      const amount = int(b?.amount);
      const currencyCode = str(b?.currencyCode, 3);
      if (!b || !sessionId || !terminalId || !cashRegisterId || amount === null || amount < 1 || !currencyCode) {
        return err(400, 'sessionId, terminalId, cashRegisterId, amount (cents, at least 1) and currencyCode are required');
      }
      const existing = sessions.get(sessionId);
      if (existing) {
        if (existing.terminalId !== terminalId || existing.amount !== amount) return err(409, 'Session id already used for another sale');
        return new Response(null, { status: 200 });
      }
      const holder = busy.get(terminalId);
      if (holder !== undefined) return err(409, 'Terminal is busy with another session');
      const s: CardBSession = {
        sessionId,
        terminalId,
        cashRegisterId,
        amount,
        tipAmount: int(b.tipAmount) ?? 0,
        currencyCode,
        merchantReference: typeof b.merchantReference === 'string' ? b.merchantReference.slice(0, 200) : '',
        customerTrns: typeof b.customerTrns === 'string' ? b.customerTrns.slice(0, 200) : '',
        state: 'processing',
        transactionId: null,
        orderCode: null,
      };
      sessions.set(sessionId, s);
      busy.set(terminalId, sessionId);
      if (options.autoCompleteMs !== undefined) {
        setTimeout(() => void finish(sessionId, 'succeeded').catch(() => {}), options.autoCompleteMs);
      }
      return new Response(null, { status: 200 });
    }),
    route('GET', '/ecr/v1/sessions/:id', (req, p) => {
      if (!authorised(req)) return err(401, 'Unauthorized');
      const s = sessions.get(p.id!);
      if (!s) return err(404, 'Session not found');
      if (s.state === 'processing') return new Response(null, { status: 202 });
      return Response.json(sessionBody(s));
    }),
    route('DELETE', '/ecr/v1/sessions/:id', (req, p, url) => {
      if (!authorised(req)) return err(401, 'Unauthorized');
      const s = sessions.get(p.id!);
      if (!s) return err(404, 'Session not found');
      if (url.searchParams.get('cashRegisterId') !== s.cashRegisterId) return err(400, 'cashRegisterId does not match the session');
      if (s.state === 'processing') void finish(s.sessionId, 'aborted');
      return new Response(null, { status: 200 });
    }),
    route('POST', '/checkout/v2/orders', async (req) => {
      if (!authorised(req)) return err(401, 'Unauthorized');
      const b = await jsonBody(req);
      const amount = int(b?.amount);
      if (!b || amount === null || amount < 1) return err(400, 'amount (cents, at least 1) is required');
      const tags = Array.isArray(b.tags) ? b.tags.filter((t): t is string => typeof t === 'string').slice(0, 10) : [];
      const orderCode = `${Date.now()}${String(++orderSeq).padStart(3, '0')}`.slice(-16).padStart(16, '9');
      orders.set(orderCode, {
        orderCode,
        amount,
        customerTrns: typeof b.customerTrns === 'string' ? b.customerTrns.slice(0, 200) : '',
        merchantTrns: typeof b.merchantTrns === 'string' ? b.merchantTrns.slice(0, 200) : '',
        tags,
        stateId: 0,
        transactionId: null,
        preauth: b.preauth === true,
        transactions: [],
      });
      return Response.json({ orderCode: Number(orderCode) });
    }),
    route('GET', '/api/orders/:code', (req, p) => {
      if (!authorised(req)) return err(401, 'Unauthorized');
      const o = orders.get(p.code!);
      return o ? Response.json(orderBody(o)) : err(404, 'Order not found');
    }),
    // The legacy API: the transactions of an order, and the capture of a pre-authorisation (amount in cents).
    route('GET', '/api/transactions', (req, _p, url) => {
      if (!authorised(req)) return err(401, 'Unauthorized');
      const o = orders.get(url.searchParams.get('ordercode') ?? '');
      return Response.json({ Transactions: o ? o.transactions : [], ErrorCode: 0, ErrorText: null, Success: true });
    }),
    route('POST', '/api/transactions/:id', async (req, p) => {
      if (!authorised(req)) return err(401, 'Unauthorized');
      const o = [...orders.values()].find((x) => x.transactions.some((t) => t.TransactionId === p.id));
      const auth = o?.transactions.find((t) => t.TransactionId === p.id);
      if (!o || !auth) return err(404, 'Transaction not found');
      if (auth.TransactionTypeId !== 1) return err(400, 'Only a pre-authorisation can be captured');
      if (o.transactions.some((t) => t.ParentId === auth.TransactionId && t.TransactionTypeId === 0)) return err(409, 'The pre-authorisation is already captured');
      const b = await jsonBody(req);
      const amount = int(b?.amount);
      if (amount === null || amount < 1 || amount > o.amount) return err(400, 'amount (cents, at most the authorised amount) is required');
      const capture: CardBOrderTransaction = { TransactionId: crypto.randomUUID(), OrderCode: o.orderCode, StatusId: 'F', TransactionTypeId: 0, Amount: amount / 100, ParentId: auth.TransactionId };
      o.transactions.push(capture);
      captures.push(capture.TransactionId);
      return Response.json({ TransactionId: capture.TransactionId, StatusId: 'F', Amount: amount / 100, ErrorCode: 0, Success: true });
    }),
    route('POST', '/_sim/orders/:code/pay', async (_req, p) => {
      try {
        await payOrder(p.code!);
        return Response.json(orderBody(orders.get(p.code!)!));
      } catch (e) {
        return err(409, (e as Error).message);
      }
    }),
    route('POST', '/_sim/sessions/:id/complete', async (req, p) => {
      const b = await jsonBody(req).catch(() => null);
      return control((id) => finish(id, 'succeeded', int(b?.tip) ?? 0))(req, p);
    }),
    route('POST', '/_sim/sessions/:id/decline', control((id) => finish(id, 'declined'))),
    route('POST', '/_sim/sessions/:id/timeout', control((id) => finish(id, 'timed_out'))),
    route('GET', '/_sim/webhooks', () => Response.json({ url: webhookUrl ?? null, verification, deliveries: webhooks })),
    route('GET', '/_sim/terminals/:id', (_req, p) => Response.json({ terminalId: p.id, busyWith: busy.get(p.id!) ?? null })),
    route('POST', '/_sim/accounts/:id/connected', async (_req, p) => {
      await connectAccount(p.id!);
      return Response.json({ ConnectedAccountId: p.id });
    }),
    route('POST', '/_sim/accounts/:id/verification', async (req, p) => {
      const b = await jsonBody(req);
      if (typeof b?.verified !== 'boolean') return err(400, 'verified (boolean) is required');
      await verifyAccount(p.id!, b.verified);
      return Response.json({ ConnectedAccountId: p.id, Verified: b.verified });
    }),
  ];

  const server = Bun.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? '127.0.0.1',
    fetch: (req) => dispatch(routes, req, () => err(404, 'Not found')),
  });

  return {
    url: `http://${server.hostname}:${server.port}`,
    setWebhookUrl: (url: string) => {
      if (url !== webhookUrl) verification = null;
      webhookUrl = url;
    },
    get webhookVerification() {
      return verification;
    },
    session: (id) => sessions.get(id),
    order: (code) => orders.get(code),
    payOrder,
    captures,
    get saleRequests() {
      return saleRequests;
    },
    complete: (id, terminalTip) => finish(id, 'succeeded', terminalTip ?? 0),
    decline: (id) => finish(id, 'declined'),
    timeout: (id) => finish(id, 'timed_out'),
    connectAccount,
    verifyAccount,
    webhooks,
    async stop() {
      retries.stop();
      await server.stop(true);
    },
  };
}
