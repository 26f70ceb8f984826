import { timingSafeEqual } from 'node:crypto';
import { dispatch, jsonBody, route, type Route } from '../shared/sim-server.ts';
import { centsOf, majorOf, type RegisterBCapabilities, type RegisterBChannel, type RegisterBRelation } from './register-b-client.ts';

/**
 * A register-b partner API for development and tests (a real HTTP server; shape documented in
 * register-b-client.ts). Accounts hold capabilities, branches (each with products and stock levels)
 * and relations (customers, each with an optional discount percentage as its price list). Prices are
 * kept in cents here and answered in major units, as the real API does. Orders placed at a branch are
 * kept on it (`orders`, by our orderId) as register-b answers them; loyalty points credited to relations are
 * kept on the account (`points`, by our reference). `failWith(status)` makes every
 * `/v1` call answer that status (a provider that is down); `failWith(null)` heals it.
 */
export interface RegisterBSimProduct {
  id: string;
  name: string;
  /** cents */
  price: number;
  vat_rate: number;
  sku: string | null;
  active: boolean;
}
export interface RegisterBSimBranch {
  id: string;
  name: string;
  products: Map<string, RegisterBSimProduct>;
  stock: Map<string, number>;
  /** Orders placed here, by orderId, as answered (money in major-unit strings). */
  orders: Map<string, RegisterBSimOrder>;
}
export interface RegisterBSimOrder {
  id: string;
  order_id: string;
  branch_id: string;
  channel: RegisterBChannel;
  customer_name: string | null;
  lines: { name: string; quantity: number; unit_price: string; line_total: string }[];
  subtotal: string;
  discount: string;
  tip: string;
  service_charge: string;
  total: string;
  created_at: string;
}
export interface RegisterBSimAccount {
  id: string;
  name: string;
  status: 'active' | 'suspended';
  /** The code the account's owner gives a partner to connect it (`POST /v1/accounts/{id}/links`). */
  linkCode: string;
  capabilities: RegisterBCapabilities;
  branches: Map<string, RegisterBSimBranch>;
  relations: Map<string, RegisterBRelation & { discount_percent: number }>;
  nextRelation: number;
  /** Loyalty points credited to relations, by the partner's reference (one credit per reference). */
  points: Map<string, RegisterBSimPoints>;
}
export interface RegisterBSimPoints {
  reference: string;
  relation_number: string;
  points: number;
  balance: number;
}

export interface RegisterBSimulator {
  readonly url: string;
  readonly accounts: Map<string, RegisterBSimAccount>;
  addAccount(id: string, opts?: { name?: string; linkCode?: string; capabilities?: Partial<RegisterBCapabilities> }): RegisterBSimAccount;
  addBranch(accountId: string, id: string, name?: string): RegisterBSimBranch;
  addProduct(accountId: string, branchId: string, product: Partial<RegisterBSimProduct> & { id: string; price: number }): RegisterBSimProduct;
  addRelation(accountId: string, relation: { number?: string; name: string; email?: string | null; phone?: string | null; discount_percent?: number }): RegisterBRelation;
  failWith(status: number | null): void;
  stop(): Promise<void>;
}

const json = (status: number, body: unknown) => Response.json(body, { status });
const problem = (status: number, code: string, message: string) => json(status, { code, message });
const str = (v: unknown, max: number) => typeof v === 'string' && v.length > 0 && v.length <= max;
/** A non-negative amount in major units, as the API takes money. */
const money = (v: unknown): v is string => typeof v === 'string' && /^[0-9]{1,9}(\.[0-9]{1,2})?$/.test(v);
const CHANNELS: readonly string[] = ['kiosk', 'online', 'table', 'delivery'];

/** The order a PUT body describes, or the reason it is refused (422 `invalid_request`). */
function orderOf(b: Record<string, unknown> | null, ids: { id: string; orderId: string; branchId: string }): RegisterBSimOrder | string {
  if (!b) return 'a JSON body is required';
  if (!str(ids.orderId, 100)) return 'the order id must be 1-100 characters';
  if (typeof b.channel !== 'string' || !CHANNELS.includes(b.channel)) return `channel must be one of ${CHANNELS.join(', ')}`;
  if (b.customer_name !== null && !str(b.customer_name, 200)) return 'customer_name must be null or 1-200 characters';
  const lines = Array.isArray(b.lines) ? (b.lines as { name?: unknown; quantity?: unknown; unit_price?: unknown }[]) : null;
  if (!lines || lines.length < 1 || lines.length > 200) return 'lines must hold 1-200 lines';
  if (!lines.every((l) => l && str(l.name, 200) && Number.isInteger(l.quantity) && (l.quantity as number) >= 1 && (l.quantity as number) <= 10_000 && money(l.unit_price)))
    return 'every line needs a name, a quantity 1-10000 and a unit_price';
  for (const k of ['subtotal', 'discount', 'tip', 'service_charge', 'total'] as const) if (!money(b[k])) return `${k} must be an amount in major units`;
  const out = lines.map((l) => ({ name: l.name as string, quantity: l.quantity as number, unit_price: majorOf(centsOf(l.unit_price as string)), line_total: majorOf(centsOf(l.unit_price as string) * (l.quantity as number)) }));
  const sum = out.reduce((a, l) => a + centsOf(l.line_total), 0);
  if (sum !== centsOf(b.subtotal as string)) return `subtotal ${b.subtotal as string} is not the sum of the lines (${majorOf(sum)})`;
  const m = (k: string) => majorOf(centsOf(b[k] as string));
  return {
    id: ids.id,
    order_id: ids.orderId,
    branch_id: ids.branchId,
    channel: b.channel as RegisterBChannel,
    customer_name: (b.customer_name as string | null) ?? null,
    lines: out,
    subtotal: m('subtotal'),
    discount: m('discount'),
    tip: m('tip'),
    service_charge: m('service_charge'),
    total: m('total'),
    created_at: new Date().toISOString(),
  };
}

export function startRegisterBSimulator(opts: { port?: number; apiToken: string }): RegisterBSimulator {
  const accounts = new Map<string, RegisterBSimAccount>();
  let failure: number | null = null;
  let nextOrder = 1;
  const relationView = (r: RegisterBRelation): RegisterBRelation => ({ number: r.number, name: r.name, email: r.email, phone: r.phone });
  /** A product's price anywhere in the account (products share ids across branches). */
  const productOf = (a: RegisterBSimAccount, id: string): RegisterBSimProduct | undefined => {
    for (const b of a.branches.values()) {
      const p = b.products.get(id);
      if (p) return p;
    }
    return undefined;
  };
  const discounted = (cents: number, percent: number) => Math.round((cents * (100 - percent)) / 100);

  type H = (a: RegisterBSimAccount, req: Request, p: Record<string, string>, url: URL) => Response | Promise<Response>;
  const withAccount = (fn: H) => (req: Request, p: Record<string, string>, url: URL) => {
    const a = accounts.get(p.accountId!);
    if (!a) return problem(404, 'account_not_found', 'Account not found');
    if (a.status !== 'active') return problem(403, 'account_suspended', 'The account is suspended');
    return fn(a, req, p, url);
  };
  const withBranch = (fn: (a: RegisterBSimAccount, b: RegisterBSimBranch) => Response) =>
    withAccount((a, _req, p) => {
      const b = a.branches.get(p.branchId!);
      return b ? fn(a, b) : problem(404, 'branch_not_found', 'Branch not found');
    });

  const routes: Route[] = [
    route('GET', '/v1/health', () => json(200, { status: 'ok', version: 'sim-1.0' })),
    route('GET', '/v1/accounts/:accountId', withAccount((a) => json(200, { id: a.id, name: a.name, status: a.status }))),
    route('POST', '/v1/accounts/:accountId/links', withAccount(async (a, req) => {
      const b = (await jsonBody(req)) as Record<string, unknown> | null;
      const code = typeof b?.link_code === 'string' ? b.link_code : '';
      const given = Buffer.from(code);
      const expected = Buffer.from(a.linkCode);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return problem(403, 'invalid_link_code', 'The link code is not valid for this account');
      return json(200, { id: a.id, name: a.name, status: a.status });
    })),
    route('GET', '/v1/accounts/:accountId/capabilities', withAccount((a) => json(200, a.capabilities))),
    route('GET', '/v1/accounts/:accountId/branches', withAccount((a) => json(200, { branches: [...a.branches.values()].map((b) => ({ id: b.id, name: b.name })) }))),
    route(
      'GET',
      '/v1/accounts/:accountId/branches/:branchId/products',
      withBranch((_a, b) => json(200, { products: [...b.products.values()].map((p) => ({ id: p.id, name: p.name, price: majorOf(p.price), vat_rate: p.vat_rate, sku: p.sku, active: p.active })) })),
    ),
    route(
      'GET',
      '/v1/accounts/:accountId/branches/:branchId/stock',
      withBranch((a, b) =>
        a.capabilities.live_inventory ? json(200, { levels: [...b.stock.entries()].map(([product_id, quantity]) => ({ product_id, quantity })) }) : problem(409, 'capability_unavailable', 'Live inventory is not enabled for this account'),
      ),
    ),
    route('GET', '/v1/accounts/:accountId/relations', withAccount((a, _req, _p, url) => {
      const page = Number(url.searchParams.get('page') ?? 1);
      const limit = Number(url.searchParams.get('limit') ?? 50);
      if (!Number.isInteger(page) || page < 1 || !Number.isInteger(limit) || limit < 1 || limit > 200) return problem(422, 'invalid_request', 'page >= 1 and limit 1-200 are required');
      const all = [...a.relations.values()];
      const slice = all.slice((page - 1) * limit, page * limit);
      return json(200, { relations: slice.map(relationView), page, has_more: page * limit < all.length });
    })),
    route('GET', '/v1/accounts/:accountId/relations/:number', withAccount((a, _req, p) => {
      const r = a.relations.get(p.number!);
      return r ? json(200, relationView(r)) : problem(404, 'relation_not_found', 'Relation not found');
    })),
    route('POST', '/v1/accounts/:accountId/relations', withAccount(async (a, req) => {
      const b = await jsonBody(req);
      if (!b || !str(b.name, 200) || (b.email != null && !str(b.email, 254)) || (b.phone != null && !str(b.phone, 40))) return problem(422, 'invalid_request', 'name is required; email and phone are optional strings');
      return json(201, relationView(sim.addRelation(a.id, { name: b.name as string, email: (b.email as string | null) ?? null, phone: (b.phone as string | null) ?? null })));
    })),
    route('POST', '/v1/accounts/:accountId/relations/:number/prices', withAccount(async (a, req, p) => {
      const r = a.relations.get(p.number!);
      if (!r) return problem(404, 'relation_not_found', 'Relation not found');
      const b = await jsonBody(req);
      const ids = Array.isArray(b?.product_ids) ? (b!.product_ids as unknown[]) : null;
      if (!ids || !ids.every((i) => str(i, 200))) return problem(422, 'invalid_request', 'product_ids must be a list of ids');
      const prices = [];
      for (const id of ids as string[]) {
        const prod = productOf(a, id);
        if (!prod) return problem(422, 'unknown_product', `Unknown product ${id}`);
        prices.push({ product_id: id, price: majorOf(discounted(prod.price, r.discount_percent)), list_price: majorOf(prod.price) });
      }
      return json(200, { relation_number: r.number, prices });
    })),
    route('PUT', '/v1/accounts/:accountId/relations/:number/points/:reference', withAccount(async (a, req, p) => {
      const r = a.relations.get(p.number!);
      if (!r) return problem(404, 'relation_not_found', 'Relation not found');
      // Idempotent by the partner's reference: the same reference again is the credit already made.
      const known = a.points.get(p.reference!);
      if (known) return json(200, known);
      const b = await jsonBody(req);
      if (!str(p.reference, 100) || !b || !Number.isInteger(b.points) || (b.points as number) < 1 || (b.points as number) > 1_000_000) return problem(422, 'invalid_request', 'points must be an integer 1-1000000 and the reference 1-100 characters');
      const balance = [...a.points.values()].filter((e) => e.relation_number === r.number).reduce((s, e) => s + e.points, 0) + (b.points as number);
      const entry: RegisterBSimPoints = { reference: p.reference!, relation_number: r.number, points: b.points as number, balance };
      a.points.set(entry.reference, entry);
      return json(201, entry);
    })),
    route('POST', '/v1/accounts/:accountId/quotes', withAccount(async (a, req) => {
      const b = await jsonBody(req);
      const number = b?.relation_number ?? null;
      if (number !== null && typeof number !== 'string') return problem(422, 'invalid_request', 'relation_number must be a string or null');
      const rel = number === null ? null : a.relations.get(number);
      if (number !== null && !rel) return problem(404, 'relation_not_found', 'Relation not found');
      const lines = Array.isArray(b?.lines) ? (b!.lines as { product_id?: unknown; quantity?: unknown }[]) : null;
      if (!lines || lines.length === 0 || !lines.every((l) => l && str(l.product_id, 200) && Number.isInteger(l.quantity) && (l.quantity as number) >= 1)) return problem(422, 'invalid_request', 'lines need product_id and a quantity >= 1');
      let subtotal = 0;
      let total = 0;
      const out = [];
      for (const l of lines) {
        const prod = productOf(a, l.product_id as string);
        if (!prod) return problem(422, 'unknown_product', `Unknown product ${String(l.product_id)}`);
        const unit = discounted(prod.price, rel?.discount_percent ?? 0);
        const q = l.quantity as number;
        subtotal += prod.price * q;
        total += unit * q;
        out.push({ product_id: prod.id, quantity: q, unit_price: majorOf(unit), line_total: majorOf(unit * q) });
      }
      return json(200, { lines: out, subtotal: majorOf(subtotal), discount: majorOf(subtotal - total), total: majorOf(total) });
    })),
    route('PUT', '/v1/accounts/:accountId/branches/:branchId/orders/:orderId', withAccount(async (a, req, p) => {
      const br = a.branches.get(p.branchId!);
      if (!br) return problem(404, 'branch_not_found', 'Branch not found');
      // Idempotent by our order id: the same id again is the order already placed, unchanged.
      const known = br.orders.get(p.orderId!);
      if (known) return json(200, known);
      const o = orderOf(await jsonBody(req), { id: `RBO-${nextOrder}`, orderId: p.orderId!, branchId: br.id });
      if (typeof o === 'string') return problem(422, 'invalid_request', o);
      nextOrder++;
      br.orders.set(o.order_id, o);
      return json(201, o);
    })),
  ];

  const server = Bun.serve({
    port: opts.port ?? 0,
    hostname: '127.0.0.1',
    fetch: (req) => {
      const url = new URL(req.url);
      if (url.pathname.startsWith('/_sim/')) return dispatch(routes, req, () => problem(404, 'not_found', 'Not found'));
      if (req.headers.get('authorization') !== `Bearer ${opts.apiToken}`) return problem(401, 'unauthorized', 'Invalid partner token');
      if (failure !== null) return problem(failure, 'unavailable', 'register-b is unavailable');
      return dispatch(routes, req, () => problem(404, 'not_found', 'Not found'));
    },
  });

  const accountOf = (id: string) => {
    const a = accounts.get(id);
    if (!a) throw new Error(`no simulated register-b account ${id}`);
    return a;
  };
  const sim: RegisterBSimulator = {
    url: `http://127.0.0.1:${server.port}`,
    accounts,
    addAccount(id, o = {}) {
      const a: RegisterBSimAccount = {
        id,
        name: o.name ?? `Account ${id}`,
        status: 'active',
        linkCode: o.linkCode ?? `LINK-${crypto.randomUUID().slice(0, 8).toUpperCase()}`,
        capabilities: { live_inventory: true, relations: true, pricing: true, ...o.capabilities },
        branches: new Map(),
        relations: new Map(),
        nextRelation: 1000,
        points: new Map(),
      };
      accounts.set(id, a);
      return a;
    },
    addBranch(accountId, id, name = `Branch ${id}`) {
      const b: RegisterBSimBranch = { id, name, products: new Map(), stock: new Map(), orders: new Map() };
      accountOf(accountId).branches.set(id, b);
      return b;
    },
    addProduct(accountId, branchId, p) {
      const b = accountOf(accountId).branches.get(branchId);
      if (!b) throw new Error(`no simulated register-b branch ${branchId}`);
      const prod: RegisterBSimProduct = { name: `Product ${p.id}`, vat_rate: 21, sku: null, active: true, ...p };
      b.products.set(prod.id, prod);
      return prod;
    },
    addRelation(accountId, r) {
      const a = accountOf(accountId);
      const number = r.number ?? `R${a.nextRelation++}`;
      const rel = { number, name: r.name, email: r.email ?? null, phone: r.phone ?? null, discount_percent: r.discount_percent ?? 0 };
      a.relations.set(number, rel);
      return relationView(rel);
    },
    failWith(status) {
      failure = status;
    },
    stop: async () => {
      await server.stop(true);
    },
  };
  return sim;
}
