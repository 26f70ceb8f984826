import { Type, type Static } from '@sinclair/typebox';
import { signBodyHmac } from '../webhooks/verify.ts';
import { jsonBody, route, type Route } from './sim-server.ts';

/**
 * Marketplace orders as delivery-a and delivery-b serve them (spec 3 leaves the payloads "not shown";
 * docs/decisions.md "Inbound marketplace orders"). The webhook carries ids only; the order is read
 * through the store API, accepted or denied there. Money in minor units (cents), VAT included.
 * `items[].external_id` is the id the menu push gave the item (our item id).
 */
export const MARKETPLACE_ORDER_STATUSES = ['CREATED', 'ACCEPTED', 'DENIED', 'PREPARING', 'READY', 'PICKED_UP', 'DELIVERED', 'CANCELED'] as const;
export type MarketplaceOrderStatus = (typeof MARKETPLACE_ORDER_STATUSES)[number];

export const MarketplaceOrder = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  store_id: Type.String(),
  display_id: Type.String(),
  status: Type.Union(MARKETPLACE_ORDER_STATUSES.map((s) => Type.Literal(s))),
  type: Type.Union([Type.Literal('DELIVERY'), Type.Literal('PICKUP')]),
  customer: Type.Object({ name: Type.String() }),
  items: Type.Array(
    Type.Object({
      external_id: Type.String(),
      name: Type.String(),
      // Any integer is read: an order whose amounts we cannot take (quantity 0, a negative price) is
      // refused by the import (`marketplaceOrderInRange`) and denied at once, not retried as unreadable.
      quantity: Type.Integer(),
      unit_price: Type.Integer(),
    }),
    { maxItems: 200 },
  ),
  delivery_fee: Type.Integer(),
  tip: Type.Integer(),
  total: Type.Integer(),
  placed_at: Type.String(),
  deny_reason: Type.Union([Type.String(), Type.Null()]),
});
export type MarketplaceOrder = Static<typeof MarketplaceOrder>;

export interface SimOrderInput {
  id?: string;
  type?: 'DELIVERY' | 'PICKUP';
  customer_name?: string;
  items: { external_id: string; name: string; quantity: number; unit_price: number }[];
  delivery_fee?: number;
  tip?: number;
}

export interface MarketplaceSimWebhooks {
  /** Where signed order webhooks go (the platform's `/webhook/...` route); none: not sent. */
  readonly url?: string;
  readonly secret?: string;
  /** Signature header (`x-delivery-a-signature`). */
  readonly header: string;
}

/** One delivered (or attempted) webhook, kept so a test can redeliver it byte for byte. */
export interface SimDelivery {
  readonly eventId: string;
  readonly body: string;
  status: number | null;
}

/**
 * The order book a marketplace simulator keeps: orders per store, the accept/deny calls received, and
 * the signed webhooks sent for each change (`event(order, type)` builds the provider's body).
 */
export class SimOrderBook {
  readonly orders = new Map<string, MarketplaceOrder>();
  readonly accepts: string[] = [];
  readonly denies: { orderId: string; reason: string }[] = [];
  readonly deliveries: SimDelivery[] = [];
  private seq = 0;

  constructor(
    private readonly webhooks: MarketplaceSimWebhooks,
    private readonly event: (o: MarketplaceOrder, kind: 'new' | 'status', eventId: string) => Record<string, unknown>,
  ) {}

  create(storeId: string, input: SimOrderInput): MarketplaceOrder {
    const n = ++this.seq;
    const items = input.items.map((i) => ({ external_id: i.external_id, name: i.name, quantity: i.quantity, unit_price: i.unit_price }));
    const delivery_fee = input.delivery_fee ?? 0;
    const tip = input.tip ?? 0;
    const o: MarketplaceOrder = {
      id: input.id ?? crypto.randomUUID(),
      store_id: storeId,
      display_id: String(1000 + n),
      status: 'CREATED',
      type: input.type ?? 'DELIVERY',
      customer: { name: input.customer_name ?? 'Marketplace customer' },
      items,
      delivery_fee,
      tip,
      total: items.reduce((s, i) => s + i.quantity * i.unit_price, 0) + delivery_fee + tip,
      placed_at: new Date().toISOString(),
      deny_reason: null,
    };
    this.orders.set(o.id, o);
    return o;
  }

  /** Sends the signed webhook for `o` (a fresh event id each time). */
  async notify(o: MarketplaceOrder, kind: 'new' | 'status'): Promise<SimDelivery> {
    const eventId = crypto.randomUUID();
    const d: SimDelivery = { eventId, body: JSON.stringify(this.event(o, kind, eventId)), status: null };
    this.deliveries.push(d);
    await this.send(d);
    return d;
  }

  /** Sends a delivery again, same bytes (a marketplace retry). */
  async send(d: SimDelivery): Promise<void> {
    if (!this.webhooks.url || !this.webhooks.secret) return;
    try {
      const res = await fetch(this.webhooks.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [this.webhooks.header]: signBodyHmac(this.webhooks.secret, d.body, 'hex') },
        body: d.body,
      });
      d.status = res.status;
      await res.arrayBuffer();
    } catch {
      d.status = 0;
    }
  }

  /**
   * The store API's order routes under `base` (`/v1/orders`): read, accept (only `CREATED`), deny
   * (only `CREATED`, body `{reason}`); and the control routes under `/_sim` that stand in for customers
   * and couriers: place an order (webhook sent), change its status (webhook sent), redeliver a webhook.
   */
  routes(base: string, hasStore: (storeId: string) => boolean): Route[] {
    const json = (status: number, body: unknown) => Response.json(body, { status });
    const problem = (status: number, code: string, message: string) => json(status, { code, message });
    const withOrder = (fn: (o: MarketplaceOrder, req: Request) => Response | Promise<Response>) => (req: Request, p: Record<string, string>) => {
      const o = this.orders.get(p.orderId!);
      return o ? fn(o, req) : problem(404, 'order_not_found', 'Order not found');
    };
    return [
      route('GET', `${base}/:orderId`, withOrder((o) => json(200, o))),
      route('POST', `${base}/:orderId/accept`, withOrder((o) => {
        this.accepts.push(o.id);
        if (o.status === 'ACCEPTED') return json(200, o);
        if (o.status !== 'CREATED') return problem(409, 'invalid_state', `Order is ${o.status}`);
        o.status = 'ACCEPTED';
        return json(200, o);
      })),
      route('POST', `${base}/:orderId/deny`, withOrder(async (o, req) => {
        const b = await jsonBody(req);
        const reason = typeof b?.reason === 'string' && b.reason.length > 0 ? b.reason.slice(0, 500) : null;
        if (!reason) return problem(400, 'invalid_request', 'reason is required');
        this.denies.push({ orderId: o.id, reason });
        if (o.status !== 'CREATED') return problem(409, 'invalid_state', `Order is ${o.status}`);
        o.status = 'DENIED';
        o.deny_reason = reason;
        return json(200, o);
      })),
      route('POST', '/_sim/stores/:storeId/orders', async (req, p) => {
        if (!hasStore(p.storeId!)) return problem(404, 'store_not_found', 'Store not found');
        const b = (await jsonBody(req)) as SimOrderInput | null;
        if (!b || !Array.isArray(b.items) || b.items.length === 0) return problem(400, 'invalid_request', 'items are required');
        const o = this.create(p.storeId!, b);
        const d = await this.notify(o, 'new');
        return json(201, { order: o, event_id: d.eventId, webhook_status: d.status });
      }),
      route('POST', '/_sim/orders/:orderId/status', withOrder(async (o, req) => {
        const b = await jsonBody(req);
        if (!MARKETPLACE_ORDER_STATUSES.includes(b?.status as never)) return problem(400, 'invalid_status', 'unknown status');
        o.status = b!.status as MarketplaceOrderStatus;
        const d = await this.notify(o, 'status');
        return json(200, { order: o, event_id: d.eventId, webhook_status: d.status });
      })),
      route('POST', '/_sim/webhooks/:eventId/redeliver', async (_req, p) => {
        const d = this.deliveries.find((x) => x.eventId === p.eventId);
        if (!d) return problem(404, 'event_not_found', 'Event not found');
        await this.send(d);
        return json(200, { event_id: d.eventId, webhook_status: d.status });
      }),
      route('GET', '/_sim/orders/:orderId/calls', withOrder((o) => json(200, { accepts: this.accepts.filter((id) => id === o.id).length, denies: this.denies.filter((d) => d.orderId === o.id).map((d) => d.reason) }))),
    ];
  }
}
