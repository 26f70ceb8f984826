import { t } from 'elysia';

/**
 * The auto-sync schedule payload (spec 1). Bounds only here; the `HH:MM` / zone rules are checked by
 * `validateAutoSyncPayload` so every route answers the same 422 texts.
 */
const syncTime = t.String({ maxLength: 8, description: '`HH:MM`, hour 0-23, minutes 00 or 30; local wall-clock time' });
const syncTimezone = t.Nullable(t.String({ maxLength: 64, description: 'IANA time-zone identifier' }));

export const platformASyncTimeBody = t.Object(
  {
    sync_time: t.Nullable(syncTime),
    sync_timezone: t.Optional(syncTimezone),
    enable_auto_sync: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
);

export const registerCSyncTimeBody = t.Object(
  {
    sync_time: t.Optional(t.Nullable(syncTime)),
    sync_timezone: t.Optional(syncTimezone),
  },
  { additionalProperties: false },
);

export const autoSyncStatusSchema = t.Object({
  sync_time: t.Nullable(t.String()),
  sync_timezone: t.String(),
  enable_auto_sync: t.Boolean(),
  next_sync_at: t.Nullable(t.String()),
  /** The last scheduled provider sync; null before the first. */
  last_sync: t.Nullable(
    t.Object({
      status: t.String(),
      error: t.Nullable(t.String()),
      counts: t.Nullable(t.Record(t.String(), t.Number())),
      finished_at: t.Nullable(t.String()),
    }),
  ),
});

export const autoSyncWriteResponse = t.Object({ status: t.Literal('success'), data: autoSyncStatusSchema });

export const registerCStatusResponse = t.Object({
  data: t.Object({
    connected: t.Boolean(),
    status: t.String(),
    connected_at: t.Nullable(t.String()),
    ...autoSyncStatusSchema.properties,
  }),
});
export const registerCDisableResponse = t.Object({ status: t.Literal('success') });
