import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { bearerJsonCall } from '../shared/bearer-json.ts';
import { MarketplaceOrder } from '../shared/marketplace-orders.ts';

/**
 * delivery-b's store API as the administration routes use it (spec 1 "delivery-b"): the store list,
 * a store, the integration switch, the menu (push and read), store status (online/offline), prep time
 * and fulfillment modes. Every answer is checked against its schema; anything else is a ProviderError
 * `invalid_response`.
 */
export const DeliveryBStoreStatus = Type.Union([Type.Literal('online'), Type.Literal('offline')]);
export type DeliveryBStoreStatus = Static<typeof DeliveryBStoreStatus>;
export const DeliveryBFulfillment = Type.Object({ delivery: Type.Boolean(), pickup: Type.Boolean() });
export type DeliveryBFulfillment = Static<typeof DeliveryBFulfillment>;

export const DeliveryBStore = Type.Object({
  id: Type.String(),
  name: Type.String(),
  integration_enabled: Type.Boolean(),
  integrator_store_id: Type.Union([Type.String(), Type.Null()]),
  status: DeliveryBStoreStatus,
  prep_time_minutes: Type.Integer({ minimum: 0 }),
  fulfillment: DeliveryBFulfillment,
});
export type DeliveryBStore = Static<typeof DeliveryBStore>;

export const DeliveryBMenuItem = Type.Object({ id: Type.String(), name: Type.String(), price: Type.Integer(), available: Type.Boolean() });
export type DeliveryBMenuItem = Static<typeof DeliveryBMenuItem>;

const StoreList = Type.Object({ stores: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })) });
const AccountStores = Type.Object({ account_id: Type.String(), stores: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })) });
const StatusBody = Type.Object({ status: DeliveryBStoreStatus });
const PrepTimeBody = Type.Object({ prep_time_minutes: Type.Integer({ minimum: 0 }) });
const MenuPushed = Type.Object({ items: Type.Integer({ minimum: 0 }) });
const MenuRead = Type.Object({ items: Type.Array(DeliveryBMenuItem) });

export interface DeliveryBClientConfig {
  readonly baseUrl: string;
  readonly apiToken: string;
  readonly timeoutMs?: number;
}

export class DeliveryBClient {
  constructor(private readonly config: DeliveryBClientConfig) {}

  private call<S extends TSchema | null>(method: string, path: string, schema: S, body?: unknown): Promise<S extends TSchema ? Static<S> : null> {
    return bearerJsonCall('delivery-b', this.config, method, path, schema, body);
  }

  private static store(id: string): string {
    return `/v2/stores/${encodeURIComponent(id)}`;
  }

  /**
   * The stores of the delivery-b account whose OAuth access token is `accessToken` (`GET /v2/me/stores`,
   * bearer = that token, not the platform's): how we learn which stores a merchant owns.
   */
  accountStores(accessToken: string): Promise<{ account_id: string; stores: { id: string; name: string }[] }> {
    return bearerJsonCall('delivery-b', { ...this.config, apiToken: accessToken }, 'GET', '/v2/me/stores', AccountStores);
  }

  async listStores(): Promise<{ id: string; name: string }[]> {
    return (await this.call('GET', '/v2/stores', StoreList)).stores;
  }

  getStore(storeId: string): Promise<DeliveryBStore> {
    return this.call('GET', DeliveryBClient.store(storeId), DeliveryBStore);
  }

  /** Turns the integration on for the store; `integratorStoreId` is our location id. */
  enableIntegration(storeId: string, integratorStoreId: string): Promise<DeliveryBStore> {
    return this.call('POST', `${DeliveryBClient.store(storeId)}/integration`, DeliveryBStore, { integrator_store_id: integratorStoreId });
  }

  async disableIntegration(storeId: string): Promise<void> {
    await this.call('DELETE', `${DeliveryBClient.store(storeId)}/integration`, null);
  }

  async pushMenu(storeId: string, items: readonly DeliveryBMenuItem[]): Promise<number> {
    return (await this.call('PUT', `${DeliveryBClient.store(storeId)}/menu`, MenuPushed, { items })).items;
  }

  async menu(storeId: string): Promise<DeliveryBMenuItem[]> {
    return (await this.call('GET', `${DeliveryBClient.store(storeId)}/menu`, MenuRead)).items;
  }

  async setStatus(storeId: string, status: DeliveryBStoreStatus): Promise<DeliveryBStoreStatus> {
    return (await this.call('PUT', `${DeliveryBClient.store(storeId)}/status`, StatusBody, { status })).status;
  }

  async setPrepTime(storeId: string, minutes: number): Promise<number> {
    return (await this.call('PUT', `${DeliveryBClient.store(storeId)}/prep-time`, PrepTimeBody, { prep_time_minutes: minutes })).prep_time_minutes;
  }

  setFulfillment(storeId: string, fulfillment: DeliveryBFulfillment): Promise<DeliveryBFulfillment> {
    return this.call('PUT', `${DeliveryBClient.store(storeId)}/fulfillment`, DeliveryBFulfillment, fulfillment);
  }

  /** An order the marketplace notified (the webhook carries its id only). */
  getOrder(orderId: string): Promise<MarketplaceOrder> {
    return this.call('GET', `/v2/orders/${encodeURIComponent(orderId)}`, MarketplaceOrder);
  }

  /** Accepts a `CREATED` order (accepting an accepted one answers it again). */
  acceptOrder(orderId: string): Promise<MarketplaceOrder> {
    return this.call('POST', `/v2/orders/${encodeURIComponent(orderId)}/accept`, MarketplaceOrder);
  }

  /** Denies a `CREATED` order with a reason the marketplace shows the customer. */
  denyOrder(orderId: string, reason: string): Promise<MarketplaceOrder> {
    return this.call('POST', `/v2/orders/${encodeURIComponent(orderId)}/deny`, MarketplaceOrder, { reason: reason.slice(0, 500) });
  }
}
