import { t } from 'elysia';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';

/** Schemas of `/back-office/register-a` (spec 1 "Integration administration", register-a). */
const Iso = t.String({ format: 'date-time' });
export const VendorQuery = t.Object(vendorIdField("admin-vendor-override: merchant id to act on (internal admins and the merchant's reseller)"));
export const LocationParams = t.Object({ locationId: PathId({ description: 'a location of the merchant (location-owner)' }) });

/** The pasted register-a JWT (three base64url parts). */
const Token = t.String({
  minLength: 20,
  maxLength: 4096,
  pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
  error: 'The token field must be the register-a API token (a JWT) of at most 4096 characters.',
});
export const TokenBody = t.Object({ token: Token }, { additionalProperties: false });
export const SelectStoreBody = t.Object(
  { store_id: t.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$', error: 'The store id field must be a register-a store id.' }) },
  { additionalProperties: false },
);

export const LocationView = t.Object({
  location_id: t.String(),
  connected: t.Boolean(),
  status: t.String({ description: '`not_connected`, `pending_store` (token saved, no store selected), `active` or `error`' }),
  store_id: t.Nullable(t.String()),
  store_name: t.Nullable(t.String()),
  company_id: t.Nullable(t.String()),
  namespace: t.Nullable(t.String({ description: '`prod` or `staging` (the token claim)' })),
  connected_at: t.Nullable(Iso),
  updated_at: t.Nullable(Iso),
});
export const LocationResponse = t.Object({ data: LocationView });
export const StatusResponse = t.Object({ data: t.Object({ configured: t.Boolean(), locations: t.Array(LocationView) }) });
export const LocationsResponse = t.Object({ data: t.Object({ locations: t.Array(LocationView) }) });
export const StoresResponse = t.Object({ data: t.Array(t.Object({ id: t.String(), name: t.String(), company_id: t.String() })) });
export const TestResponse = t.Object({
  data: t.Object({ ok: t.Boolean(), namespace: t.String(), store: t.Nullable(t.Object({ id: t.String(), name: t.String() })), message: t.Nullable(t.String()) }),
});
export const TestAllResponse = t.Object({ data: t.Object({ results: t.Array(t.Object({ location_id: t.String(), ok: t.Boolean(), message: t.Nullable(t.String()) })) }) });
const SyncReport = t.Object({
  location_id: t.String(),
  created: Int(),
  updated: Int(),
  priced: Int(),
  deleted: Int(),
  unsupported: t.Array(t.Object({ item_id: t.String(), name: t.String(), difference: t.String() })),
});
export const SyncResponse = t.Object({ data: SyncReport });
export const SyncAllResponse = t.Object({ data: t.Object({ results: t.Array(SyncReport), failed: t.Array(t.Object({ location_id: t.String(), message: t.String() })) }) });
export const VerifyResponse = t.Object({ data: t.Object({ checked: Int(), found: t.Array(t.String()), missing: t.Array(t.String()) }) });
export const DeletedResponse = t.Object({ status: t.Literal('success') });
