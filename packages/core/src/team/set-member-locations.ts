import type { FieldErrors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { checkLocationIds, findMember, inTeamTransaction, loadMember, throwIfInvalid, type MemberView, type TeamScope } from './team-scope.ts';

export interface SetMemberLocationsInput {
  location_ids: readonly string[];
  /** Global user flag (every location, including future ones); absent keeps the current value. */
  all_locations?: boolean;
}

/**
 * `PUT /team/users/{userId}/locations`: replaces the member's explicit location grants (every id a
 * location of this merchant, else 422 `location_ids.N`) and optionally sets `all_locations`, the
 * only way a member becomes or stops being a global user. Logs `updated locations`.
 */
export async function setMemberLocations(scope: TeamScope, userId: string, input: SetMemberLocationsInput): Promise<MemberView> {
  await inTeamTransaction(scope, async (central, tx) => {
    const member = await findMember(central, scope.merchant.id, userId);
    const errs: FieldErrors = {};
    const locationIds = await checkLocationIds(tx, input.location_ids, errs);
    throwIfInvalid(errs);
    await tx.deleteFrom('user_locations').where('user_id', '=', member.id).execute();
    if (locationIds.length) await tx.insertInto('user_locations').values(locationIds.map((location_id) => ({ user_id: member.id, location_id }))).execute();
    let allLocations = input.all_locations;
    if (allLocations === undefined) {
      const s = await tx.selectFrom('member_settings').select('all_locations').where('user_id', '=', member.id).executeTakeFirst();
      allLocations = s?.all_locations ?? false;
    }
    await tx
      .insertInto('member_settings')
      .values({ user_id: member.id, all_locations: allLocations, created_at: scope.now, updated_at: scope.now })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ all_locations: allLocations, updated_at: scope.now }))
      .execute();
    await logActivity(tx, {
      userId: scope.userId,
      action: 'updated locations',
      subject: 'user',
      subjectId: member.id,
      properties: { location_ids: locationIds, all_locations: allLocations },
    });
  });
  return loadMember(scope.db, scope.tdb, scope.merchant.id, userId);
}
