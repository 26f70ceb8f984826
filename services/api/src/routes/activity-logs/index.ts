import { Elysia } from 'elysia';
import { listActivityLogs } from '@pos/core/activity/list-activity-logs';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import * as S from './activity-logs.schemas.ts';

/**
 * `GET /back-office/settings/activity-logs/datatable` (spec 1 "Settings", VIEW_ACTIVITY_LOGS): the
 * merchant's activity log, newest first, within the caller's location grant. Also answered at `/back-office/activity-logs/datatable`
 * (same handler; the issue names this path, spec 1 lists it under settings).
 */
export function activityLogRoutes(deps: ApiDeps) {
  const hook = (hide: boolean) => ({
    query: S.ActivityLogQuery,
    transform: permission('VIEW_ACTIVITY_LOGS'),
    response: { 200: S.ActivityLogDatatable },
    detail: {
      tags: ['Activity logs'],
      summary: 'Activity log, newest first (data table)',
      description: 'Permission: VIEW_ACTIVITY_LOGS. `search` matches action or subject; `subject` and `user_id` filter exactly. A member granted some locations sees only entries tied to none outside them (merchant-wide entries stay visible).',
      security: [{ bearer: [] }],
      hide,
    },
  });
  return new Elysia({ name: 'activity-logs' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/back-office/settings/activity-logs/datatable', async ({ tenant, access, query }) => listActivityLogs(deps.db, tenant.db, await access(), query), hook(false))
    .get('/back-office/activity-logs/datatable', async ({ tenant, access, query }) => listActivityLogs(deps.db, tenant.db, await access(), query), hook(false));
}
