import { Elysia } from 'elysia';
import { salesReport } from '@pos/core/reports/sales-report';
import { productsReport } from '@pos/core/reports/products-report';
import { inventoryReport } from '@pos/core/reports/inventory-report';
import { exportReport, REPORT_EXPORTS, type ReportKind } from '@pos/core/reports/export-report';
import { accessCan, requirePermission, type Access } from '@pos/core/auth/access';
import { errors } from '@pos/kernel';
import { posCoverage } from '@pos/core/reports/pos-coverage';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission, permissionGate } from '../../plugins/guards.ts';
import * as S from './reports.schemas.ts';

const tags = ['Reports'];
const security = [{ bearer: [] }];

/**
 * The "reporting-export-permission middleware" of spec 1: the permission of the report being exported
 * (`REPORT_EXPORTS`), so a caller exports exactly what they may view. It runs before the query's
 * schema check, as every permission gate does: a `report` that is one of the kinds needs its
 * permission; any other value (the schema answers it with a 422) needs at least one export
 * permission, so a caller holding none is refused (403) whatever the query.
 */
function reportExportPermission() {
  return permissionGate('the exported report\'s', async (ctx: { access: () => Promise<Access>; query: Record<string, unknown> }) => {
    const access = await ctx.access();
    const report = ctx.query.report;
    const kind = typeof report === 'string' && Object.hasOwn(REPORT_EXPORTS, report) ? REPORT_EXPORTS[report as ReportKind] : undefined;
    if (kind) return requirePermission(access, kind.permission);
    if (!Object.values(REPORT_EXPORTS).some((k) => accessCan(access, k.permission))) throw errors.insufficientPermissions();
  });
}

const WINDOW = 'Query `from`, `to` (dates, inclusive, at most 366 days) and optional `location_id` (a location outside the caller\'s grant is 403, of another merchant 404); the merchant\'s locations in the caller\'s grant.';
const COUNTED = 'The register\'s settled sales and refunds count by fiscal business date; the kiosk, online, table QR and delivery channels\' `Complete` transactions outside test mode by the local date they completed on. Money in integer cents.';

/**
 * Spec 1 "Transactions and reports": `GET /back-office/reports/sales` and `/products`
 * (VIEW_SALES_REPORTS), `/inventory` (VIEW_INVENTORY), `/export` (the exported report's permission).
 * The report routes carry no admin-vendor-override (spec 1): `vendor_id` is not a parameter here and is
 * refused like any undeclared query key (422), so an admin never silently reads their own merchant's
 * figures believing they are another's.
 */
export function reportRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'reports', prefix: '/back-office/reports' })
    .use(secured(deps, { types: ['backoffice'] }))
    .get('/sales', async (ctx) => ({ data: await salesReport({ tdb: ctx.tenant.db, access: await ctx.access() }, ctx.query) }), {
      query: S.SalesReportQuery,
      response: { 200: S.SalesReportResponse },
      transform: [permission('VIEW_SALES_REPORTS')],
      detail: {
        tags,
        security,
        summary: 'Sales report',
        description: `${WINDOW} ${COUNTED} Answers \`{data:{from, to, location_ids, totals:{sales_count, refunds_count, gross, refunds, net, tips, fees}, by_channel:[{channel, ...the same figures}] (register, kiosk, online_ordering, table_qr, delivery, always all five), by_tender:[{label, amount, count}] (the register's sales: Cash, Card, Meal voucher, Gift voucher, Unknown; refunds off Cash, as in the X/Z reports), by_vat_rate:[{rate, net, vat, gross}]}}\`; \`gross\` is what the goods sold for, discounts taken off, tips and fees (a marketplace's delivery fee) apart; \`refunds\` the refunded goods' turnover in the same terms (not the cash handed back, which differs by a cash-rounded sale's rounding: the Z report's detail counts that); a marketplace order its marketplace cancelled is no sale.`,
      },
    })
    .get('/products', async (ctx) => ({ data: await productsReport({ tdb: ctx.tenant.db, access: await ctx.access() }, ctx.query) }), {
      query: S.ReportQuery,
      response: { 200: S.ProductsReportResponse },
      transform: [permission('VIEW_SALES_REPORTS')],
      detail: {
        tags,
        security,
        summary: 'Items report',
        description: `${WINDOW} ${COUNTED} Answers \`{data:{from, to, location_ids, totals:{quantity, gross, refunded_quantity, refunds, net}, items:[{item_id, name, quantity, gross, refunded_quantity, refunds, net}]}}\`, items by net descending; line totals with their discounts taken off and their modifiers in.`,
      },
    })
    .get('/inventory', async (ctx) => ({ data: await inventoryReport({ tdb: ctx.tenant.db, access: await ctx.access() }, ctx.query) }), {
      query: S.ReportQuery,
      response: { 200: S.InventoryReportResponse },
      transform: [permission('VIEW_INVENTORY')],
      detail: {
        tags,
        security,
        summary: 'Inventory report',
        description: `${WINDOW} Every stock (item at a location) of those locations: \`{data:{from, to, location_ids, stocks:[{item_id, item_name, location_id, location_name, opening, movements:{restock, sale, waste, adjustment, count}, closing, current}]}}\`. \`opening\` is the stock at the start of \`from\` and \`closing\` at the end of \`to\` (the location's local time), \`movements\` the signed change of each kind within, \`current\` the stock now.`,
      },
    })
    .get(
      '/export',
      async (ctx) => {
        const file = await exportReport({ tdb: ctx.tenant.db, access: await ctx.access() }, ctx.query);
        return new Response(file.body, { headers: { 'content-type': file.contentType, 'content-disposition': `attachment; filename="${file.filename}"` } });
      },
      {
        query: S.ReportExportQuery,
        response: { 200: S.ReportFile },
        transform: [reportExportPermission()],
        detail: {
          tags,
          security,
          summary: 'Export a report',
          description: `\`report\`: \`sales\` (one row per date, location and channel that sold or refunded: date, location_id, location_name, channel, sales_count, refunds_count, gross, refunds, net, tips, fees, net_eur), \`products\` (the items report's rows) or \`inventory\` (the inventory report's rows, one column per movement kind); \`format\` \`csv\` (default; UTF-8 with a byte-order mark) or \`xlsx\`. Permission: the exported report's (VIEW_SALES_REPORTS for sales and products, VIEW_INVENTORY for inventory). ${WINDOW}`,
        },
      },
    );
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
