import { Elysia } from 'elysia';
import { getBusinessDay } from '@pos/core/pos/business-day/get-business-day';
import { getXReport } from '@pos/core/pos/business-day/get-x-report';
import { closeBusinessDay } from '@pos/core/pos/business-day/close-business-day';
import type { ApiDeps } from '../../context.ts';
import { posStaff } from '../../plugins/pos-secured.ts';
import * as S from './pos-business-day.schemas.ts';
import { queueReport } from '@pos/core/printers/print-dispatch';
import { afterCommit } from '../print-hooks.ts';

const tags = ['Register: business day'];
const security = [{ bearer: [] }];

/** The fiscal business day (spec 2 section 3 and 4): peek, X report, Z close. */
export function posBusinessDayRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'pos-business-day' })
    .use(posStaff(deps))
    .get('/pos/business-day', ({ tenant, device }) => getBusinessDay(tenant.db, { locationId: device.location_id }, deps.clock.now()), {
      response: { 200: S.BusinessDay },
      detail: {
        tags,
        security,
        summary: 'Peek at the fiscal business day (read only; also the recovery probe)',
        description:
          "The location's oldest business day still open up to today (a forgotten Z close comes first), else today's. `{business_date, status, location_id, opened_at, closed_at, sales_count, open_tills, z_report_no}`. Days follow the location's time zone; a day is created at its first sale, refund, till event or close.",
      },
    })
    .get(
      '/pos/business-day/x-report',
      // The domain's readonly arrays, served as they are.
      async ({ tenant, device, actor }) => {
        const report = await getXReport(tenant.db, deps.fiscal, actor, deps.clock.now());
        // Every X request is a print (issue 15): on the location's receipt printers.
        await afterCommit(deps, 'x report', () => queueReport(tenant.db, { locationId: device.location_id, title: 'X report', sourceKey: null, sections: { ...report }, at: deps.clock.now() }));
        return report as typeof S.XReport.static;
      },
      {
        response: { 200: S.XReport },
        detail: {
          tags,
          security,
          summary: 'X report of the business day: `{turnover_x, user_x}` in decimal major units',
          description:
            'Over the settled sales and refunds booked on the day `GET /pos/business-day` shows. Every call is an X report print: it is signed as `report_x_turnover` and `report_x_user` events (label R) and journaled. The day stays open. After its Z close: 409 `business_day_closed` (nothing more is signed into that period).',
        },
      },
    )
    .post(
      '/pos/business-day/close',
      async ({ body, tenant, device, authorizer, actor }) => {
        const closed = await closeBusinessDay(tenant.db, deps.fiscal, actor, authorizer(body?.approval_token), deps.clock.now());
        const z = closed.z_report as unknown as Record<string, unknown>;
        const { fiscal: _fiscal, ...printed } = z;
        await afterCommit(deps, 'z report', () =>
          queueReport(tenant.db, { locationId: device.location_id, title: `Z report ${String(z.report_number ?? '')}`.trim(), sourceKey: `z:${device.location_id}:${closed.business_date}`, sections: { ...printed }, at: deps.clock.now() }),
        );
        return closed as typeof S.BusinessDayClose.static;
      },
      {
        body: S.ApprovalBody,
        response: { 200: S.BusinessDayClose },
        detail: {
          tags,
          security,
          summary: 'Z close of the business day (`close_business_day`)',
          description:
            "Signs the Z report (`report_z`, numbered 1, 2, 3... per location), stores it on the day and closes it. 409 `already_closed` for a closed day; 409 `open_tills` (with `tills`) while a till of the day is not closed; 409 `sales_in_flight` while a sale waits for a remote fiscal module. After the close, that date's sales, refunds, till movements and till openings are 409 `business_day_closed`; the next business day starts at local midnight. A remote fiscal module that does not answer: 503 `fiscal_unreachable`, the day closed with its Z kept; a close while that Z waits is its retry (200 with the Z report once signed, 503 while unreachable).",
        },
      },
    );
}
