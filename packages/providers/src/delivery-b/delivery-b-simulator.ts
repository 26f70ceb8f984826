import { dispatch, jsonBody, route, type Route } from '../shared/sim-server.ts';
import { SimOrderBook } from '../shared/marketplace-orders.ts';
import type { DeliveryBFulfillment, DeliveryBMenuItem, DeliveryBStoreStatus } from './delivery-b-client.ts';

/**
 * A delivery-b marketplace store API for development and tests (a real HTTP server): stores known by
 * id, each with an integration switch, a pushed menu, a status `online`/`offline`, a prep time and
 * fulfillment modes. Calls carry `Authorization: Bearer <apiToken>`; another token is a 401.
 * Stores belong to a delivery-b account (`addStore(id, name, account)`); `GET /v2/me/stores` answers the
 * stores of the account whose OAuth access token is the bearer (`addAccountToken`, or, with `introspect`,
 * a token the OAuth simulator issued, looked up at its `POST /oauth/introspect`); another token is a 401.
 */
export interface DeliveryBSimStore {
  id: string;
  name: string;
  /** The delivery-b account the store belongs to (null: no account, as before accounts). */
  account: string | null;
  integrationEnabled: boolean;
  integratorRef: string | null;
  status: DeliveryBStoreStatus;
  prepTimeMinutes: number;
  fulfillment: DeliveryBFulfillment;
  menu: DeliveryBMenuItem[] | null;
  menuPushes: number;
}

export interface DeliveryBSimulator {
  readonly url: string;
  readonly stores: Map<string, DeliveryBSimStore>;
  /** Orders, accept/deny calls and the signed order webhooks sent (`X-Delivery-B-Signature`). */
  readonly orders: SimOrderBook;
  addStore(id: string, name?: string, account?: string | null): DeliveryBSimStore;
  /** Accepts `token` as an OAuth access token of `account` on `/v2/me/...`. */
  addAccountToken(token: string, account: string): void;
  stop(): Promise<void>;
}

const json = (status: number, body: unknown) => Response.json(body, { status });
const problem = (status: number, code: string, message: string) => json(status, { code, message });

export function startDeliveryBSimulator(opts: { port?: number; apiToken: string; webhookUrl?: string; webhookSecret?: string; introspect?: { url: string; clientId: string; clientSecret: string } }): DeliveryBSimulator {
  const stores = new Map<string, DeliveryBSimStore>();
  const accountTokens = new Map<string, string>();
  /** The account of an OAuth access token: one given to the simulator, else (with `introspect`) one the OAuth simulator issued. */
  async function accountOf(req: Request): Promise<string | null> {
    const token = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
    if (!token) return null;
    const known = accountTokens.get(token);
    if (known || !opts.introspect) return known ?? null;
    try {
      const res = await fetch(`${opts.introspect.url.replace(/\/+$/, '')}/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: opts.introspect.clientId, client_secret: opts.introspect.clientSecret }).toString(),
      });
      const b = (await res.json()) as { active?: boolean; account_id?: string };
      return b.active && typeof b.account_id === 'string' ? b.account_id : null;
    } catch {
      return null;
    }
  }
  const meRoutes: Route[] = [
    route('GET', '/v2/me/stores', async (req) => {
      const account = await accountOf(req);
      if (!account) return problem(401, 'invalid_token', 'Invalid or expired access token');
      return json(200, { account_id: account, stores: [...stores.values()].filter((s) => s.account === account).map((s) => ({ id: s.id, name: s.name })) });
    }),
  ];
  // Order notifications `{event_id, event_type, store_id, order:{id}}`: order.new, order.cancelled, order.updated.
  const orders = new SimOrderBook({ header: 'x-delivery-b-signature', ...(opts.webhookUrl ? { url: opts.webhookUrl } : {}), ...(opts.webhookSecret ? { secret: opts.webhookSecret } : {}) }, (o, kind, eventId) => ({
    event_id: eventId,
    event_type: kind === 'new' ? 'order.new' : o.status === 'CANCELED' ? 'order.cancelled' : 'order.updated',
    store_id: o.store_id,
    order: { id: o.id },
  }));
  const view = (s: DeliveryBSimStore) => ({ id: s.id, name: s.name, integration_enabled: s.integrationEnabled, integrator_store_id: s.integratorRef, status: s.status, prep_time_minutes: s.prepTimeMinutes, fulfillment: s.fulfillment });
  const withStore = (fn: (s: DeliveryBSimStore, req: Request) => Response | Promise<Response>) => (req: Request, p: Record<string, string>) => {
    const s = stores.get(p.storeId!);
    return s ? fn(s, req) : problem(404, 'store_not_found', 'Store not found');
  };

  const routes: Route[] = [
    route('GET', '/v2/stores', () => json(200, { stores: [...stores.values()].map((s) => ({ id: s.id, name: s.name })) })),
    route('GET', '/v2/stores/:storeId', withStore((s) => json(200, view(s)))),
    route('POST', '/v2/stores/:storeId/integration', withStore(async (s, req) => {
      const b = await jsonBody(req);
      if (!b || typeof b.integrator_store_id !== 'string' || b.integrator_store_id.length === 0) return problem(400, 'invalid_request', 'integrator_store_id is required');
      s.integrationEnabled = true;
      s.integratorRef = b.integrator_store_id;
      return json(200, view(s));
    })),
    route('DELETE', '/v2/stores/:storeId/integration', withStore((s) => {
      s.integrationEnabled = false;
      s.integratorRef = null;
      return new Response(null, { status: 204 });
    })),
    route('PUT', '/v2/stores/:storeId/menu', withStore(async (s, req) => {
      if (!s.integrationEnabled) return problem(409, 'integration_disabled', 'Integration is not enabled for this store');
      const b = await jsonBody(req);
      const items = Array.isArray(b?.items) ? (b!.items as Partial<DeliveryBMenuItem>[]) : null;
      if (!items || !items.every((i) => i && typeof i.id === 'string' && typeof i.name === 'string' && Number.isInteger(i.price)))
        return problem(400, 'invalid_menu', 'Each item needs id, name and an integer price');
      s.menu = items.map((i) => ({ id: i.id!, name: i.name!, price: i.price!, available: i.available !== false }));
      s.menuPushes++;
      return json(200, { items: s.menu.length });
    })),
    route('GET', '/v2/stores/:storeId/menu', withStore((s) => (s.menu ? json(200, { items: s.menu }) : problem(409, 'menu_missing', 'No menu was uploaded for this store')))),
    route('PUT', '/v2/stores/:storeId/status', withStore(async (s, req) => {
      if (!s.integrationEnabled) return problem(409, 'integration_disabled', 'Integration is not enabled for this store');
      const b = await jsonBody(req);
      if (b?.status !== 'online' && b?.status !== 'offline') return problem(400, 'invalid_status', 'status must be online or offline');
      s.status = b.status;
      return json(200, { status: s.status });
    })),
    route('PUT', '/v2/stores/:storeId/prep-time', withStore(async (s, req) => {
      const b = await jsonBody(req);
      const m = b?.prep_time_minutes;
      if (typeof m !== 'number' || !Number.isInteger(m) || m < 0 || m > 240) return problem(400, 'invalid_prep_time', 'prep_time_minutes must be an integer 0-240');
      s.prepTimeMinutes = m;
      return json(200, { prep_time_minutes: m });
    })),
    route('PUT', '/v2/stores/:storeId/fulfillment', withStore(async (s, req) => {
      const b = await jsonBody(req);
      if (typeof b?.delivery !== 'boolean' || typeof b.pickup !== 'boolean') return problem(400, 'invalid_fulfillment', 'delivery and pickup are required booleans');
      if (!b.delivery && !b.pickup) return problem(409, 'no_fulfillment', 'At least one fulfillment mode must stay on');
      s.fulfillment = { delivery: b.delivery, pickup: b.pickup };
      return json(200, s.fulfillment);
    })),
    ...orders.routes('/v2/orders', (id) => stores.has(id)),
  ];

  const server = Bun.serve({
    port: opts.port ?? 0,
    hostname: '127.0.0.1',
    fetch: (req) => {
      const url = new URL(req.url);
      // The account's own view: authenticated by its OAuth access token, not the platform token.
      if (url.pathname.startsWith('/v2/me/')) return dispatch(meRoutes, req, () => problem(404, 'not_found', 'Not found'));
      if (!url.pathname.startsWith('/_sim/') && req.headers.get('authorization') !== `Bearer ${opts.apiToken}`) return problem(401, 'unauthorized', 'Invalid credentials');
      return dispatch(routes, req, () => problem(404, 'not_found', 'Not found'));
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    stores,
    orders,
    addStore(id, name = `Store ${id}`, account = null) {
      const s: DeliveryBSimStore = { id, name, account, integrationEnabled: false, integratorRef: null, status: 'offline', prepTimeMinutes: 15, fulfillment: { delivery: true, pickup: false }, menu: null, menuPushes: 0 };
      stores.set(id, s);
      return s;
    },
    addAccountToken(token, account) {
      accountTokens.set(token, account);
    },
    stop: async () => {
      await server.stop(true);
    },
  };
}
