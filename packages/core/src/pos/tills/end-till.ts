import { withWriteRetry, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { tillTransition } from '@pos/domain/tills/till-rules';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { requireLocationTill, tillResource, type TillResource } from './till-queries.ts';
import type { RegisterActor } from '../register-actor.ts';

/**
 * `POST /pos/tills/{tillId}/end` (permission `count_till`): open -> ended. An ended till takes no
 * more cash (sales, refunds and movements book to open tills only) and waits for its blind count.
 * Another state: 409 with the transition's `reason` (`till_not_open`, `till_closed`). A till of
 * another location: 404.
 */
export async function endTill(db: TenantDb, actor: RegisterActor, authorizer: StaffAuthorizer, tillId: string, now: Date): Promise<TillResource> {
  await requireLocationTill(db, actor.locationId, tillId);
  await authorizer.require('count_till');
  const row = await withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      const till = await requireLocationTill(tx, actor.locationId, tillId, { lock: true });
      const t = tillTransition({ state: till.state, counted: till.counted !== null }, 'end');
      if (t.kind === 'refused') throw errors.conflict(t.message, { reason: t.reason });
      return tx.updateTable('pos_tills').set({ state: 'ended', ended_at: now }).where('id', '=', till.id).returningAll().executeTakeFirstOrThrow();
    }),
  );
  return tillResource(db, row);
}
