import { Elysia } from 'elysia';
import { salesReport } from '@pos/core/reports/sales-report';
import { posCoverage } from '@pos/core/reports/pos-coverage';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import * as S from './reports.schemas.ts';

const tags = ['Reports'];
const security = [{ bearer: [] }];

/**
 * Spec 1 "Transactions and reports": `GET /back-office/reports/sales` (VIEW_SALES_REPORTS). The
 * report routes carry no admin-vendor-override (spec 1): `vendor_id` is not a parameter here and is
 * refused like any undeclared query key (422), so an admin never silently reads their own merchant's
 * figures believing they are another's.
 */
export function reportRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'reports', prefix: '/back-office/reports' })
    .use(secured(deps, { types: ['backoffice'] }))
    .get('/sales', async (ctx) => ({ data: await salesReport({ tdb: ctx.tenant.db, access: await ctx.access() }, ctx.query) }), {
      query: S.SalesReportQuery,
      response: { 200: S.SalesReportResponse },
      beforeHandle: [permission('VIEW_SALES_REPORTS')],
      detail: {
        tags,
        security,
        summary: 'Sales report',
        description:
          'Query `from`, `to` (business dates, inclusive, at most 366 days) and optional `location_id`. Settled register sales minus refunds over the merchant\'s locations in the caller\'s grant (a `location_id` outside it is 403, of another merchant 404). Answers `{data:{from, to, location_ids, totals:{sales_count, refunds_count, gross, refunds, net}, by_tender:[{label, amount, count}] (Cash, Card, Meal voucher, Gift voucher, Unknown; refunds off Cash, as in the X/Z reports), by_vat_rate:[{rate, net, vat, gross}]}}`, money in integer cents.',
      },
    });
}

/**
 * Spec 2 `GET /back-office/reports/pos-coverage`: admin-vendor-override only, no first-party-pos and
 * no permission middleware: the service answers 403 unless the caller holds one of
 * VIEW_SALES_REPORTS, VIEW_POS_REPORTS, VIEW_KITCHEN_REPORTS. A failed lookup is a 5xx, never
 * `pos_connected: false`.
 */
export function posCoverageRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'reports-pos-coverage', prefix: '/back-office/reports' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/pos-coverage', async (ctx) => ({ pos_coverage: await posCoverage({ tdb: ctx.tenant.db, merchant: ctx.tenant.merchant, access: await ctx.access(), integrations: { central: deps.db, merchantId: ctx.tenant.merchant.id } }) }), {
      response: { 200: S.PosCoverageResponse },
      detail: {
        tags,
        security,
        summary: 'Register coverage per location',
        description:
          '`{pos_coverage:{<locationId>:{pos_provider, pos_connected}}}` for every location of the merchant in the caller\'s grant; always an object (`{}` when none). `pos_provider`: `firstparty` for a first-party-register merchant, else the merchant-scoped integration (platform-a, register-b, register-c), else the location\'s register-d provider or register-a record, else null with `pos_connected` false.',
      },
    });
}
