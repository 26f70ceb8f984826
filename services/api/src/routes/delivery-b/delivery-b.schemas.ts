import { t } from 'elysia';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';

export const locationParams = t.Object({ locationId: PathId() });
export const vendorQuery = t.Object(vendorIdField());

const storeId = t.String({ minLength: 1, maxLength: 200 });
export const enableBody = t.Object({ store_id: storeId, auto_accept_orders: t.Optional(t.Boolean()) }, { additionalProperties: false });
export const selectStoreBody = t.Object({ store_id: storeId }, { additionalProperties: false });
export const settingsBody = t.Object({ auto_accept_orders: t.Optional(t.Boolean()) }, { additionalProperties: false });

export const storeStatusValue = t.Union([t.Literal('online'), t.Literal('offline')]);
export const storeStatusBody = t.Object({ status: storeStatusValue }, { additionalProperties: false });
export const prepTimeBody = t.Object({ prep_time_minutes: Int({ minimum: 0, maximum: 240 }) }, { additionalProperties: false });
const fulfillment = t.Object({ delivery: t.Boolean(), pickup: t.Boolean() });
export const fulfillmentBody = t.Object({ delivery: t.Boolean(), pickup: t.Boolean() }, { additionalProperties: false });

export const logsQuery = t.Object({
  // Clamped, not refused: any integer is read and brought into 1-200.
  limit: t.Optional(t.String({ pattern: '^-?[0-9]{1,30}$', maxLength: 31, description: 'default 50, clamped to 1-200' })),
  ...vendorIdField(),
});

const settings = t.Object({ auto_accept_orders: t.Boolean(), prep_time_minutes: Int(), fulfillment });
export const statusData = t.Object({
  enabled: t.Boolean(),
  store_id: t.Nullable(t.String()),
  status: t.String(),
  connected_at: t.Nullable(t.String()),
  menu_synced_at: t.Nullable(t.String()),
  settings,
});
export const statusResponse = t.Object({ data: statusData });
export const statusWriteResponse = t.Object({ status: t.Literal('success'), data: statusData });
export const configurationResponse = t.Object({ data: t.Object({ store_id: t.String(), auto_accept_orders: t.Boolean(), prep_time_minutes: Int(), fulfillment }) });
export const storeListResponse = t.Object({ data: t.Array(t.Object({ id: t.String(), name: t.String(), selected: t.Boolean() })) });
export const storeResponse = t.Object({
  data: t.Object({ id: t.String(), name: t.String(), integration_enabled: t.Boolean(), integrator_store_id: t.Nullable(t.String()), status: storeStatusValue, prep_time_minutes: Int(), fulfillment }),
});
export const storeStatusResponse = t.Object({ data: t.Object({ status: storeStatusValue }) });
export const storeStatusWriteResponse = t.Object({ status: t.Literal('success'), data: t.Object({ status: storeStatusValue }) });
export const menuResponse = t.Object({ data: t.Array(t.Object({ id: t.String(), name: t.String(), price: Int(), available: t.Boolean() })) });
export const syncMenuResponse = t.Object({ status: t.Literal('success'), items: Int() });
export const logsResponse = t.Object({
  data: t.Array(t.Object({ id: t.String(), kind: t.String(), event_type: t.String(), status: t.String(), reference: t.Nullable(t.String()), created_at: t.String() })),
});
export const oauthResponse = t.Object({ status: t.Literal('success'), data: t.Object({ authorize_url: t.String(), state: t.String(), expires_at: t.String() }) });
