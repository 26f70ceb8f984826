import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ProviderError, providerFetch, readJson, trimSlash } from '../shared/provider-error.ts';

/**
 * register-b's partner API (our design; the spec leaves it open). JSON over HTTP, every call with
 * `Authorization: Bearer <partner token>` (`REGISTER_B_API_TOKEN`); errors are `{code, message}`:
 * 401 `unauthorized` (bad token), 404 `account_not_found` / `branch_not_found` / `relation_not_found`,
 * 422 `invalid_request` / `unknown_product`, 409 `capability_unavailable`, 5xx when it is down.
 *
 *   GET  /v1/health                                        {status, version}          (no account)
 *   GET  /v1/accounts/{account}                            {id, name, status}
 *   POST /v1/accounts/{account}/links                      {link_code} -> {id, name, status}; 403 `invalid_link_code`
 *        (the code the account's owner copies from register-b's back office to let a partner in: a
 *        connection proves the account is the merchant's own, the partner token alone does not)
 *   GET  /v1/accounts/{account}/capabilities               {live_inventory, relations, pricing}
 *   GET  /v1/accounts/{account}/branches                   {branches: [{id, name}]}
 *   GET  /v1/accounts/{account}/branches/{branch}/products {products: [{id, name, price, vat_rate, sku, active}]}
 *   GET  /v1/accounts/{account}/branches/{branch}/stock    {levels: [{product_id, quantity}]}
 *   GET  /v1/accounts/{account}/relations?page=&limit=     {relations: [Relation], page, has_more}
 *   GET  /v1/accounts/{account}/relations/{number}         Relation {number, name, email, phone}
 *   POST /v1/accounts/{account}/relations                  {name, email?, phone?} -> 201 Relation
 *   POST /v1/accounts/{account}/relations/{number}/prices  {product_ids} -> {relation_number, prices: [{product_id, price, list_price}]}
 *   POST /v1/accounts/{account}/quotes                     {relation_number, lines: [{product_id, quantity}]}
 *                                                          -> {lines: [{product_id, quantity, unit_price, line_total}], subtotal, discount, total}
 *   PUT  /v1/accounts/{account}/relations/{number}/points/{reference}
 *        {points: 1-1000000} -> 201 PointsEntry (credited) | 200 PointsEntry (that reference was already credited: unchanged)
 *        PointsEntry = {reference, relation_number, points, balance}; loyalty points a relation earned with us,
 *        idempotent by reference (ours: the transaction id); 404 `relation_not_found`, 422 `invalid_request`.
 *   PUT  /v1/accounts/{account}/branches/{branch}/orders/{orderId}
 *        {channel: kiosk|online|table|delivery, customer_name: string|null, lines: [{name, quantity, unit_price}] (1-200),
 *         subtotal, discount, tip, service_charge, total}
 *        -> 201 Order (created) | 200 Order (that orderId was already placed: the stored order, unchanged)
 *        Order = {id, order_id, branch_id, channel, customer_name, lines: [{name, quantity, unit_price, line_total}],
 *                 subtotal, discount, tip, service_charge, total, created_at}
 *        Idempotent by orderId (ours: the transaction id), so a re-sent order never makes a second one;
 *        404 `branch_not_found`, 422 `invalid_request` (bad lines, money, channel or orderId).
 *
 * Money travels in major units as decimal strings (`"4.50"`); this client converts to and from
 * integer cents, so nothing above it sees major units. Every answer is checked against its schema;
 * anything else is a ProviderError `invalid_response`.
 */
const Money = Type.String({ pattern: '^-?[0-9]{1,9}(\\.[0-9]{1,2})?$' });

const Health = Type.Object({ status: Type.String(), version: Type.String() });
export const RegisterBAccount = Type.Object({ id: Type.String(), name: Type.String(), status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]) });
export type RegisterBAccount = Static<typeof RegisterBAccount>;
export const RegisterBCapabilities = Type.Object({ live_inventory: Type.Boolean(), relations: Type.Boolean(), pricing: Type.Boolean() });
export type RegisterBCapabilities = Static<typeof RegisterBCapabilities>;
export const RegisterBBranch = Type.Object({ id: Type.String(), name: Type.String() });
export type RegisterBBranch = Static<typeof RegisterBBranch>;
const WireProduct = Type.Object({ id: Type.String(), name: Type.String(), price: Money, vat_rate: Type.Number({ minimum: 0, maximum: 100 }), sku: Type.Union([Type.String(), Type.Null()]), active: Type.Boolean() });
export const RegisterBRelation = Type.Object({ number: Type.String(), name: Type.String(), email: Type.Union([Type.String(), Type.Null()]), phone: Type.Union([Type.String(), Type.Null()]) });
export type RegisterBRelation = Static<typeof RegisterBRelation>;
const StockLevel = Type.Object({ product_id: Type.String(), quantity: Type.Integer() });
export type RegisterBStockLevel = Static<typeof StockLevel>;

const Branches = Type.Object({ branches: Type.Array(RegisterBBranch) });
const Products = Type.Object({ products: Type.Array(WireProduct) });
const Stock = Type.Object({ levels: Type.Array(StockLevel) });
const RelationPage = Type.Object({ relations: Type.Array(RegisterBRelation), page: Type.Integer({ minimum: 1 }), has_more: Type.Boolean() });
const Prices = Type.Object({ relation_number: Type.String(), prices: Type.Array(Type.Object({ product_id: Type.String(), price: Money, list_price: Money })) });
const PointsEntry = Type.Object({ reference: Type.String(), relation_number: Type.String(), points: Type.Integer({ minimum: 1 }), balance: Type.Integer() });
export type RegisterBPointsEntry = Static<typeof PointsEntry>;
const Quote = Type.Object({
  lines: Type.Array(Type.Object({ product_id: Type.String(), quantity: Type.Integer({ minimum: 1 }), unit_price: Money, line_total: Money })),
  subtotal: Money,
  discount: Money,
  total: Money,
});

export type RegisterBChannel = 'kiosk' | 'online' | 'table' | 'delivery';
const WireOrder = Type.Object({
  id: Type.String(),
  order_id: Type.String(),
  branch_id: Type.String(),
  channel: Type.Union([Type.Literal('kiosk'), Type.Literal('online'), Type.Literal('table'), Type.Literal('delivery')]),
  customer_name: Type.Union([Type.String(), Type.Null()]),
  lines: Type.Array(Type.Object({ name: Type.String(), quantity: Type.Integer({ minimum: 1 }), unit_price: Money, line_total: Money })),
  subtotal: Money,
  discount: Money,
  tip: Money,
  service_charge: Money,
  total: Money,
  created_at: Type.String(),
});

/** An order to place at a branch, in cents (the client sends major units). */
export interface RegisterBOrderInput {
  readonly channel: RegisterBChannel;
  readonly customerName: string | null;
  readonly lines: readonly { name: string; quantity: number; unitPrice: number }[];
  readonly subtotal: number;
  readonly discount: number;
  readonly tip: number;
  readonly serviceCharge: number;
  readonly total: number;
}

/** An order as register-b keeps it, in cents. */
export interface RegisterBOrder {
  readonly id: string;
  readonly orderId: string;
  readonly branchId: string;
  readonly channel: RegisterBChannel;
  readonly customerName: string | null;
  readonly lines: { name: string; quantity: number; unitPrice: number; lineTotal: number }[];
  readonly subtotal: number;
  readonly discount: number;
  readonly tip: number;
  readonly serviceCharge: number;
  readonly total: number;
  readonly createdAt: string;
}

/** A product as we use it: price in cents. */
export interface RegisterBProduct {
  readonly id: string;
  readonly name: string;
  readonly price: number;
  readonly vat_rate: number;
  readonly sku: string | null;
  readonly active: boolean;
}
export interface RegisterBPrice {
  readonly product_id: string;
  readonly price: number;
  readonly list_price: number;
}
export interface RegisterBQuote {
  readonly lines: { product_id: string; quantity: number; unit_price: number; line_total: number }[];
  readonly subtotal: number;
  readonly discount: number;
  readonly total: number;
}

/**
 * `"4.50"` -> 450 (exact: no floating point on the way). Trailing zeros past the cents are the same
 * amount (`"4.5000"`); a digit past the cents, or anything not a decimal amount, is an answer we cannot
 * hold: `invalid_response` (the fraction was read whole, so `"4.5000"` became 54.00 and `"4.505"` 9.05).
 */
export function centsOf(major: string): number {
  const m = typeof major === 'string' ? /^(-?)(\d{1,13})(?:\.(\d+))?$/.exec(major) : null;
  if (!m) throw new ProviderError('register-b', 'invalid_response', `not an amount: ${String(major).slice(0, 20)}`);
  const frac = m[3] ?? '';
  if (/[1-9]/.test(frac.slice(2))) throw new ProviderError('register-b', 'invalid_response', `not a whole number of cents: ${major.slice(0, 20)}`);
  const cents = Number(m[2]) * 100 + Number(frac.slice(0, 2).padEnd(2, '0'));
  return m[1] ? -cents : cents;
}

/** 450 -> `"4.50"`. */
export function majorOf(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const a = Math.abs(cents);
  return `${sign}${Math.floor(a / 100)}.${String(a % 100).padStart(2, '0')}`;
}

export interface RegisterBClientConfig {
  readonly baseUrl: string;
  readonly apiToken: string;
  readonly timeoutMs?: number;
}

export class RegisterBClient {
  constructor(private readonly config: RegisterBClientConfig) {}

  private async call<S extends TSchema>(method: string, path: string, schema: S, body?: unknown): Promise<Static<S>> {
    return (await this.exchange(method, path, schema, body)).data;
  }

  /** One call with the answer's status (a PUT tells created from already there by 201/200). */
  private async exchange<S extends TSchema>(method: string, path: string, schema: S, body?: unknown): Promise<{ status: number; data: Static<S> }> {
    const res = await providerFetch(
      'register-b',
      `${trimSlash(this.config.baseUrl)}${path}`,
      { method, headers: { authorization: `Bearer ${this.config.apiToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
      this.config.timeoutMs ?? 15_000,
    );
    const data = await readJson('register-b', res);
    if (!res.ok) {
      const code = typeof data?.code === 'string' ? data.code : null;
      throw new ProviderError('register-b', 'http', typeof data?.message === 'string' ? data.message : `HTTP ${res.status}`, res.status, code);
    }
    if (!Value.Check(schema, data)) throw new ProviderError('register-b', 'invalid_response', `unexpected answer to ${method} ${path.split('?')[0]}`, res.status);
    return { status: res.status, data: data as Static<S> };
  }

  private static account(id: string): string {
    return `/v1/accounts/${encodeURIComponent(id)}`;
  }

  health(): Promise<{ status: string; version: string }> {
    return this.call('GET', '/v1/health', Health);
  }

  account(accountId: string): Promise<RegisterBAccount> {
    return this.call('GET', RegisterBClient.account(accountId), RegisterBAccount);
  }

  /** Proves the account is the caller's: register-b answers the account for its current link code, else 403 `invalid_link_code`. */
  linkAccount(accountId: string, linkCode: string): Promise<RegisterBAccount> {
    return this.call('POST', `${RegisterBClient.account(accountId)}/links`, RegisterBAccount, { link_code: linkCode });
  }

  capabilities(accountId: string): Promise<RegisterBCapabilities> {
    return this.call('GET', `${RegisterBClient.account(accountId)}/capabilities`, RegisterBCapabilities);
  }

  async branches(accountId: string): Promise<RegisterBBranch[]> {
    return (await this.call('GET', `${RegisterBClient.account(accountId)}/branches`, Branches)).branches;
  }

  async products(accountId: string, branchId: string): Promise<RegisterBProduct[]> {
    const r = await this.call('GET', `${RegisterBClient.account(accountId)}/branches/${encodeURIComponent(branchId)}/products`, Products);
    return r.products.map((p) => ({ ...p, price: centsOf(p.price) }));
  }

  async stock(accountId: string, branchId: string): Promise<RegisterBStockLevel[]> {
    return (await this.call('GET', `${RegisterBClient.account(accountId)}/branches/${encodeURIComponent(branchId)}/stock`, Stock)).levels;
  }

  relations(accountId: string, page: { page: number; limit: number }): Promise<{ relations: RegisterBRelation[]; page: number; has_more: boolean }> {
    return this.call('GET', `${RegisterBClient.account(accountId)}/relations?page=${page.page}&limit=${page.limit}`, RelationPage);
  }

  relation(accountId: string, number: string): Promise<RegisterBRelation> {
    return this.call('GET', `${RegisterBClient.account(accountId)}/relations/${encodeURIComponent(number)}`, RegisterBRelation);
  }

  createRelation(accountId: string, input: { name: string; email: string | null; phone: string | null }): Promise<RegisterBRelation> {
    return this.call('POST', `${RegisterBClient.account(accountId)}/relations`, RegisterBRelation, input);
  }

  async relationPrices(accountId: string, number: string, productIds: readonly string[]): Promise<RegisterBPrice[]> {
    const r = await this.call('POST', `${RegisterBClient.account(accountId)}/relations/${encodeURIComponent(number)}/prices`, Prices, { product_ids: productIds });
    return r.prices.map((p) => ({ product_id: p.product_id, price: centsOf(p.price), list_price: centsOf(p.list_price) }));
  }

  async quote(accountId: string, input: { relation_number: string | null; lines: readonly { product_id: string; quantity: number }[] }): Promise<RegisterBQuote> {
    const r = await this.call('POST', `${RegisterBClient.account(accountId)}/quotes`, Quote, input);
    return {
      lines: r.lines.map((l) => ({ product_id: l.product_id, quantity: l.quantity, unit_price: centsOf(l.unit_price), line_total: centsOf(l.line_total) })),
      subtotal: centsOf(r.subtotal),
      discount: centsOf(r.discount),
      total: centsOf(r.total),
    };
  }

  /** Credits `points` to the relation under `reference` (idempotent: `created` is false when that reference was credited before). */
  async addPoints(accountId: string, number: string, reference: string, points: number): Promise<{ created: boolean; entry: RegisterBPointsEntry }> {
    const path = `${RegisterBClient.account(accountId)}/relations/${encodeURIComponent(number)}/points/${encodeURIComponent(reference)}`;
    const { status, data } = await this.exchange('PUT', path, PointsEntry, { points });
    return { created: status === 201, entry: data };
  }

  /** Places (or finds again) order `orderId` at the branch; `created` is false when it was already there. */
  async placeOrder(accountId: string, branchId: string, orderId: string, input: RegisterBOrderInput): Promise<{ created: boolean; order: RegisterBOrder }> {
    const body = {
      channel: input.channel,
      customer_name: input.customerName,
      lines: input.lines.map((l) => ({ name: l.name, quantity: l.quantity, unit_price: majorOf(l.unitPrice) })),
      subtotal: majorOf(input.subtotal),
      discount: majorOf(input.discount),
      tip: majorOf(input.tip),
      service_charge: majorOf(input.serviceCharge),
      total: majorOf(input.total),
    };
    const path = `${RegisterBClient.account(accountId)}/branches/${encodeURIComponent(branchId)}/orders/${encodeURIComponent(orderId)}`;
    const { status, data: o } = await this.exchange('PUT', path, WireOrder, body);
    return {
      created: status === 201,
      order: {
        id: o.id,
        orderId: o.order_id,
        branchId: o.branch_id,
        channel: o.channel,
        customerName: o.customer_name,
        lines: o.lines.map((l) => ({ name: l.name, quantity: l.quantity, unitPrice: centsOf(l.unit_price), lineTotal: centsOf(l.line_total) })),
        subtotal: centsOf(o.subtotal),
        discount: centsOf(o.discount),
        tip: centsOf(o.tip),
        serviceCharge: centsOf(o.service_charge),
        total: centsOf(o.total),
        createdAt: o.created_at,
      },
    };
  }
}
