import { t } from 'elysia';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';
import { autoSyncStatusSchema, registerCSyncTimeBody } from '../integration-auto-sync/integration-auto-sync.schemas.ts';

/** `{provider}` is a vendor word (`REGISTER_D_VENDORS`); an unknown one is a 404, not a 422. */
export const params = t.Object({ provider: t.String({ maxLength: 40, description: 'register vendor word, e.g. vendor-a' }), locationId: PathId() });
export const vendorQuery = t.Object(vendorIdField());

/**
 * `POST /register-d/{provider}/{locationId}`: initiate (first call, `site_id` required) or save settings;
 * carries the auto-sync payload (`sync_time` nullable and optional, `sync_timezone`).
 */
export const saveBody = t.Object(
  {
    site_id: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "the vendor's store/site id at the register-d transport" })),
    link_code: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "the site's link code from the vendor's back office (required when connecting a site: 422 when missing or not the site's)" })),
    ...registerCSyncTimeBody.properties,
  },
  { additionalProperties: false },
);

const state = t.Object({
  provider: t.String(),
  connected: t.Boolean(),
  status: t.String(),
  site_id: t.Nullable(t.String()),
  site_name: t.Nullable(t.String()),
  connected_at: t.Nullable(t.String()),
  menu_synced_at: t.Nullable(t.String()),
  ...autoSyncStatusSchema.properties,
});

export const statusResponse = t.Object({ data: state });
export const writeResponse = t.Object({ status: t.Literal('success'), data: state });
export const syncMenuResponse = t.Object({ status: t.Literal('success'), items: Int(), created: Int(), updated: Int(), removed: Int() });
export const testResponse = t.Object({ data: t.Object({ ok: t.Boolean(), site_id: t.String(), message: t.String() }) });
