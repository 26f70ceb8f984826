import { createHmac } from 'node:crypto';
import { dispatch, jsonBody, postWebhook, route } from '../shared/sim-server.ts';

/**
 * platform-a over real HTTP (PROTOCOLS.md "platform-a"): terminal checkouts
 * (`POST /v2/terminals/checkouts`, `GET /v2/terminals/checkouts/{id}`, `POST …/{id}/cancel`), bearer
 * access token, JSON, errors as `{errors:[{category, code, detail}]}`, `amount_money.amount` in cents.
 * Statuses `PENDING`, `IN_PROGRESS`, `CANCEL_REQUESTED`, `CANCELED` (`cancel_reason`), `COMPLETED`.
 * Driven by `POST /_sim/checkouts/{id}/complete|decline|timeout`; each change can send the signed
 * `terminal.checkout.updated` webhook (`x-platform-a-hmacsha256-signature` =
 * base64(HMAC-SHA256(key, notification URL + body))).
 *
 * Online payments: `POST /v2/payments` (`source_id` a card nonce: `cnon:card-nonce-declined` is a 402
 * `GENERIC_DECLINE`, any other completes), `GET /v2/payments/{id}`. An `idempotency_key` answers its first
 * request again, a decline included; sent with another source or amount it is a 400 `IDEMPOTENCY_KEY_REUSED`.
 *
 * Terminal pairing: `POST /v2/devices/codes` (`device_code: {name, product_type: TERMINAL_API, location_id}`)
 * answers an `UNPAIRED` code with `pair_by` 5 minutes ahead; `GET /v2/devices/codes/{id}` reads it.
 * `POST /_sim/device-codes/{id}/pair` (the code entered on a terminal) makes it `PAIRED` with a
 * `device_id`; `/_sim/device-codes/{id}/expire` makes it `EXPIRED`. The location id `UNKNOWN_LOCATION`
 * stands for a location the account does not have (404, as the provider answers one).
 *
 * Simulator assumption: a declined card ends the checkout `CANCELED` with `cancel_reason`
 * `BUYER_CANCELED` (the real terminal lets the buyer retry first); a time-out ends it `CANCELED` /
 * `TIMED_OUT`. The same `idempotency_key` answers the same checkout.
 */
export interface PlatformASimulatorOptions {
  readonly port?: number;
  readonly hostname?: string;
  readonly accessToken: string;
  readonly webhookUrl?: string;
  readonly webhookSignatureKey?: string;
  readonly autoCompleteMs?: number;
}

interface Checkout {
  id: string;
  amount_money: { amount: number; currency: string };
  /** A tip the buyer added on the terminal (beside `amount_money`). */
  tip_money?: { amount: number; currency: string };
  device_options: { device_id: string };
  reference_id: string;
  note: string;
  status: 'PENDING' | 'IN_PROGRESS' | 'CANCEL_REQUESTED' | 'CANCELED' | 'COMPLETED';
  cancel_reason?: 'BUYER_CANCELED' | 'SELLER_CANCELED' | 'TIMED_OUT';
  payment_ids: string[];
  created_at: string;
  updated_at: string;
}

/** An online payment (`/v2/payments`): a card nonce `cnon:card-nonce-ok` succeeds, `cnon:card-nonce-declined` is declined. */
export interface PlatformAPayment {
  id: string;
  amount_money: { amount: number; currency: string };
  status: 'COMPLETED' | 'FAILED' | 'CANCELED';
  reference_id: string;
  location_id: string;
  created_at: string;
}

export interface PlatformASimulator {
  readonly url: string;
  /** Where its webhooks go from now on (a test's API listens on a port the system picks, after the simulator started). */
  setWebhookUrl(url: string): void;
  payment(id: string): Readonly<PlatformAPayment> | undefined;
  /** The payments taken with this `reference_id`, in the order they were made. */
  paymentsFor(referenceId: string): readonly Readonly<PlatformAPayment>[];
  /** A payment the provider reports failed or voided after the fact (tests drive it). */
  setPaymentStatus(id: string, status: 'FAILED' | 'CANCELED'): void;
  checkout(id: string): Readonly<Checkout> | undefined;
  /** Checkouts created (idempotent replays not counted). */
  readonly created: number;
  /** The buyer pays; `tip` (cents) is a tip added on the terminal, reported as `tip_money`. */
  complete(id: string, tip?: number): Promise<void>;
  decline(id: string): Promise<void>;
  timeout(id: string): Promise<void>;
  readonly webhooks: readonly { body: unknown; result: { status: number } | { error: string } }[];
  /** Catalog items by the caller's client id (`#<id>`), and the idempotency keys of the batch upserts received. */
  readonly catalog: Map<string, { object_id: string; name: string; amount: number; currency: string }>;
  readonly catalogUpserts: string[];
  /** The code entered on a terminal: `PAIRED`, with the new terminal's `device_id` (answered). */
  /** Pairs a terminal with the code: a new one, or `deviceId` (the same physical terminal paired again). */
  pairDeviceCode(id: string, deviceId?: string): string;
  expireDeviceCode(id: string): void;
  deviceCode(id: string): Readonly<DeviceCode> | undefined;
  stop(): Promise<void>;
}

interface DeviceCode {
  id: string;
  code: string;
  name: string;
  product_type: 'TERMINAL_API';
  location_id: string;
  status: 'UNPAIRED' | 'PAIRED' | 'EXPIRED';
  device_id?: string;
  pair_by: string;
  created_at: string;
  status_changed_at: string;
}

const sqErr = (status: number, category: string, code: string, detail: string, field?: string) =>
  Response.json({ errors: [{ category, code, detail, ...(field ? { field } : {}) }] }, { status });

export function startPlatformASimulator(options: PlatformASimulatorOptions): PlatformASimulator {
  let webhookUrl = options.webhookUrl;
  const checkouts = new Map<string, Checkout>();
  const byKey = new Map<string, string>();
  const payments = new Map<string, PlatformAPayment>();
  /** Each payment request's key: what it asked (source, amount) and what it was answered, decline included. */
  const paymentByKey = new Map<string, { request: string; answer: () => Response }>();
  const webhooks: { body: unknown; result: { status: number } | { error: string } }[] = [];
  const catalog = new Map<string, { object_id: string; name: string; amount: number; currency: string }>();
  const catalogUpserts: string[] = [];
  const deviceCodes = new Map<string, DeviceCode>();
  const deviceCodeByKey = new Map<string, string>();
  let created = 0;

  function pairDeviceCode(id: string, deviceId?: string): string {
    const c = deviceCodes.get(id);
    if (!c || c.status !== 'UNPAIRED') throw new Error(`platform-a simulator: device code ${id} is not unpaired`);
    c.status = 'PAIRED';
    c.device_id = deviceId ?? `device:${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
    c.status_changed_at = new Date().toISOString();
    return c.device_id;
  }
  function expireDeviceCode(id: string): void {
    const c = deviceCodes.get(id);
    if (!c || c.status !== 'UNPAIRED') throw new Error(`platform-a simulator: device code ${id} is not unpaired`);
    c.status = 'EXPIRED';
    c.status_changed_at = new Date().toISOString();
  }
  const simCode = (fn: (id: string) => unknown) => (_req: Request, p: Record<string, string>) => {
    try {
      fn(p.id!);
      return Response.json({ device_code: deviceCodes.get(p.id!) });
    } catch (e) {
      return sqErr(409, 'INVALID_REQUEST_ERROR', 'SIMULATOR_STATE', (e as Error).message);
    }
  };

  async function notify(c: Checkout) {
    if (!webhookUrl) return;
    const body = JSON.stringify({
      merchant_id: 'SIM_MERCHANT',
      type: 'terminal.checkout.updated',
      event_id: crypto.randomUUID(),
      created_at: new Date().toISOString(),
      data: { type: 'checkout.event', id: c.id, object: { checkout: c } },
    });
    const sig = createHmac('sha256', options.webhookSignatureKey ?? '').update(webhookUrl + body).digest('base64');
    webhooks.push({ body: JSON.parse(body), result: await postWebhook(webhookUrl, body, { 'x-platform-a-hmacsha256-signature': sig }) });
  }

  async function finish(id: string, outcome: 'complete' | 'decline' | 'timeout', tip = 0) {
    const c = checkouts.get(id);
    if (!c || (c.status !== 'PENDING' && c.status !== 'IN_PROGRESS')) throw new Error(`platform-a simulator: checkout ${id} is not open`);
    if (outcome === 'complete') {
      c.status = 'COMPLETED';
      if (tip > 0) c.tip_money = { amount: tip, currency: c.amount_money.currency };
      c.payment_ids = [crypto.randomUUID().replaceAll('-', '')];
    } else {
      c.status = 'CANCELED';
      c.cancel_reason = outcome === 'decline' ? 'BUYER_CANCELED' : 'TIMED_OUT';
    }
    c.updated_at = new Date().toISOString();
    await notify(c);
  }

  const authorised = (req: Request) => req.headers.get('authorization') === `Bearer ${options.accessToken}`;
  const guard = (h: (req: Request, p: Record<string, string>) => Response | Promise<Response>) => (req: Request, p: Record<string, string>) =>
    authorised(req) ? h(req, p) : sqErr(401, 'AUTHENTICATION_ERROR', 'UNAUTHORIZED', 'This request could not be authorized.');
  const control = (outcome: 'complete' | 'decline' | 'timeout') => async (_req: Request, p: Record<string, string>) => {
    try {
      await finish(p.id!, outcome);
      return Response.json({ checkout: checkouts.get(p.id!) });
    } catch (e) {
      return sqErr(409, 'INVALID_REQUEST_ERROR', 'SIMULATOR_STATE', (e as Error).message);
    }
  };

  const routes = [
    route(
      'POST',
      '/v2/terminals/checkouts',
      guard(async (req) => {
        const b = await jsonBody(req);
        const key = typeof b?.idempotency_key === 'string' && b.idempotency_key.length > 0 && b.idempotency_key.length <= 64 ? b.idempotency_key : null;
        if (!key) return sqErr(400, 'INVALID_REQUEST_ERROR', 'MISSING_REQUIRED_PARAMETER', 'Field must be set', 'idempotency_key');
        const known = byKey.get(key);
        if (known) return Response.json({ checkout: checkouts.get(known) });
        const co = (b!.checkout ?? null) as Record<string, any> | null;
        const amount = co?.amount_money?.amount;
        const currency = co?.amount_money?.currency;
        const deviceId = co?.device_options?.device_id;
        if (!Number.isInteger(amount) || amount < 1) return sqErr(400, 'INVALID_REQUEST_ERROR', 'INVALID_VALUE', 'Invalid amount', 'checkout.amount_money.amount');
        if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) return sqErr(400, 'INVALID_REQUEST_ERROR', 'INVALID_VALUE', 'Invalid currency', 'checkout.amount_money.currency');
        if (typeof deviceId !== 'string' || deviceId.length === 0) return sqErr(400, 'INVALID_REQUEST_ERROR', 'MISSING_REQUIRED_PARAMETER', 'Field must be set', 'checkout.device_options.device_id');
        const now = new Date().toISOString();
        const c: Checkout = {
          id: crypto.randomUUID().replaceAll('-', '').slice(0, 22),
          amount_money: { amount, currency },
          device_options: { device_id: deviceId },
          reference_id: typeof co!.reference_id === 'string' ? co!.reference_id.slice(0, 40) : '',
          note: typeof co!.note === 'string' ? co!.note.slice(0, 500) : '',
          status: 'PENDING',
          payment_ids: [],
          created_at: now,
          updated_at: now,
        };
        checkouts.set(c.id, c);
        byKey.set(key, c.id);
        created++;
        if (options.autoCompleteMs !== undefined) setTimeout(() => void finish(c.id, 'complete').catch(() => {}), options.autoCompleteMs);
        return Response.json({ checkout: c });
      }),
    ),
    route(
      'GET',
      '/v2/terminals/checkouts/:id',
      guard((_req, p) => {
        const c = checkouts.get(p.id!);
        return c ? Response.json({ checkout: c }) : sqErr(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Checkout ${p.id} not found`);
      }),
    ),
    route(
      'POST',
      '/v2/terminals/checkouts/:id/cancel',
      guard(async (_req, p) => {
        const c = checkouts.get(p.id!);
        if (!c) return sqErr(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Checkout ${p.id} not found`);
        if (c.status === 'COMPLETED') return sqErr(400, 'INVALID_REQUEST_ERROR', 'BAD_REQUEST', 'Checkout is already completed');
        if (c.status !== 'CANCELED') {
          c.status = 'CANCELED';
          c.cancel_reason = 'SELLER_CANCELED';
          c.updated_at = new Date().toISOString();
          await notify(c);
        }
        return Response.json({ checkout: c });
      }),
    ),
    route(
      'POST',
      '/v2/payments',
      guard(async (req) => {
        const b = await jsonBody(req);
        const key = typeof b?.idempotency_key === 'string' && b.idempotency_key.length > 0 && b.idempotency_key.length <= 45 ? b.idempotency_key : null;
        if (!key) return sqErr(400, 'INVALID_REQUEST_ERROR', 'MISSING_REQUIRED_PARAMETER', 'Field must be set', 'idempotency_key');
        const amount = (b!.amount_money as Record<string, unknown> | undefined)?.amount;
        const currency = (b!.amount_money as Record<string, unknown> | undefined)?.currency;
        // A key answers its first request again, a decline included; the same key with other request data is refused.
        const request = JSON.stringify([b!.source_id, amount, currency]);
        const known = paymentByKey.get(key);
        if (known) return known.request === request ? known.answer() : sqErr(400, 'INVALID_REQUEST_ERROR', 'IDEMPOTENCY_KEY_REUSED', 'The idempotency key can only be retried with the same request data.', 'idempotency_key');
        if (!Number.isInteger(amount) || (amount as number) < 1) return sqErr(400, 'INVALID_REQUEST_ERROR', 'INVALID_VALUE', 'Invalid amount', 'amount_money.amount');
        if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) return sqErr(400, 'INVALID_REQUEST_ERROR', 'INVALID_VALUE', 'Invalid currency', 'amount_money.currency');
        if (typeof b!.source_id !== 'string' || b!.source_id.length === 0) return sqErr(400, 'INVALID_REQUEST_ERROR', 'MISSING_REQUIRED_PARAMETER', 'Field must be set', 'source_id');
        if (b!.source_id === 'cnon:card-nonce-declined') {
          const declined = () => sqErr(402, 'PAYMENT_METHOD_ERROR', 'GENERIC_DECLINE', 'Authorization error: GENERIC_DECLINE');
          paymentByKey.set(key, { request, answer: declined });
          return declined();
        }
        const pay: PlatformAPayment = {
          id: crypto.randomUUID().replaceAll('-', '').slice(0, 26),
          amount_money: { amount: amount as number, currency },
          status: 'COMPLETED',
          reference_id: typeof b!.reference_id === 'string' ? b!.reference_id.slice(0, 40) : '',
          location_id: typeof b!.location_id === 'string' ? b!.location_id.slice(0, 64) : '',
          created_at: new Date().toISOString(),
        };
        payments.set(pay.id, pay);
        paymentByKey.set(key, { request, answer: () => Response.json({ payment: payments.get(pay.id) }) });
        return Response.json({ payment: pay });
      }),
    ),
    route(
      'GET',
      '/v2/payments/:id',
      guard((_req, p) => {
        const pay = payments.get(p.id!);
        return pay ? Response.json({ payment: pay }) : sqErr(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Payment ${p.id} not found`);
      }),
    ),
    // Catalog two-way sync, our side: `{idempotency_key, batches:[{objects:[{type:'ITEM', id:'#…', item_data:{name,
    // variations:[{type:'ITEM_VARIATION', item_variation_data:{price_money:{amount, currency}}}]}}]}]}`.
    route(
      'POST',
      '/v2/catalog/batch-upsert',
      guard(async (req) => {
        const b = await jsonBody(req);
        const batches = Array.isArray(b?.batches) ? (b!.batches as { objects?: unknown }[]) : null;
        if (typeof b?.idempotency_key !== 'string' || !batches) return sqErr(400, 'INVALID_REQUEST_ERROR', 'MISSING_REQUIRED_PARAMETER', 'idempotency_key and batches are required');
        const objects: unknown[] = [];
        const mappings: { client_object_id: string; object_id: string }[] = [];
        for (const batch of batches) {
          for (const o of Array.isArray(batch.objects) ? (batch.objects as any[]) : []) {
            const money = o?.item_data?.variations?.[0]?.item_variation_data?.price_money;
            if (o?.type !== 'ITEM' || typeof o.id !== 'string' || typeof o.item_data?.name !== 'string' || !Number.isInteger(money?.amount))
              return sqErr(400, 'INVALID_REQUEST_ERROR', 'INVALID_VALUE', 'Each object needs type ITEM, id, item_data.name and a variation price');
            const prev = catalog.get(o.id);
            const entry = { object_id: prev?.object_id ?? crypto.randomUUID().replaceAll('-', '').slice(0, 24).toUpperCase(), name: o.item_data.name, amount: money.amount, currency: String(money.currency ?? 'EUR') };
            catalog.set(o.id, entry);
            mappings.push({ client_object_id: o.id, object_id: entry.object_id });
            objects.push({ type: 'ITEM', id: entry.object_id, item_data: o.item_data });
          }
        }
        catalogUpserts.push(b!.idempotency_key as string);
        return Response.json({ objects, id_mappings: mappings });
      }),
    ),
    route(
      'POST',
      '/v2/devices/codes',
      guard(async (req) => {
        const b = await jsonBody(req);
        const key = typeof b?.idempotency_key === 'string' && b.idempotency_key.length > 0 && b.idempotency_key.length <= 128 ? b.idempotency_key : null;
        if (!key) return sqErr(400, 'INVALID_REQUEST_ERROR', 'MISSING_REQUIRED_PARAMETER', 'Field must be set', 'idempotency_key');
        const known = deviceCodeByKey.get(key);
        if (known) return Response.json({ device_code: deviceCodes.get(known) });
        const dc = (b!.device_code ?? null) as Record<string, unknown> | null;
        if (dc?.product_type !== 'TERMINAL_API') return sqErr(400, 'INVALID_REQUEST_ERROR', 'INVALID_VALUE', 'product_type must be TERMINAL_API', 'device_code.product_type');
        if (typeof dc.location_id !== 'string' || dc.location_id.length === 0) return sqErr(400, 'INVALID_REQUEST_ERROR', 'MISSING_REQUIRED_PARAMETER', 'Field must be set', 'device_code.location_id');
        if (dc.location_id === 'UNKNOWN_LOCATION') return sqErr(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Location ${dc.location_id} not found`, 'device_code.location_id');
        const now = new Date();
        const c: DeviceCode = {
          id: crypto.randomUUID().replaceAll('-', '').slice(0, 12).toUpperCase(),
          code: Array.from({ length: 6 }, () => 'ABCDEFGHJKLMNPQRSTUVWXYZ'[Math.floor(Math.random() * 24)]).join(''),
          name: typeof dc.name === 'string' ? dc.name.slice(0, 128) : '',
          product_type: 'TERMINAL_API',
          location_id: dc.location_id,
          status: 'UNPAIRED',
          pair_by: new Date(now.getTime() + 5 * 60_000).toISOString(),
          created_at: now.toISOString(),
          status_changed_at: now.toISOString(),
        };
        deviceCodes.set(c.id, c);
        deviceCodeByKey.set(key, c.id);
        return Response.json({ device_code: c });
      }),
    ),
    route(
      'GET',
      '/v2/devices/codes/:id',
      guard((_req, p) => {
        const c = deviceCodes.get(p.id!);
        return c ? Response.json({ device_code: c }) : sqErr(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Device code ${p.id} not found`);
      }),
    ),
    route('POST', '/_sim/device-codes/:id/pair', simCode(pairDeviceCode)),
    route('POST', '/_sim/device-codes/:id/expire', simCode(expireDeviceCode)),
    route('POST', '/_sim/checkouts/:id/complete', control('complete')),
    route('POST', '/_sim/checkouts/:id/decline', control('decline')),
    route('POST', '/_sim/checkouts/:id/timeout', control('timeout')),
  ];

  const server = Bun.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? '127.0.0.1',
    fetch: (req) => dispatch(routes, req, () => sqErr(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', 'Not found')),
  });
  return {
    url: `http://${server.hostname}:${server.port}`,
    setWebhookUrl: (url: string) => {
      webhookUrl = url;
    },
    checkout: (id) => checkouts.get(id),
    payment: (id) => payments.get(id),
    paymentsFor: (referenceId) => [...payments.values()].filter((p) => p.reference_id === referenceId),
    setPaymentStatus: (id, status) => {
      const p = payments.get(id);
      if (!p) throw new Error(`platform-a simulator: no payment ${id}`);
      p.status = status;
    },
    get created() {
      return created;
    },
    complete: (id, tip) => finish(id, 'complete', tip ?? 0),
    decline: (id) => finish(id, 'decline'),
    timeout: (id) => finish(id, 'timeout'),
    webhooks,
    catalog,
    catalogUpserts,
    pairDeviceCode,
    expireDeviceCode,
    deviceCode: (id) => deviceCodes.get(id),
    async stop() {
      await server.stop(true);
    },
  };
}
