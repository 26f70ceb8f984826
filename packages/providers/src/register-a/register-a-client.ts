import { toMajorUnits, type Cents } from '@pos/domain/money';
import { ProviderError, providerFetch, readJson, trimSlash } from '../shared/provider-error.ts';
import { claimsAllow, decodeRegisterAToken, type RegisterAClaims } from './register-a-jwt.ts';

export interface RegisterAConfig {
  /** `{register_a_url}` (`REGISTER_A_BASE_URL`), without `/v1`. */
  readonly baseUrl: string;
  /** The merchant's pasted JWT. */
  readonly token: string;
  readonly timeoutMs?: number;
}

/** A register-a answer that is not a success; `providerMessage` is the provider's own text, forwarded verbatim. */
export class RegisterAError extends ProviderError {
  constructor(
    kind: ProviderError['kind'],
    readonly providerMessage: string,
    status: number | null = null,
  ) {
    super('register-a', kind, providerMessage, status);
    this.name = 'RegisterAError';
  }
}

/** Refused before any call: the token is not a register-a token, or its claims do not cover the call. */
export class RegisterATokenError extends Error {
  constructor(readonly reason: 'invalid_token' | 'missing_permission' | 'resource_not_granted', message: string) {
    super(message);
    this.name = 'RegisterATokenError';
  }
}

export interface RegisterAStore {
  readonly id: string;
  readonly name: string;
  readonly company: string;
}
export interface RegisterAItem {
  readonly id: string;
  readonly name: string;
  readonly price: number;
  readonly description: string;
  readonly longDescription: string;
  readonly reference: string;
  readonly type: string;
  readonly modifierGroupProducts: readonly unknown[];
  readonly productMenuSteps: readonly unknown[];
  readonly images: readonly unknown[];
  readonly family: string | null;
  readonly familyId: string | null;
  readonly variations: readonly unknown[];
}
export interface RegisterAModifierGroup {
  readonly id: string;
  readonly name: string;
  readonly modifiers: readonly { id: string; item: string; price: number; maxSelect: number; optional: boolean; name: string }[];
}
export interface RegisterAOrder {
  readonly id: string;
  readonly orderId: string;
  readonly status: string;
  readonly total: number;
  readonly testOrder: boolean;
  readonly payment: { readonly amount: number; readonly receipt: string | null };
  readonly internalOrderDocumentId: string | null;
}
export interface RegisterAOrganisation {
  readonly id: string;
  readonly name: string;
  readonly companies: readonly { id: string; name: string; stores: readonly { id: string; name: string }[] }[];
}

/** The documented `orderType` values; other strings are echoed unvalidated by register-a, so the client sends only these. */
export type RegisterAOrderType = 'EAT_IN' | 'PICKUP' | 'DELIVERY' | 'UNKNOWN';

/** An order to push, money in integer cents (converted to major units with two decimals here, at the edge). */
export interface RegisterAOrderInput {
  /** The deduplication key: the same orderId twice is the same order. */
  readonly orderId: string;
  readonly orderType: RegisterAOrderType;
  readonly testOrder?: boolean;
  readonly orderIsAlreadyPaid: boolean;
  readonly pickupTime?: string | null;
  readonly lines: readonly { name: string; quantity: number; unitPrice: Cents; productId?: string | null; modifiers?: readonly { name: string; price: Cents; quantity?: number }[] }[];
  readonly paid: Cents;
  readonly tip?: Cents;
  readonly discountTotal?: Cents;
  readonly serviceCharge?: Cents;
  readonly deliveryCost?: Cents;
  readonly bagFee?: Cents;
  readonly driverTip?: Cents;
  readonly customerName?: string | null;
}

/** Page size the client asks for; register-a refuses more than 25. */
export const REGISTER_A_PAGE_SIZE = 25;

/** Cents to a decimal in major units with two digits (1250 -> 12.5, sent as 12.50 in JSON value terms). */
export const major = (c: Cents): number => Number(toMajorUnits(c).toFixed(2));

/**
 * register-a client (spec 3): every path of the "External register (register-a) API" table. The token's
 * claims are decoded once; each call checks the permission and the resource it needs before it goes out.
 */
export class RegisterAClient {
  readonly claims: RegisterAClaims;
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(private readonly config: RegisterAConfig) {
    const claims = decodeRegisterAToken(config.token);
    if (!claims) throw new RegisterATokenError('invalid_token', 'The register-a token is not a valid token (payload `data` with applicationId, namespace prod or staging, resources and permissions).');
    this.claims = claims;
    this.base = trimSlash(config.baseUrl);
    this.timeoutMs = config.timeoutMs ?? 15_000;
  }

  private readonly storeCompany = new Map<string, string>();

  /**
   * Store-scoped writes: a token listing `store.<s>` covers it directly; a company token covers it when
   * the store belongs to a listed company (read once from the store detail, then cached).
   */
  private async needStore(permission: string, storeId: string): Promise<void> {
    this.need(permission);
    if (this.claims.resources.includes(`store.${storeId}`)) return;
    if (!this.claims.resources.some((r) => r.startsWith('company.'))) this.need(permission, { store: storeId });
    let company = this.storeCompany.get(storeId);
    if (!company) {
      company = String((await this.call('GET', `/stores/${encodeURIComponent(storeId)}`))?.company ?? '');
      this.storeCompany.set(storeId, company);
    }
    this.need(permission, { store: storeId, company });
  }

  private need(permission: string, resource?: { store?: string; company?: string }): void {
    if (this.claims.permissions[permission] !== true) throw new RegisterATokenError('missing_permission', `The register-a token lacks the permission ${permission}.`);
    if (resource && !claimsAllow(this.claims, permission, resource)) throw new RegisterATokenError('resource_not_granted', `The register-a token does not cover ${resource.store ? `store.${resource.store}` : `company.${resource.company}`}.`);
  }

  private async call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<any> {
    const res = await providerFetch(
      'register-a',
      `${this.base}/v1${path}`,
      { method, headers: { authorization: `Bearer ${this.config.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) },
      this.timeoutMs,
    );
    const b = await readJson('register-a', res);
    if (!res.ok) throw new RegisterAError('http', typeof b?.message === 'string' ? b.message : `HTTP ${res.status}`, res.status);
    return b;
  }

  authenticate(): Promise<{ id: string; applicationId: string; token: string; bundle: unknown }> {
    return this.call('GET', '/authentication');
  }

  organisation(id: string): Promise<RegisterAOrganisation> {
    this.need('organisation.*.info');
    return this.call('GET', `/organisations/${encodeURIComponent(id)}`);
  }

  /** Every store the token sees: pages of 25 while `hasNextPage` (bounded to 400 pages). */
  async stores(): Promise<RegisterAStore[]> {
    const out: RegisterAStore[] = [];
    for (let page = 1; page <= 400; page++) {
      const b = await this.call('GET', `/stores?page=${page}&pageSize=${REGISTER_A_PAGE_SIZE}`);
      if (!Array.isArray(b?.data)) throw new RegisterAError('invalid_response', 'store list without data');
      out.push(...b.data);
      if (b.hasNextPage !== true) break;
    }
    return out;
  }

  /** One page, as asked (used to show the provider's own refusal of a page above 25). */
  storesPage(page: number, pageSize: number): Promise<{ data: RegisterAStore[]; hasNextPage: boolean }> {
    return this.call('GET', `/stores?page=${page}&pageSize=${pageSize}`);
  }

  store(storeId: string): Promise<RegisterAStore> {
    this.need('store.*.info');
    return this.call('GET', `/stores/${encodeURIComponent(storeId)}`);
  }

  async items(companyId: string): Promise<RegisterAItem[]> {
    this.need('company.*.items.read', { company: companyId });
    return (await this.call('GET', `/companies/${encodeURIComponent(companyId)}/items`)).data;
  }

  modifierGroup(companyId: string, id: string): Promise<RegisterAModifierGroup> {
    this.need('company.*.items.read', { company: companyId });
    return this.call('GET', `/companies/${encodeURIComponent(companyId)}/modifiergroups/${encodeURIComponent(id)}`);
  }

  createItem(companyId: string, input: { name: string; price: Cents; description?: string; longDescription?: string; reference?: string }): Promise<RegisterAItem> {
    this.need('company.*.items.write', { company: companyId });
    return this.call('POST', `/companies/${encodeURIComponent(companyId)}/items`, { ...input, price: major(input.price) });
  }

  /** Writes the four row fields register-a accepts; anything else would be silently ignored, so it is not sent. */
  updateItem(companyId: string, id: string, input: { name?: string; description?: string; longDescription?: string; reference?: string }): Promise<RegisterAItem> {
    this.need('company.*.items.write', { company: companyId });
    const body: Record<string, string> = {};
    for (const f of ['name', 'description', 'longDescription', 'reference'] as const) if (input[f] !== undefined) body[f] = input[f]!;
    return this.call('PUT', `/companies/${encodeURIComponent(companyId)}/items/${encodeURIComponent(id)}`, body);
  }

  async deleteItem(companyId: string, id: string): Promise<void> {
    this.need('company.*.items.write', { company: companyId });
    await this.call('DELETE', `/companies/${encodeURIComponent(companyId)}/items/${encodeURIComponent(id)}`);
  }

  createPriceList(companyId: string, storeId: string): Promise<{ id: string; store: string }> {
    this.need('company.*.prices.write', { company: companyId });
    return this.call('POST', `/companies/${encodeURIComponent(companyId)}/prices`, { store: storeId });
  }

  setItemPrice(companyId: string, priceListId: string, itemId: string, price: Cents): Promise<unknown> {
    this.need('company.*.prices.write', { company: companyId });
    return this.call('PUT', `/companies/${encodeURIComponent(companyId)}/prices/${encodeURIComponent(priceListId)}/items/${encodeURIComponent(itemId)}`, { price: major(price) });
  }

  /** Order push; a repeated orderId answers the order already there. Every amount leaves as major units. */
  async pushOrder(storeId: string, input: RegisterAOrderInput): Promise<RegisterAOrder> {
    await this.needStore('store.*.orders.write', storeId);
    const opt = (c: Cents | undefined) => (c === undefined ? undefined : major(c));
    return this.call('POST', `/stores/${encodeURIComponent(storeId)}/orders`, {
      orderId: input.orderId,
      orderType: input.orderType,
      testOrder: input.testOrder ?? false,
      orderIsAlreadyPaid: input.orderIsAlreadyPaid,
      ...(input.pickupTime ? { pickupTime: input.pickupTime } : {}),
      decimalDigits: 2,
      items: input.lines.map((l) => ({
        name: l.name,
        quantity: l.quantity,
        price: major(l.unitPrice),
        ...(l.productId ? { productId: l.productId } : {}),
        modifiers: (l.modifiers ?? []).map((m) => ({ name: m.name, price: major(m.price), quantity: m.quantity ?? 1 })),
      })),
      payments: [{ amount: major(input.paid) }],
      tip: opt(input.tip),
      discountTotal: opt(input.discountTotal),
      serviceCharge: opt(input.serviceCharge),
      deliveryCost: opt(input.deliveryCost),
      bagFee: opt(input.bagFee),
      driverTip: opt(input.driverTip),
      ...(input.customerName ? { customer: { name: input.customerName } } : {}),
    });
  }

  /** Orders of a store; register-a hides `done` unless asked, so `status` is passed through explicitly. */
  async orders(storeId: string, status?: string): Promise<RegisterAOrder[]> {
    await this.needStore('store.*.orders.read', storeId);
    return (await this.call('GET', `/stores/${encodeURIComponent(storeId)}/orders${status ? `?status=${encodeURIComponent(status)}` : ''}`)).data;
  }

  async deleteOrder(storeId: string, orderId: string): Promise<void> {
    await this.needStore('store.*.orders.write', storeId);
    await this.call('DELETE', `/stores/${encodeURIComponent(storeId)}/orders/${encodeURIComponent(orderId)}`);
  }

  async sales(storeId: string): Promise<{ id: string; orderId: string; total: number; shiftId: string | null }[]> {
    await this.needStore('store.*.sales.read', storeId);
    return (await this.call('GET', `/stores/${encodeURIComponent(storeId)}/sales`)).data;
  }

  async shifts(storeId: string): Promise<{ id: string; state: 'OPENED' | 'CLOSED_NOT_COMPLETED' | 'COMPLETED' }[]> {
    await this.needStore('store.*.shifts.read', storeId);
    return (await this.call('GET', `/stores/${encodeURIComponent(storeId)}/shifts`)).data;
  }
}
