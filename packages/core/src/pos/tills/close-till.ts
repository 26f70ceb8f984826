import { withWriteRetry, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { countResult, tillTransition } from '@pos/domain/tills/till-rules';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import type { TillCountResponse } from './count-till.ts';
import { requireLocationTill, tillResource } from './till-queries.ts';
import type { RegisterActor } from '../register-actor.ts';

/**
 * `POST /pos/tills/{tillId}/close` (spec 2 till rule 4, section 3), body `{approval_token?}`.
 *
 * Closing needs `count_till` (who counts, closes). Only an ended AND counted till closes (409
 * `till_not_ended` / `till_not_counted`; a closed till is frozen: 409 `till_closed`). When the count
 * requires approval (variance `major` or `critical`, or an earlier count of the till did), the caller must also hold `close_till` (or
 * `approve_as_manager`) or send an approval token for `close_till`: 403 otherwise, and the client
 * escalates. The till becomes closed and frozen, which frees its receptacle for a new till.
 *
 * Answers `{till, expected, counted, variance, variance_level, requires_approval,
 * approval_permission}` with the closed till nested under `till`, the variance block as counted.
 */
export async function closeTill(db: TenantDb, actor: RegisterActor, authorizer: StaffAuthorizer, tillId: string, now: Date): Promise<TillCountResponse> {
  const found = await requireLocationTill(db, actor.locationId, tillId);
  const refusedEarly = tillTransition({ state: found.state, counted: found.counted !== null }, 'close');
  if (refusedEarly.kind === 'refused') throw errors.conflict(refusedEarly.message, { reason: refusedEarly.reason });
  await authorizer.require('count_till');
  const early = countResult(found.expected_at_count ?? 0, found.counted ?? 0, found.flagged_variance);
  // The approver of a close that needs approval: a consumed token's manager, or the caller holding close_till.
  const approver = early.requires_approval ? ((await authorizer.require('close_till')) ?? actor.staffId) : null;
  const { row, result } = await withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      const till = await requireLocationTill(tx, actor.locationId, tillId, { lock: true });
      const t = tillTransition({ state: till.state, counted: till.counted !== null }, 'close');
      if (t.kind === 'refused') throw errors.conflict(t.message, { reason: t.reason });
      const result = countResult(till.expected_at_count ?? 0, till.counted ?? 0, till.flagged_variance);
      // A recount between the check and here could need an approval the caller did not give.
      if (result.requires_approval && approver === null) throw errors.insufficientPermissions();
      const row = await tx
        .updateTable('pos_tills')
        .set({ state: 'closed', closed_at: now, closed_by: actor.staffId, close_approved_by: result.requires_approval ? approver : null })
        .where('id', '=', till.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row, result };
    }),
  );
  return { till: await tillResource(db, row), ...result };
}
