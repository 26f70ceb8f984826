import { t } from 'elysia';
import { ID_MAX_LENGTH, Paging, PathId, queryInt, vendorIdField, Int } from '../shared.schemas.ts';

/** Schemas of Settings > locations, receipts and languages (spec 1 "Settings"). */
const Iso = t.String({ format: 'date-time' });
const text = (field: string, max: number) => t.String({ maxLength: max, error: `The ${field} field may not be greater than ${max} characters.` });
const optText = (field: string, max: number) => t.Optional(t.Nullable(text(field, max)));

export const VendorQuery = t.Object(vendorIdField('admin-vendor-override: merchant id to act on (internal admins and the merchant\'s reseller)'));
export const IdParams = t.Object({ id: PathId() });
export const LocationParams = t.Object({ locationId: PathId() });

// Locations
const LocationName = t.String({ minLength: 1, maxLength: 120, pattern: '\\S', error: 'The name field is required and may not be greater than 120 characters.' });
const Zone = t.String({ minLength: 1, maxLength: 64, error: 'The timezone field must be a valid IANA time zone.', description: 'an IANA zone that both the runtime and PostgreSQL know, e.g. Europe/Brussels' });
const Country = t.String({ pattern: '^[A-Za-z]{2}$', maxLength: 2, error: 'The country field must be a two-letter ISO country code.' });
const Email = t.String({ maxLength: 190, format: 'email', error: 'The email field must be a valid email address.' });
const Status = t.Union([t.Literal('active'), t.Literal('inactive')], { error: 'The status field must be active or inactive.' });

const locationFields = {
  address: optText('address', 255),
  city: optText('city', 120),
  postal_code: optText('postal code', 20),
  phone: t.Optional(t.Nullable(t.String({ maxLength: 32, pattern: '^\\+?[0-9 ()-]{4,32}$', error: 'The phone field must be a phone number.' }))),
  email: t.Optional(t.Nullable(Email)),
  vat_no: optText('vat no', 32),
  est_no: optText('est no', 32),
  payment_profile_id: t.Optional(t.Nullable(t.String({ maxLength: ID_MAX_LENGTH, description: "a payment profile of the merchant; null: the default profile (decides the kiosks' in-person provider)" }))),
};
export const CreateLocationBody = t.Object({ name: LocationName, timezone: Zone, country: Country, ...locationFields }, { additionalProperties: false });
const IssuerNames = t.Array(t.String({ minLength: 1, maxLength: 64, pattern: '\\S', error: 'An issuer name is 1 to 64 characters.' }), { maxItems: 50, error: 'At most 50 issuer names.' });
/** Spec 2 "Location tender configuration": cash is always enabled, so it is not listed. */
const PosTenders = t.Object(
  {
    enabled: t.Array(t.Union([t.Literal('card'), t.Literal('meal_voucher'), t.Literal('gift_voucher')], { error: 'A tender method is card, meal_voucher or gift_voucher (cash is always enabled).' }), { maxItems: 3 }),
    issuers: t.Optional(
      t.Object(
        { card_debit: t.Optional(IssuerNames), card_credit: t.Optional(IssuerNames), meal_voucher: t.Optional(IssuerNames), gift_voucher: t.Optional(IssuerNames) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'What the register takes besides cash; permission `edit-locations` at the location.' },
);
export const UpdateLocationBody = t.Object(
  { name: t.Optional(LocationName), timezone: t.Optional(Zone), country: t.Optional(Country), ...locationFields, pos_tenders: t.Optional(PosTenders) },
  { additionalProperties: false },
);
export const StatusBody = t.Object({ status: Status }, { additionalProperties: false });

export const Location = t.Object({
  id: t.String(),
  name: t.String(),
  timezone: t.String(),
  address: t.Nullable(t.String()),
  city: t.Nullable(t.String()),
  postal_code: t.Nullable(t.String()),
  country: t.String(),
  phone: t.Nullable(t.String()),
  email: t.Nullable(t.String()),
  vat_no: t.Nullable(t.String()),
  est_no: t.Nullable(t.String()),
  status: t.String(),
  payment_profile_id: t.Nullable(t.String()),
  pos_tenders: t.Object({
    enabled: t.Array(t.String()),
    issuers: t.Object({ card_debit: t.Array(t.String()), card_credit: t.Array(t.String()), meal_voucher: t.Array(t.String()), gift_voucher: t.Array(t.String()) }),
  }),
  created_at: Iso,
  updated_at: Iso,
});
export const LocationResponse = t.Object({ data: Location });
export const LocationTable = t.Object({ data: t.Array(Location), total: Int(), page: Int(), per_page: Int() });
export const LocationDatatableQuery = t.Object({
  ...Paging,
  search: t.Optional(t.String({ maxLength: 120 })),
  sort: t.Optional(t.String({ maxLength: 32, description: 'name, created_at, status or city; `-` in front for descending' })),
  status: t.Optional(Status),
  ...vendorIdField(),
});
/** Select options (`{value, label, ...}`, as every options route); the extra fields ride along. */
export const LocationOptions = t.Object({
  data: t.Array(t.Object({ value: t.String({ description: 'location id' }), label: t.String({ description: 'location name' }), timezone: t.String(), status: t.String() })),
});
export const ExportBody = t.Object(
  { ids: t.Optional(t.Array(t.String({ maxLength: ID_MAX_LENGTH }), { maxItems: 500, error: 'The ids field must be a list of at most 500 location ids.' })) },
  { additionalProperties: false },
);
export const CsvFile = t.Unknown({ description: 'text/csv; charset=utf-8 with a byte-order mark' });
export const TerminalOptions = t.Object({
  data: t.Object({
    in_person_provider: t.Nullable(t.String()),
    terminals: t.Array(t.Object({ provider: t.String(), terminal_id: t.String(), device_id: t.String(), device_name: t.String() })),
  }),
});
export const Success = t.Object({ status: t.Literal('success') });

// Receipts
const Flag = (field: string) => t.Optional(t.Boolean({ error: `The ${field} field must be true or false.` }));
export const ReceiptBody = t.Object(
  {
    header: t.Optional(text('header', 500)),
    footer: t.Optional(text('footer', 500)),
    show_logo: Flag('show logo'),
    show_address: Flag('show address'),
    show_vat_number: Flag('show vat number'),
    show_order_number: Flag('show order number'),
  },
  { additionalProperties: false },
);
export const ReceiptResponse = t.Object({
  data: t.Object({
    location_id: t.String(),
    header: t.String(),
    footer: t.String(),
    show_logo: t.Boolean(),
    show_address: t.Boolean(),
    show_vat_number: t.Boolean(),
    show_order_number: t.Boolean(),
    updated_at: t.Nullable(Iso),
  }),
});

// Languages
export const CreateLanguageBody = t.Object(
  {
    code: t.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z]{2})?$', maxLength: 6, error: 'The code field must be a language code such as en or nl-BE.' }),
    name: t.String({ minLength: 1, maxLength: 80, pattern: '\\S', error: 'The name field is required and may not be greater than 80 characters.' }),
  },
  { additionalProperties: false },
);
export const Language = t.Object({
  id: t.String(),
  code: t.String(),
  name: t.String(),
  is_default: t.Boolean(),
  status: t.Union([t.Literal('published'), t.Literal('unpublished')]),
  created_at: Iso,
  updated_at: Iso,
});
export const LanguageResponse = t.Object({ data: Language });
export const LanguageList = t.Object({ data: t.Array(Language) });
export const Incomplete = t.Object({
  data: t.Object({
    incomplete: t.Boolean(),
    languages: t.Array(t.Object({ language_id: t.String(), code: t.String(), total: Int(), translated: Int(), missing: Int(), complete: t.Boolean() })),
  }),
});

// Branding profiles
const Color = (field: string) => t.Optional(t.String({ pattern: '^#[0-9A-Fa-f]{6}$', maxLength: 7, error: `The ${field} field must be a colour such as #1F2937.` }));
const Font = (field: string) => t.Optional(t.String({ minLength: 1, maxLength: 64, error: `The ${field} field must be one of the branding font options.`, description: 'a value of /branding-font-options' }));
const ProfileName = t.String({ minLength: 1, maxLength: 120, pattern: '\\S', error: 'The name field is required and may not be greater than 120 characters.' });
const brandingFields = {
  primary_color: Color('primary color'),
  accent_color: Color('accent color'),
  background_color: Color('background color'),
  text_color: Color('text color'),
  heading_font: Font('heading font'),
  body_font: Font('body font'),
  logo_content_id: t.Optional(t.Nullable(t.String({ format: 'uuid', maxLength: 36, error: 'The logo content id field must be a valid UUID.' }))),
};
export const CreateBrandingBody = t.Object({ name: ProfileName, ...brandingFields }, { additionalProperties: false });
export const UpdateBrandingBody = t.Object(brandingFields, { additionalProperties: false });
export const RenameBody = t.Object({ name: ProfileName }, { additionalProperties: false });
export const SetDefaultBody = t.Object({ id: t.String({ format: 'uuid', maxLength: 36, error: 'The id field must be a valid UUID.' }) }, { additionalProperties: false });
export const BrandingProfile = t.Object({
  id: t.String(),
  name: t.String(),
  is_default: t.Boolean(),
  primary_color: t.String(),
  accent_color: t.String(),
  background_color: t.String(),
  text_color: t.String(),
  heading_font: t.String(),
  body_font: t.String(),
  logo_content_id: t.Nullable(t.String()),
  created_at: Iso,
  updated_at: Iso,
});
export const BrandingResponse = t.Object({ data: BrandingProfile });
export const BrandingList = t.Object({ data: t.Array(BrandingProfile) });
export const BrandingOptions = t.Object({ data: t.Array(t.Object({ value: t.String({ description: 'branding profile id' }), label: t.String({ description: 'profile name' }), is_default: t.Boolean() })) });

// VAT verify
export const VatVerifyBody = t.Object(
  {
    vat_number: t.String({ minLength: 1, maxLength: 32, error: 'The vat number field is required and may not be greater than 32 characters.' }),
    country_code: t.Optional(t.String({ pattern: '^[A-Za-z]{2}$', maxLength: 2, error: 'The country code field must be a two-letter country code.' })),
  },
  { additionalProperties: false },
);
export const VatVerifyResponse = t.Object({
  data: t.Object({
    result: t.Union([t.Literal('valid'), t.Literal('invalid'), t.Literal('unavailable'), t.Literal('skipped')]),
    country_code: t.Nullable(t.String()),
    vat_number: t.String(),
    name: t.Nullable(t.String()),
    address: t.Nullable(t.String()),
  }),
});

// Setup status
export const SetupStatusResponse = t.Object({
  data: t.Object({
    steps: t.Array(t.Object({ key: t.String(), label: t.String(), done: t.Boolean() })),
    completed: Int(),
    total: Int(),
    complete: t.Boolean(),
  }),
});

// Client logger
export const ClientLogBody = t.Object(
  {
    device_id: t.Optional(t.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$', error: 'The device id field must be letters, digits, _ . : - (at most 64).' })),
    level: t.Union([t.Literal('debug'), t.Literal('info'), t.Literal('warning'), t.Literal('error'), t.Literal('critical')], { error: 'The level field must be debug, info, warning, error or critical.' }),
    event: t.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9_.:-]+$', error: 'The event field is required: lower-case letters, digits, _ . : - (at most 64).' }),
    message: t.Optional(t.String({ maxLength: 2000, error: 'The message field may not be greater than 2000 characters.' })),
    app_version: t.Optional(t.String({ maxLength: 32, error: 'The app version field may not be greater than 32 characters.' })),
  },
  { additionalProperties: false },
);
export const ClientLogResponse = t.Object({ status: t.Literal('success'), counted: t.Boolean(), alerted: t.Boolean() });

// Async monitoring
const Counts = { waiting: Int(), active: Int(), delayed: Int(), failed: Int(), succeeded: Int() };
export const QueueCountsResponse = t.Object({ data: t.Array(t.Object({ queue: t.String(), ...Counts, newest_job_id: Int() })) });
export const MonitoringSummaryResponse = t.Object({
  data: t.Object({ totals: t.Object(Counts), by_tenant: t.Array(t.Object({ tenant: t.String(), pending: Int(), failed: Int() })) }),
});
export const QueueJobsQuery = t.Object({ limit: t.Optional(queryInt('limit', 1000, 'jobs to list, 1-1000 (default 50)')) });
export const QueueJobsResponse = t.Object({
  data: t.Array(
    t.Object({
      queue: t.String(),
      id: t.String(),
      state: t.String(),
      job: t.Nullable(t.String()),
      tenant: t.String(),
      enqueued_at: t.Nullable(t.String()),
      error: t.Nullable(t.String()),
    }),
  ),
});

// Address suggestions
export const AddressQuery = t.Object({
  query: t.String({ minLength: 3, maxLength: 200, error: 'The query field must be 3 to 200 characters.' }),
  country: t.Optional(t.String({ pattern: '^[A-Za-z]{2}$', maxLength: 2, error: 'The country field must be a two-letter ISO country code.' })),
  ...vendorIdField(),
});
export const AddressSuggestions = t.Object({
  data: t.Array(
    t.Object({
      label: t.String(),
      address: t.Nullable(t.String()),
      postal_code: t.Nullable(t.String()),
      city: t.Nullable(t.String()),
      country: t.Nullable(t.String()),
      latitude: t.Nullable(t.Number()),
      longitude: t.Nullable(t.Number()),
    }),
  ),
  available: t.Boolean(),
});

// Translations
const LanguageId = t.String({ format: 'uuid', maxLength: 36, error: 'The language id field must be a valid UUID.' });
const SubjectType = t.Union([t.Literal('item'), t.Literal('category')], { error: 'The subject type field must be item or category.' });
const TField = t.Union([t.Literal('name'), t.Literal('description')], { error: 'The field field must be name or description.' });
const subjectFields = {
  language_id: LanguageId,
  subject_type: SubjectType,
  subject_id: t.String({ format: 'uuid', maxLength: 36, error: 'The subject id field must be a valid UUID.' }),
  field: TField,
};
export const TranslationListQuery = t.Object({ language_id: t.String({ maxLength: ID_MAX_LENGTH }), ...vendorIdField() });
export const TranslationTableQuery = t.Object({
  ...Paging,
  language_id: t.String({ maxLength: ID_MAX_LENGTH }),
  subject_type: t.Optional(SubjectType),
  missing: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
  search: t.Optional(t.String({ maxLength: 120 })),
  ...vendorIdField(),
});
export const SaveTranslationBody = t.Object({ ...subjectFields, value: t.String({ maxLength: 5000, error: 'The value field may not be greater than 5000 characters.' }) }, { additionalProperties: false });
export const AutoTranslateBody = t.Object(subjectFields, { additionalProperties: false });
const TranslationRow = t.Object({ subject_type: t.String(), subject_id: t.String(), field: t.String(), source: t.String(), value: t.Nullable(t.String()) });
export const TranslationRowResponse = t.Object({ data: TranslationRow });
export const TranslationTable = t.Object({ data: t.Array(TranslationRow), total: Int(), page: Int(), per_page: Int(), language_id: t.String() });
export const TranslationList = t.Object({ data: t.Array(t.Object({ subject_type: t.String(), subject_id: t.String(), field: t.String(), value: t.String(), updated_at: Iso })) });
export const BulkStatus = t.Object({ data: t.Object({ language_id: t.String(), total: Int(), missing: Int() }) });
export const BulkResult = t.Object({ data: t.Object({ language_id: t.String(), translated: Int(), missing: Int(), total: Int() }) });

// Payment onboarding status
export const PaymentOnboardingResponse = t.Object({
  data: t.Object({
    locations: t.Array(t.Object({ location_id: t.String(), name: t.String(), in_person_provider: t.Nullable(t.String()), terminals: Int(), ready: t.Boolean() })),
    complete: t.Boolean(),
  }),
});

// Billing profiles (issue 18 item 5)
export const CreateBillingBody = t.Object({ name: ProfileName }, { additionalProperties: false });
export const BillingProfile = t.Object({ id: t.String(), name: t.String(), card_a_customer_id: t.Nullable(t.String()), created_at: Iso, updated_at: Iso });
export const BillingResponse = t.Object({ data: BillingProfile });
export const BillingList = t.Object({ data: t.Array(BillingProfile) });
export const BillingOptions = t.Object({ data: t.Array(t.Object({ value: t.String({ description: 'billing profile id' }), label: t.String({ description: 'profile name' }) })) });
export const BillingSubscription = t.Object({
  id: t.String(),
  provider_subscription_id: t.String(),
  location_id: t.String(),
  price_id: t.Nullable(t.String()),
  device_ids: t.Array(t.String()),
  status: t.String(),
  current_period_end: t.Nullable(Iso),
  cancel_reason: t.Nullable(t.String()),
  canceled_at: t.Nullable(Iso),
  created_at: Iso,
  updated_at: Iso,
});
export const BillingSubscriptionList = t.Object({ data: t.Array(BillingSubscription) });
export const SubscriptionParams = t.Object({ id: PathId(), subId: PathId() });
export const SubscriptionActionResponse = t.Object({ data: t.Object({ ...BillingSubscription.properties, cancel_at_period_end: t.Boolean() }) });
export const PastBills = t.Object({
  data: t.Array(t.Object({ id: t.String(), subscription: t.Nullable(t.String()), status: t.String(), amount_due: Int({ description: 'cents' }), attempt_count: Int(), created_at: t.Nullable(Iso) })),
});

// Payment profiles (issue 18 item 5)
export const PaymentProfile = t.Object({
  id: t.String(),
  name: t.String(),
  is_default: t.Boolean(),
  card_a_account_id: t.Nullable(t.String()),
  card_b_account_id: t.Nullable(t.String()),
  card_a_charges_enabled: t.Boolean({ description: "the card-a account's charges_enabled as last reported by card-a" }),
  card_b_connected_at: t.Nullable(t.String({ format: 'date-time', description: 'when card-b reported the card-b account connected (event 8193); null until it did' })),
  card_b_verified: t.Nullable(t.Boolean({ description: "the card-b account's verification (KYC) as card-b last reported it (event 8194); null until it did" })),
  in_person_provider: t.Nullable(t.String({ description: 'card-a once the card-a account takes charges, else card-b with a card-b account, else null' })),
  created_at: Iso,
  updated_at: Iso,
});
export const PaymentProfileResponse = t.Object({ data: PaymentProfile });
export const PaymentProfileList = t.Object({ data: t.Array(PaymentProfile) });
export const PaymentProfileOptions = t.Object({ data: t.Array(t.Object({ value: t.String({ description: 'payment profile id' }), label: t.String({ description: 'profile name' }), is_default: t.Boolean() })) });
