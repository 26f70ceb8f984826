import { contentHash } from './webhook-log.ts';
import { obj, str, type Obj } from './payload.ts';
import type { IntegrationEffect, IntegrationWebhookSpec, WebhookMeta } from './integration-webhook.ts';

/**
 * What each integration webhook carries (spec 3 leaves the payloads "not shown"; docs/decisions.md,
 * "Integration webhooks (issue 13)" fixes the fields read here). A field is read only after the route
 * verified the bytes.
 */
const text = (v: unknown): string | null => str(v) ?? (typeof v === 'number' && Number.isFinite(v) ? String(v) : null);
const idOr = (v: unknown, raw: string) => text(v) ?? contentHash(raw);

/** Order-ish and catalog-ish event names (`orders.notification`, `order.new`, `company.items`, `products`). */
const ORDER = /(^|[._/-])orders?([._/-]|$)/i;
const CATALOG = /(^|[._/-])(items?|products?|prices?|catalog|menus?|modifiergroups?|articles?)([._/-]|$)/i;
const classify = (eventType: string): IntegrationEffect | null => (ORDER.test(eventType) ? 'order_event' : CATALOG.test(eventType) ? 'catalog_changed' : null);

/**
 * shop-a: topic `X-Shop-A-Topic`, event id `X-Shop-A-Webhook-Id`, tenant from `X-Shop-A-Shop-Domain`
 * with the platform suffix removed (the connection's reference is the shop name). Delegated to the
 * integration of that shop: order topics are recorded, product topics request a menu sync.
 */
export const SHOP_A: IntegrationWebhookSpec = {
  provider: 'shop-a',
  type: 'shop_a_webhook',
  // Not the body's `id`: that is the order's or product's, shared by every topic about it.
  eventId: (_p, m, raw) => m.webhook_id ?? contentHash(raw),
  eventType: (_p, m) => m.topic ?? null,
  reference: (_p, m) => ({ externalRef: m.shop ?? null }),
  effect: classify,
  externalId: (p) => text(p.id),
};

/** The shop name of a shop-a domain: `corner-cafe.myshop-a.com` -> `corner-cafe` (lower case). */
export function shopName(domain: string | null | undefined, suffix: string): string | null {
  if (!domain) return null;
  const d = domain.trim().toLowerCase();
  const s = suffix.toLowerCase();
  const name = s && d.endsWith(s) ? d.slice(0, -s.length) : d;
  return /^[a-z0-9][a-z0-9-]{0,99}$/.test(name) ? name : null;
}

/**
 * delivery-a: `{event_id, event_type, event_time, meta:{resource_id, status, user_id}, resource_href}`;
 * `meta.user_id` is the store the connection holds. The orders route records the order lifecycle
 * events; the menu route is logged and not acted on (spec 3 "Other providers": menu sync is push-only).
 */
const deliveryA = (route: 'orders' | 'menu'): IntegrationWebhookSpec => ({
  provider: 'delivery-a',
  type: `delivery_a_${route}_webhook`,
  eventId: (p) => text(p.event_id),
  eventType: (p) => text(p.event_type),
  reference: (p) => ({ externalRef: text(obj(p.meta).user_id) ?? text(p.store_id) }),
  effect: () => (route === 'orders' ? 'order_event' : null),
  externalId: (p) => text(obj(p.meta).resource_id),
});
export const DELIVERY_A_ORDERS = deliveryA('orders');
export const DELIVERY_A_MENU = deliveryA('menu');

/**
 * delivery-b: `{event_id, event_type, store_id, order:{id}}`; order notifications, cancellations and
 * scheduled orders (`order.new`, `order.cancelled`, `order.scheduled`) are recorded for the jobs.
 */
export const DELIVERY_B: IntegrationWebhookSpec = {
  provider: 'delivery-b',
  type: 'delivery_b_webhook',
  eventId: (p) => text(p.event_id),
  eventType: (p) => text(p.event_type),
  reference: (p) => ({ externalRef: text(p.store_id) }),
  effect: classify,
  externalId: (p) => text(obj(p.order).id),
};

/**
 * register-a: `{event, resource, content[]}` (spec 3 "Register-a webhooks"); `resource` is
 * `store.<id>` or `company.<id>`, the location is resolved from it. No event id: the SHA-256 of the
 * body is one (its five retries repeat the body). `store.orders` is recorded; `company.items` and the
 * other catalog entities request a menu sync.
 */
export const REGISTER_A: IntegrationWebhookSpec = {
  provider: 'register-a',
  type: 'register_a_webhook',
  eventId: (_p, _m, raw) => contentHash(raw),
  eventType: (p) => text(p.event),
  reference: (p) => registerAResource(p),
  effect: classify,
  externalId: (p) => (Array.isArray(p.content) ? text(obj(p.content[0]).id) : null),
};

/** `store.<id>` -> the store's connection; `company.<id>` -> the company's (every store of it). */
export function registerAResource(p: Obj): { externalRef?: string | null; groupRef?: string | null } {
  const r = text(p.resource);
  const m = r ? /^(store|company)\.([A-Za-z0-9-]{1,100})$/.exec(r) : null;
  if (!m) return { externalRef: null };
  return m[1] === 'store' ? { externalRef: m[2]! } : { groupRef: m[2]! };
}

/** register-b: the event type is the path's `{event}`; `{id, account_id, ...}` with the account the connection holds. */
export const REGISTER_B: IntegrationWebhookSpec = {
  provider: 'register-b',
  type: 'register_b_webhook',
  eventId: (p, _m, raw) => idOr(p.id, raw),
  eventType: (_p, m) => m.event ?? null,
  reference: (p) => ({ externalRef: text(p.account_id) }),
  effect: classify,
  externalId: (p) => text(p.resource_id) ?? text(obj(p.data).id),
};

/** register-c: `{id, type, account_id, ...}` behind HTTP Basic. */
export const REGISTER_C: IntegrationWebhookSpec = {
  provider: 'register-c',
  type: 'register_c_webhook',
  eventId: (p, _m, raw) => idOr(p.id, raw),
  eventType: (p) => text(p.type),
  reference: (p) => ({ externalRef: text(p.account_id) }),
  effect: classify,
  externalId: (p) => text(p.resource_id) ?? text(obj(p.data).id),
};

/** CRM intake (`/crm/intake`): belongs to the platform, not a tenant; stored and acknowledged. */
export const CRM: IntegrationWebhookSpec = {
  provider: 'crm',
  type: 'crm_intake',
  eventId: (p, _m, raw) => idOr(p.id, raw),
  eventType: (p) => text(p.type) ?? text(p.event) ?? 'intake',
  reference: () => null,
  effect: () => null,
};

/** Specs by provider and log type (the replay finds a row's handler by its type). */
export const INTEGRATION_SPECS_BY_TYPE: Readonly<Record<string, IntegrationWebhookSpec>> = Object.fromEntries(
  [SHOP_A, DELIVERY_A_ORDERS, DELIVERY_A_MENU, DELIVERY_B, REGISTER_A, REGISTER_B, REGISTER_C, CRM].map((s) => [s.type, s]),
);

export type { WebhookMeta };
