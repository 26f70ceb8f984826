import { dispatch, jsonBody, route, type Route } from '../shared/sim-server.ts';
import {
  fromCents,
  toCents,
  type RegisterCAccountingGroup,
  type RegisterCAllergen,
  type RegisterCCheck,
  type RegisterCDiscount,
  type RegisterCFloorplan,
  type RegisterCItem,
  type RegisterCModifier,
  type RegisterCPaymentMethod,
  type RegisterCProfile,
  type RegisterCRichItem,
  type RegisterCTable,
  type RegisterCTaxRate,
} from './register-c-client.ts';

/**
 * A register-c ("K-series") API for development and tests, a real HTTP server behaving as the client's
 * header describes. Accounts hold businesses, businesses hold locations; a bearer token belongs to one
 * account (addToken, or the control API `POST /_sim/tokens {token, account_id}`). With `introspect`
 * set, an unknown token is looked up at the OAuth simulator (`POST /oauth/introspect`), so tokens the
 * connect flow obtained work in dev. `failWith` makes every call answer that status (provider down).
 */
export interface RegisterCSimLocation {
  id: string;
  name: string;
  timezone: string;
  profiles: RegisterCProfile[];
  floorplans: (RegisterCFloorplan & { tables: RegisterCTable[] })[];
  menus: { id: string; name: string; sections: { name: string; skus: string[] }[] }[];
  modifiers: RegisterCModifier[];
  discounts: RegisterCDiscount[];
  items: (RegisterCItem & { description: string; imageUrl: string | null; allergenCodes: string[]; available: boolean })[];
  allergens: RegisterCAllergen[];
  taxRates: RegisterCTaxRate[];
  paymentMethods: RegisterCPaymentMethod[];
  accountingGroups: RegisterCAccountingGroup[];
  checks: (RegisterCCheck & { payments: { reference: string; paymentMethodId: string; amount: string }[] })[];
}

export interface RegisterCSimAccount {
  id: string;
  businesses: { id: string; name: string; currencyCode: string; locations: RegisterCSimLocation[] }[];
}

export interface RegisterCSimulator {
  readonly url: string;
  readonly accounts: Map<string, RegisterCSimAccount>;
  /** An account with one business and the given locations, each seeded with a small demo menu. */
  addAccount(accountId: string, locationIds?: readonly string[]): RegisterCSimAccount;
  location(locationId: string): RegisterCSimLocation | undefined;
  addToken(token: string, accountId: string): void;
  /** The token answers 401 `token_expired` from now on. */
  expireToken(token: string): void;
  /** Every call answers this status (e.g. 503) until set back to null. */
  failWith: number | null;
  /** Requests received (method and path), newest last. */
  readonly requests: { method: string; path: string }[];
  stop(): Promise<void>;
}

const json = (status: number, body: unknown) => Response.json(body, { status });
const problem = (status: number, code: string, message: string) => json(status, { code, message });

/** The demo data of a new location. */
export function seedRegisterCLocation(id: string, name = `Location ${id}`): RegisterCSimLocation {
  const item = (sku: string, itemName: string, price: string, group: string, allergens: string[] = []) => ({
    sku,
    name: itemName,
    price,
    accountingGroupId: group,
    taxRateId: 'tr-food',
    description: `${itemName} from the house`,
    imageUrl: null,
    allergenCodes: allergens,
    available: true,
  });
  return {
    id,
    name,
    timezone: 'Europe/Brussels',
    profiles: [
      { code: 'DINE', name: 'Dine in', type: 'LOCAL' },
      { code: 'TOGO', name: 'Take away', type: 'TAKEAWAY' },
    ],
    floorplans: [{ id: 'fp-1', name: 'Main room', tables: [1, 2, 3].map((n) => ({ number: n, name: `Table ${n}`, seats: 4 })) }],
    menus: [{ id: 'menu-1', name: 'All day', sections: [{ name: 'Mains', skus: ['BURGER', 'SALAD'] }, { name: 'Drinks', skus: ['COLA'] }] }],
    modifiers: [{ id: 'mod-cheese', name: 'Extra cheese', price: '1.00' }],
    discounts: [{ id: 'disc-staff', name: 'Staff', type: 'PERCENT', value: '10.00' }],
    items: [item('BURGER', 'Burger', '12.50', 'ag-food', ['gluten']), item('SALAD', 'Salad', '9.00', 'ag-food'), item('COLA', 'Cola', '3.00', 'ag-drinks')],
    allergens: [{ code: 'gluten', name: 'Gluten' }, { code: 'milk', name: 'Milk' }],
    taxRates: [{ id: 'tr-food', name: 'Food', rate: '6.00' }, { id: 'tr-std', name: 'Standard', rate: '21.00' }],
    paymentMethods: [{ id: 'pm-cash', code: 'CASH', name: 'Cash' }, { id: 'pm-card', code: 'CARD', name: 'Card' }, { id: 'pm-online', code: 'ONLINE', name: 'Online' }],
    accountingGroups: [{ id: 'ag-food', name: 'Food' }, { id: 'ag-drinks', name: 'Drinks' }],
    checks: [],
  };
}

const publicCheck = (c: RegisterCSimLocation['checks'][number]): RegisterCCheck => {
  const { payments: _payments, ...rest } = c;
  return rest;
};

export function startRegisterCSimulator(opts: { port?: number; introspect?: { url: string; clientId: string; clientSecret: string } } = {}): RegisterCSimulator {
  const accounts = new Map<string, RegisterCSimAccount>();
  const tokens = new Map<string, { accountId: string; expired: boolean }>();
  const requests: { method: string; path: string }[] = [];
  let checkSeq = 0;

  const findLocation = (accountId: string, locationId: string) => {
    for (const b of accounts.get(accountId)?.businesses ?? []) for (const l of b.locations) if (l.id === locationId) return l;
    return undefined;
  };

  async function introspect(token: string): Promise<string | null> {
    if (!opts.introspect) return null;
    try {
      const res = await fetch(`${opts.introspect.url.replace(/\/+$/, '')}/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: opts.introspect.clientId, client_secret: opts.introspect.clientSecret }).toString(),
        signal: AbortSignal.timeout(5000),
      });
      const b = (await res.json()) as { active?: boolean; account_id?: string };
      return b.active && typeof b.account_id === 'string' ? b.account_id : null;
    } catch {
      return null;
    }
  }

  type LocHandler = (l: RegisterCSimLocation, req: Request, p: Record<string, string>, url: URL) => Response | Promise<Response>;
  // The account a request's token belongs to, set by the auth step before routing.
  const accountOf = new WeakMap<Request, string>();
  const inLocation = (fn: LocHandler) => (req: Request, p: Record<string, string>, url: URL) => {
    const l = findLocation(accountOf.get(req) ?? '', p.locationId!);
    return l ? fn(l, req, p, url) : problem(404, 'location_not_found', 'Location not found');
  };
  const items = (l: RegisterCSimLocation) => l.items.map(({ sku, name, price, accountingGroupId, taxRateId }) => ({ sku, name, price, accountingGroupId, taxRateId }));

  /** Validates order lines against the location's items; a problem Response or the check lines. */
  function orderLines(l: RegisterCSimLocation, raw: unknown): Response | RegisterCCheck['lines'] {
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > 200) return problem(400, 'invalid_request', 'items must be a non-empty array');
    const lines: RegisterCCheck['lines'] = [];
    for (const r of raw as { sku?: unknown; quantity?: unknown }[]) {
      if (!r || typeof r.sku !== 'string' || typeof r.quantity !== 'number' || !Number.isInteger(r.quantity) || r.quantity < 1 || r.quantity > 999) return problem(400, 'invalid_request', 'each item needs a sku and a quantity 1-999');
      const it = l.items.find((i) => i.sku === r.sku);
      if (!it) return problem(422, 'unknown_sku', `Unknown sku ${r.sku.slice(0, 50)}`);
      if (!it.available) return problem(422, 'sku_unavailable', `Sku ${it.sku} is not available`);
      lines.push({ sku: it.sku, name: it.name, quantity: r.quantity, price: it.price });
    }
    return lines;
  }

  async function createOrder(l: RegisterCSimLocation, req: Request, kind: 'LOCAL' | 'TAKEAWAY'): Promise<Response> {
    const b = await jsonBody(req);
    if (!b || typeof b.reference !== 'string' || !b.reference || b.reference.length > 100) return problem(400, 'invalid_request', 'reference is required');
    const existing = l.checks.find((c) => c.reference === b.reference);
    if (existing) return json(200, publicCheck(existing));
    const profile = l.profiles.find((p) => p.code === b.profileCode);
    if (!profile) return problem(422, 'unknown_profile', 'Unknown account profile');
    let table: number | null = null;
    if (kind === 'LOCAL') {
      if (typeof b.tableNumber !== 'number' || !Number.isInteger(b.tableNumber)) return problem(400, 'invalid_request', 'tableNumber is required');
      if (!l.floorplans.some((f) => f.tables.some((t) => t.number === b.tableNumber))) return problem(422, 'unknown_table', 'Unknown table');
      table = b.tableNumber;
    }
    const lines = orderLines(l, b.items);
    if (lines instanceof Response) return lines;
    const total = lines.reduce((s, x) => s + toCents(x.price) * x.quantity, 0);
    const check = { id: `chk-${++checkSeq}`, reference: b.reference, profileCode: profile.code, tableNumber: table, status: 'OPEN' as const, total: fromCents(total), paid: '0.00', lines, openedAt: new Date().toISOString(), payments: [] };
    l.checks.push(check);
    return json(201, publicCheck(check));
  }

  const routes: Route[] = [
    route('GET', '/v1/businesses', (req) =>
      json(200, { businesses: (accounts.get(accountOf.get(req) ?? '')?.businesses ?? []).map((b) => ({ id: b.id, name: b.name, currencyCode: b.currencyCode, locations: b.locations.map((l) => ({ id: l.id, name: l.name, timezone: l.timezone })) })) }),
    ),
    route('GET', '/v1/locations/:locationId/account-profiles', inLocation((l) => json(200, { profiles: l.profiles }))),
    route('GET', '/v1/locations/:locationId/account-profiles/:code/tax-preview', inLocation((l, _r, p, url) => {
      const profile = l.profiles.find((x) => x.code === p.code);
      if (!profile) return problem(404, 'profile_not_found', 'Account profile not found');
      const amount = url.searchParams.get('amount') ?? '';
      if (!/^\d{1,9}\.\d{2}$/.test(amount)) return problem(400, 'invalid_request', 'amount must be a decimal with two places');
      // Prices include VAT; takeaway food at the food rate, dine-in at the standard rate.
      const rate = toCents((profile.type === 'LOCAL' ? l.taxRates.find((t) => t.id === 'tr-std') : l.taxRates.find((t) => t.id === 'tr-food'))?.rate ?? '0.00');
      const gross = toCents(amount);
      const net = Math.round((gross * 10000) / (10000 + rate));
      return json(200, { profileCode: profile.code, grossAmount: fromCents(gross), netAmount: fromCents(net), taxAmount: fromCents(gross - net) });
    })),
    route('GET', '/v1/locations/:locationId/floorplans', inLocation((l) => json(200, { floorplans: l.floorplans.map(({ id, name }) => ({ id, name })) }))),
    route('GET', '/v1/locations/:locationId/floorplans/:floorplanId/tables', inLocation((l, _r, p) => {
      const f = l.floorplans.find((x) => x.id === p.floorplanId);
      return f ? json(200, { tables: f.tables }) : problem(404, 'floorplan_not_found', 'Floorplan not found');
    })),
    route('GET', '/v1/locations/:locationId/menus', inLocation((l) => json(200, { menus: l.menus.map(({ id, name }) => ({ id, name })) }))),
    route('GET', '/v1/locations/:locationId/menus/:menuId', inLocation((l, _r, p) => {
      const m = l.menus.find((x) => x.id === p.menuId);
      if (!m) return problem(404, 'menu_not_found', 'Menu not found');
      const sections = m.sections.map((s) => ({ name: s.name, items: s.skus.flatMap((sku) => l.items.filter((i) => i.sku === sku).map((i) => ({ sku: i.sku, name: i.name, price: i.price }))) }));
      return json(200, { id: m.id, name: m.name, sections });
    })),
    route('GET', '/v1/locations/:locationId/modifiers', inLocation((l) => json(200, { modifiers: l.modifiers }))),
    route('GET', '/v1/locations/:locationId/discounts', inLocation((l) => json(200, { discounts: l.discounts }))),
    route('GET', '/v1/locations/:locationId/availability', inLocation((l) => json(200, { items: l.items.map((i) => ({ sku: i.sku, available: i.available })) }))),
    route('GET', '/v1/locations/:locationId/checks', inLocation((l, _r, _p, url) => {
      const status = url.searchParams.get('status');
      if (status !== null && status !== 'OPEN' && status !== 'CLOSED') return problem(400, 'invalid_request', 'status must be OPEN or CLOSED');
      return json(200, { checks: l.checks.filter((c) => !status || c.status === status).map(publicCheck) });
    })),
    route('GET', '/v1/locations/:locationId/checks/table/:tableNumber', inLocation((l, _r, p) => {
      const n = Number(p.tableNumber);
      if (!l.floorplans.some((f) => f.tables.some((t) => t.number === n))) return problem(404, 'table_not_found', 'Table not found');
      return json(200, { checks: l.checks.filter((c) => c.tableNumber === n && c.status === 'OPEN').map(publicCheck) });
    })),
    route('GET', '/v1/locations/:locationId/items', inLocation((l) => json(200, { items: items(l) }))),
    route('GET', '/v1/locations/:locationId/rich-items', inLocation((l) => json(200, { items: l.items.map(({ sku, name, price, description, imageUrl, allergenCodes }): RegisterCRichItem => ({ sku, name, price, description, imageUrl, allergenCodes })) }))),
    route('GET', '/v1/locations/:locationId/allergens', inLocation((l) => json(200, { allergens: l.allergens }))),
    route('GET', '/v1/locations/:locationId/tax-rates', inLocation((l) => json(200, { taxRates: l.taxRates }))),
    route('GET', '/v1/locations/:locationId/payment-methods', inLocation((l) => json(200, { paymentMethods: l.paymentMethods }))),
    route('GET', '/v1/locations/:locationId/accounting-groups', inLocation((l) => json(200, { accountingGroups: l.accountingGroups }))),
    route('GET', '/v1/locations/:locationId/daily', inLocation((l, _r, _p, url) => {
      const date = url.searchParams.get('date') ?? '';
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return problem(400, 'invalid_request', 'date must be YYYY-MM-DD');
      const day = l.checks.filter((c) => c.openedAt.startsWith(date));
      const byMethod = new Map<string, number>();
      for (const c of day) for (const p of c.payments) byMethod.set(p.paymentMethodId, (byMethod.get(p.paymentMethodId) ?? 0) + toCents(p.amount));
      return json(200, {
        date,
        salesTotal: fromCents(day.reduce((s, c) => s + toCents(c.total), 0)),
        checkCount: day.length,
        payments: [...byMethod].map(([paymentMethodId, total]) => ({ paymentMethodId, total: fromCents(total) })),
      });
    })),
    route('POST', '/v1/locations/:locationId/orders/local', inLocation((l, req) => createOrder(l, req, 'LOCAL'))),
    route('POST', '/v1/locations/:locationId/orders/to-go', inLocation((l, req) => createOrder(l, req, 'TAKEAWAY'))),
    route('POST', '/v1/locations/:locationId/checks/:checkId/payments', inLocation(async (l, req, p) => {
      const c = l.checks.find((x) => x.id === p.checkId);
      if (!c) return problem(404, 'check_not_found', 'Check not found');
      const b = await jsonBody(req);
      if (!b || typeof b.reference !== 'string' || !b.reference || typeof b.paymentMethodId !== 'string' || typeof b.amount !== 'string' || !/^\d{1,9}\.\d{2}$/.test(b.amount))
        return problem(400, 'invalid_request', 'reference, paymentMethodId and amount are required');
      if (c.payments.some((x) => x.reference === b.reference)) return json(200, publicCheck(c));
      if (!l.paymentMethods.some((m) => m.id === b.paymentMethodId)) return problem(422, 'unknown_payment_method', 'Unknown payment method');
      const amount = toCents(b.amount);
      const open = toCents(c.total) - toCents(c.paid);
      if (c.status === 'CLOSED' || amount <= 0 || amount > open) return problem(422, 'amount_exceeds_balance', 'The amount is above the open balance of the check');
      c.payments.push({ reference: b.reference, paymentMethodId: b.paymentMethodId, amount: b.amount });
      c.paid = fromCents(toCents(c.paid) + amount);
      if (toCents(c.paid) === toCents(c.total)) c.status = 'CLOSED';
      return json(200, publicCheck(c));
    })),
    route('POST', '/_sim/tokens', async (req) => {
      const b = await jsonBody(req);
      if (!b || typeof b.token !== 'string' || typeof b.account_id !== 'string') return problem(400, 'invalid_request', 'token and account_id are required');
      sim.addToken(b.token, b.account_id);
      return json(200, { ok: true });
    }),
  ];

  const server = Bun.serve({
    port: opts.port ?? 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      const url = new URL(req.url);
      if (url.pathname.startsWith('/_sim/')) return dispatch(routes, req, () => problem(404, 'not_found', 'Not found'));
      requests.push({ method: req.method, path: url.pathname });
      if (sim.failWith !== null) return problem(sim.failWith, 'unavailable', 'Service unavailable');
      const token = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1] ?? '';
      let known = tokens.get(token);
      if (!known && token) {
        const accountId = await introspect(token);
        if (accountId) {
          sim.addToken(token, accountId);
          known = tokens.get(token);
        }
      }
      if (!known) return problem(401, 'invalid_token', 'Invalid access token');
      if (known.expired) return problem(401, 'token_expired', 'The access token has expired');
      accountOf.set(req, known.accountId);
      return dispatch(routes, req, () => problem(404, 'not_found', 'Not found'));
    },
  });

  const sim: RegisterCSimulator = {
    url: `http://127.0.0.1:${server.port}`,
    accounts,
    requests,
    failWith: null,
    addAccount(accountId, locationIds = [`${accountId}-loc-1`]) {
      const account: RegisterCSimAccount = { id: accountId, businesses: [{ id: `${accountId}-biz`, name: `Business ${accountId}`, currencyCode: 'EUR', locations: locationIds.map((id) => seedRegisterCLocation(id)) }] };
      accounts.set(accountId, account);
      return account;
    },
    location(locationId) {
      for (const a of accounts.values()) for (const b of a.businesses) for (const l of b.locations) if (l.id === locationId) return l;
      return undefined;
    },
    addToken(token, accountId) {
      tokens.set(token, { accountId, expired: false });
      // A token of an account nobody created yet (dev, through introspection) gets a demo account.
      if (!accounts.has(accountId)) sim.addAccount(accountId);
    },
    expireToken(token) {
      const t = tokens.get(token);
      if (t) t.expired = true;
    },
    stop: async () => {
      await server.stop(true);
    },
  };
  return sim;
}
