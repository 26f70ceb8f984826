import { Elysia, t } from 'elysia';
import { KDS_ORDER_ACTIONS, type KdsOrderAction } from '@pos/domain/kitchen/kds-order-state';
import { kdsOrderAction, kdsSettings, listKdsOrders } from '@pos/core/kitchen/kds-orders';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { PathId } from '../shared.schemas.ts';
import { KdsSettings } from '../kds-profiles/index.ts';

const Iso = t.String({ format: 'date-time' });
const Status = t.Union([t.Literal('Queued'), t.Literal('In Progress'), t.Literal('Ready'), t.Literal('Complete')]);
export const KdsOrder = t.Object({
  id: t.String(),
  station_id: t.String(),
  order_no: t.String(),
  source: t.Union([t.Literal('transaction'), t.Literal('pos_order')]),
  status: Status,
  held: t.Boolean(),
  prioritized: t.Boolean(),
  queued_at: Iso,
  started_at: t.Nullable(Iso),
  ready_at: t.Nullable(Iso),
  completed_at: t.Nullable(Iso),
  items: t.Array(t.Object({ position: t.Integer(), name: t.String(), qty: t.Integer(), status: t.String(), modifiers: t.Array(t.Unknown()) })),
});

const ACTION_SUMMARY: Record<KdsOrderAction, string> = {
  'in-progress': 'Start an order (status `In Progress`)',
  ready: 'Mark an order ready (status `Ready`)',
  complete: 'Complete an order',
  hold: 'Put an order on hold',
  release: 'Release a held order',
  prioritize: 'Give an order priority',
  unprioritize: 'Take an order\'s priority away',
  recall: 'Recall a completed order (back to `Ready`)',
};

const doc = (summary: string, description?: string) => ({
  detail: { tags: ['Kitchen display'], summary, ...(description ? { description } : {}), security: [{ bearer: [] }] },
});

/**
 * Spec 1 "Kitchen display" (the routes built so far): auth, type:kds, device-key, tenant:kds, then the
 * device gates (402 without an active subscription, liveness). The device sees the tickets of the
 * station it is bound to.
 */
export function kdsRoutes(deps: ApiDeps) {
  let app = new Elysia({ name: 'kds' })
    .use(secured(deps, { types: ['kds'], deviceKey: true }))
    .get('/kds/orders', async ({ tenant, device }) => ({ data: await listKdsOrders(tenant.db, device!) }), {
      response: { 200: t.Object({ data: t.Array(KdsOrder) }) },
      ...doc('Open orders of the device\'s station', 'Orders not complete, with their lines; prioritised first (unless the KDS profile sorts oldest first), then oldest first. An unbound device sees none.'),
    })
    .get('/kds/settings', async ({ tenant, device }) => ({ data: await kdsSettings(tenant.db, device!) }), {
      response: {
        200: t.Object({
          data: t.Object({
            device_id: t.String(),
            location_id: t.String(),
            kds_profile_id: t.Nullable(t.String()),
            station: t.Nullable(t.Object({ id: t.String(), name: t.String(), category_ids: t.Array(t.String()), is_fallback: t.Boolean() })),
            settings: KdsSettings,
          }),
        }),
      },
      ...doc('The device\'s materialised settings', 'Its KDS profile\'s display settings over the defaults, and the station it shows (null while unbound).'),
    });
  for (const action of KDS_ORDER_ACTIONS) {
    app = app.put(
      `/kds/:id/${action}`,
      async ({ tenant, device, params }) =>
        ({ data: await kdsOrderAction({ tdb: tenant.db, tenantDatabase: tenant.merchant.tenant_database, redis: deps.redis, log: deps.log, now: deps.clock.now() }, device!, params.id, action) }),
      {
        params: t.Object({ id: PathId() }),
        response: { 200: t.Object({ data: KdsOrder }) },
        ...doc(
          ACTION_SUMMARY[action],
          'Refusals are 409 `{message, reason}`: `order_held`, `order_complete`, `order_ready`, `order_not_complete`, `recall_window_passed`. An action already true answers the order unchanged. Another station\'s order is a 404.',
        ),
      },
    ) as unknown as typeof app;
  }
  return app;
}
