import { t } from 'elysia';
import type { TSchema } from '@sinclair/typebox';
import { ID_MAX_LENGTH, PathId, queryInt, vendorIdField, Int } from '../shared.schemas.ts';

export const mappingParams = t.Object({ upvendoLocationId: PathId({ description: 'our location id' }) });

export const mappingBody = t.Object(
  { register_c_location_id: t.String({ minLength: 1, maxLength: 200, description: 'the register-c business location id' }) },
  { additionalProperties: false },
);

const mapping = t.Object({
  upvendo_location_id: t.String(),
  register_c_location_id: t.String(),
  status: t.Union([t.Literal('active'), t.Literal('paused')]),
  updated_at: t.String(),
});

export const mappingListResponse = t.Object({ data: t.Array(mapping) });
export const mappingResponse = t.Object({ status: t.Literal('success'), data: mapping });
export const mappingDeleteResponse = t.Object({ status: t.Literal('success') });

// ---- administration beyond the mappings (issue 17 item 4) ----

const ok = <T extends TSchema>(data: T) => t.Object({ status: t.Literal('success'), data });
const listOf = <T extends TSchema>(item: T) => t.Object({ data: t.Array(item) });
const one = <T extends TSchema>(item: T) => t.Object({ data: item });

/** Every register-c GET: the caller's location (`location_id`, ours) and admin-vendor-override. */
export const vendorOnlyQuery = t.Object(vendorIdField());
export const locationQuery = t.Object({ location_id: t.String({ maxLength: ID_MAX_LENGTH, description: 'our location id (resolved through its register-c mapping)' }), ...vendorIdField() });

export const oauthResponse = ok(t.Object({ authorize_url: t.String(), state: t.String(), expires_at: t.String() }));
export const testResponse = one(
  t.Union([
    t.Object({ ok: t.Literal(true), account_id: t.String(), businesses: Int(), locations: Int() }),
    t.Object({ ok: t.Literal(false), account_id: t.String(), provider_status: Int(), provider_code: t.Union([t.String(), t.Null()]), message: t.String() }),
  ]),
);

const counts = t.Object({ created: Int(), updated: Int(), hidden: Int(), suggested: Int() });
export const syncResponse = ok(t.Object({ upvendo_location_id: t.String(), register_c_location_id: t.String(), synced_at: t.String(), counts }));

const channelTarget = t.Union([
  t.Object(
    {
      account_profile_code: t.String({ minLength: 1, maxLength: 100, description: 'register-c account profile (order type) code' }),
      table_number: t.Union([Int({ minimum: 0, maximum: 100_000 }), t.Null()], { description: 'register-c table receiving the orders; required by a dine-in profile' }),
    },
    { additionalProperties: false },
  ),
  t.Null(),
]);
export const orderSettingsBody = t.Object({ online: channelTarget, kiosk: channelTarget }, { additionalProperties: false });
const channelView = t.Union([t.Object({ account_profile_code: t.String(), table_number: t.Union([Int(), t.Null()]) }), t.Null()]);
export const orderSettingsResponse = ok(t.Object({ upvendo_location_id: t.String(), register_c_location_id: t.String(), order_settings: t.Object({ online: channelView, kiosk: channelView }) }));

const methodId = t.Optional(t.String({ minLength: 1, maxLength: 100, description: 'register-c payment method id' }));
export const paymentMethodsBody = t.Object(
  { payment_methods: t.Object({ card: methodId, cash: methodId, online: methodId, gift_card: methodId, voucher: methodId }, { additionalProperties: false }) },
  { additionalProperties: false },
);
const methodView = t.Optional(t.String());
export const paymentMethodsResponse = ok(t.Object({ payment_methods: t.Object({ card: methodView, cash: methodView, online: methodView, gift_card: methodView, voucher: methodView }) }));

// Relay reads: our snake_case shapes, money in cents.
export const floorplanParams = t.Object({ floorplanId: t.String({ minLength: 1, maxLength: 100 }) });
export const menuParams = t.Object({ menuId: t.String({ minLength: 1, maxLength: 100 }) });
export const tableParams = t.Object({ tableNumber: t.String({ pattern: '^[0-9]{1,6}$', maxLength: 6, description: 'register-c table number' }) });
export const taxPreviewQuery = t.Object({
  location_id: t.String({ maxLength: ID_MAX_LENGTH }),
  account_profile_code: t.String({ minLength: 1, maxLength: 100 }),
  amount_cents: queryInt('amount_cents', 100_000_000, 'gross amount in cents, VAT included'),
  ...vendorIdField(),
});
export const checksQuery = t.Object({ location_id: t.String({ maxLength: ID_MAX_LENGTH }), status: t.Optional(t.Union([t.Literal('open'), t.Literal('closed')])), ...vendorIdField() });
export const dailyQuery = t.Object({ location_id: t.String({ maxLength: ID_MAX_LENGTH }), date: t.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', maxLength: 10, description: 'business day, YYYY-MM-DD' }), ...vendorIdField() });

const check = t.Object({
  id: t.String(),
  reference: t.Union([t.String(), t.Null()]),
  account_profile_code: t.String(),
  table_number: t.Union([Int(), t.Null()]),
  status: t.Union([t.Literal('open'), t.Literal('closed')]),
  total_cents: Int(),
  paid_cents: Int(),
  lines: t.Array(t.Object({ sku: t.String(), name: t.String(), quantity: Int(), price_cents: Int() })),
  opened_at: t.String(),
});
export const accountProfilesResponse = listOf(t.Object({ code: t.String(), name: t.String(), type: t.Union([t.Literal('local'), t.Literal('takeaway'), t.Literal('delivery')]) }));
export const taxPreviewResponse = one(t.Object({ account_profile_code: t.String(), gross_cents: Int(), net_cents: Int(), tax_cents: Int() }));
export const floorplansResponse = listOf(t.Object({ id: t.String(), name: t.String() }));
export const tablesResponse = listOf(t.Object({ number: Int(), name: t.String(), seats: Int() }));
export const menusResponse = listOf(t.Object({ id: t.String(), name: t.String() }));
export const menuResponse = one(t.Object({ id: t.String(), name: t.String(), sections: t.Array(t.Object({ name: t.String(), items: t.Array(t.Object({ sku: t.String(), name: t.String(), price_cents: Int() })) })) }));
export const modifiersResponse = listOf(t.Object({ id: t.String(), name: t.String(), price_cents: Int() }));
export const discountsResponse = listOf(
  t.Object({ id: t.String(), name: t.String(), type: t.Union([t.Literal('percent'), t.Literal('amount')]), percent: t.Union([t.Number(), t.Null()]), amount_cents: t.Union([Int(), t.Null()]) }),
);
export const availabilityResponse = listOf(t.Object({ sku: t.String(), available: t.Boolean() }));
export const checksResponse = listOf(check);
export const itemsResponse = listOf(t.Object({ sku: t.String(), name: t.String(), price_cents: Int(), accounting_group_id: t.String(), tax_rate_id: t.String() }));
export const richItemsResponse = listOf(
  t.Object({ sku: t.String(), name: t.String(), price_cents: Int(), description: t.String(), image_url: t.Union([t.String(), t.Null()]), allergen_codes: t.Array(t.String()) }),
);
export const allergensResponse = listOf(t.Object({ code: t.String(), name: t.String() }));
export const businessesResponse = listOf(t.Object({ id: t.String(), name: t.String(), currency: t.String(), locations: t.Array(t.Object({ id: t.String(), name: t.String(), timezone: t.String() })) }));
export const taxRatesResponse = listOf(t.Object({ id: t.String(), name: t.String(), rate_percent: t.Number() }));
export const paymentMethodsListResponse = listOf(t.Object({ id: t.String(), code: t.String(), name: t.String() }));
export const accountingGroupsResponse = listOf(t.Object({ id: t.String(), name: t.String() }));
export const dailyResponse = one(t.Object({ date: t.String(), sales_cents: Int(), check_count: Int(), payments: t.Array(t.Object({ payment_method_id: t.String(), total_cents: Int() })) }));

// Menu suggestion.
export const suggestionResponse = one(
  t.Object({
    upvendo_location_id: t.String(),
    register_c_location_id: t.String(),
    to_add: t.Array(t.Object({ sku: t.String(), name: t.String(), price_cents: Int(), vat_rate: Int() })),
    to_update: t.Array(t.Object({ item_id: t.String(), sku: t.String(), name: t.String(), price_cents: Int(), current_name: t.String(), current_price_cents: Int(), linked: t.Boolean() })),
    missing: t.Array(t.Object({ item_id: t.String(), sku: t.String(), name: t.String() })),
    digest: t.String(),
    dismissed: t.Boolean(),
    menu_source: t.Boolean(),
  }),
);
export const adoptResponse = ok(t.Object({ upvendo_location_id: t.String(), counts }));
export const dismissResponse = ok(t.Object({ upvendo_location_id: t.String(), digest: t.String(), dismissed: t.Literal(true) }));
export const useResponse = ok(t.Object({ upvendo_location_id: t.String(), menu_source: t.Literal(true) }));

// Orders and payments (money in cents; the reference is the idempotency key at register-c).
const orderFields = {
  location_id: t.String({ format: 'uuid', maxLength: ID_MAX_LENGTH, description: 'our location id (mapped to register-c)' }),
  reference: t.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._:-]+$', description: 'client reference; the same one again answers the same check' }),
  account_profile_code: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "register-c account profile; default: register-c's first of the order's kind" })),
  items: t.Array(
    t.Object({ sku: t.String({ minLength: 1, maxLength: 200, description: 'register-c sku' }), quantity: Int({ minimum: 1, maximum: 999 }) }, { additionalProperties: false }),
    { minItems: 1, maxItems: 200 },
  ),
};
export const localOrderBody = t.Object({ ...orderFields, table_number: Int({ minimum: 0, maximum: 100_000 }) }, { additionalProperties: false });
export const toGoOrderBody = t.Object({ ...orderFields, customer_name: t.Optional(t.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false });
export const payBody = t.Object(
  {
    location_id: orderFields.location_id,
    check_id: t.String({ minLength: 1, maxLength: 100, description: 'register-c check id' }),
    reference: orderFields.reference,
    amount_cents: Int({ minimum: 1, maximum: 100_000_000 }),
    payment_method: t.Union([t.Literal('card'), t.Literal('cash'), t.Literal('online'), t.Literal('gift_card'), t.Literal('voucher')]),
  },
  { additionalProperties: false },
);
export const checkResponse = ok(check);
