import { t } from 'elysia';
import { Type } from '@sinclair/typebox';
import { DateString, PathId, Phone, Int } from '../shared.schemas.ts';
import { QuoteBody } from '../kiosk-pricing/kiosk-pricing.schemas.ts';
import { MAX_TIP_CENTS } from '@pos/domain/money';

/** Schemas of public online ordering (spec 1 "Online ordering and table QR ordering"). */
export const SlugParams = t.Object({ slug: t.String({ maxLength: 64, description: 'The merchant slug' }) });
export const SlugLocationParams = t.Object({ slug: t.String({ maxLength: 64 }), locationId: PathId() });

const Window = t.Object({ day: Int(), open: t.String(), close: t.String() });

export const StorefrontResponse = t.Object({
  data: t.Object({
    merchant: t.Object({ slug: t.String(), name: t.String() }),
    locations: t.Array(
      t.Object({
        id: t.String(),
        name: t.String(),
        address: t.Union([t.String(), t.Null()]),
        country: t.String(),
        timezone: t.String(),
        opening_hours: t.Array(Window),
        open_now: t.Boolean(),
        snoozed_until: t.Union([t.String(), t.Null()]),
        preparation_minutes: Int(),
        minimum_order: Int(),
        channels: t.Object({ pickup: t.Boolean(), delivery: t.Boolean() }),
        menu: t.Union([t.Object({ menu_id: t.String(), name: t.String(), display_groups: t.Array(t.Any()) }), t.Null()], {
          description: 'The published menu restricted to items sold on online ordering (the catalog reader of every channel).',
        }),
      }),
    ),
  }),
});

export const TimeslotsBody = t.Object(
  { date: t.Optional(DateString('date')) },
  { additionalProperties: false, description: '`date`: the business day in the location\'s zone; today when absent.' },
);

export const TimeslotsResponse = t.Object({
  data: t.Object({
    location_id: t.String(),
    date: t.String(),
    timezone: t.String(),
    slots: t.Array(
      t.Object({
        start: t.String({ description: 'UTC instant' }),
        end: t.String(),
        time: t.String({ description: 'Wall-clock start in the location zone, HH:mm' }),
        remaining: t.Union([Int(), t.Null()], { description: 'Orders the slot still takes; null = no capacity limit' }),
      }),
    ),
  }),
});

export const PaymentBody = t.Object(
  {
    lines: QuoteBody.properties.lines,
    payment_method: t.Optional(t.Union([t.Literal('card'), t.Literal('local_debit')], { error: 'The payment method must be card or local_debit.' })),
    customer: t.Optional(
      t.Object(
        {
          name: t.Optional(t.String({ maxLength: 120, error: 'The customer name may not be greater than 120 characters.' })),
          email: t.Optional(t.String({ maxLength: 254, format: 'email', error: 'The customer email must be a valid email address.' })),
          phone: t.Optional(Phone({ error: 'The customer phone must be a phone number.' })),
        },
        { additionalProperties: false },
      ),
    ),
    scheduled_for: t.Optional(t.String({ format: 'date-time', maxLength: 40, error: 'The scheduled for field must be a date-time.' })),
    dining_option: t.Optional(t.Union([t.Literal('Pickup'), t.Literal('Delivery')], { error: 'The dining option must be Pickup or Delivery.' })),
    // Required with dining option Delivery, refused with any other (decisions: "A Delivery order carries its address").
    delivery_address: t.Optional(
      t.Object(
        {
          line1: t.String({ minLength: 1, maxLength: 200, error: 'The delivery address line1 must be 1 to 200 characters.' }),
          line2: t.Optional(t.String({ maxLength: 200, error: 'The delivery address line2 may not be greater than 200 characters.' })),
          city: t.String({ minLength: 1, maxLength: 100, error: 'The delivery address city must be 1 to 100 characters.' }),
          postal_code: t.String({ minLength: 1, maxLength: 20, error: 'The delivery address postal code must be 1 to 20 characters.' }),
          country: t.String({ pattern: '^[A-Za-z]{2}$', maxLength: 2, error: 'The delivery address country must be a two-letter country code.' }),
          instructions: t.Optional(t.String({ maxLength: 500, error: 'The delivery instructions may not be greater than 500 characters.' })),
        },
        { additionalProperties: false },
      ),
    ),
    tip_amount: t.Optional(Int({ minimum: 0, maximum: MAX_TIP_CENTS, error: 'The tip_amount must be a whole number of cents between 0 and 100000.' })),
    // A table QR order: the open session of the scanned table; the paid order is bound to it at capture.
    table_session_id: t.Optional(t.String({ format: 'uuid', maxLength: 36, error: 'The table session id must be a UUID.' })),
  },
  { additionalProperties: false },
);

export const PaymentResponse = t.Object({
  data: t.Object({
    transaction_id: t.String(),
    order_no: Int(),
    total: Int(),
    currency: t.String(),
    provider: t.Union([t.String(), t.Null()], { description: 'null for a free or test-mode order' }),
    payment: t.Object({
      id: t.Optional(t.String()),
      is_free: t.Optional(t.Boolean()),
      client_secret: t.Optional(t.String()),
      amount: t.Optional(Int()),
      created: t.Optional(Int()),
      status: t.Optional(t.String()),
      url: t.Optional(t.String()),
      success: t.Optional(t.Boolean()),
      platform_location_id: t.Optional(t.String()),
      orderCode: t.Optional(t.String()),
      redirectUrl: t.Optional(t.String()),
    }, {
      description:
        'Free or test mode: `{id, is_free}`; card-a card or local-debit intent: `{id, client_secret, amount, created, status}`; card-a hosted checkout: `{id, url}`; platform-a: `{success, amount, platform_location_id}`; legacy card-b: `{orderCode, redirectUrl}`.',
    }),
  }),
});

export const VerifyBody = t.Object({ transaction_id: t.String({ maxLength: 64, error: 'The transaction id field is required.' }) }, { additionalProperties: false });

export const VerifiedResponse = t.Object({
  data: t.Object({ transaction_id: t.String(), order_no: Int(), status: t.String(), receipt_no: t.Union([Int(), t.Null()]), total: Int() }),
});

export const ProcessBody = t.Object(
  {
    slug: t.String({ maxLength: 64 }),
    location_id: t.String({ maxLength: 64 }),
    transaction_id: t.String({ maxLength: 64 }),
    source_id: t.String({ minLength: 1, maxLength: 255, pattern: '\\S', error: 'The source id field is required and may not be greater than 255 characters.' }),
  },
  { additionalProperties: false, description: 'A platform-a payment order (from `…/payment`) paid with the card source the storefront tokenised.' },
);

export const OffersBody = t.Object(
  {
    lines: QuoteBody.properties.lines,
    // A guest at a table: priced on the table QR channel, as the payment of that session will be.
    table_session_id: t.Optional(t.String({ format: 'uuid', maxLength: 36, error: 'The table session id must be a UUID.' })),
  },
  { additionalProperties: false },
);
export const OffersResponse = t.Object({
  data: t.Object({
    location_id: t.String(),
    subtotal: Int(),
    discount: Int(),
    vat: Int(),
    total: Int(),
    offers: t.Array(t.Object({ id: t.String(), name: t.String(), discount: Int() })),
  }),
});

export const SuggestQuery = t.Object({
  q: t.String({ maxLength: 200, error: 'The q field is required and may not be greater than 200 characters.' }),
  country: t.Optional(t.String({ pattern: '^[A-Za-z]{2}$', maxLength: 2, error: 'The country field must be a two-letter country code.' })),
});
export const CoordinatesQuery = t.Object({
  lat: t.Numeric({ minimum: -90, maximum: 90, error: 'The lat field must be a latitude between -90 and 90.' }),
  lng: t.Numeric({ minimum: -180, maximum: 180, error: 'The lng field must be a longitude between -180 and 180.' }),
});
const Address = t.Object({
  id: t.String(),
  label: t.String(),
  street: t.String(),
  postal_code: t.String(),
  city: t.String(),
  country: t.String(),
  lat: t.Number(),
  lng: t.Number(),
});
export const SuggestResponse = t.Object({ data: t.Array(Address) });
export const AddressResponse = t.Object({ data: t.Union([Address, t.Null()], { description: 'null when no address is within 1 km' }) });

// A whole number (as `queryInt`, whose maximum must be a power of ten): `2.5` went through to SQL's LIMIT, a 500.
const Limit = t.Optional(
  t
    .Transform(t.Union([t.String({ pattern: '^0*(?:[1-9]|[1-4][0-9]|50)$', maxLength: 16 }), Type.Integer({ minimum: 1, maximum: 50 })], { error: 'The limit field must be a whole number between 1 and 50.' }))
    .Decode((value) => Number(value))
    .Encode((value) => value),
);
const Category = t.Optional(t.String({ minLength: 1, maxLength: 40, error: 'The category field may not be greater than 40 characters.' }));
export const NearbyQuery = t.Object({
  lat: t.Numeric({ minimum: -90, maximum: 90, error: 'The lat field must be a latitude between -90 and 90.' }),
  lng: t.Numeric({ minimum: -180, maximum: 180, error: 'The lng field must be a longitude between -180 and 180.' }),
  radius_km: t.Optional(t.Numeric({ minimum: 0.1, maximum: 500, error: 'The radius_km field must be between 0.1 and 500.' })),
  limit: Limit,
  category: Category,
});
export const TopQuery = t.Object({ limit: Limit, category: Category });
const Suggestion = t.Object({
  location_id: t.String(),
  slug: t.String(),
  name: t.String(),
  categories: t.Array(t.String()),
  upvotes: Int(),
  latitude: t.Union([t.Number(), t.Null()]),
  longitude: t.Union([t.Number(), t.Null()]),
  distance_km: t.Optional(t.Number()),
});
export const SuggestionsResponse = t.Object({ data: t.Array(Suggestion) });
export const CategoriesResponse = t.Object({ data: t.Array(t.Object({ category: t.String(), restaurants: Int() })) });
export const UpvoteBody = t.Object({ location_id: t.String({ maxLength: 64, error: 'The location id field is required.' }) }, { additionalProperties: false });
export const UpvoteResponse = t.Object({ data: t.Object({ location_id: t.String(), upvotes: Int(), counted: t.Boolean({ description: 'false when this customer (or, without a customer token, this client address) had already upvoted' }) }) });
