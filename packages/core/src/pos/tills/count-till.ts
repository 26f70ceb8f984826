import { withWriteRetry, type TenantDb } from '@pos/db';
import { errors, type Logger } from '@pos/kernel';
import { toFieldErrorMap } from '@pos/domain/field-error';
import { countResult, flaggedVariance, readCountBody, tillTransition, type CountResult } from '@pos/domain/tills/till-rules';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { requireLocationTill, tillCash, tillCashPending, tillResource, TILL_CASH_PENDING_MESSAGE, type TillResource } from './till-queries.ts';
import type { RegisterActor } from '../register-actor.ts';

/** The count and close responses: the till beside the flat variance block (spec 2 till rules 3 and 4). */
export type TillCountResponse = { till: TillResource } & CountResult;

/**
 * `POST /pos/tills/{tillId}/count` (permission `count_till`; spec 2 till rule 3), body `{counted}`
 * (integer cents >= 0). The deprecated `counted_close` is read only when `counted` is absent, and
 * logs a deprecation warning. Only an ENDED till is counted (409 `till_not_ended` otherwise); a
 * recount before the close replaces the count, but once a count needing `close_till` approval showed
 * the expected cash, its variance stays flagged on the till (`flagged_variance`) and every recount
 * answers `requires_approval` true: entering the number just shown does not skip the manager.
 *
 * The count is blind: the expected cash is never shown before a number is entered, and this
 * response (after counting) is the first place it appears. Expected = opening float + cash kept on
 * the till's sales - its cash refunds + its movements; variance = counted - expected, its level and
 * whether the close needs `close_till` come from the till rules.
 */
export async function countTill(db: TenantDb, log: Logger, actor: RegisterActor, authorizer: StaffAuthorizer, tillId: string, body: unknown, now: Date): Promise<TillCountResponse> {
  await requireLocationTill(db, actor.locationId, tillId);
  const read = readCountBody((body ?? {}) as { counted?: unknown; counted_close?: unknown });
  if (read.kind === 'invalid') throw errors.validation(toFieldErrorMap(read.errors));
  if (read.deprecated) log.warn('deprecated till count field counted_close used; send counted', { till_id: tillId, device_id: actor.deviceId });
  await authorizer.require('count_till');
  const { row, result } = await withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      const till = await requireLocationTill(tx, actor.locationId, tillId, { lock: true });
      const t = tillTransition({ state: till.state, counted: till.counted !== null }, 'count');
      if (t.kind === 'refused') throw errors.conflict(t.message, { reason: t.reason });
      // The count freezes the expected cash: not while part of it may still be signed or taken back.
      if (await tillCashPending(tx, till)) throw errors.conflict(TILL_CASH_PENDING_MESSAGE, { reason: 'fiscal_pending' });
      const { expected } = await tillCash(tx, till);
      const result = countResult(expected, read.counted, till.flagged_variance);
      const row = await tx
        .updateTable('pos_tills')
        .set({
          flagged_variance: flaggedVariance(till.flagged_variance, result),
          counted: result.counted,
          expected_at_count: result.expected,
          variance: result.variance,
          variance_level: result.variance_level,
          counted_at: now,
          counted_by: actor.staffId,
        })
        .where('id', '=', till.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row, result };
    }),
  );
  return { till: await tillResource(db, row), ...result };
}
