import { Elysia, t } from 'elysia';
import { KDS_ORDER_ACTIONS, type KdsOrderAction } from '@pos/domain/kitchen/kds-order-state';
import { kdsMark, kdsOrderAction, kdsSettings, kdsSignal, listKdsOrders, setKdsPushToken, updateKdsSettings, type KdsActionDeps } from '@pos/core/kitchen/kds-orders';
import { kdsCategories, kdsItems, kdsMetricsSummary, kdsReportSummary } from '@pos/core/kitchen/kds-metrics';
import type { ApiDeps } from '../../context.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { firstPartyPos } from '../../plugins/first-party-pos.ts';
import { PathId, vendorIdField } from '../shared.schemas.ts';
import * as S from './kds.schemas.ts';

export { KdsOrder } from './kds.schemas.ts';

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

const doc = (summary: string, description?: string, tag = 'Kitchen display') => ({
  detail: { tags: [tag], summary, ...(description ? { description } : {}), security: [{ bearer: [] }] },
});

const actionDeps = (deps: ApiDeps, tenant: TenantContext): KdsActionDeps => ({
  tdb: tenant.db,
  tenantDatabase: tenant.merchant.tenant_database,
  redis: deps.redis,
  log: deps.log,
  now: deps.clock.now(),
});

const REFUSALS = 'Refusals are 409 `{message, reason}`: `order_held`, `order_complete`, `order_ready`, `order_not_complete`, `recall_window_passed`, `order_cancelled` (recall of an order cancelled after it reached the kitchen).';

/**
 * Spec 1 "Kitchen display": auth, type:kds, device-key, tenant:kds, then the device gates (402 without
 * an active subscription, liveness). The device sees the tickets of the station it is bound to; every
 * accepted change is a numbered kitchen event published on the real-time channel.
 */
export function kdsRoutes(deps: ApiDeps) {
  let app = new Elysia({ name: 'kds' })
    .use(secured(deps, { types: ['kds'], deviceKey: true }))
    .get('/kds/orders', async ({ tenant, device }) => ({ data: await listKdsOrders(tenant.db, device!) }), {
      response: { 200: t.Object({ data: t.Array(S.KdsOrder) }) },
      ...doc('Open orders of the device\'s station', 'Orders not complete, with their lines; prioritised first (unless the settings sort oldest first), then oldest first. An unbound device sees none.'),
    })
    .get('/kds/items', async ({ tenant, device }) => ({ data: await kdsItems(tenant.db, device!) }), {
      response: { 200: S.ItemsResponse },
      ...doc('Items of the device\'s station', 'Catalog items whose lines reach the station (by category, or through the fallback station), by name, each with `open_qty`: the quantity on open tickets not marked ready yet.'),
    })
    .get('/kds/categories', async ({ tenant, device }) => ({ data: await kdsCategories(tenant.db, device!) }), {
      response: { 200: S.CategoriesResponse },
      ...doc('Categories of the device\'s station', 'The categories the bound station serves, by position then name; none while unbound.'),
    })
    .get('/kds/metrics/summary', async ({ tenant, device }) => ({ data: await kdsMetricsSummary(tenant.db, device!, deps.clock.now()) }), {
      response: { 200: S.MetricsResponse },
      ...doc(
        'Kitchen figures of the device\'s station',
        'Orders waiting (`Queued`), in progress and ready now; late orders (open, not ready, waiting longer than `late_after_minutes`); and, over the tickets made ready today (the location\'s time zone), `completed_today`, the average and p90 preparation time in seconds (queued to ready; null without any).',
      ),
    })
    .put(
      '/kds/mark-item',
      async ({ tenant, device, body }) => ({ data: await kdsMark(actionDeps(deps, tenant), device!, { order_id: body.order_id, position: body.position, status: body.status }) }),
      {
        body: S.MarkItemBody,
        response: { 200: S.KdsOrderResponse },
        ...doc('Mark a line of an order', `\`{order_id, position, status}\` (status \`Queued\`, \`In Progress\` or \`Ready\`). The first mark on a queued order starts it. A position the order lacks is 422. ${REFUSALS}`),
      },
    )
    .put('/kds/mark-modifier', async ({ tenant, device, body }) => ({ data: await kdsMark(actionDeps(deps, tenant), device!, body) }), {
      body: S.MarkModifierBody,
      response: { 200: S.KdsOrderResponse },
      ...doc('Mark a modifier of a line', `\`{order_id, position, modifier_index, status}\`; the marks are answered in \`modifier_statuses\` beside \`modifiers\`. ${REFUSALS}`),
    })
    .post(
      '/kds/customer-arrived',
      async ({ tenant, device, body }) => ({ data: await kdsSignal(actionDeps(deps, tenant), device!, body.order_id, 'customer-arrived') }),
      {
        body: S.CustomerArrivedBody,
        response: { 200: S.KdsOrderResponse },
        ...doc('The customer has arrived', 'The order id is in the body. Records `customer_arrived_at` (once) and shows it on the screens; a completed order is 409 `order_complete`.'),
      },
    )
    .post(
      '/kds/estimated-arrival',
      async ({ tenant, device, body }) => ({ data: await kdsSignal(actionDeps(deps, tenant), device!, body.order_id, 'estimated-arrival', new Date(body.estimated_arrival_at)) }),
      {
        body: S.EstimatedArrivalBody,
        response: { 200: S.KdsOrderResponse },
        ...doc('The customer\'s estimated arrival', 'The order id is in the body with `estimated_arrival_at` (ISO 8601); a completed order is 409 `order_complete`.'),
      },
    )
    .post(
      '/kds/push-token',
      async ({ tenant, device, body }) => {
        await setKdsPushToken(tenant.db, device!, body.push_token, body.platform ?? null);
        return { status: 'success' as const };
      },
      {
        body: S.PushTokenBody,
        response: { 200: t.Object({ status: t.Literal('success') }) },
        ...doc('Update the device\'s push token', '`{push_token, platform?}` (android, ios, web); null clears it.'),
      },
    )
    .get('/kds/settings', async ({ tenant, device }) => ({ data: await kdsSettings(tenant.db, device!) }), {
      response: { 200: S.SettingsResponse },
      ...doc('The device\'s materialised settings', 'Its own overrides (`PUT /kds/settings`) over its KDS profile\'s display settings over the defaults, the overrides alone, and the station it shows (null while unbound).'),
    })
    .put('/kds/settings', async ({ tenant, device, body }) => ({ data: await updateKdsSettings(tenant.db, device!, body) }), {
      body: S.SettingsPatchBody,
      response: { 200: S.SettingsResponse },
      ...doc('Update the device\'s own settings', 'Keys of the KDS profile settings; given keys override the profile on this device, null drops an override. Answers the materialised settings.'),
    });
  for (const action of KDS_ORDER_ACTIONS) {
    app = app.put(`/kds/:id/${action}`, async ({ tenant, device, params }) => ({ data: await kdsOrderAction(actionDeps(deps, tenant), device!, params.id, action) }), {
      params: t.Object({ id: PathId() }),
      response: { 200: S.KdsOrderResponse },
      ...doc(ACTION_SUMMARY[action], `${REFUSALS} An action already true answers the order unchanged. Another station's order is a 404.`),
    }) as unknown as typeof app;
  }
  return app;
}

/**
 * Spec 2 `GET /back-office/kds-reports/summary` (VIEW_KITCHEN_REPORTS, first-party-pos): one
 * location's kitchen on one local date, per station and per hour, from recorded state-change times.
 */
export function kdsReportRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'kds-reports', prefix: '/back-office/kds-reports' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get(
      '/summary',
      async (ctx) => ({
        data: await kdsReportSummary(
          { tdb: ctx.tenant.db, access: await ctx.access(), now: deps.clock.now() },
          { location_id: ctx.query.location_id, date: ctx.query.date, late_after_minutes: ctx.query.late_after_minutes === undefined ? undefined : Number(ctx.query.late_after_minutes) },
        ),
      }),
      {
        query: t.Object({ ...S.ReportQuery.properties, ...vendorIdField() }, { additionalProperties: false }),
        response: { 200: S.ReportResponse },
        transform: [firstPartyPos(), permission('VIEW_KITCHEN_REPORTS')],
        ...doc(
          'Kitchen report of a location',
          'Query `location_id` (required), `date` (YYYY-MM-DD, default today in the location\'s zone), `late_after_minutes` (1-240, default 15). Over the tickets made ready that local date: `totals`, `stations` (every station of the location, by name) and `hours` (local hour of becoming ready, hours with orders only), each `{orders, average_prep_seconds, p90_prep_seconds, late_orders}` (preparation: queued to ready). Another merchant\'s location is 404, one outside the caller\'s grant 403.',
          'Kitchen reports',
        ),
      },
    );
}
