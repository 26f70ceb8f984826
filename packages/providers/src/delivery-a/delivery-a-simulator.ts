import { timingSafeEqual } from 'node:crypto';
import { dispatch, jsonBody, route, type Route } from '../shared/sim-server.ts';
import { SimOrderBook } from '../shared/marketplace-orders.ts';

/**
 * A delivery-a marketplace for development and tests (a real HTTP server): stores known by id, each
 * with an integration switch, a pushed menu, item availability and a site status in `OPEN`, `CLOSED`,
 * `READY_TO_OPEN`. Calls carry `Authorization: Bearer <apiToken>`; another token is a 401. Turning a
 * store's integration on takes the store's `link_code` (403 `invalid_link_code` otherwise).
 */
export interface DeliveryASimStore {
  id: string;
  name: string;
  integrationEnabled: boolean;
  integratorRef: string | null;
  /** The code the store's owner copies from delivery-a's merchant portal to let an integrator in (our design). */
  linkCode: string;
  siteStatus: 'OPEN' | 'CLOSED' | 'READY_TO_OPEN';
  menu: { items: { id: string; name: string; price: number; available: boolean }[] } | null;
  menuPushes: number;
  availabilityPushes: number;
}

export interface DeliveryASimulator {
  readonly url: string;
  readonly stores: Map<string, DeliveryASimStore>;
  /** Orders, accept/deny calls and the signed order webhooks sent (`X-Delivery-A-Signature`). */
  readonly orders: SimOrderBook;
  addStore(id: string, name?: string, opts?: { linkCode?: string }): DeliveryASimStore;
  stop(): Promise<void>;
}

export const SITE_STATUSES = ['OPEN', 'CLOSED', 'READY_TO_OPEN'] as const;

const json = (status: number, body: unknown) => Response.json(body, { status });
const problem = (status: number, code: string, message: string) => json(status, { code, message });

export function startDeliveryASimulator(opts: { port?: number; apiToken: string; webhookUrl?: string; webhookSecret?: string }): DeliveryASimulator {
  const stores = new Map<string, DeliveryASimStore>();
  let base = '';
  // Order webhooks carry ids only: `{event_id, event_type, event_time, meta:{resource_id, status, user_id}, resource_href}`.
  const orders = new SimOrderBook({ header: 'x-delivery-a-signature', ...(opts.webhookUrl ? { url: opts.webhookUrl } : {}), ...(opts.webhookSecret ? { secret: opts.webhookSecret } : {}) }, (o, kind, eventId) => ({
    event_id: eventId,
    event_type: kind === 'new' ? 'orders.notification' : o.status === 'CANCELED' ? 'orders.cancel' : 'orders.status_changed',
    event_time: Math.floor(Date.now() / 1000),
    meta: { resource_id: o.id, status: o.status, user_id: o.store_id },
    resource_href: `${base}/v1/orders/${o.id}`,
  }));
  const store = (id: string) => stores.get(id);
  const view = (s: DeliveryASimStore) => ({ id: s.id, name: s.name, integration_enabled: s.integrationEnabled, integrator_store_id: s.integratorRef, site_status: s.siteStatus });

  const routes: Route[] = [
    route('GET', '/v1/stores/:storeId', (_r, p) => {
      const s = store(p.storeId!);
      return s ? json(200, view(s)) : problem(404, 'store_not_found', 'Store not found');
    }),
    route('POST', '/v1/stores/:storeId/integration', async (req, p) => {
      const s = store(p.storeId!);
      if (!s) return problem(404, 'store_not_found', 'Store not found');
      const b = await jsonBody(req);
      if (!b || typeof b.integrator_store_id !== 'string' || b.integrator_store_id.length === 0) return problem(400, 'invalid_request', 'integrator_store_id is required');
      // One API token reaches every store: the integration is turned on only with the store owner's link code.
      const given = Buffer.from(typeof b.link_code === 'string' ? b.link_code : '');
      const expected = Buffer.from(s.linkCode);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return problem(403, 'invalid_link_code', 'The link code is not valid for this store');
      s.integrationEnabled = true;
      s.integratorRef = b.integrator_store_id;
      return json(200, view(s));
    }),
    route('DELETE', '/v1/stores/:storeId/integration', (_r, p) => {
      const s = store(p.storeId!);
      if (!s) return problem(404, 'store_not_found', 'Store not found');
      s.integrationEnabled = false;
      s.integratorRef = null;
      return new Response(null, { status: 204 });
    }),
    route('PUT', '/v1/stores/:storeId/menu', async (req, p) => {
      const s = store(p.storeId!);
      if (!s) return problem(404, 'store_not_found', 'Store not found');
      if (!s.integrationEnabled) return problem(409, 'integration_disabled', 'Integration is not enabled for this store');
      const b = await jsonBody(req);
      const items = Array.isArray(b?.items) ? (b!.items as unknown[]) : null;
      if (!items || !items.every((i) => i && typeof (i as { id?: unknown }).id === 'string' && typeof (i as { name?: unknown }).name === 'string' && Number.isInteger((i as { price?: unknown }).price)))
        return problem(400, 'invalid_menu', 'Each item needs id, name and an integer price');
      s.menu = { items: (items as { id: string; name: string; price: number; available?: boolean }[]).map((i) => ({ id: i.id, name: i.name, price: i.price, available: i.available !== false })) };
      s.menuPushes++;
      return json(200, { items: s.menu.items.length });
    }),
    route('POST', '/v1/stores/:storeId/menu/availability', async (req, p) => {
      const s = store(p.storeId!);
      if (!s) return problem(404, 'store_not_found', 'Store not found');
      if (!s.menu) return problem(409, 'menu_missing', 'No menu was uploaded for this store');
      const b = await jsonBody(req);
      const items = Array.isArray(b?.items) ? (b!.items as { id?: unknown; available?: unknown }[]) : null;
      if (!items || !items.every((i) => typeof i?.id === 'string' && typeof i.available === 'boolean')) return problem(400, 'invalid_request', 'Each entry needs id and available');
      let updated = 0;
      for (const i of items) {
        const hit = s.menu.items.find((x) => x.id === i.id);
        if (hit) {
          hit.available = i.available as boolean;
          updated++;
        }
      }
      s.availabilityPushes++;
      return json(200, { updated });
    }),
    route('GET', '/v1/stores/:storeId/status', (_r, p) => {
      const s = store(p.storeId!);
      return s ? json(200, { status: s.siteStatus }) : problem(404, 'store_not_found', 'Store not found');
    }),
    route('PUT', '/v1/stores/:storeId/status', async (req, p) => {
      const s = store(p.storeId!);
      if (!s) return problem(404, 'store_not_found', 'Store not found');
      const b = await jsonBody(req);
      if (!SITE_STATUSES.includes(b?.status as never)) return problem(400, 'invalid_status', 'status must be OPEN, CLOSED or READY_TO_OPEN');
      s.siteStatus = b!.status as DeliveryASimStore['siteStatus'];
      return json(200, { status: s.siteStatus });
    }),
    ...orders.routes('/v1/orders', (id) => stores.has(id)),
  ];

  const server = Bun.serve({
    port: opts.port ?? 0,
    hostname: '127.0.0.1',
    fetch: (req) => {
      const url = new URL(req.url);
      if (!url.pathname.startsWith('/_sim/') && req.headers.get('authorization') !== `Bearer ${opts.apiToken}`) return problem(401, 'unauthorized', 'Invalid credentials');
      return dispatch(routes, req, () => problem(404, 'not_found', 'Not found'));
    },
  });

  base = `http://127.0.0.1:${server.port}`;
  return {
    url: base,
    stores,
    orders,
    addStore(id, name = `Store ${id}`, o = {}) {
      const linkCode = o.linkCode ?? `LINK-${crypto.randomUUID().slice(0, 8).toUpperCase()}`;
      const s: DeliveryASimStore = { id, name, integrationEnabled: false, integratorRef: null, linkCode, siteStatus: 'CLOSED', menu: null, menuPushes: 0, availabilityPushes: 0 };
      stores.set(id, s);
      return s;
    },
    stop: async () => {
      await server.stop(true);
    },
  };
}
