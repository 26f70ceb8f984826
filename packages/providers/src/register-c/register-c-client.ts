import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ProviderError, providerFetch, readJson, trimSlash } from '../shared/provider-error.ts';

/**
 * register-c ("K-series") API as the administration routes use it. Not described by the spec: this is
 * our model of it, and the simulator beside this file behaves the same way.
 *
 * - Auth: `Authorization: Bearer <OAuth access token>` (from the connect flow, token endpoint at
 *   REGISTER_C_OAUTH_URL). Unknown token: 401 `invalid_token`; expired: 401 `token_expired`. With
 *   `renewToken` configured, a 401 asks it for another token and the call is retried once with it.
 * - Errors: `{code, message}`; unknown location/menu/floorplan/check: 404 `<thing>_not_found`; bad
 *   input: 400 `invalid_request`; a business refusal (unknown sku, amount above the balance): 422.
 * - JSON is camelCase; money is a decimal string in major units (`"4.50"`), converted with
 *   `toCents`/`fromCents` at our edge.
 * - Account: `GET /v1/businesses` (businesses with their locations; also the connection test).
 * - Per business location `/v1/locations/{locationId}/...`: `account-profiles` (order types),
 *   `account-profiles/{code}/tax-preview?amount=`, `floorplans`, `floorplans/{id}/tables`, `menus`,
 *   `menus/{id}`, `modifiers`, `discounts`, `availability`, `checks?status=`, `checks/table/{n}`,
 *   `items`, `rich-items`, `allergens`, `tax-rates`, `payment-methods`, `accounting-groups`,
 *   `daily?date=YYYY-MM-DD`.
 * - Writes: `POST .../orders/local {reference, profileCode, tableNumber, items:[{sku, quantity}]}`,
 *   `POST .../orders/to-go {reference, profileCode, customerName?, items}` (201 a new check; the same
 *   `reference` again answers the check it created, 200), `POST .../checks/{id}/payments {reference,
 *   paymentMethodId, amount}` (idempotent by reference; above the open balance: 422 `amount_exceeds_balance`).
 * Every answer is checked against its schema; anything else is a ProviderError `invalid_response`.
 */
const Money = Type.String({ pattern: '^-?\\d{1,9}\\.\\d{2}$' });

export const RegisterCLocation = Type.Object({ id: Type.String(), name: Type.String(), timezone: Type.String() });
export const RegisterCBusiness = Type.Object({ id: Type.String(), name: Type.String(), currencyCode: Type.String(), locations: Type.Array(RegisterCLocation) });
export const RegisterCProfile = Type.Object({ code: Type.String(), name: Type.String(), type: Type.Union([Type.Literal('LOCAL'), Type.Literal('TAKEAWAY'), Type.Literal('DELIVERY')]) });
export const RegisterCTaxPreview = Type.Object({ profileCode: Type.String(), grossAmount: Money, netAmount: Money, taxAmount: Money });
export const RegisterCFloorplan = Type.Object({ id: Type.String(), name: Type.String() });
export const RegisterCTable = Type.Object({ number: Type.Integer(), name: Type.String(), seats: Type.Integer({ minimum: 0 }) });
export const RegisterCMenuSummary = Type.Object({ id: Type.String(), name: Type.String() });
export const RegisterCMenuItem = Type.Object({ sku: Type.String(), name: Type.String(), price: Money });
export const RegisterCMenu = Type.Object({ id: Type.String(), name: Type.String(), sections: Type.Array(Type.Object({ name: Type.String(), items: Type.Array(RegisterCMenuItem) })) });
export const RegisterCModifier = Type.Object({ id: Type.String(), name: Type.String(), price: Money });
export const RegisterCDiscount = Type.Object({ id: Type.String(), name: Type.String(), type: Type.Union([Type.Literal('PERCENT'), Type.Literal('AMOUNT')]), value: Money });
export const RegisterCAvailability = Type.Object({ sku: Type.String(), available: Type.Boolean() });
export const RegisterCCheck = Type.Object({
  id: Type.String(),
  reference: Type.Union([Type.String(), Type.Null()]),
  profileCode: Type.String(),
  tableNumber: Type.Union([Type.Integer(), Type.Null()]),
  status: Type.Union([Type.Literal('OPEN'), Type.Literal('CLOSED')]),
  total: Money,
  paid: Money,
  lines: Type.Array(Type.Object({ sku: Type.String(), name: Type.String(), quantity: Type.Integer({ minimum: 1 }), price: Money })),
  openedAt: Type.String(),
});
export const RegisterCItem = Type.Object({ sku: Type.String(), name: Type.String(), price: Money, accountingGroupId: Type.String(), taxRateId: Type.String() });
export const RegisterCRichItem = Type.Object({ sku: Type.String(), name: Type.String(), price: Money, description: Type.String(), imageUrl: Type.Union([Type.String(), Type.Null()]), allergenCodes: Type.Array(Type.String()) });
export const RegisterCAllergen = Type.Object({ code: Type.String(), name: Type.String() });
export const RegisterCTaxRate = Type.Object({ id: Type.String(), name: Type.String(), rate: Money });
export const RegisterCPaymentMethod = Type.Object({ id: Type.String(), code: Type.String(), name: Type.String() });
export const RegisterCAccountingGroup = Type.Object({ id: Type.String(), name: Type.String() });
export const RegisterCDaily = Type.Object({ date: Type.String(), salesTotal: Money, checkCount: Type.Integer({ minimum: 0 }), payments: Type.Array(Type.Object({ paymentMethodId: Type.String(), total: Money })) });

export type RegisterCBusiness = Static<typeof RegisterCBusiness>;
export type RegisterCProfile = Static<typeof RegisterCProfile>;
export type RegisterCTaxPreview = Static<typeof RegisterCTaxPreview>;
export type RegisterCFloorplan = Static<typeof RegisterCFloorplan>;
export type RegisterCTable = Static<typeof RegisterCTable>;
export type RegisterCMenuSummary = Static<typeof RegisterCMenuSummary>;
export type RegisterCMenuItem = Static<typeof RegisterCMenuItem>;
export type RegisterCMenu = Static<typeof RegisterCMenu>;
export type RegisterCModifier = Static<typeof RegisterCModifier>;
export type RegisterCDiscount = Static<typeof RegisterCDiscount>;
export type RegisterCAvailability = Static<typeof RegisterCAvailability>;
export type RegisterCCheck = Static<typeof RegisterCCheck>;
export type RegisterCItem = Static<typeof RegisterCItem>;
export type RegisterCRichItem = Static<typeof RegisterCRichItem>;
export type RegisterCAllergen = Static<typeof RegisterCAllergen>;
export type RegisterCTaxRate = Static<typeof RegisterCTaxRate>;
export type RegisterCPaymentMethod = Static<typeof RegisterCPaymentMethod>;
export type RegisterCAccountingGroup = Static<typeof RegisterCAccountingGroup>;
export type RegisterCDaily = Static<typeof RegisterCDaily>;

export interface RegisterCOrderLine {
  readonly sku: string;
  readonly quantity: number;
}

/** `"4.50"` -> 450. */
export function toCents(amount: string): number {
  const m = /^(-?)(\d+)\.(\d{2})$/.exec(amount);
  if (!m) throw new ProviderError('register-c', 'invalid_response', `not an amount: ${amount.slice(0, 20)}`);
  const cents = Number(m[2]) * 100 + Number(m[3]);
  return m[1] ? -cents : cents;
}

/** 450 -> `"4.50"`. */
export function fromCents(cents: number): string {
  const abs = Math.abs(Math.trunc(cents));
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

export interface RegisterCClientConfig {
  readonly baseUrl: string;
  /** The connection's OAuth access token (decrypted). */
  readonly accessToken: string;
  readonly timeoutMs?: number;
  /**
   * Asked after register-c refused `rejected` (401): another token to retry the call with once, or null
   * (the 401 is then the call's failure). Later calls of this client use the token it answered.
   */
  readonly renewToken?: (rejected: string) => Promise<string | null>;
}

const list = <K extends string, S extends TSchema>(key: K, item: S) => Type.Object({ [key]: Type.Array(item) } as { [P in K]: ReturnType<typeof Type.Array<S>> });

export class RegisterCClient {
  private token: string;

  constructor(private readonly config: RegisterCClientConfig) {
    this.token = config.accessToken;
  }

  private send(method: string, path: string, token: string, body?: unknown): Promise<Response> {
    return providerFetch(
      'register-c',
      `${trimSlash(this.config.baseUrl)}${path}`,
      { method, headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
      this.config.timeoutMs ?? 15_000,
    );
  }

  private async call<S extends TSchema>(method: string, path: string, schema: S, body?: unknown): Promise<Static<S>> {
    const used = this.token;
    let res = await this.send(method, path, used, body);
    // A 401 means register-c did nothing with the request, so repeating it (a write too) is safe.
    if (res.status === 401 && this.config.renewToken) {
      const renewed = await this.config.renewToken(used);
      if (renewed && renewed !== used) {
        this.token = renewed;
        await res.text().catch(() => '');
        res = await this.send(method, path, renewed, body);
      }
    }
    const data = await readJson('register-c', res);
    if (!res.ok) {
      const code = typeof data?.code === 'string' ? data.code : null;
      throw new ProviderError('register-c', 'http', typeof data?.message === 'string' ? data.message : `HTTP ${res.status}`, res.status, code);
    }
    if (!Value.Check(schema, data)) throw new ProviderError('register-c', 'invalid_response', `unexpected answer to ${method} ${path.split('?')[0]}`, res.status);
    return data as Static<S>;
  }

  private static loc(locationId: string, rest = ''): string {
    return `/v1/locations/${encodeURIComponent(locationId)}${rest}`;
  }

  async businesses(): Promise<RegisterCBusiness[]> {
    return (await this.call('GET', '/v1/businesses', list('businesses', RegisterCBusiness))).businesses;
  }

  async accountProfiles(locationId: string): Promise<RegisterCProfile[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/account-profiles'), list('profiles', RegisterCProfile))).profiles;
  }

  taxPreview(locationId: string, profileCode: string, amountCents: number): Promise<RegisterCTaxPreview> {
    return this.call('GET', RegisterCClient.loc(locationId, `/account-profiles/${encodeURIComponent(profileCode)}/tax-preview?amount=${fromCents(amountCents)}`), RegisterCTaxPreview);
  }

  async floorplans(locationId: string): Promise<RegisterCFloorplan[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/floorplans'), list('floorplans', RegisterCFloorplan))).floorplans;
  }

  async tables(locationId: string, floorplanId: string): Promise<RegisterCTable[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, `/floorplans/${encodeURIComponent(floorplanId)}/tables`), list('tables', RegisterCTable))).tables;
  }

  async menus(locationId: string): Promise<RegisterCMenuSummary[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/menus'), list('menus', RegisterCMenuSummary))).menus;
  }

  menu(locationId: string, menuId: string): Promise<RegisterCMenu> {
    return this.call('GET', RegisterCClient.loc(locationId, `/menus/${encodeURIComponent(menuId)}`), RegisterCMenu);
  }

  async modifiers(locationId: string): Promise<RegisterCModifier[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/modifiers'), list('modifiers', RegisterCModifier))).modifiers;
  }

  async discounts(locationId: string): Promise<RegisterCDiscount[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/discounts'), list('discounts', RegisterCDiscount))).discounts;
  }

  async availability(locationId: string): Promise<RegisterCAvailability[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/availability'), list('items', RegisterCAvailability))).items;
  }

  async checks(locationId: string, status: 'OPEN' | 'CLOSED' | null = null): Promise<RegisterCCheck[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, `/checks${status ? `?status=${status}` : ''}`), list('checks', RegisterCCheck))).checks;
  }

  async tableChecks(locationId: string, tableNumber: number): Promise<RegisterCCheck[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, `/checks/table/${tableNumber}`), list('checks', RegisterCCheck))).checks;
  }

  async items(locationId: string): Promise<RegisterCItem[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/items'), list('items', RegisterCItem))).items;
  }

  async richItems(locationId: string): Promise<RegisterCRichItem[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/rich-items'), list('items', RegisterCRichItem))).items;
  }

  async allergens(locationId: string): Promise<RegisterCAllergen[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/allergens'), list('allergens', RegisterCAllergen))).allergens;
  }

  async taxRates(locationId: string): Promise<RegisterCTaxRate[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/tax-rates'), list('taxRates', RegisterCTaxRate))).taxRates;
  }

  async paymentMethods(locationId: string): Promise<RegisterCPaymentMethod[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/payment-methods'), list('paymentMethods', RegisterCPaymentMethod))).paymentMethods;
  }

  async accountingGroups(locationId: string): Promise<RegisterCAccountingGroup[]> {
    return (await this.call('GET', RegisterCClient.loc(locationId, '/accounting-groups'), list('accountingGroups', RegisterCAccountingGroup))).accountingGroups;
  }

  daily(locationId: string, date: string): Promise<RegisterCDaily> {
    return this.call('GET', RegisterCClient.loc(locationId, `/daily?date=${encodeURIComponent(date)}`), RegisterCDaily);
  }

  /** A dine-in order on a table; the same `reference` again answers the check it created. */
  localOrder(locationId: string, input: { reference: string; profileCode: string; tableNumber: number; items: readonly RegisterCOrderLine[] }): Promise<RegisterCCheck> {
    return this.call('POST', RegisterCClient.loc(locationId, '/orders/local'), RegisterCCheck, input);
  }

  /** A takeaway order; idempotent by `reference` like localOrder. */
  toGoOrder(locationId: string, input: { reference: string; profileCode: string; customerName?: string; items: readonly RegisterCOrderLine[] }): Promise<RegisterCCheck> {
    return this.call('POST', RegisterCClient.loc(locationId, '/orders/to-go'), RegisterCCheck, input);
  }

  /** Pays `amountCents` of a check; idempotent by `reference`. */
  pay(locationId: string, checkId: string, input: { reference: string; paymentMethodId: string; amountCents: number }): Promise<RegisterCCheck> {
    return this.call('POST', RegisterCClient.loc(locationId, `/checks/${encodeURIComponent(checkId)}/payments`), RegisterCCheck, {
      reference: input.reference,
      paymentMethodId: input.paymentMethodId,
      amount: fromCents(input.amountCents),
    });
  }
}
