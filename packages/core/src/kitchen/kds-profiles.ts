import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { deleteDeviceProfile } from '../devices/delete-device-profile.ts';
import { profileViews, requireProfileWithinGrant, type BackofficeScope } from '../devices/device-records.ts';
import { kdsSettingsErrors, materialiseKdsSettings, type KdsDisplaySettings } from '@pos/domain/kitchen/kds-settings';
import { isUuid } from '@pos/domain/ids';

export { KDS_DEFAULT_SETTINGS, materialiseKdsSettings, type KdsDisplaySettings } from '@pos/domain/kitchen/kds-settings';

/** 422 (fields `settings.<key>`) unless `settings` holds only KDS settings within their bounds. */
export function requireKdsSettings(settings: Record<string, unknown>): void {
  const bad = kdsSettingsErrors(settings);
  if (bad) throw errors.validation(bad);
}

/**
 * KDS profiles (spec 2 `/kds-profiles`): the device profiles of type `kds`, with typed display
 * settings. A KDS device is bound to one with `POST /devices/{id}/profile`; its materialised settings
 * (`GET /kds/settings`) are these with the defaults filled in. `first-party-pos` and the permission
 * are checked by the route; another merchant's id, or the id of a profile of another type, is a 404.
 */
export interface KdsProfileView {
  id: string;
  name: string;
  settings: KdsDisplaySettings;
  devices_count: number;
  created_at: string;
  updated_at: string;
}

async function views(scope: BackofficeScope, ids: string[]): Promise<KdsProfileView[]> {
  return (await profileViews(scope.tdb, ids)).map((p) => ({ id: p.id, name: p.name, settings: materialiseKdsSettings(p.settings), devices_count: p.devices_count, created_at: p.created_at, updated_at: p.updated_at }));
}

async function findKdsProfile(scope: BackofficeScope, id: string) {
  const p = isUuid(id) ? await scope.tdb.selectFrom('device_profiles').selectAll().where('id', '=', id).where('type', '=', 'kds').executeTakeFirst() : undefined;
  if (!p) throw errors.notFound('KDS profile');
  return p;
}

/** `GET /back-office/kds-profiles` (VIEW_DEVICE_PROFILE): every KDS profile by name. */
export async function listKdsProfiles(scope: BackofficeScope): Promise<KdsProfileView[]> {
  const rows = await scope.tdb.selectFrom('device_profiles').select('id').where('type', '=', 'kds').orderBy('name').orderBy('id').execute();
  return views(scope, rows.map((r) => r.id));
}

/** `GET /back-office/kds-profiles/options` (VIEW_DEVICE_PROFILE): `{value, label}` by name. */
export async function kdsProfileOptions(scope: BackofficeScope): Promise<{ value: string; label: string }[]> {
  const rows = await scope.tdb.selectFrom('device_profiles').select(['id', 'name']).where('type', '=', 'kds').orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ value: r.id, label: r.name }));
}

export async function getKdsProfile(scope: BackofficeScope, id: string): Promise<KdsProfileView> {
  const p = await findKdsProfile(scope, id);
  return (await views(scope, [p.id]))[0]!;
}

/** `POST /back-office/kds-profiles` (CREATE_DEVICE_PROFILE): settings not given take their defaults. */
export async function createKdsProfile(scope: BackofficeScope, input: { name: string; settings?: Partial<KdsDisplaySettings> }): Promise<KdsProfileView> {
  const id = Bun.randomUUIDv7();
  const settings = materialiseKdsSettings(input.settings);
  await scope.tdb.transaction().execute(async (tx) => {
    await tx.insertInto('device_profiles').values({ id, name: input.name.trim(), type: 'kds', settings: JSON.stringify(settings), created_at: scope.now, updated_at: scope.now }).execute();
    await logActivity(tx, { userId: scope.userId, action: 'created', subject: 'kds_profile', subjectId: id, properties: { name: input.name.trim() } });
  });
  return (await views(scope, [id]))[0]!;
}

/** `PUT /back-office/kds-profiles/{id}` (EDIT_DEVICE_PROFILE): name and the settings given (merged over the current ones). */
export async function updateKdsProfile(scope: BackofficeScope, id: string, input: { name?: string; settings?: Partial<KdsDisplaySettings> }): Promise<KdsProfileView> {
  const p = await findKdsProfile(scope, id);
  await scope.tdb.transaction().execute(async (tx) => {
    // Merged over the settings read under the row lock: concurrent updates of different keys both survive.
    const locked = await tx.selectFrom('device_profiles').select('settings').where('id', '=', p.id).forUpdate().executeTakeFirst();
    if (!locked) throw errors.notFound('KDS profile');
    // The profile drives every screen bound to it: rewritten only within the grant of each (as `/device-profiles`).
    await requireProfileWithinGrant(tx, scope.access, p.id);
    const settings = materialiseKdsSettings({ ...materialiseKdsSettings(locked.settings), ...input.settings });
    await tx
      .updateTable('device_profiles')
      .set({ ...(input.name !== undefined ? { name: input.name.trim() } : {}), settings: JSON.stringify(settings), updated_at: scope.now })
      .where('id', '=', p.id)
      .execute();
    await logActivity(tx, { userId: scope.userId, action: 'updated', subject: 'kds_profile', subjectId: p.id, properties: { ...input } });
  });
  return (await views(scope, [p.id]))[0]!;
}

/** `DELETE /back-office/kds-profiles/{id}` (DELETE_DEVICE_PROFILE): its devices are unbound; returns how many. */
export async function deleteKdsProfile(scope: BackofficeScope, id: string): Promise<number> {
  const p = await findKdsProfile(scope, id);
  return deleteDeviceProfile(scope, p.id);
}
