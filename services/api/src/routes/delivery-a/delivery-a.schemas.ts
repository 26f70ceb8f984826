import { t } from 'elysia';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';

export const locationParams = t.Object({ locationId: PathId() });

const settingsFields = {
  auto_accept_orders: t.Optional(t.Boolean()),
  prep_time_minutes: t.Optional(Int({ minimum: 0, maximum: 240 })),
};

export const enableBody = t.Object(
  {
    store_id: t.String({ minLength: 1, maxLength: 200 }),
    link_code: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "the store's link code from delivery-a's merchant portal (required: 422 when missing or not the store's)" })),
    ...settingsFields,
  },
  { additionalProperties: false },
);
export const updateBody = t.Object(settingsFields, { additionalProperties: false });

export const siteStatusValue = t.Union([t.Literal('OPEN'), t.Literal('CLOSED'), t.Literal('READY_TO_OPEN')]);
export const siteStatusBody = t.Object({ status: siteStatusValue }, { additionalProperties: false });

export const logsQuery = t.Object({
  // Clamped, not refused: any integer (up to 30 digits, still a finite number) is read and brought into 1-200.
  limit: t.Optional(t.String({ pattern: '^-?[0-9]{1,30}$', maxLength: 31, description: 'default 50, clamped to 1-200' })),
  ...vendorIdField(),
});
export const vendorQuery = t.Object(vendorIdField());

export const statusData = t.Object({
  enabled: t.Boolean(),
  store_id: t.Nullable(t.String()),
  status: t.String(),
  connected_at: t.Nullable(t.String()),
  menu_synced_at: t.Nullable(t.String()),
  settings: t.Object({ auto_accept_orders: t.Boolean(), prep_time_minutes: Int() }),
});
export const statusResponse = t.Object({ data: statusData });
export const statusWriteResponse = t.Object({ status: t.Literal('success'), data: statusData });
export const syncMenuResponse = t.Object({ status: t.Literal('success'), items: Int() });
export const syncAvailabilityResponse = t.Object({ status: t.Literal('success'), updated: Int() });
export const siteStatusResponse = t.Object({ data: t.Object({ status: siteStatusValue }) });
export const siteStatusWriteResponse = t.Object({ status: t.Literal('success'), data: t.Object({ status: siteStatusValue }) });
export const logsResponse = t.Object({
  data: t.Array(t.Object({ id: t.String(), kind: t.String(), event_type: t.String(), status: t.String(), reference: t.Nullable(t.String()), created_at: t.String() })),
});
