import { Elysia } from 'elysia';
import { exportFiscalEvents } from '@pos/core/pos-admin/export-fiscal-events';
import { fiscalLocations } from '@pos/core/reports/fiscal-locations';
import { getBusinessDay } from '@pos/core/pos-admin/get-business-day';
import { listBusinessDays } from '@pos/core/pos-admin/list-business-days';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { firstPartyPos } from '../../plugins/first-party-pos.ts';
import { locationGate, scopeOf, doc } from '../pos-admin/pos-admin-gates.ts';
import * as P from '../pos-admin/pos-admin.schemas.ts';
import * as S from './pos-admin-reports.schemas.ts';

/** Fiscal status per location (VIEW_POS_REPORTS, checked by the service), business days with their Z reports and the fiscal journal export (VIEW_POS_REPORTS). Auth, type:backoffice and admin-vendor-override on the group; the gates are in pos-admin-gates.ts. */
export function posAdminReportRoutes(deps: ApiDeps) {
  const tags = ['Register administration: business days and fiscal journal'];
  return (
    new Elysia({ name: 'pos-admin-reports', prefix: '/back-office/pos' })
      .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
      .get('/fiscal-locations', async (ctx) => ({ fiscal_locations: await fiscalLocations({ tdb: ctx.tenant.db, access: await ctx.access(), now: deps.clock.now() }) }), {
        query: P.VendorQuery,
        response: { 200: S.FiscalLocationsResponse },
        transform: [firstPartyPos()],
        ...doc(
          tags,
          'Fiscal status per location',
          '`{fiscal_locations:{<locationId>:{regime, mandated, signing, has_fiscal_history}}}` for every location of the merchant in the caller\'s grant; always an object (`{}` when none). 403 without VIEW_POS_REPORTS (checked by the service).',
        ),
      })

      .get('/:locationId/business-days', async (ctx) => listBusinessDays(scopeOf(deps, ctx), ctx.params.locationId, ctx.query), {
        params: P.LocationParams,
        query: S.PagingQuery,
        response: { 200: S.BusinessDayList },
        transform: locationGate('VIEW_POS_REPORTS'),
        ...doc(tags, 'List business days', 'Data table, newest business date first: `{data:[{id, business_date, status, z_report_no, opened_at, closed_at}], total, page, per_page}`.'),
      })
      .get(
        '/:locationId/business-days/:businessDayId',
        async (ctx) => ({ data: await getBusinessDay(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.businessDayId) }),
        {
          params: S.BusinessDayParams,
          query: P.VendorQuery,
          response: { 200: S.BusinessDayResponse },
          transform: locationGate('VIEW_POS_REPORTS'),
          ...doc(tags, 'Z-report detail', 'The day, its stored `z_report` JSON verbatim (decimal major units; null while open), the day\'s `sales_by_tender` rows and `refunds` `{count, amount}` in cents (`amount`: the cash handed back).'),
        },
      )
      .get(
        '/:locationId/fiscal-events',
        async (ctx) => ({ data: await exportFiscalEvents(scopeOf(deps, ctx), deps.fiscal, ctx.params.locationId, ctx.query) }),
        {
          params: P.LocationParams,
          query: S.FiscalEventsQuery,
          response: { 200: S.FiscalEventsResponse },
          transform: locationGate('VIEW_POS_REPORTS'),
          ...doc(
            tags,
            'Fiscal journal export',
            '`{data:[{fdm_id, mode, status, entries, verification}]}` per fiscal device the location ever had; entries booked on the optional dates `from`..`to` (inclusive, each entry\'s `bookingDate`: a Z report taken after midnight or days later is its day\'s; a window holding more than 20000 entries is 422 on `from`); `verification` covers the device\'s whole journal (chain, results, head, and software-mode signatures).',
          ),
        },
      )
  );
}
