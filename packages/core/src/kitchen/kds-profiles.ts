import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { deleteDeviceProfile } from '../devices/delete-device-profile.ts';
import { profileViews, type BackofficeScope } from '../devices/device-records.ts';
import { DEFAULT_RECALL_WINDOW_MS } from '@pos/domain/kitchen/kds-order-state';
import { isUuid } from '@pos/domain/ids';

/**
 * KDS profiles (spec 2 `/kds-profiles`): the device profiles of type `kds`, with typed display
 * settings. A KDS device is bound to one with `POST /devices/{id}/profile`; its materialised settings
 * (`GET /kds/settings`) are these with the defaults filled in. `first-party-pos` and the permission
 * are checked by the route; another merchant's id, or the id of a profile of another type, is a 404.
 */
export interface KdsDisplaySettings {
  /** Minutes after completion during which an order may be recalled. */
  recall_window_minutes: number;
  /** An open order older than this many minutes counts as late. */
  late_after_minutes: number;
  /** Ticket order on the screen. */
  sort: 'oldest_first' | 'priority_first';
  /** Show modifiers under each line. */
  show_modifiers: boolean;
  /** Chime when a ticket arrives. */
  play_sound: boolean;
}

export const KDS_DEFAULT_SETTINGS: Readonly<KdsDisplaySettings> = {
  recall_window_minutes: DEFAULT_RECALL_WINDOW_MS / 60_000,
  late_after_minutes: 15,
  sort: 'priority_first',
  show_modifiers: true,
  play_sound: true,
};

export interface KdsProfileView {
  id: string;
  name: string;
  settings: KdsDisplaySettings;
  devices_count: number;
  created_at: string;
  updated_at: string;
}

/** Stored settings over the defaults (unknown keys are dropped). */
export function materialiseKdsSettings(stored: Record<string, unknown> | null | undefined): KdsDisplaySettings {
  const out = { ...KDS_DEFAULT_SETTINGS };
  for (const k of Object.keys(KDS_DEFAULT_SETTINGS) as (keyof KdsDisplaySettings)[]) {
    const v = stored?.[k];
    if (v !== undefined && typeof v === typeof KDS_DEFAULT_SETTINGS[k]) (out as Record<string, unknown>)[k] = v;
  }
  return out;
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
