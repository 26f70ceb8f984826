import { Elysia } from 'elysia';
import { deleteSetupVideo, findSetupVideo, saveSetupVideo, setupTasks } from '@pos/core/settings/guided-setup';
import type { ApiDeps } from '../../context.ts';
import { requireGlobalAdmin } from '@pos/core/auth/caller-gates';
import { secured } from '../../plugins/secured.ts';
import * as S from './guided-setup-management.schemas.ts';

const doc = (summary: string, perm: string, description?: string) => ({
  detail: { tags: ['Guided setup management'], summary, description: [`Permission: ${perm}.`, description].filter(Boolean).join(' '), security: [{ bearer: [] }] },
});

/**
 * `/back-office/guided-setup-management` (spec 1 "Loyalty, setup, utilities"): the video shown for each
 * setup task. Reading one task's video needs only auth; the list and management are `global-admin`.
 */
export function guidedSetupManagementRoutes(deps: ApiDeps) {
  const admin = async ({ auth }: { auth: { userId: string } }) => requireGlobalAdmin(deps.db, auth.userId);
  return new Elysia({ name: 'guided-setup-management', prefix: '/back-office/guided-setup-management' })
    .use(secured(deps, { types: ['backoffice'] }))
    .get('/video/url', async ({ query }) => ({ data: await findSetupVideo(deps.db, query.task_id) }), {
      query: S.VideoUrlQuery,
      response: { 200: S.VideoResponse },
      ...doc('The setup video of a task', 'auth', '404 when the task has no video.'),
    })
    .get('/tasks', async () => ({ data: await setupTasks(deps.db) }), {
      transform: admin,
      response: { 200: S.TasksResponse },
      ...doc('Setup tasks with their video', 'global-admin role', 'The setup-status steps in order, each with its video or null.'),
    })
    .post('/video', async ({ auth, body }) => ({ data: await saveSetupVideo(deps.db, auth.userId, body) }), {
      transform: admin,
      body: S.SaveVideoBody,
      response: { 200: S.VideoResponse },
      ...doc('Create or update a task\'s video', 'global-admin role', '`task_id` must be a setup task (422); `video_url` an https URL.'),
    })
    .get('/video/:taskId', async ({ params }) => ({ data: await findSetupVideo(deps.db, params.taskId) }), {
      transform: admin,
      params: S.TaskParams,
      response: { 200: S.VideoResponse },
      ...doc('A task\'s video', 'global-admin role', '404 when the task has none.'),
    })
    .delete(
      '/video/:taskId',
      async ({ params }) => {
        await deleteSetupVideo(deps.db, params.taskId);
        return { status: 'success' as const };
      },
      {
        transform: admin,
        params: S.TaskParams,
        response: { 200: S.Success },
        ...doc('Delete a task\'s video', 'global-admin role', '404 when the task has none.'),
      },
    );
}
