import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { bearerJsonCall } from '../shared/bearer-json.ts';
import { MarketplaceOrder } from '../shared/marketplace-orders.ts';

/**
 * delivery-a's store API as the administration routes use it (spec 1 "delivery-a"): the store, the
 * integration switch, menu and availability pushes (menu sync is push-only), and the site status.
 * Every answer is checked against its schema; anything else is a ProviderError `invalid_response`.
 */
export const DeliveryAStore = Type.Object({
  id: Type.String(),
  name: Type.String(),
  integration_enabled: Type.Boolean(),
  integrator_store_id: Type.Union([Type.String(), Type.Null()]),
  site_status: Type.Union([Type.Literal('OPEN'), Type.Literal('CLOSED'), Type.Literal('READY_TO_OPEN')]),
});
export type DeliveryAStore = Static<typeof DeliveryAStore>;
export type SiteStatus = DeliveryAStore['site_status'];

const SiteStatusBody = Type.Object({ status: DeliveryAStore.properties.site_status });
const MenuPushed = Type.Object({ items: Type.Integer({ minimum: 0 }) });
const AvailabilityPushed = Type.Object({ updated: Type.Integer({ minimum: 0 }) });

export interface DeliveryAMenuItem {
  readonly id: string;
  readonly name: string;
  /** Minor units (cents), VAT included. */
  readonly price: number;
  readonly available: boolean;
}

export interface DeliveryAClientConfig {
  readonly baseUrl: string;
  readonly apiToken: string;
  readonly timeoutMs?: number;
}

export class DeliveryAClient {
  constructor(private readonly config: DeliveryAClientConfig) {}

  private call<S extends TSchema | null>(method: string, path: string, schema: S, body?: unknown): Promise<S extends TSchema ? Static<S> : null> {
    return bearerJsonCall('delivery-a', this.config, method, path, schema, body);
  }

  private static store(id: string): string {
    return `/v1/stores/${encodeURIComponent(id)}`;
  }

  getStore(storeId: string): Promise<DeliveryAStore> {
    return this.call('GET', DeliveryAClient.store(storeId), DeliveryAStore);
  }

  /** Turns the integration on for the store with its owner's `linkCode` (403 `invalid_link_code` otherwise); `integratorStoreId` is our location id. */
  enableIntegration(storeId: string, integratorStoreId: string, linkCode: string): Promise<DeliveryAStore> {
    return this.call('POST', `${DeliveryAClient.store(storeId)}/integration`, DeliveryAStore, { integrator_store_id: integratorStoreId, link_code: linkCode });
  }

  async disableIntegration(storeId: string): Promise<void> {
    await this.call('DELETE', `${DeliveryAClient.store(storeId)}/integration`, null);
  }

  async pushMenu(storeId: string, items: readonly DeliveryAMenuItem[]): Promise<number> {
    return (await this.call('PUT', `${DeliveryAClient.store(storeId)}/menu`, MenuPushed, { items })).items;
  }

  async pushAvailability(storeId: string, items: readonly { id: string; available: boolean }[]): Promise<number> {
    return (await this.call('POST', `${DeliveryAClient.store(storeId)}/menu/availability`, AvailabilityPushed, { items })).updated;
  }

  async siteStatus(storeId: string): Promise<SiteStatus> {
    return (await this.call('GET', `${DeliveryAClient.store(storeId)}/status`, SiteStatusBody)).status;
  }

  async setSiteStatus(storeId: string, status: SiteStatus): Promise<SiteStatus> {
    return (await this.call('PUT', `${DeliveryAClient.store(storeId)}/status`, SiteStatusBody, { status })).status;
  }

  /** An order the marketplace notified (the webhook carries its id only). */
  getOrder(orderId: string): Promise<MarketplaceOrder> {
    return this.call('GET', `/v1/orders/${encodeURIComponent(orderId)}`, MarketplaceOrder);
  }

  /** Accepts a `CREATED` order (accepting an accepted one answers it again). */
  acceptOrder(orderId: string): Promise<MarketplaceOrder> {
    return this.call('POST', `/v1/orders/${encodeURIComponent(orderId)}/accept`, MarketplaceOrder);
  }

  /** Denies a `CREATED` order with a reason the marketplace shows the customer. */
  denyOrder(orderId: string, reason: string): Promise<MarketplaceOrder> {
    return this.call('POST', `/v1/orders/${encodeURIComponent(orderId)}/deny`, MarketplaceOrder, { reason: reason.slice(0, 500) });
  }
}
