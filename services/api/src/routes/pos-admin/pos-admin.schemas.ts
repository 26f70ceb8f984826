import { t } from 'elysia';
import { PathId, vendorIdField } from '../shared.schemas.ts';

/**
 * Schemas shared by the back-office register administration groups (spec 2 "Back-office routes for
 * the first-party register", under `/back-office/pos`): each group's own are in its folder. Path ids
 * are plain strings: an id that is not a UUID is a 404 (checked by the use case), never a 422. Bodies
 * refuse keys they do not declare (422).
 */

export const Iso = t.String({ format: 'date-time' });
export const Uuid = (field: string) => t.String({ format: 'uuid', error: `The ${field} field must be a valid UUID.` });
export const Text = (field: string, max: number) => t.String({ minLength: 1, maxLength: max, pattern: '\\S', error: `The ${field} field is required and may not be greater than ${max} characters.` });

export const Success = t.Object({ status: t.Literal('success') });

export const LocationParams = t.Object({ locationId: PathId() });

/** `admin-vendor-override`: every route of these groups accepts `vendor_id`. */
export const vendorId = vendorIdField('admin-vendor-override: merchant id to act on (internal admins and the merchant\'s reseller)');
export const VendorQuery = t.Object(vendorId);

export const IncludeRetiredQuery = t.Object({ ...vendorId, include_retired: t.Optional(t.Boolean({ error: 'The include retired field must be true or false.' })) });
