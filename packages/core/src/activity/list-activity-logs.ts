import { sql } from 'kysely';
import type { CentralDb, TenantDb } from '@pos/db';
import type { Access } from '../auth/access.ts';
import { likePattern, paging, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { withinGrant } from './activity-grant.ts';

export interface ActivityLogQuery extends DatatableQuery {
  /** Exact subject (model name: `role`, `user`, ...). */
  subject?: string;
  /** Only entries written by this back-office user. */
  user_id?: string;
}

export interface ActivityLogRow {
  id: string;
  /** Who wrote it; null for system writes or an account that no longer exists. */
  user: { id: string; name: string } | null;
  action: string;
  subject: string;
  subject_id: string | null;
  properties: Record<string, unknown>;
  created_at: string;
}

/**
 * `GET /activity-logs/datatable`: the merchant's activity log, newest first (entries of one
 * transaction share `created_at`; their time-ordered v7 ids break the tie). `search` matches the
 * action or the subject, case-insensitively. User names come from the central accounts. A caller
 * granted some locations reads only entries tied to none outside them (`activity-grant.ts`), and
 * `total` counts only those; merchant-wide entries are shown to every caller.
 */
export async function listActivityLogs(db: CentralDb, tdb: TenantDb, access: Access, q: ActivityLogQuery): Promise<Datatable<ActivityLogRow>> {
  const { page, perPage, offset } = paging(q);
  let base = tdb.selectFrom('activity_logs');
  if (!access.allLocations) base = base.where((eb) => withinGrant(eb, [...access.locationIds]));
  const search = q.search?.trim();
  if (search) {
    const p = likePattern(search);
    base = base.where((eb) => eb.or([eb('action', 'ilike', p), eb('subject', 'ilike', p), sql<boolean>`(action || ' ' || subject) ilike ${p}`]));
  }
  if (q.subject) base = base.where('subject', '=', q.subject);
  if (q.user_id) base = base.where('user_id', '=', q.user_id);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(perPage).offset(offset).execute(),
  ]);
  const userIds = [...new Set(rows.map((r) => r.user_id).filter((id): id is string => id !== null))];
  const users = userIds.length ? await db.selectFrom('users').select(['id', 'name']).where('id', 'in', userIds).execute() : [];
  const names = new Map(users.map((u) => [u.id, u.name]));
  return {
    data: rows.map((r) => {
      const name = r.user_id ? names.get(r.user_id) : undefined;
      return {
        id: r.id,
        user: r.user_id && name !== undefined ? { id: r.user_id, name } : null,
        action: r.action,
        subject: r.subject,
        subject_id: r.subject_id,
        properties: r.properties,
        created_at: r.created_at.toISOString(),
      };
    }),
    total: Number(count.n),
    page,
    per_page: perPage,
  };
}
