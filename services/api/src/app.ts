import { Elysia } from 'elysia';
import { openapi } from '@elysiajs/openapi';
import type { ApiDeps } from './context.ts';
import { errorPlugin } from './plugins/errors.ts';
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
import { contentRoutes } from './routes/contents/index.ts';
import { inventoryRoutes } from './routes/inventories/index.ts';
import { paymentApi } from './routes/payments/index.ts';

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

  // normalize off: bodies with keys a schema forbids are refused (422), never silently stripped.
  const app = new Elysia({ normalize: false })
    .use(errorPlugin({ debug: deps.debug, log: deps.log }))
    .use(
      openapi({
        path: '/api/docs',
        documentation: {
          info: { title: 'Ordering platform API', version: '1.0.0', description: 'Core API (spec 1), register (spec 2), payments and webhooks (spec 3).' },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
        },
      }),
    )
    .use(versionRoutes(deps))
    .use(api);
  // Payments (spec 3) as a statement: one more chained `.use` passes the compiler's depth limit (TS2589).
  app.use(paymentApi(deps));
  return app;
}

export type App = ReturnType<typeof createApp>;
