import { t } from 'elysia';
import { PathId } from '../shared.schemas.ts';

/** Schemas of guided-setup-management (spec 1 "Loyalty, setup, utilities"). */
export const TaskParams = t.Object({ taskId: PathId({ description: 'a setup task: location, catalog, menu, payments, device, branding, language' }) });
export const VideoUrlQuery = t.Object({
  task_id: t.String({ minLength: 1, maxLength: 64, error: 'The task id field is required.', description: 'the setup task whose video to show' }),
});
export const SaveVideoBody = t.Object(
  {
    task_id: t.String({ minLength: 1, maxLength: 64, error: 'The task id field is required.' }),
    title: t.String({ minLength: 1, maxLength: 120, pattern: '\\S', error: 'The title field is required and may not be greater than 120 characters.' }),
    video_url: t.String({ maxLength: 500, pattern: '^https://[^\\s]+$', error: 'The video url field must be an https URL.' }),
  },
  { additionalProperties: false },
);
const Video = t.Object({ task_id: t.String(), title: t.String(), video_url: t.String(), updated_at: t.String({ format: 'date-time' }) });
export const VideoResponse = t.Object({ data: Video });
export const TasksResponse = t.Object({ data: t.Array(t.Object({ task_id: t.String(), label: t.String(), video: t.Nullable(Video) })) });
export const Success = t.Object({ status: t.Literal('success') });
