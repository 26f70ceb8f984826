import { sql } from 'kysely';
import { errors } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { SETUP_STEPS, type SetupStepKey } from './setup-status.ts';

/**
 * Guided setup videos (spec 1 "Loyalty, setup, utilities"): one video per setup task (the steps of
 * setup-status), shared by every merchant and managed by global admins.
 */
export interface SetupVideo {
  task_id: string;
  title: string;
  video_url: string;
  updated_at: string;
}

const view = (r: { task_id: string; title: string; video_url: string; updated_at: Date }): SetupVideo => ({
  task_id: r.task_id,
  title: r.title,
  video_url: r.video_url,
  updated_at: r.updated_at.toISOString(),
});

export async function setupTasks(db: CentralDb): Promise<{ task_id: SetupStepKey; label: string; video: SetupVideo | null }[]> {
  const rows = await db.selectFrom('guided_setup_videos').selectAll().execute();
  const byTask = new Map(rows.map((r) => [r.task_id, view(r)]));
  return SETUP_STEPS.map((s) => ({ task_id: s.key, label: s.label, video: byTask.get(s.key) ?? null }));
}

export async function findSetupVideo(db: CentralDb, taskId: string): Promise<SetupVideo> {
  const row = await db.selectFrom('guided_setup_videos').selectAll().where('task_id', '=', taskId).executeTakeFirst();
  if (!row) throw errors.notFound('video');
  return view(row);
}

export async function saveSetupVideo(db: CentralDb, userId: string, input: { task_id: string; title: string; video_url: string }): Promise<SetupVideo> {
  if (!SETUP_STEPS.some((s) => s.key === input.task_id)) throw errors.field('task_id', 'The selected task id is invalid.');
  const title = input.title.trim();
  const row = await db
    .insertInto('guided_setup_videos')
    .values({ task_id: input.task_id, title, video_url: input.video_url, updated_by: userId })
    .onConflict((oc) => oc.column('task_id').doUpdateSet({ title, video_url: input.video_url, updated_by: userId, updated_at: sql<Date>`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
  return view(row);
}

export async function deleteSetupVideo(db: CentralDb, taskId: string): Promise<void> {
  const r = await db.deleteFrom('guided_setup_videos').where('task_id', '=', taskId).executeTakeFirst();
  if (!r.numDeletedRows) throw errors.notFound('video');
}
