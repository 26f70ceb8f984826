import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { bearerJsonCall } from '../shared/bearer-json.ts';

/**
 * register-d's transport (a hub in front of several register vendors). The spec leaves its API open;
 * this is the shape we call and the simulator serves. JSON, `Authorization: Bearer <token>`.
 *
 *   GET    /v1/vendors/{vendor}/sites/{siteId}         -> Site
 *   PUT    /v1/vendors/{vendor}/sites/{siteId}/link    {external_ref}  -> Site (links the site to our location)
 *   DELETE /v1/vendors/{vendor}/sites/{siteId}/link    -> 204
 *   PUT    /v1/vendors/{vendor}/sites/{siteId}/menu    {items:[{id,name,price,available}]} -> {items,created,updated,removed}
 *   GET    /v1/vendors/{vendor}/sites/{siteId}/ping    -> {ok:true, vendor, site_id, checked_at}
 *   PUT    /v1/vendors/{vendor}/sites/{siteId}/orders/{orderId}  OrderInput -> Order
 *
 * Orders (a captured order handed to the vendor's register): money in integer cents.
 *   OrderInput = {channel, customer_name: string|null,
 *                 lines: [{name, quantity >= 1, unit_price >= 0}] (1-200),
 *                 totals: {subtotal (= sum of quantity x unit_price), tip, service_charge, discount, total}}
 *   Order      = {id (the transport's), order_id (ours), vendor, site_id, status: 'received', received_at} + OrderInput
 * Idempotent by `orderId`: the first PUT answers 201, any later PUT of the same id at the site answers
 * the order already received, 200, and creates nothing (its body is not compared).
 *
 * Errors are `{code, message}`: 401 `unauthorized` (bad token), 404 `vendor_not_found` /
 * `site_not_found`, 409 `site_linked` (linked to another reference) / `site_not_linked` (menu or order
 * before link), 422 `invalid_request` / `invalid_menu` / `invalid_order`, 5xx when the vendor behind
 * the hub is down. Every answer is checked against its schema; anything else is a ProviderError
 * `invalid_response`.
 */
export const RegisterDSite = Type.Object({
  id: Type.String(),
  vendor: Type.String(),
  name: Type.String(),
  linked_ref: Type.Union([Type.String(), Type.Null()]),
  menu_items: Type.Integer({ minimum: 0 }),
});
export type RegisterDSite = Static<typeof RegisterDSite>;

export const RegisterDMenuItem = Type.Object({ id: Type.String(), name: Type.String(), price: Type.Integer(), available: Type.Boolean() });
export type RegisterDMenuItem = Static<typeof RegisterDMenuItem>;

export const RegisterDMenuResult = Type.Object({
  items: Type.Integer({ minimum: 0 }),
  created: Type.Integer({ minimum: 0 }),
  updated: Type.Integer({ minimum: 0 }),
  removed: Type.Integer({ minimum: 0 }),
});
export type RegisterDMenuResult = Static<typeof RegisterDMenuResult>;

const Cents = Type.Integer({ minimum: 0 });

export const RegisterDOrderLine = Type.Object({ name: Type.String(), quantity: Type.Integer({ minimum: 1 }), unit_price: Cents });
export type RegisterDOrderLine = Static<typeof RegisterDOrderLine>;

export const RegisterDOrderTotals = Type.Object({ subtotal: Cents, tip: Cents, service_charge: Cents, discount: Cents, total: Cents });
export type RegisterDOrderTotals = Static<typeof RegisterDOrderTotals>;

export interface RegisterDOrderInput {
  readonly channel: string;
  readonly customer_name: string | null;
  readonly lines: readonly RegisterDOrderLine[];
  readonly totals: RegisterDOrderTotals;
}

export const RegisterDOrder = Type.Object({
  id: Type.String(),
  order_id: Type.String(),
  vendor: Type.String(),
  site_id: Type.String(),
  status: Type.String(),
  channel: Type.String(),
  customer_name: Type.Union([Type.String(), Type.Null()]),
  lines: Type.Array(RegisterDOrderLine),
  totals: RegisterDOrderTotals,
  received_at: Type.String(),
});
export type RegisterDOrder = Static<typeof RegisterDOrder>;

const Ping = Type.Object({ ok: Type.Boolean(), vendor: Type.String(), site_id: Type.String(), checked_at: Type.String() });
export type RegisterDPing = Static<typeof Ping>;

export interface RegisterDClientConfig {
  readonly baseUrl: string;
  readonly apiToken: string;
  readonly timeoutMs?: number;
}

export class RegisterDClient {
  constructor(private readonly config: RegisterDClientConfig) {}

  private call<S extends TSchema | null>(method: string, path: string, schema: S, body?: unknown): Promise<S extends TSchema ? Static<S> : null> {
    return bearerJsonCall('register-d', this.config, method, path, schema, body);
  }

  private static site(vendor: string, siteId: string): string {
    return `/v1/vendors/${encodeURIComponent(vendor)}/sites/${encodeURIComponent(siteId)}`;
  }

  getSite(vendor: string, siteId: string): Promise<RegisterDSite> {
    return this.call('GET', RegisterDClient.site(vendor, siteId), RegisterDSite);
  }

  /** Links the vendor's site to `externalRef` (our location id) with its owner's `linkCode` (403 `invalid_link_code` otherwise), so the vendor knows whose menu it gets. */
  linkSite(vendor: string, siteId: string, externalRef: string, linkCode: string): Promise<RegisterDSite> {
    return this.call('PUT', `${RegisterDClient.site(vendor, siteId)}/link`, RegisterDSite, { external_ref: externalRef, link_code: linkCode });
  }

  async unlinkSite(vendor: string, siteId: string): Promise<void> {
    await this.call('DELETE', `${RegisterDClient.site(vendor, siteId)}/link`, null);
  }

  /** Replaces the site's menu; the transport answers what changed. */
  pushMenu(vendor: string, siteId: string, items: readonly RegisterDMenuItem[]): Promise<RegisterDMenuResult> {
    return this.call('PUT', `${RegisterDClient.site(vendor, siteId)}/menu`, RegisterDMenuResult, { items });
  }

  /** Hands an order to the site's register; a repeat of the same `orderId` answers the order already there. */
  putOrder(vendor: string, siteId: string, orderId: string, order: RegisterDOrderInput): Promise<RegisterDOrder> {
    return this.call('PUT', `${RegisterDClient.site(vendor, siteId)}/orders/${encodeURIComponent(orderId)}`, RegisterDOrder, order);
  }

  /** A round trip through the transport to the vendor's site. */
  ping(vendor: string, siteId: string): Promise<RegisterDPing> {
    return this.call('GET', `${RegisterDClient.site(vendor, siteId)}/ping`, Ping);
  }
}
