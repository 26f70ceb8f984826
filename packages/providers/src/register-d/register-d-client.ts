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
 *
 * Errors are `{code, message}`: 401 `unauthorized` (bad token), 404 `vendor_not_found` /
 * `site_not_found`, 409 `site_linked` (linked to another reference) / `site_not_linked` (menu before
 * link), 422 `invalid_request` / `invalid_menu`, 5xx when the vendor behind the hub is down. Every
 * answer is checked against its schema; anything else is a ProviderError `invalid_response`.
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

  /** Links the vendor's site to `externalRef` (our location id), so the vendor knows whose menu it gets. */
  linkSite(vendor: string, siteId: string, externalRef: string): Promise<RegisterDSite> {
    return this.call('PUT', `${RegisterDClient.site(vendor, siteId)}/link`, RegisterDSite, { external_ref: externalRef });
  }

  async unlinkSite(vendor: string, siteId: string): Promise<void> {
    await this.call('DELETE', `${RegisterDClient.site(vendor, siteId)}/link`, null);
  }

  /** Replaces the site's menu; the transport answers what changed. */
  pushMenu(vendor: string, siteId: string, items: readonly RegisterDMenuItem[]): Promise<RegisterDMenuResult> {
    return this.call('PUT', `${RegisterDClient.site(vendor, siteId)}/menu`, RegisterDMenuResult, { items });
  }

  /** A round trip through the transport to the vendor's site. */
  ping(vendor: string, siteId: string): Promise<RegisterDPing> {
    return this.call('GET', `${RegisterDClient.site(vendor, siteId)}/ping`, Ping);
  }
}
