import { t } from 'elysia';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';

/** Schemas of the kitchen stations (spec 2 "Back-office routes for the first-party register"). */
const Iso = t.String({ format: 'date-time' });
const Uuid = (field: string) => t.String({ format: 'uuid', maxLength: 36, error: `The ${field} field must be a valid UUID.` });
const Name = t.String({ minLength: 1, maxLength: 120, pattern: '\\S', error: 'The name field is required and may not be greater than 120 characters.' });
const CategoryIds = t.Array(Uuid('category id'), { maxItems: 200, error: 'The category ids field must be a list of at most 200 category ids.' });
const Fallback = t.Boolean({ error: 'The is fallback field must be true or false.' });

const vendorId = vendorIdField('admin-vendor-override: merchant id to act on (internal admins and the merchant\'s reseller)');
export const VendorQuery = t.Object(vendorId);

export const IdParams = t.Object({ id: PathId() });
export const LocationParams = t.Object({ locationId: PathId() });

export const Station = t.Object({
  id: t.String(),
  location_id: t.String(),
  name: t.String(),
  category_ids: t.Array(t.String()),
  is_fallback: t.Boolean(),
  device_ids: t.Array(t.String()),
  created_at: Iso,
  updated_at: Iso,
});
export const StationResponse = t.Object({ data: Station });
export const StationList = t.Object({ data: t.Array(Station) });

export const CreateStationBody = t.Object(
  { location_id: Uuid('location id'), name: Name, category_ids: t.Optional(CategoryIds), is_fallback: t.Optional(Fallback) },
  { additionalProperties: false },
);
export const UpdateStationBody = t.Object({ name: t.Optional(Name), category_ids: t.Optional(CategoryIds), is_fallback: t.Optional(Fallback) }, { additionalProperties: false });

export const DeleteStationResponse = t.Object({ status: t.Literal('success'), unbound_devices: Int() });

export const BindStationBody = t.Object({ station_id: t.Nullable(Uuid('station id')) }, { additionalProperties: false });
export const BindStationResponse = t.Object({ data: t.Object({ device_id: t.String(), station: t.Nullable(Station) }) });
