import { createHmac } from 'node:crypto';
import { dispatch, jsonBody, postWebhook, route } from '../shared/sim-server.ts';
import { claimsAllow, signRegisterAToken, verifyRegisterAToken, type RegisterAClaims, type RegisterANamespace } from './register-a-jwt.ts';

/**
 * register-a over real HTTP (spec 3 "External register (register-a) API", sections 5, 7, 8, 9).
 * - `/v1` paths, JWT bearer signed per namespace (`prod`, `staging`); claims in `data`.
 * - `GET /v1/stores` paginates (`page` from 1, `pageSize` ≤ 25 else 400 `Page must be less or equal to 25`).
 * - items: POST forces `type` SIMPLE and answers 201 with the full item; PUT writes only `name`,
 *   `description`, `longDescription`, `reference` and answers 200 for the rest; DELETE removes.
 * - structural write routes (modifier groups, families, menus, bulk/batch/import, variations, images,
 *   webhooks, order-slots) are 404.
 * - order push: `orderId` dedups; the order goes to the store's only POS; that POS without an Order
 *   Management Module licence is 401 with the licence message; `payments[0].amount` below the total of
 *   the lines and charges is 400 `Payment amount < total price` (what a cents body mixed with major
 *   units produces).
 * - kitchen and fiscal lifecycles driven by `/_sim/...` calls standing in for the device and staff taps;
 *   `/sales` (a finalised order appears at once) and `/shifts`.
 * - webhooks `{event, resource, content[]}` signed `X-Register-A-Signature` = hex HMAC-SHA256 keyed by
 *   the applicationId, retried up to 5 attempts every `webhookRetryMs` (30 minutes; compressed in tests).
 */
export const OMM_LICENCE_MESSAGE = 'This POS does not have an Order Management Module license';
export const PAGE_SIZE_MESSAGE = 'Page must be less or equal to 25';
export const AMOUNT_MESSAGE = 'Payment amount < total price';

export const KITCHEN_STEPS = ['not_acked', 'auto_accepted_waiting', 'accepted', 'preparing', 'prepared', 'ready_for_pickup', 'done'] as const;
export type KitchenState = (typeof KITCHEN_STEPS)[number] | 'cancelled_by_pos' | 'cancelled_by_channel' | 'cancelled' | 'merged' | 'requires_attention';

export interface RegisterASimulatorOptions {
  readonly port?: number;
  readonly hostname?: string;
  /** Signing keys of the two namespaces. */
  readonly keys: Readonly<Record<RegisterANamespace, string>>;
  /** Where `store.orders` / `company.items` events go (one URL per external application). */
  readonly webhookUrl?: string;
  /** Interval between webhook attempts; 30 minutes by default. */
  readonly webhookRetryMs?: number;
}

export interface SimPos {
  id: string;
  ommLicence: boolean;
  loggedIn: boolean;
}
export interface SimStore {
  id: string;
  name: string;
  companyId: string;
  discoveryMode: boolean;
  pos: SimPos[];
  subscriptions: never[];
  storeModuleSettings: never[];
}
export interface SimItem {
  id: string;
  name: string;
  price: number;
  description: string;
  longDescription: string;
  reference: string;
  type: string;
  modifierGroupProducts: unknown[];
  productMenuSteps: unknown[];
  images: unknown[];
  family: string | null;
  familyId: string | null;
  variations: unknown[];
}
export interface SimOrder {
  id: string;
  orderId: string;
  storeId: string;
  posId: string;
  status: KitchenState;
  orderType: string;
  testOrder: boolean;
  orderIsAlreadyPaid: boolean;
  total: number;
  body: Record<string, unknown>;
  payment: { amount: number; receipt: string | null };
  internalOrderDocumentId: string | null;
  /** Namespace of the token that pushed it: the device never ingests staging orders. */
  namespace: RegisterANamespace;
  createdAt: string;
}
export interface SimShift {
  id: string;
  storeId: string;
  state: 'OPENED' | 'CLOSED_NOT_COMPLETED' | 'COMPLETED';
  openedAt: string;
}
export interface SimSale {
  id: string;
  orderId: string;
  storeId: string;
  shiftId: string | null;
  total: number;
  receipt: string;
  createdAt: string;
}
export interface WebhookDelivery {
  readonly body: string;
  attempts: number;
  delivered: boolean;
  lastStatus: number | null;
}

export interface RegisterASimulator {
  readonly url: string;
  /** Creates an organisation with one company, `stores` stores (one POS each) and a token over them. */
  setup(input?: { stores?: number; namespace?: RegisterANamespace; permissions?: readonly string[]; ommLicence?: boolean; discoveryMode?: boolean; resources?: 'company' | 'stores' }): SimSetup;
  issueToken(claims: Omit<RegisterAClaims, 'iat'> & { iat?: number }): string;
  store(id: string): SimStore | undefined;
  items(companyId: string): SimItem[];
  addModifierGroup(companyId: string, group: { name: string; modifiers: { itemId: string; price: number; maxSelect?: number; optional?: boolean }[] }): { id: string };
  /** Orders of a store (every status). */
  orders(storeId: string): SimOrder[];
  /** Orders pushed, dedup replays not counted. */
  readonly ordersCreated: number;
  /** Every `pageSize` asked of `GET /v1/stores`, in order. */
  readonly storePageSizes: readonly number[];
  /** The device takes its queue: not_acked orders become auto_accepted_waiting when it can. */
  ingest(storeId: string): void;
  /** A staff tap: the next kitchen step. */
  tap(orderId: string): SimOrder;
  /** Staff tap Process order: fiscal finalisation. */
  process(orderId: string): SimOrder;
  openShift(storeId: string): SimShift;
  closeShift(storeId: string, completed: boolean): SimShift;
  readonly webhooks: readonly WebhookDelivery[];
  stop(): Promise<void>;
}

export interface SimSetup {
  organisationId: string;
  companyId: string;
  storeIds: string[];
  applicationId: string;
  token: string;
}

const ALL_PERMISSIONS = ['organisation.*.info', 'company.*.items.read', 'company.*.items.write', 'company.*.prices.write', 'store.*.orders.write', 'store.*.orders.read', 'store.*.sales.read', 'store.*.shifts.read', 'store.*.info', 'webhooks.use'];

const json = (status: number, body: unknown) => Response.json(body, { status });
const err = (status: number, message: string) => json(status, { statusCode: status, message });
const money = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const round2 = (v: number) => Math.round(v * 100) / 100;

export function startRegisterASimulator(options: RegisterASimulatorOptions): RegisterASimulator {
  const retryMs = options.webhookRetryMs ?? 30 * 60_000;
  const organisations = new Map<string, { id: string; name: string; companies: string[] }>();
  const companies = new Map<string, { id: string; name: string; organisationId: string; stores: string[] }>();
  const stores = new Map<string, SimStore>();
  const items = new Map<string, Map<string, SimItem>>();
  const modifierGroups = new Map<string, Map<string, { id: string; name: string; modifiers: { id: string; item: string; price: number; maxSelect: number; optional: boolean; name: string }[] }>>();
  const priceLists = new Map<string, { id: string; companyId: string; store: string; prices: Map<string, number> }>();
  const orders = new Map<string, SimOrder>(); // keyed by store + orderId
  const shifts: SimShift[] = [];
  const sales: SimSale[] = [];
  const applications = new Map<string, string>(); // applicationId -> organisationId
  const deliveries: WebhookDelivery[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let ordersCreated = 0;
  const storePageSizes: number[] = [];
  let receiptSeq = 0;

  const now = () => new Date().toISOString();
  const key = (storeId: string, orderId: string) => `${storeId}/${orderId}`;

  function sendWebhook(applicationId: string, event: string, resource: string, content: unknown[]): void {
    if (!options.webhookUrl) return;
    const body = JSON.stringify({ event, resource, content });
    const d: WebhookDelivery = { body, attempts: 0, delivered: false, lastStatus: null };
    deliveries.push(d);
    const signature = createHmac('sha256', applicationId).update(body).digest('hex');
    const attempt = async () => {
      d.attempts += 1;
      const r = await postWebhook(options.webhookUrl!, body, { 'x-register-a-signature': signature });
      d.lastStatus = 'status' in r ? r.status : null;
      if ('status' in r && r.status >= 200 && r.status < 300) {
        d.delivered = true;
        return;
      }
      if (d.attempts < 5) {
        const t = setTimeout(() => {
          timers.delete(t);
          void attempt();
        }, retryMs);
        timers.add(t);
      }
    };
    void attempt();
  }

  function appsOfCompany(companyId: string): string[] {
    const org = companies.get(companyId)?.organisationId;
    return [...applications].filter(([, o]) => o === org).map(([a]) => a);
  }
  function emitStore(storeId: string, order: SimOrder): void {
    const s = stores.get(storeId);
    if (!s) return;
    for (const app of appsOfCompany(s.companyId)) sendWebhook(app, 'store.orders', `store.${storeId}`, [present(order)]);
  }
  function emitItems(companyId: string, item: SimItem, change: string): void {
    for (const app of appsOfCompany(companyId)) sendWebhook(app, 'company.items', `company.${companyId}`, [{ change, ...item }]);
  }

  function present(o: SimOrder) {
    return {
      id: o.id,
      orderId: o.orderId,
      store: o.storeId,
      pos: o.posId,
      status: o.status,
      orderType: o.orderType,
      testOrder: o.testOrder,
      orderIsAlreadyPaid: o.orderIsAlreadyPaid,
      total: o.total,
      decimalDigits: 2,
      items: o.body.items ?? [],
      payment: o.payment,
      internalOrderDocumentId: o.internalOrderDocumentId,
      createdAt: o.createdAt,
    };
  }

  function auth(req: Request): RegisterAClaims | Response {
    const h = req.headers.get('authorization') ?? '';
    const token = h.startsWith('Bearer ') ? h.slice(7) : '';
    if (!token) return err(401, 'Unauthorized');
    const claims = verifyRegisterAToken(token, options.keys.prod) ?? verifyRegisterAToken(token, options.keys.staging);
    if (!claims) return err(401, 'Unauthorized');
    // A token signed with the other namespace's key is not valid in the one it claims.
    if (!verifyRegisterAToken(token, options.keys[claims.namespace])) return err(401, 'Unauthorized');
    return claims;
  }

  function guarded(permission: string, scope: (p: Record<string, string>) => { store?: string; company?: string } | undefined, handler: (req: Request, p: Record<string, string>, url: URL, claims: RegisterAClaims) => Response | Promise<Response>) {
    return async (req: Request, p: Record<string, string>, url: URL) => {
      const claims = auth(req);
      if (claims instanceof Response) return claims;
      const res = scope(p);
      if (res?.store && !stores.has(res.store)) return err(404, 'Store not found');
      if (res?.company && !companies.has(res.company)) return err(404, 'Company not found');
      const withCompany = res?.store ? { ...res, company: stores.get(res.store)!.companyId } : res;
      if (!claimsAllow(claims, permission, withCompany)) return err(403, 'Forbidden');
      return handler(req, p, url, claims);
    };
  }

  function orderTotal(body: Record<string, unknown>): number {
    let total = 0;
    const lines = Array.isArray(body.items) ? body.items : [];
    for (const l of lines as any[]) {
      const qty = money(l?.quantity) ?? 1;
      let unit = money(l?.price) ?? 0;
      for (const m of Array.isArray(l?.modifiers) ? l.modifiers : []) unit += (money(m?.price) ?? 0) * (money(m?.quantity) ?? 1);
      total += unit * qty;
    }
    for (const f of ['deliveryCost', 'tip', 'serviceCharge', 'bagFee', 'driverTip'] as const) total += money(body[f]) ?? 0;
    total -= money(body.discountTotal) ?? 0;
    return round2(total);
  }

  const structural404 = ['POST', 'PUT', 'PATCH', 'DELETE'];
  const isStructural = (method: string, path: string): boolean => {
    if (!structural404.includes(method)) return false;
    return (
      /^\/v1\/companies\/[^/]+\/(modifiergroups|modifier-groups|modifierGroups|modifier_groups|modifiers)(\/.*)?$/.test(path) ||
      /^\/v1\/companies\/[^/]+\/items\/[^/]+\/(modifiergroups|modifier-groups|modifierGroups)(\/.*)?$/.test(path) ||
      /^\/v1\/companies\/[^/]+\/(families|menus)$/.test(path) ||
      /^\/v1\/companies\/[^/]+\/items\/(bulk|batch|import)$/.test(path) ||
      /^\/v1\/companies\/[^/]+\/catalog\/import(\/upload)?$/.test(path) ||
      /\/(variations|product-variations|images)(\/.*)?$/.test(path) ||
      /^\/v1\/webhooks$/.test(path) ||
      /\/order-slots(\/.*)?$/.test(path)
    );
  };

  const routes = [
    route('GET', '/v1/authentication', (req) => {
      const claims = auth(req);
      if (claims instanceof Response) return claims;
      const token = req.headers.get('authorization')!.slice(7);
      return json(200, { id: claims.id, applicationId: claims.applicationId, token, bundle: { namespace: claims.namespace, permissions: Object.keys(claims.permissions), resources: claims.resources } });
    }),
    route(
      'GET',
      '/v1/organisations/:id',
      guarded('organisation.*.info', () => undefined, (_r, p) => {
        const org = organisations.get(p.id!);
        if (!org) return err(404, 'Organisation not found');
        return json(200, {
          id: org.id,
          name: org.name,
          companies: org.companies.map((cid) => {
            const c = companies.get(cid)!;
            return { id: c.id, name: c.name, stores: c.stores.map((sid) => { const s = stores.get(sid)!; return { id: s.id, name: s.name, pos: s.pos.map((x) => ({ id: x.id })) }; }) };
          }),
        });
      }),
    ),
    route('GET', '/v1/stores', (req, _p, url) => {
      const claims = auth(req);
      if (claims instanceof Response) return claims;
      const pageSize = Number(url.searchParams.get('pageSize') ?? 25);
      const page = Number(url.searchParams.get('page') ?? 1);
      storePageSizes.push(pageSize);
      if (!Number.isInteger(pageSize) || pageSize < 1) return err(400, 'Invalid page size');
      if (pageSize > 25) return err(400, PAGE_SIZE_MESSAGE);
      if (!Number.isInteger(page) || page < 1) return err(400, 'Invalid page');
      const visible = [...stores.values()].filter((s) => claims.resources.includes(`store.${s.id}`) || claims.resources.includes(`company.${s.companyId}`));
      const slice = visible.slice((page - 1) * pageSize, page * pageSize);
      return json(200, { data: slice.map(storeView), page, pageSize, total: visible.length, hasNextPage: page * pageSize < visible.length });
    }),
    route('GET', '/v1/stores/:s', guarded('store.*.info', (p) => ({ store: p.s }), (_r, p) => json(200, storeView(stores.get(p.s!)!)))),
    route('GET', '/v1/companies/:c/items', guarded('company.*.items.read', (p) => ({ company: p.c }), (_r, p) => json(200, { data: [...(items.get(p.c!)?.values() ?? [])] }))),
    route(
      'GET',
      '/v1/companies/:c/modifiergroups/:id',
      guarded('company.*.items.read', (p) => ({ company: p.c }), (_r, p) => {
        const g = modifierGroups.get(p.c!)?.get(p.id!);
        return g ? json(200, g) : err(404, 'Modifier group not found');
      }),
    ),
    route(
      'POST',
      '/v1/companies/:c/items',
      guarded('company.*.items.write', (p) => ({ company: p.c }), async (req, p) => {
        const b = await jsonBody(req);
        if (!b || typeof b.name !== 'string' || !b.name || typeof b.price !== 'number' || !Number.isFinite(b.price)) return err(400, 'name (string) and price (number) are required');
        const item: SimItem = {
          id: crypto.randomUUID(),
          name: b.name,
          price: b.price,
          description: typeof b.description === 'string' ? b.description : '',
          longDescription: typeof b.longDescription === 'string' ? b.longDescription : '',
          reference: typeof b.reference === 'string' ? b.reference : '',
          type: 'SIMPLE',
          modifierGroupProducts: [],
          productMenuSteps: [],
          images: [],
          family: null,
          familyId: null,
          variations: [],
        };
        items.get(p.c!)!.set(item.id, item);
        emitItems(p.c!, item, 'created');
        return json(201, item);
      }),
    ),
    route(
      'PUT',
      '/v1/companies/:c/items/:id',
      guarded('company.*.items.write', (p) => ({ company: p.c }), async (req, p) => {
        const item = items.get(p.c!)?.get(p.id!);
        if (!item) return err(404, 'Item not found');
        const b = (await jsonBody(req)) ?? {};
        for (const f of ['name', 'description', 'longDescription', 'reference'] as const) if (typeof b[f] === 'string') item[f] = b[f] as string;
        emitItems(p.c!, item, 'updated');
        return json(200, item);
      }),
    ),
    route(
      'DELETE',
      '/v1/companies/:c/items/:id',
      guarded('company.*.items.write', (p) => ({ company: p.c }), (_r, p) => {
        const item = items.get(p.c!)?.get(p.id!);
        if (!item) return err(404, 'Item not found');
        items.get(p.c!)!.delete(p.id!);
        emitItems(p.c!, item, 'deleted');
        return json(200, { id: item.id, deleted: true });
      }),
    ),
    route(
      'POST',
      '/v1/companies/:c/prices',
      guarded('company.*.prices.write', (p) => ({ company: p.c }), async (req, p) => {
        const b = await jsonBody(req);
        if (!b || typeof b.store !== 'string' || !b.store) return err(400, 'store is required');
        const s = stores.get(b.store);
        if (!s || s.companyId !== p.c) return err(404, 'Store not found');
        const list = { id: crypto.randomUUID(), companyId: p.c!, store: b.store, prices: new Map<string, number>() };
        priceLists.set(list.id, list);
        return json(201, { id: list.id, store: list.store, items: [] });
      }),
    ),
    route(
      'PUT',
      '/v1/companies/:c/prices/:pl/items/:id',
      guarded('company.*.prices.write', (p) => ({ company: p.c }), async (req, p) => {
        const list = priceLists.get(p.pl!);
        const item = items.get(p.c!)?.get(p.id!);
        if (!list || list.companyId !== p.c || !item) return err(404, 'Not found');
        const b = await jsonBody(req);
        if (!b || typeof b.price !== 'number' || !Number.isFinite(b.price)) return err(400, 'price (number) is required');
        list.prices.set(item.id, b.price);
        item.price = b.price;
        emitItems(p.c!, item, 'updated');
        return json(200, { priceList: list.id, item: item.id, price: b.price });
      }),
    ),
    route(
      'POST',
      '/v1/stores/:s/orders',
      guarded('store.*.orders.write', (p) => ({ store: p.s }), async (req, p, _u, claims) => {
        const b = await jsonBody(req);
        if (!b || typeof b.orderId !== 'string' || !b.orderId) return err(400, 'orderId is required');
        const existing = orders.get(key(p.s!, b.orderId));
        if (existing) return json(200, present(existing));
        const store = stores.get(p.s!)!;
        const pos = store.pos[0];
        if (!pos) return err(409, 'The store has no POS');
        if (!pos.ommLicence) return err(401, OMM_LICENCE_MESSAGE);
        const total = orderTotal(b);
        const payments = Array.isArray(b.payments) ? (b.payments as any[]) : [];
        const paid = money(payments[0]?.amount) ?? 0;
        if (paid + 0.005 < total) return err(400, AMOUNT_MESSAGE);
        const order: SimOrder = {
          id: crypto.randomUUID(),
          orderId: b.orderId,
          storeId: store.id,
          posId: pos.id,
          status: 'not_acked',
          orderType: typeof b.orderType === 'string' ? b.orderType : 'UNKNOWN',
          testOrder: b.testOrder === true,
          orderIsAlreadyPaid: b.orderIsAlreadyPaid === true,
          total,
          body: b,
          payment: { amount: paid, receipt: null },
          internalOrderDocumentId: null,
          namespace: claims.namespace,
          createdAt: now(),
        };
        orders.set(key(store.id, order.orderId), order);
        ordersCreated += 1;
        emitStore(store.id, order);
        return json(201, present(order));
      }),
    ),
    route(
      'GET',
      '/v1/stores/:s/orders',
      guarded('store.*.orders.read', (p) => ({ store: p.s }), (_r, p, url) => {
        const status = url.searchParams.get('status');
        const list = [...orders.values()].filter((o) => o.storeId === p.s && (status ? o.status === status : o.status !== 'done'));
        return json(200, { data: list.map(present) });
      }),
    ),
    route(
      'DELETE',
      '/v1/stores/:s/orders/:id',
      guarded('store.*.orders.write', (p) => ({ store: p.s }), (_r, p) => {
        const o = orders.get(key(p.s!, p.id!)) ?? [...orders.values()].find((x) => x.storeId === p.s && x.id === p.id);
        if (!o) return err(404, 'Order not found');
        if (o.status !== 'not_acked') return err(409, 'Only an order in not_acked can be deleted');
        orders.delete(key(o.storeId, o.orderId));
        return json(200, { id: o.id, deleted: true });
      }),
    ),
    route('GET', '/v1/stores/:s/sales', guarded('store.*.sales.read', (p) => ({ store: p.s }), (_r, p) => json(200, { data: sales.filter((s) => s.storeId === p.s) }))),
    route('GET', '/v1/stores/:s/shifts', guarded('store.*.shifts.read', (p) => ({ store: p.s }), (_r, p) => json(200, { data: shifts.filter((s) => s.storeId === p.s) }))),
    // Test controls standing in for the register device and its staff.
    route('POST', '/_sim/setup', async (req) => {
      const b = (await jsonBody(req)) ?? {};
      return json(201, api.setup({ stores: typeof b.stores === 'number' ? b.stores : 1, ...(b.ommLicence === false ? { ommLicence: false } : {}) }));
    }),
    route('GET', '/_sim/stores/:s/orders', (_r, p) => json(200, { data: api.orders(p.s!).map(present) })),
    route('POST', '/_sim/stores/:s/ingest', (_r, p) => (stores.has(p.s!) ? (api.ingest(p.s!), json(200, { ok: true })) : err(404, 'Store not found'))),
    route('POST', '/_sim/orders/:id/tap', (_r, p) => simCall(() => present(api.tap(p.id!)))),
    route('POST', '/_sim/orders/:id/process', (_r, p) => simCall(() => present(api.process(p.id!)))),
    route('POST', '/_sim/stores/:s/shifts/open', (_r, p) => (stores.has(p.s!) ? json(201, api.openShift(p.s!)) : err(404, 'Store not found'))),
    route('POST', '/_sim/stores/:s/shifts/close', (_r, p, url) => simCall(() => api.closeShift(p.s!, url.searchParams.get('completed') !== 'false'))),
  ];

  function simCall(f: () => unknown): Response {
    try {
      return json(200, f());
    } catch (e) {
      return err(409, e instanceof Error ? e.message : String(e));
    }
  }

  function storeView(s: SimStore) {
    return { id: s.id, name: s.name, company: s.companyId, subscriptions: [], storeModuleSettings: [] };
  }

  const server = Bun.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? '127.0.0.1',
    fetch: (req) => {
      const path = new URL(req.url).pathname;
      if (isStructural(req.method, path)) return err(404, 'Cannot ' + req.method + ' ' + path);
      return dispatch(routes, req, () => err(404, 'Not found'));
    },
  });

  function findOrder(orderId: string): SimOrder {
    const o = [...orders.values()].find((x) => x.orderId === orderId || x.id === orderId);
    if (!o) throw new Error('Order not found');
    return o;
  }

  const api: RegisterASimulator = {
    url: `http://${server.hostname}:${server.port}`,
    setup(input = {}) {
      const org = { id: crypto.randomUUID(), name: 'Organisation', companies: [] as string[] };
      const company = { id: crypto.randomUUID(), name: 'Company', organisationId: org.id, stores: [] as string[] };
      org.companies.push(company.id);
      organisations.set(org.id, org);
      companies.set(company.id, company);
      items.set(company.id, new Map());
      modifierGroups.set(company.id, new Map());
      const storeIds: string[] = [];
      for (let i = 0; i < (input.stores ?? 1); i++) {
        const s: SimStore = { id: crypto.randomUUID(), name: `Store ${i + 1}`, companyId: company.id, discoveryMode: input.discoveryMode ?? false, pos: [{ id: crypto.randomUUID(), ommLicence: input.ommLicence ?? true, loggedIn: true }], subscriptions: [], storeModuleSettings: [] };
        stores.set(s.id, s);
        company.stores.push(s.id);
        storeIds.push(s.id);
      }
      const applicationId = crypto.randomUUID();
      applications.set(applicationId, org.id);
      const token = api.issueToken({
        id: crypto.randomUUID(),
        applicationId,
        namespace: input.namespace ?? 'prod',
        userId: crypto.randomUUID(),
        isSubToken: true,
        resources: input.resources === 'stores' ? storeIds.map((s) => `store.${s}`) : [`company.${company.id}`],
        permissions: Object.fromEntries((input.permissions ?? ALL_PERMISSIONS).map((p) => [p, true])),
        hasSubscription: true,
      });
      return { organisationId: org.id, companyId: company.id, storeIds, applicationId, token };
    },
    issueToken(claims) {
      return signRegisterAToken({ ...claims, iat: claims.iat ?? Math.floor(Date.now() / 1000) }, options.keys[claims.namespace]);
    },
    store: (id) => stores.get(id),
    items: (c) => [...(items.get(c)?.values() ?? [])],
    addModifierGroup(companyId, group) {
      const id = crypto.randomUUID();
      const byId = items.get(companyId)!;
      modifierGroups.get(companyId)!.set(id, {
        id,
        name: group.name,
        // The register leaves `name` empty: the display name is the linked item's.
        modifiers: group.modifiers.map((m) => ({ id: crypto.randomUUID(), item: m.itemId, price: m.price, maxSelect: m.maxSelect ?? 1, optional: m.optional ?? true, name: '' })),
      });
      void byId;
      return { id };
    },
    orders: (storeId) => [...orders.values()].filter((o) => o.storeId === storeId),
    get ordersCreated() {
      return ordersCreated;
    },
    storePageSizes,
    ingest(storeId) {
      const s = stores.get(storeId)!;
      const pos = s.pos[0];
      // Orders stall in not_acked in discovery mode, with no logged-in device, or from staging credentials.
      if (s.discoveryMode || !pos?.loggedIn) return;
      for (const o of orders.values()) {
        if (o.storeId === storeId && o.status === 'not_acked' && o.namespace === 'prod') {
          o.status = 'auto_accepted_waiting';
          emitStore(storeId, o);
        }
      }
    },
    tap(orderId) {
      const o = findOrder(orderId);
      const i = KITCHEN_STEPS.indexOf(o.status as (typeof KITCHEN_STEPS)[number]);
      if (i < 1 || i >= KITCHEN_STEPS.length - 1) throw new Error(`No staff step from ${o.status}`);
      o.status = KITCHEN_STEPS[i + 1]!;
      emitStore(o.storeId, o);
      return o;
    },
    process(orderId) {
      const o = findOrder(orderId);
      if (o.testOrder) throw new Error('A test order cannot be finalised');
      if (o.payment.receipt) return o;
      receiptSeq += 1;
      o.payment.receipt = `R${String(receiptSeq).padStart(6, '0')}`;
      o.internalOrderDocumentId = crypto.randomUUID();
      const shift = shifts.find((s) => s.storeId === o.storeId && s.state === 'OPENED') ?? null;
      sales.push({ id: crypto.randomUUID(), orderId: o.orderId, storeId: o.storeId, shiftId: shift?.id ?? null, total: o.total, receipt: o.payment.receipt, createdAt: now() });
      emitStore(o.storeId, o);
      return o;
    },
    openShift(storeId) {
      const s: SimShift = { id: crypto.randomUUID(), storeId, state: 'OPENED', openedAt: now() };
      shifts.push(s);
      return s;
    },
    closeShift(storeId, completed) {
      const s = shifts.find((x) => x.storeId === storeId && x.state === 'OPENED');
      if (!s) throw new Error('No open shift');
      s.state = completed ? 'COMPLETED' : 'CLOSED_NOT_COMPLETED';
      return s;
    },
    webhooks: deliveries,
    async stop() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await server.stop(true);
    },
  };
  return api;
}
