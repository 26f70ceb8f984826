import { Elysia } from 'elysia';
import type { ApiDeps } from '../../context.ts';
import { posAdminStaffRoutes } from '../pos-admin-staff/index.ts';
import { posAdminReportRoutes } from '../pos-admin-reports/index.ts';
import { posAdminRegisterRoutes } from '../pos-admin-registers/index.ts';
import { posAdminDrawerRoutes } from '../pos-admin-drawers/index.ts';
import { posAdminFdmDeviceRoutes } from '../pos-admin-fdm-devices/index.ts';
import { posAdminLayoutRoutes } from '../pos-admin-layouts/index.ts';

/**
 * Spec 2 "Back-office routes for the first-party register", under `/back-office/pos`: one Elysia
 * instance per feature (staff credentials, reports, registers, drawers, fiscal devices, screen layouts), each with
 * its own middleware and schemas; the gates they share are in pos-admin-gates.ts.
 */
export function posAdminRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'pos-admin' })
    .use(posAdminStaffRoutes(deps))
    .use(posAdminReportRoutes(deps))
    .use(posAdminRegisterRoutes(deps))
    .use(posAdminDrawerRoutes(deps))
    .use(posAdminFdmDeviceRoutes(deps))
    .use(posAdminLayoutRoutes(deps));
}
