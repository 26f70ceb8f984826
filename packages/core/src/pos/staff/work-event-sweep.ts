import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { GKS_REGIME } from '../../fiscal/active-fdm.ts';
import { queueWorkEvent, WORK_EVENT_SUBJECT_TYPE, type WorkEventInput } from './sign-work-event.ts';

/**
 * The work-event sweep. A session's work-in and work-out are signed by `fiscal.work-event` jobs that
 * the session change writes to the outbox. Once relayed, Redis holds the only copy: a Redis that loses
 * its data, or a job that spent its retries (about a minute) while the database or the module was
 * away, left the session without its signed event, for good. The sweep finds the sessions of the
 * window, at locations with an active fiscal enrolment since before the session, whose event has no
 * journal entry at all (a refused entry is the job's failure to retry, not a lost job), and queues their
 * jobs again: signing is once per session and kind, so a job that was only slow signs nothing twice.
 */

/** Events younger than this are left to their jobs in flight (whose retries span about a minute). */
export const WORK_EVENT_SWEEP_GRACE_MS = 5 * 60_000;
/** How far back the sweep looks. */
export const WORK_EVENT_SWEEP_WINDOW_MS = 24 * 3600_000;
/** Events re-queued per sweep and merchant (the next sweep takes the rest). */
export const WORK_EVENT_SWEEP_LIMIT = 200;

export interface UnsignedWorkEvent extends WorkEventInput {}

/**
 * Sessions that ran out (spec 2: staff tokens expire after 12 hours) without a pin-logout, which is
 * best-effort, get their end: the expiry. Nothing else ends them, so their work-out was never queued or
 * swept; from here it is swept as any other. Answers how many.
 */
export async function endExpiredStaffSessions(db: TenantDb, now: Date): Promise<number> {
  const r = await db.updateTable('pos_staff_sessions').set({ ended_at: sql`expires_at` }).where('ended_at', 'is', null).where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** The work events of the window with no journal entry, oldest first. */
export async function findUnsignedWorkEvents(db: TenantDb, now: Date, limit = WORK_EVENT_SWEEP_LIMIT): Promise<UnsignedWorkEvent[]> {
  const from = new Date(now.getTime() - WORK_EVENT_SWEEP_WINDOW_MS);
  const to = new Date(now.getTime() - WORK_EVENT_SWEEP_GRACE_MS);
  const of = (kind: 'work_in' | 'work_out') => {
    const at = kind === 'work_in' ? 's.created_at' : 's.ended_at';
    return db
      .selectFrom('pos_staff_sessions as s')
      .select(['s.id', 's.staff_id', 's.device_id', 's.location_id', sql<Date>`${sql.ref(at)}`.as('at')])
      .where(at, '>=', from)
      .where(at, '<', to)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('fdm_devices as f')
            .select('f.id')
            .whereRef('f.location_id', '=', 's.location_id')
            .where('f.status', '=', 'active')
            .where('f.regime', '=', GKS_REGIME)
            .whereRef('f.created_at', '<=', 's.created_at'),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('fiscal_journal as j')
              .select('j.id')
              .where('j.subject_type', '=', WORK_EVENT_SUBJECT_TYPE)
              .where('j.subject_id', '=', sql<string>`${sql.ref('s.id')}::text || ${`:${kind}`}`),
          ),
        ),
      )
      .orderBy(at)
      .orderBy('s.id')
      .limit(limit)
      .execute()
      .then((rows) => rows.map((x) => ({ at: new Date(x.at).getTime(), e: { kind, sessionId: x.id, staffId: x.staff_id, deviceId: x.device_id, locationId: x.location_id } })));
  };
  const all = [...(await of('work_in')), ...(await of('work_out'))];
  // Oldest first; a session's work-in before its work-out (the sweep queues them in this order).
  all.sort((a, b) => a.at - b.at || (a.e.sessionId < b.e.sessionId ? -1 : a.e.sessionId > b.e.sessionId ? 1 : a.e.kind === 'work_in' ? -1 : 1));
  return all.slice(0, limit).map((x) => x.e);
}

/** Queues the jobs of the unsigned events `claim` lets through (one at a time per event); answers how many. */
export async function requeueWorkEvents(db: TenantDb, tenantDatabase: string, events: readonly UnsignedWorkEvent[], claim: (key: string) => Promise<boolean>): Promise<number> {
  let n = 0;
  for (const e of events) {
    if (!(await claim(`${e.sessionId}:${e.kind}`))) continue;
    await queueWorkEvent(db, tenantDatabase, e);
    n++;
  }
  return n;
}
