import { t } from 'elysia';
import { Int, PathId, vendorIdField } from '../shared.schemas.ts';

/** Schemas of the channel settings (spec 1 "Online ordering and table QR ordering", back-office rows). */
export const VendorQuery = t.Object(vendorIdField('admin-vendor-override: merchant id to act on'));
export const LocationParams = t.Object({ locationId: PathId() });

const Bool = (field: string) => t.Boolean({ error: `The ${field} field must be true or false.` });
const Whole = (field: string, min: number, max: number) => Int({ minimum: min, maximum: max, error: `The ${field} field must be a whole number between ${min} and ${max}.` });
const Clock = (field: string) => t.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', maxLength: 5, error: `The ${field} field must be a time (HH:MM).` });

export const OpeningWindow = t.Object(
  { day: Whole('day', 1, 7), open: Clock('open'), close: Clock('close') },
  { additionalProperties: false, description: 'ISO weekday (1 = Monday); `close` at or before `open` ends on the next day.' },
);

export const OnlineOrderingBody = t.Object(
  {
    enabled: t.Optional(Bool('enabled')),
    pickup: t.Optional(Bool('pickup')),
    delivery: t.Optional(Bool('delivery')),
    opening_hours: t.Optional(t.Array(OpeningWindow, { maxItems: 50, error: 'The opening hours field must be a list of at most 50 windows.' })),
    preparation_minutes: t.Optional(Whole('preparation minutes', 0, 720)),
    slot_capacity: t.Optional(Whole('slot capacity', 0, 1000)),
    max_days_ahead: t.Optional(Whole('max days ahead', 0, 30)),
    minimum_order: t.Optional(Whole('minimum order', 0, 10_000_000)),
    local_debit_intent: t.Optional(Bool('local debit intent')),
    latitude: t.Optional(t.Nullable(t.Number({ minimum: -90, maximum: 90, error: 'The latitude field must be between -90 and 90.' }))),
    longitude: t.Optional(t.Nullable(t.Number({ minimum: -180, maximum: 180, error: 'The longitude field must be between -180 and 180.' }))),
    categories: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 40, pattern: '\\S', error: 'Each category must be 1 to 40 characters.' }), { maxItems: 10, error: 'The categories field must be a list of at most 10 categories.' }),
    ),
  },
  { additionalProperties: false },
);

export const OnlineOrderingView = t.Object({
  location_id: t.String(),
  enabled: t.Boolean(),
  pickup: t.Boolean(),
  delivery: t.Boolean(),
  opening_hours: t.Array(t.Object({ day: Int(), open: t.String(), close: t.String() })),
  preparation_minutes: Int(),
  slot_capacity: Int(),
  max_days_ahead: Int(),
  minimum_order: Int(),
  local_debit_intent: t.Boolean(),
  latitude: t.Union([t.Number(), t.Null()]),
  longitude: t.Union([t.Number(), t.Null()]),
  categories: t.Array(t.String()),
  snoozed_until: t.Union([t.String(), t.Null()]),
  open_now: t.Boolean(),
});
export const OnlineOrderingResponse = t.Object({ data: OnlineOrderingView });

export const SnoozeBody = t.Object(
  { minutes: Whole('minutes', 0, 10_080) },
  { additionalProperties: false, description: '`minutes` from now (at most a week); 0 lifts the snooze.' },
);

export const OnlineSettingsBody = t.Object(
  {
    welcome_message: t.Optional(t.String({ maxLength: 500, error: 'The welcome message field may not be greater than 500 characters.' })),
    allow_guest_checkout: t.Optional(Bool('allow guest checkout')),
    allow_tips: t.Optional(Bool('allow tips')),
    allow_notes: t.Optional(Bool('allow notes')),
  },
  { additionalProperties: false },
);
export const OnlineSettingsResponse = t.Object({
  data: t.Object({ location_id: t.String(), welcome_message: t.String(), allow_guest_checkout: t.Boolean(), allow_tips: t.Boolean(), allow_notes: t.Boolean() }),
});

export const InHouseBody = t.Object(
  {
    dine_in: t.Optional(Bool('dine in')),
    takeaway: t.Optional(Bool('takeaway')),
    ask_customer_name: t.Optional(Bool('ask customer name')),
    ask_table_number: t.Optional(Bool('ask table number')),
  },
  { additionalProperties: false },
);
export const InHouseResponse = t.Object({
  data: t.Object({ location_id: t.String(), dine_in: t.Boolean(), takeaway: t.Boolean(), ask_customer_name: t.Boolean(), ask_table_number: t.Boolean() }),
});

export const QrOrderingBody = t.Object(
  { enabled: t.Optional(Bool('enabled')), pay_at_table: t.Optional(Bool('pay at table')), allow_guest_checkout: t.Optional(Bool('allow guest checkout')) },
  { additionalProperties: false },
);
export const QrOrderingResponse = t.Object({
  data: t.Object({ location_id: t.String(), enabled: t.Boolean(), pay_at_table: t.Boolean(), allow_guest_checkout: t.Boolean() }),
});

export const ChannelsResponse = t.Object({ data: t.Array(t.Object({ channel: t.String(), enabled: t.Boolean() })) });
