import { t } from 'elysia';
import { KdsSettings, SettingsFields } from '../kds-profiles/index.ts';
import { DateString, Int } from '../shared.schemas.ts';

const Iso = t.String({ format: 'date-time' });
const Uuid = (field: string) => t.String({ format: 'uuid', maxLength: 36, error: `The ${field} field must be a valid UUID.` });
const Status = t.Union([t.Literal('Queued'), t.Literal('In Progress'), t.Literal('Ready'), t.Literal('Complete')]);
const ItemStatus = t.Union([t.Literal('Queued'), t.Literal('In Progress'), t.Literal('Ready')], { error: 'The status must be Queued, In Progress or Ready.' });

export const KdsOrder = t.Object({
  id: t.String(),
  station_id: t.String(),
  order_no: t.String(),
  source: t.Union([t.Literal('transaction'), t.Literal('pos_order')]),
  status: Status,
  held: t.Boolean(),
  prioritized: t.Boolean(),
  queued_at: Iso,
  started_at: t.Nullable(Iso),
  ready_at: t.Nullable(Iso),
  completed_at: t.Nullable(Iso),
  customer_arrived_at: t.Nullable(Iso),
  estimated_arrival_at: t.Nullable(Iso),
  /** When a scheduled order is due; null for an order for now. */
  due_at: t.Nullable(Iso),
  items: t.Array(
    t.Object({ position: Int(), name: t.String(), qty: Int(), status: t.String(), modifiers: t.Array(t.Unknown()), modifier_statuses: t.Array(t.String()) }),
  ),
});
export const KdsOrderResponse = t.Object({ data: KdsOrder });

const Position = Int({ minimum: 0, maximum: 10_000, error: 'The position field must be a whole number from 0.' });
export const MarkItemBody = t.Object({ order_id: Uuid('order id'), position: Position, status: ItemStatus }, { additionalProperties: false });
export const MarkModifierBody = t.Object(
  { order_id: Uuid('order id'), position: Position, modifier_index: Int({ minimum: 0, maximum: 1000, error: 'The modifier index field must be a whole number from 0.' }), status: ItemStatus },
  { additionalProperties: false },
);
export const CustomerArrivedBody = t.Object({ order_id: Uuid('order id') }, { additionalProperties: false });
export const EstimatedArrivalBody = t.Object(
  { order_id: Uuid('order id'), estimated_arrival_at: t.String({ format: 'date-time', maxLength: 40, error: 'The estimated arrival at field must be a date and time (ISO 8601).' }) },
  { additionalProperties: false },
);

export const PushTokenBody = t.Object(
  {
    push_token: t.Nullable(t.String({ minLength: 1, maxLength: 512, pattern: '^[\\x21-\\x7e]+$', error: 'The push token field must be printable text of at most 512 characters.' })),
    platform: t.Optional(t.Union([t.Literal('android'), t.Literal('ios'), t.Literal('web')], { error: 'The selected platform is invalid.' })),
  },
  { additionalProperties: false },
);

/** `PUT /kds/settings`: the device's own overrides; a key set to null drops its override. */
export const SettingsPatchBody = t.Object(
  {
    recall_window_minutes: t.Optional(t.Nullable(SettingsFields.recall_window_minutes)),
    late_after_minutes: t.Optional(t.Nullable(SettingsFields.late_after_minutes)),
    sort: t.Optional(t.Nullable(SettingsFields.sort)),
    show_modifiers: t.Optional(t.Nullable(SettingsFields.show_modifiers)),
    play_sound: t.Optional(t.Nullable(SettingsFields.play_sound)),
  },
  { additionalProperties: false },
);

export const SettingsResponse = t.Object({
  data: t.Object({
    device_id: t.String(),
    location_id: t.String(),
    kds_profile_id: t.Nullable(t.String()),
    station: t.Nullable(t.Object({ id: t.String(), name: t.String(), category_ids: t.Array(t.String()), is_fallback: t.Boolean() })),
    settings: KdsSettings,
    overrides: t.Partial(KdsSettings),
  }),
});

export const ItemsResponse = t.Object({ data: t.Array(t.Object({ id: t.String(), name: t.String(), category_id: t.Nullable(t.String()), open_qty: Int() })) });
export const CategoriesResponse = t.Object({ data: t.Array(t.Object({ id: t.String(), name: t.String(), position: Int() })) });

const Seconds = t.Nullable(Int());
export const MetricsResponse = t.Object({
  data: t.Object({
    station_id: t.Nullable(t.String()),
    date: t.String(),
    time_zone: t.String(),
    orders_waiting: Int(),
    orders_in_progress: Int(),
    orders_ready: Int(),
    late_orders: Int(),
    late_after_minutes: Int(),
    completed_today: Int(),
    average_prep_seconds: Seconds,
    p90_prep_seconds: Seconds,
  }),
});

const Stats = { orders: Int(), average_prep_seconds: Seconds, p90_prep_seconds: Seconds, late_orders: Int() };
export const ReportQuery = t.Object(
  {
    location_id: Uuid('location id'),
    date: t.Optional(DateString('date')),
    late_after_minutes: t.Optional(t.String({ pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|2[0-3][0-9]|240)$', maxLength: 3, error: 'The late after minutes field must be a whole number between 1 and 240.' })),
  },
  { additionalProperties: false },
);
export const ReportResponse = t.Object({
  data: t.Object({
    location_id: t.String(),
    date: t.String(),
    time_zone: t.String(),
    late_after_minutes: Int(),
    totals: t.Object(Stats),
    stations: t.Array(t.Object({ station_id: t.String(), name: t.String(), ...Stats })),
    hours: t.Array(t.Object({ hour: Int(), ...Stats })),
  }),
});
