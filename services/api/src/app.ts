import { onlineOrderingRoutes } from './routes/online-ordering/index.ts';
import { channelSettingsRoutes } from './routes/channel-settings/index.ts';
import { Elysia, type ElysiaConfig } from 'elysia';
import { apiDocs } from './plugins/api-docs.ts';
import type { ApiDeps } from './context.ts';
import { REALTIME_MAX_FRAME_BYTES } from './routes/realtime/realtime.schemas.ts';
import { errorPlugin } from './plugins/errors.ts';
import { createApiMetrics, metricsPlugin } from './plugins/metrics.ts';
import { authInvalidationPlugin } from './plugins/auth-invalidation.ts';
import { requestGuard } from './request-guard/request-guard.ts';
import { RoutePatterns } from './plugins/route-patterns.ts';
import { versionRoutes } from './routes/version/index.ts';
import { healthRoutes } from './routes/health/index.ts';
import { publicOptionRoutes } from './routes/public/index.ts';
import { backofficeUserRoutes, guestAuthRoutes } from './routes/backoffice-auth/index.ts';
import { deviceProfileRoutes, deviceRoutes } from './routes/devices/index.ts';
import { deviceAuthRoutes } from './routes/device-auth/index.ts';
import { teamRoutes } from './routes/team/index.ts';
import { activityLogRoutes } from './routes/activity-logs/index.ts';
import { posProviderRoutes } from './routes/pos-provider/index.ts';
import { posPinLoginRoutes, posStaffRoutes } from './routes/pos-staff/index.ts';
import { posBootstrapRoutes } from './routes/pos-bootstrap/index.ts';
import { posLayoutRoutes } from './routes/pos-layouts/index.ts';
import { posOrderRoutes } from './routes/pos-orders/index.ts';
import { posTillRoutes } from './routes/pos-tills/index.ts';
import { posRefundRoutes } from './routes/pos-refunds/index.ts';
import { posBusinessDayRoutes } from './routes/pos-business-day/index.ts';
import { posAdminRoutes } from './routes/pos-admin/index.ts';
import { posCoverageRoutes, reportRoutes } from './routes/reports/index.ts';
import { categoryRoutes, displayGroupRoutes, itemRoutes, modifierRoutes, taxRateRoutes, variantGroupRoutes } from './routes/catalog/index.ts';
import { menuRoutes } from './routes/menus/index.ts';
import { offerRoutes } from './routes/offers/index.ts';
import { kioskPricingRoutes } from './routes/kiosk-pricing/index.ts';
import { kioskCustomerRoutes } from './routes/kiosk-customers/index.ts';
import { posChannelOrderRoutes } from './routes/pos-channel-orders/index.ts';
import { posKdsStationRoutes } from './routes/pos-kds-stations/index.ts';
import { aiGenerationRoutes } from './routes/ai-generation/index.ts';
import { guidedSetupManagementRoutes } from './routes/guided-setup-management/index.ts';
import { asyncMonitoringRoutes, clientLoggerRoutes, settingsRoutes, setupRoutes } from './routes/settings/index.ts';
import { settingsProviderAccountRoutes } from './routes/settings-provider-accounts/index.ts';
import { contentRoutes } from './routes/contents/index.ts';
import { inventoryRoutes } from './routes/inventories/index.ts';
import { paymentApi } from './routes/payments/index.ts';
import { webhookApi } from './routes/webhooks/index.ts';
import { kitchenStationRoutes } from './routes/kitchen-stations/index.ts';
import { kdsProfileRoutes } from './routes/kds-profiles/index.ts';
import { kdsReportRoutes, kdsRoutes } from './routes/kds/index.ts';
import { kdsScreenRoutes } from './routes/kds-screen/index.ts';
import { queueDashboardRoutes } from './routes/queue-dashboard/index.ts';
import { backofficePrinterRoutes, kioskPrinterRoutes, posPrinterDiscoveryRoutes, posPrinterRoutes } from './routes/printers/index.ts';
import { printerProfileRoutes } from './routes/printers/printer-profiles.ts';
import { customerAuthRoutes } from './routes/customer-auth/index.ts';
import { customerAccountRoutes } from './routes/customer-account/index.ts';
import { customerAdminRoutes } from './routes/customers/index.ts';
import { loyaltyAdminRoutes } from './routes/loyalty/index.ts';
import { qrDownloadRoutes, tableQrOrderingRoutes, tableSectionRoutes } from './routes/table-qr/index.ts';
import { registerARoutes } from './routes/register-a/index.ts';
import { integrationAutoSyncRoutes } from './routes/integration-auto-sync/index.ts';
import { registerBRoutes } from './routes/register-b/index.ts';
import { registerCRoutes } from './routes/register-c/index.ts';
import { deliveryARoutes } from './routes/delivery-a/index.ts';
import { deliveryBRoutes } from './routes/delivery-b/index.ts';
import { registerDRoutes } from './routes/register-d/index.ts';
import { accountRoutes } from './routes/accounts/index.ts';

/** Builds the API: `/version` at the root, every spec-1 path under `/api`. */
export function createApp(deps: ApiDeps) {
  const api = new Elysia({ prefix: '/api' })
    .use(healthRoutes(deps))
    .use(publicOptionRoutes())
    .use(guestAuthRoutes(deps))
    .use(backofficeUserRoutes(deps))
    .use(deviceRoutes(deps))
    .use(deviceProfileRoutes(deps))
    .use(deviceAuthRoutes(deps))
    .use(teamRoutes(deps))
    .use(activityLogRoutes(deps))
    .use(posProviderRoutes(deps))
    .use(posPinLoginRoutes(deps))
    .use(posStaffRoutes(deps))
    .use(posBootstrapRoutes(deps))
    .use(posOrderRoutes(deps))
    .use(posTillRoutes(deps))
    .use(posRefundRoutes(deps))
    .use(posBusinessDayRoutes(deps))
    .use(posAdminRoutes(deps))
    .use(reportRoutes(deps))
    .use(posCoverageRoutes(deps))
    .use(itemRoutes(deps))
    .use(categoryRoutes(deps))
    .use(modifierRoutes(deps))
    .use(variantGroupRoutes(deps))
    .use(displayGroupRoutes(deps))
    .use(taxRateRoutes(deps))
    .use(menuRoutes(deps))
    .use(offerRoutes(deps))
    .use(kioskPricingRoutes(deps))
    .use(contentRoutes(deps))
    .use(inventoryRoutes(deps));

  // Filled once every route is registered (below); the hooks read it per request.
  const patterns: { current: RoutePatterns | null } = { current: null };
  const metrics = createApiMetrics();
  // normalize off: bodies with keys a schema forbids are refused (422), never silently stripped.
  // websocket: a real-time frame over REALTIME_MAX_FRAME_BYTES is closed with 1009 by the server, unread.
  // jsonBodies (patches/elysia): the request guard admits only JSON bodies (multipart where a family
  // allows it), so each handler compiles only the JSON parser, the form parser only beside a file.
  const app = new Elysia({ normalize: false, jsonBodies: true, websocket: { maxPayloadLength: REALTIME_MAX_FRAME_BYTES } } as ElysiaConfig<''>)
    .use(errorPlugin({ debug: deps.debug, log: deps.log }))
    // Before the other hooks: spec 1 gives `/version` no middleware ("always 200, never fails"), so a
    // query value the request guard would refuse (a NUL) does not reach it.
    .use(versionRoutes(deps))
    .use(metricsPlugin(metrics, patterns, { token: deps.config.METRICS_TOKEN, production: deps.env === 'production' }))
    .use(authInvalidationPlugin(deps, patterns))
    .use(requestGuard(deps.bodyPolicies, patterns))
    .use(apiDocs())
    .use(api);
  // Payments (spec 3) as a statement: one more chained `.use` passes the compiler's depth limit (TS2589).
  app.use(paymentApi(deps));
  // Inbound provider webhooks (spec 3 section 4), likewise as a statement.
  app.use(webhookApi(deps, metrics));
  // Kitchen routing (issue 14), likewise a statement of its own.
  app.use(new Elysia({ prefix: '/api' }).use(kitchenStationRoutes(deps)).use(kdsProfileRoutes(deps)).use(kdsRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(kdsReportRoutes(deps)));
  // The kitchen screen page at the address root (issue 14).
  app.use(kdsScreenRoutes());
  app.use(queueDashboardRoutes());
  // Kiosk customer, loyalty, offers, gift cards and updates (issue 14 item 6), a statement of its own.
  app.use(new Elysia({ prefix: '/api' }).use(kioskCustomerRoutes(deps)));
  // The register's omni-channel order stream (issue 14 item 8).
  app.use(new Elysia({ prefix: '/api' }).use(posChannelOrderRoutes(deps)));
  // The register's kitchen station picker (spec 2).
  app.use(new Elysia({ prefix: '/api' }).use(posKdsStationRoutes(deps)));
  // The register's screen layouts, designed in the back office (spec 2 `/pos/{locationId}/layouts`).
  app.use(new Elysia({ prefix: '/api' }).use(posLayoutRoutes(deps)));
  // Receipt printers (issue 15), one statement each.
  app.use(new Elysia({ prefix: '/api' }).use(posPrinterDiscoveryRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(posPrinterRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(kioskPrinterRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(backofficePrinterRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(printerProfileRoutes(deps)));
  // Customer accounts, customers in the back office, loyalty admin (issue 16 items 4-7), statements of their own.
  app.use(new Elysia({ prefix: '/api' }).use(customerAuthRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(customerAccountRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(customerAdminRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(loyaltyAdminRoutes(deps)));
  // Table QR ordering (issue 16 item 2), statements of their own.
  app.use(new Elysia({ prefix: '/api' }).use(tableSectionRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(qrDownloadRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(tableQrOrderingRoutes(deps)));
  // register-a administration (issue 17 item 2).
  app.use(new Elysia({ prefix: '/api' }).use(registerARoutes(deps)));
  // Online ordering, public storefront and back-office channel settings (issue 16 items 1 and 3).
  app.use(new Elysia({ prefix: '/api' }).use(onlineOrderingRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(channelSettingsRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(integrationAutoSyncRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(registerBRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(registerCRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(deliveryARoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(deliveryBRoutes(deps)));
  // register-d administration (issue 17 item 4).
  app.use(new Elysia({ prefix: '/api' }).use(registerDRoutes(deps)));
  // Issue 18 settings: locations, receipts, languages
  app.use(new Elysia({ prefix: '/api' }).use(settingsRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(settingsProviderAccountRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(setupRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(clientLoggerRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(asyncMonitoringRoutes(deps)));
  // Back-office accounts (issue 18): sign-up, e-mail tokens, second factor, IdP and passkeys.
  app.use(new Elysia({ prefix: '/api' }).use(accountRoutes(deps)));
  // AI description and photo generation (issue 18 item 6).
  app.use(new Elysia({ prefix: '/api' }).use(aiGenerationRoutes(deps)));
  app.use(new Elysia({ prefix: '/api' }).use(guidedSetupManagementRoutes(deps)));
  patterns.current = new RoutePatterns(
    (app.routes as { method: string; path: string; hooks?: { body?: unknown } }[]).map((r) => ({ method: r.method, path: r.path, hasBody: r.hooks?.body !== undefined })),
  );
  return app;
}

export type App = ReturnType<typeof createApp>;
