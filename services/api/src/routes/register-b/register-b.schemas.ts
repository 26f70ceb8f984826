import { t, type TSchema } from 'elysia';
import { autoSyncStatusSchema, registerCSyncTimeBody } from '../integration-auto-sync/integration-auto-sync.schemas.ts';
import { vendorIdField, Int } from '../shared.schemas.ts';

/**
 * `POST /back-office/register-b`: initiate (first call, `account_id` and its `link_code` required) or save settings; carries
 * the auto-sync payload (`sync_time` nullable and optional, `sync_timezone`), as `PUT /register-c/sync-time`.
 */
export const registerBSaveBody = t.Object(
  {
    account_id: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'register-b account id (the account its webhooks name)' })),
    link_code: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "the account's link code from register-b's back office: required to connect an account (or reconnect one), proves it is the merchant's own" })),
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

/* The administration routes beyond status/save/disable (spec 1 "register-b" table). */
const Uuid = (field: string) => t.String({ format: 'uuid', maxLength: 36, error: `The ${field} field must be a valid UUID.` });
const ExternalId = (description: string) => t.String({ minLength: 1, maxLength: 200, description });
const Cents = Int({ description: 'integer cents' });
const ok = <T extends TSchema>(data: T) => t.Object({ status: t.Literal('success'), data });

export const testResponse = t.Object({
  data: t.Object({
    ok: t.Boolean(),
    account: t.Nullable(t.Object({ id: t.String(), name: t.String(), status: t.String() })),
    reason: t.Nullable(t.String({ description: "register-b's refusal code, `credentials_refused` or `unreachable`" })),
    message: t.Nullable(t.String()),
  }),
});
export const healthResponse = t.Object({ data: t.Object({ reachable: t.Boolean(), status: t.Nullable(t.String()), version: t.Nullable(t.String()) }) });

const branch = t.Object({ id: t.String(), name: t.String(), location_id: t.Nullable(t.String({ description: 'our location mapped to the branch' })) });
export const branchesResponse = t.Object({ data: t.Array(branch) });
export const locationsSyncResponse = ok(t.Object({ branches: t.Array(branch), removed_mappings: Int() }));

const mapping = t.Object({ location_id: t.String(), location_name: t.String(), branch_id: t.Nullable(t.String()), branch_name: t.Nullable(t.String()), updated_at: t.Nullable(t.String()) });
export const mappingsResponse = t.Object({ data: t.Array(mapping) });
export const mappingsWriteResponse = ok(t.Array(mapping));
export const mappingsBody = t.Object(
  {
    mappings: t.Array(t.Object({ location_id: Uuid('location id'), branch_id: ExternalId('register-b branch id') }, { additionalProperties: false }), {
      maxItems: 200,
      description: 'the whole mapping set: a location left out is unmapped; all or nothing',
    }),
  },
  { additionalProperties: false },
);

const check = t.Object({
  key: t.Union([t.Literal('configured'), t.Literal('connected'), t.Literal('account_reachable'), t.Literal('locations_mapped'), t.Literal('last_sync')]),
  status: t.Union([t.Literal('ok'), t.Literal('warning'), t.Literal('error')]),
  detail: t.String(),
});
export const diagnoseResponse = t.Object({ data: t.Object({ healthy: t.Boolean(), checks: t.Array(check) }) });

const capabilities = t.Object({ live_inventory: t.Boolean(), relations: t.Boolean(), pricing: t.Boolean() });
export const settingsWriteResponse = ok(t.Object({ capabilities: t.Nullable(capabilities), capabilities_probed_at: t.Nullable(t.String()), live_inventory: t.Boolean() }));
export const toggleLiveInventoryBody = t.Object({ enabled: t.Boolean() }, { additionalProperties: false });

export const startSyncResponse = ok(t.Object({ branches: Int(), products: Int(), created: Int(), updated: Int(), unchanged: Int(), hidden: Int(), skipped: Int({ description: 'products our catalog cannot hold as sent (price, VAT rate or id out of range)' }) }));
export const liveRefreshResponse = ok(t.Object({ branches: Int(), levels: Int(), updated: Int(), unchanged: Int(), unknown: Int() }));

const relation = t.Object({ number: t.String(), name: t.String(), email: t.Nullable(t.String()), phone: t.Nullable(t.String()) });
export const relationsQuery = t.Object({
  // Clamped, not refused: any integer is read and brought into 1-200.
  limit: t.Optional(t.String({ pattern: '^-?[0-9]{1,30}$', maxLength: 31, description: 'default 50, clamped to 1-200' })),
  page: t.Optional(t.String({ pattern: '^0*[1-9][0-9]{0,4}$', maxLength: 10, description: 'page number, from 1' })),
  ...vendorIdField(),
});
export const relationsResponse = t.Object({
  data: t.Array(t.Object({ ...relation.properties, customer_id: t.Nullable(t.String()) })),
  meta: t.Object({ page: Int(), limit: Int(), has_more: t.Boolean() }),
});
export const relationsSyncResponse = ok(t.Object({ relations: Int(), created: Int(), linked: Int(), unchanged: Int(), skipped: Int() }));
export const relationLinkBody = t.Object({ customer_id: Uuid('customer id'), relation_number: t.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
export const relationCreateBody = t.Object({ customer_id: Uuid('customer id') }, { additionalProperties: false });
export const relationLinkResponse = ok(t.Object({ relation_number: t.String(), customer_id: t.String(), relation }));

export const relationParams = t.Object({ relationNumber: t.String({ minLength: 1, maxLength: 100 }) });
export const pricingCheckBody = t.Object({ item_ids: t.Array(Uuid('item id'), { minItems: 1, maxItems: 200 }) }, { additionalProperties: false });
export const pricingCheckResponse = t.Object({
  data: t.Object({ relation_number: t.String(), prices: t.Array(t.Object({ item_id: t.String(), product_id: t.String(), price: Cents, list_price: Cents })) }),
});
export const quoteBody = t.Object(
  {
    relation_number: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 100 }))),
    lines: t.Array(t.Object({ item_id: Uuid('item id'), quantity: Int({ minimum: 1, maximum: 10_000 }) }, { additionalProperties: false }), { minItems: 1, maxItems: 200 }),
  },
  { additionalProperties: false },
);
export const quoteResponse = t.Object({
  data: t.Object({
    relation_number: t.Nullable(t.String()),
    lines: t.Array(t.Object({ item_id: t.String(), product_id: t.String(), quantity: Int(), unit_price: Cents, line_total: Cents })),
    subtotal: Cents,
    discount: Cents,
    total: Cents,
  }),
});
