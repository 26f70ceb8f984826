import { t } from 'elysia';
import { autoSyncStatusSchema, registerCSyncTimeBody } from '../integration-auto-sync/integration-auto-sync.schemas.ts';

/**
 * `POST /back-office/register-b`: initiate (first call, `account_id` required) or save settings; carries
 * the auto-sync payload (`sync_time` nullable and optional, `sync_timezone`), as `PUT /register-c/sync-time`.
 */
export const registerBSaveBody = t.Object(
  {
    account_id: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'register-b account id (the account its webhooks name)' })),
    ...registerCSyncTimeBody.properties,
  },
  { additionalProperties: false },
);

const registerBState = t.Object({
  connected: t.Boolean(),
  status: t.String(),
  account_id: t.Nullable(t.String()),
  connected_at: t.Nullable(t.String()),
  ...autoSyncStatusSchema.properties,
});

export const registerBSaveResponse = t.Object({ status: t.Literal('success'), data: registerBState });
export const registerBStatusResponse = t.Object({ data: registerBState });
export const registerBDisableResponse = t.Object({ status: t.Literal('success') });
