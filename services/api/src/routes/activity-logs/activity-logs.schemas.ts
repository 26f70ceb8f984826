import { t } from 'elysia';
import { Paging, vendorIdField, Int } from '../shared.schemas.ts';

export const ActivityLogQuery = t.Object({
  ...Paging,
  search: t.Optional(t.String({ maxLength: 255, description: 'matches the action or the subject' })),
  subject: t.Optional(t.String({ maxLength: 100, description: 'exact subject (role, user, ...)' })),
  user_id: t.Optional(t.String({ format: 'uuid', error: 'The user_id field must be a valid UUID.' })),
  ...vendorIdField(),
});

export const ActivityLogRow = t.Object({
  id: t.String(),
  user: t.Nullable(t.Object({ id: t.String(), name: t.String() })),
  action: t.String(),
  subject: t.String(),
  subject_id: t.Nullable(t.String()),
  properties: t.Record(t.String(), t.Unknown()),
  created_at: t.String(),
});

export const ActivityLogDatatable = t.Object({
  data: t.Array(ActivityLogRow),
  total: Int(),
  page: Int(),
  per_page: Int(),
});
