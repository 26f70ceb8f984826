import { timingSafeEqual } from 'node:crypto';
import { dispatch, jsonBody, route, type Route } from '../shared/sim-server.ts';
import type { RegisterDMenuItem, RegisterDOrder, RegisterDOrderLine } from './register-d-client.ts';

/**
 * register-d's transport for development and tests (a real HTTP server, the API described at the top
 * of register-d-client.ts): vendors known by word, each with sites; a site can be linked to one
 * external reference, holds the last menu pushed and the orders received (once per order id). Calls carry `Authorization: Bearer <apiToken>`;
 * another token is a 401. `failWith` makes every API call answer that status (a vendor down behind
 * the hub). Linking a site takes its `link_code` (403 `invalid_link_code` otherwise). Control routes (no
 * token): `POST /_sim/vendors/{vendor}/sites` `{id, name?, link_code?}` adds a site.
 */
export interface RegisterDSimSite {
  id: string;
  vendor: string;
  name: string;
  linkedRef: string | null;
  /** The code the site's owner copies from the vendor's back office to let an integrator link it (our design). */
  linkCode: string;
  menu: RegisterDMenuItem[];
  menuPushes: number;
  /** Orders received, in arrival order; a repeated PUT of an order id adds nothing. */
  orders: RegisterDOrder[];
  /** Every order PUT that reached the site (repeats included). */
  orderPuts: number;
}

export interface RegisterDSimulator {
  readonly url: string;
  /** Keyed `${vendor}/${siteId}`. */
  readonly sites: Map<string, RegisterDSimSite>;
  site(vendor: string, id: string): RegisterDSimSite | undefined;
  addSite(vendor: string, id: string, name?: string, opts?: { linkCode?: string }): RegisterDSimSite;
  /** Every API call answers this status (e.g. 503) until set back to null. */
  failWith: number | null;
  stop(): Promise<void>;
}

const json = (status: number, body: unknown) => Response.json(body, { status });
const problem = (status: number, code: string, message: string) => json(status, { code, message });
const MAX_ITEMS = 5000;
const MAX_LINES = 200;
const CHANNELS = new Set(['kiosk', 'online_ordering', 'table_qr', 'delivery']);
const isCents = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 100_000_000;
const isName = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

/** The order body as the transport checks it; null when any part is missing or out of range. */
function orderInput(b: Record<string, unknown> | null): Omit<RegisterDOrder, 'id' | 'order_id' | 'vendor' | 'site_id' | 'status' | 'received_at'> | null {
  if (!b || typeof b.channel !== 'string' || !CHANNELS.has(b.channel)) return null;
  const customer = b.customer_name ?? null;
  if (customer !== null && !isName(customer, 100)) return null;
  const raw = Array.isArray(b.lines) ? (b.lines as Partial<RegisterDOrderLine>[]) : null;
  if (!raw || raw.length === 0 || raw.length > MAX_LINES) return null;
  if (!raw.every((l) => l && isName(l.name, 200) && Number.isInteger(l.quantity) && l.quantity! >= 1 && l.quantity! <= 10_000 && isCents(l.unit_price))) return null;
  const t = b.totals as Record<string, unknown> | null | undefined;
  if (!t || !['subtotal', 'tip', 'service_charge', 'discount', 'total'].every((k) => isCents(t[k]))) return null;
  const lines = raw.map((l) => ({ name: l.name!, quantity: l.quantity!, unit_price: l.unit_price! }));
  // The register re-adds the lines: a subtotal that does not match them is refused.
  if (lines.reduce((a, l) => a + l.quantity * l.unit_price, 0) !== t.subtotal) return null;
  return {
    channel: b.channel,
    customer_name: customer as string | null,
    lines,
    totals: { subtotal: t.subtotal as number, tip: t.tip as number, service_charge: t.service_charge as number, discount: t.discount as number, total: t.total as number },
  };
}

export function startRegisterDSimulator(opts: { port?: number; apiToken: string; vendors?: readonly string[] }): RegisterDSimulator {
  const vendors = new Set(opts.vendors ?? ['vendor-a', 'vendor-b']);
  const sites = new Map<string, RegisterDSimSite>();
  const key = (vendor: string, id: string) => `${vendor}/${id}`;
  const view = (s: RegisterDSimSite) => ({ id: s.id, vendor: s.vendor, name: s.name, linked_ref: s.linkedRef, menu_items: s.menu.length });
  const withSite = (fn: (s: RegisterDSimSite, req: Request, p: Record<string, string>) => Response | Promise<Response>) => (req: Request, p: Record<string, string>) => {
    if (!vendors.has(p.vendor!)) return problem(404, 'vendor_not_found', 'Vendor not found');
    const s = sites.get(key(p.vendor!, p.siteId!));
    return s ? fn(s, req, p) : problem(404, 'site_not_found', 'Site not found');
  };
  let orderSeq = 0;

  function addSite(vendor: string, id: string, name = `Site ${id}`, opts: { linkCode?: string } = {}): RegisterDSimSite {
    vendors.add(vendor);
    const linkCode = opts.linkCode ?? `LINK-${crypto.randomUUID().slice(0, 8).toUpperCase()}`;
    const s: RegisterDSimSite = { id, vendor, name, linkedRef: null, linkCode, menu: [], menuPushes: 0, orders: [], orderPuts: 0 };
    sites.set(key(vendor, id), s);
    return s;
  }

  const routes: Route[] = [
    route('GET', '/v1/vendors/:vendor/sites/:siteId', withSite((s) => json(200, view(s)))),
    route('PUT', '/v1/vendors/:vendor/sites/:siteId/link', withSite(async (s, req) => {
      const b = await jsonBody(req);
      const ref = b?.external_ref;
      if (typeof ref !== 'string' || ref.length === 0 || ref.length > 200) return problem(422, 'invalid_request', 'external_ref is required (1-200 characters)');
      // One transport token reaches every site: a site is linked only with its owner's link code.
      const given = Buffer.from(typeof b?.link_code === 'string' ? b.link_code : '');
      const expected = Buffer.from(s.linkCode);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return problem(403, 'invalid_link_code', 'The link code is not valid for this site');
      if (s.linkedRef !== null && s.linkedRef !== ref) return problem(409, 'site_linked', 'The site is linked to another reference');
      s.linkedRef = ref;
      return json(200, view(s));
    })),
    route('DELETE', '/v1/vendors/:vendor/sites/:siteId/link', withSite((s) => {
      s.linkedRef = null;
      return new Response(null, { status: 204 });
    })),
    route('PUT', '/v1/vendors/:vendor/sites/:siteId/menu', withSite(async (s, req) => {
      if (s.linkedRef === null) return problem(409, 'site_not_linked', 'The site is not linked');
      const b = await jsonBody(req);
      const items = Array.isArray(b?.items) ? (b!.items as Partial<RegisterDMenuItem>[]) : null;
      if (!items || items.length > MAX_ITEMS || !items.every((i) => i && typeof i.id === 'string' && typeof i.name === 'string' && Number.isInteger(i.price) && i.price! >= 0))
        return problem(422, 'invalid_menu', 'Each item needs id, name and a non-negative integer price');
      const before = new Map(s.menu.map((i) => [i.id, i]));
      const next = items.map((i) => ({ id: i.id!, name: i.name!, price: i.price!, available: i.available !== false }));
      let created = 0;
      let updated = 0;
      for (const i of next) {
        const old = before.get(i.id);
        if (!old) created++;
        else if (old.name !== i.name || old.price !== i.price || old.available !== i.available) updated++;
      }
      const ids = new Set(next.map((i) => i.id));
      const removed = s.menu.filter((i) => !ids.has(i.id)).length;
      s.menu = next;
      s.menuPushes++;
      return json(200, { items: next.length, created, updated, removed });
    })),
    route('PUT', '/v1/vendors/:vendor/sites/:siteId/orders/:orderId', withSite(async (s, req, p) => {
      if (s.linkedRef === null) return problem(409, 'site_not_linked', 'The site is not linked');
      const orderId = p.orderId!;
      if (orderId.length > 100) return problem(422, 'invalid_order', 'The order id is too long');
      s.orderPuts++;
      const known = s.orders.find((o) => o.order_id === orderId);
      if (known) return json(200, known);
      const input = orderInput(await jsonBody(req));
      if (!input) return problem(422, 'invalid_order', 'The order needs a channel, 1-200 lines (name, quantity, unit_price in cents) and totals whose subtotal adds up its lines');
      const order: RegisterDOrder = { id: `rd-ord-${++orderSeq}`, order_id: orderId, vendor: s.vendor, site_id: s.id, status: 'received', ...input, received_at: new Date().toISOString() };
      s.orders.push(order);
      return json(201, order);
    })),
    route('GET', '/v1/vendors/:vendor/sites/:siteId/ping', withSite((s) => json(200, { ok: true, vendor: s.vendor, site_id: s.id, checked_at: new Date().toISOString() }))),
  ];
  const control: Route[] = [
    route('POST', '/_sim/vendors/:vendor/sites', async (req, p) => {
      const b = await jsonBody(req);
      if (typeof b?.id !== 'string' || b.id.length === 0) return problem(422, 'invalid_request', 'id is required');
      return json(201, view(addSite(p.vendor!, b.id, typeof b.name === 'string' ? b.name : undefined, typeof b.link_code === 'string' ? { linkCode: b.link_code } : {})));
    }),
  ];

  const sim: RegisterDSimulator = {
    url: '',
    sites,
    site: (vendor, id) => sites.get(key(vendor, id)),
    addSite,
    failWith: null,
    stop: async () => {
      await server.stop(true);
    },
  };
  const server = Bun.serve({
    port: opts.port ?? 0,
    hostname: '127.0.0.1',
    fetch: (req) => {
      const url = new URL(req.url);
      if (url.pathname.startsWith('/_sim/')) return dispatch(control, req, () => problem(404, 'not_found', 'Not found'));
      if (req.headers.get('authorization') !== `Bearer ${opts.apiToken}`) return problem(401, 'unauthorized', 'Invalid credentials');
      if (sim.failWith !== null) return problem(sim.failWith, 'vendor_unavailable', 'The vendor behind the transport is not answering');
      return dispatch(routes, req, () => problem(404, 'not_found', 'Not found'));
    },
  });
  (sim as { url: string }).url = `http://127.0.0.1:${server.port}`;
  return sim;
}
