import { t } from 'elysia';
import { Paging as PageFields, PathId, Phone, Int, vendorIdField } from '../shared.schemas.ts';
import { CARD_A_READER_PATTERN, TERMINAL_ID_FORMAT, TERMINAL_ID_PATTERN, type KioskTerminalField } from '@pos/core/devices/terminal-bindings';

const Iso = t.String({ format: 'date-time' });
const Uuid = (error: string) => t.String({ format: 'uuid', error });

export const DeviceType = t.Union([t.Literal('pos'), t.Literal('kiosk'), t.Literal('kds'), t.Literal('printer')], {
  error: 'The selected type is invalid.',
});
export const ProfileType = t.Union([t.Literal('pos'), t.Literal('kiosk'), t.Literal('kds')], { error: 'The selected type is invalid.' });

/** Path id: any string; ids that are not UUIDs are a 404 (checked by the use case), never a 422. */
export const IdParams = t.Object({ id: PathId() });

export const Success = t.Object({ status: t.Literal('success') });

/** Data-table paging shared by the list routes. */
const Paging = {
  ...PageFields,
  search: t.Optional(t.String({ maxLength: 255 })),
};

// ---- devices -------------------------------------------------------------------------------

/** The back-office view of a device; `activation_code` is shown while it is unused, else null. */
export const Device = t.Object({
  id: t.String(),
  name: t.String(),
  type: DeviceType,
  location_id: t.String(),
  location: t.Object({ id: t.String(), name: t.String() }),
  device_profile_id: t.Nullable(t.String()),
  device_profile: t.Nullable(t.Object({ id: t.String(), name: t.String(), type: t.String() })),
  activation_code: t.Nullable(t.String()),
  activated_at: t.Nullable(Iso),
  last_seen_at: t.Nullable(Iso),
  online: t.Nullable(t.Boolean({ description: 'kds, kiosk, pos: seen within DEVICE_OFFLINE_AFTER_SECONDS (default 120); null for other types' })),
  subscription_active_until: t.Nullable(Iso),
  payment_enabled: t.Nullable(t.Boolean({ description: 'kiosk: terminal payments on (activate-payment) or off (deactivate-payment); null for other types' })),
  card_b_terminal_id: t.Nullable(t.String({ description: 'kiosk: the card-b terminal its payments start on (PUT binds it); null when unbound and for other types' })),
  card_a_reader_id: t.Nullable(t.String({ description: 'kiosk: the card-a reader its payments start on (PUT binds it); null when unbound and for other types' })),
  platform_a_device_id: t.Nullable(t.String({ description: 'kiosk: the platform-a device paired through platform-a-device-code; null when unpaired and for other types' })),
  network_info: t.Record(t.String(), t.Unknown()),
  created_at: Iso,
});
export const DeviceResponse = t.Object({ data: Device });

export const DeviceListQuery = t.Object({
  ...vendorIdField(),
  ...Paging,
  location_id: t.Optional(Uuid('The location id field must be a valid UUID.')),
  type: t.Optional(DeviceType),
});
export const DeviceList = t.Object({ data: t.Array(Device), total: Int(), page: Int(), per_page: Int() });

const Name = t.String({ minLength: 1, maxLength: 120, pattern: '\\S', error: 'The name field is required and may not be greater than 120 characters.' });

export const CreateDeviceBody = t.Object(
  {
    name: Name,
    type: DeviceType,
    location_id: Uuid('The location id field must be a valid UUID.'),
    device_profile_id: t.Optional(t.Nullable(Uuid('The device profile id field must be a valid UUID.'))),
  },
  { additionalProperties: false },
);

/** A kiosk terminal id: trimmed by the use case, so white space around it passes here. */
const TerminalId = (field: KioskTerminalField, pattern: string, description: string) =>
  t.Optional(t.Nullable(t.String({ maxLength: 100, pattern: `^\\s*${pattern}\\s*$`, error: TERMINAL_ID_FORMAT[field], description }), { error: TERMINAL_ID_FORMAT[field] }));

export const UpdateDeviceBody = t.Object(
  {
    name: t.Optional(Name),
    location_id: t.Optional(Uuid('The location id field must be a valid UUID.')),
    device_profile_id: t.Optional(t.Nullable(Uuid('The device profile id field must be a valid UUID.'))),
    card_b_terminal_id: TerminalId('card_b_terminal_id', TERMINAL_ID_PATTERN, 'kiosk only: the card-b terminal id (1-64 letters, digits, _ . : -, trimmed); null unbinds'),
    card_a_reader_id: TerminalId('card_a_reader_id', CARD_A_READER_PATTERN, 'kiosk only: the card-a reader id (tmr_…, at most 64 characters, trimmed); null unbinds'),
  },
  { additionalProperties: false },
);

export const DeviceProfileBody = t.Object(
  { device_profile_id: t.Nullable(t.String({ format: 'uuid' }), { error: 'The device profile id field must be a valid UUID or null.' }) },
  { additionalProperties: false },
);

export const SendActivationCodeBody = t.Object(
  {
    email: t.Optional(t.String({ format: 'email', maxLength: 255, error: 'The email field must be a valid email address.' })),
    phone: t.Optional(Phone({ error: 'The phone field must be a valid phone number.' })),
  },
  { additionalProperties: false },
);

export const DeviceForm = t.Object({
  data: t.Object({
    location_options: t.Array(t.Object({ value: t.String(), label: t.String() })),
    type_options: t.Array(t.Object({ value: DeviceType, label: t.String() })),
    device_profile_options: t.Array(t.Object({ value: t.String(), label: t.String(), type: t.String() })),
  }),
});

export const DeviceOptionsQuery = t.Object({
  ...vendorIdField(),
  location_id: t.Optional(Uuid('The location id field must be a valid UUID.')),
  type: t.Optional(DeviceType),
});
export const DeviceOptions = t.Object({
  data: t.Array(t.Object({ value: t.String(), label: t.String(), type: DeviceType, location_id: t.String() })),
});

// ---- device actions (docs/decisions.md "Device routes") -----------------------------------

export const LocationParams = t.Object({ locationId: PathId() });

export const SubscribeDevicesBody = t.Object(
  {
    billing_profile_id: Uuid('The billing profile id field must be a valid UUID.'),
    device_ids: t.Optional(
      t.Array(Uuid('Each device id must be a valid UUID.'), {
        minItems: 1,
        maxItems: 100,
        error: 'The device ids field must be a list of 1 to 100 device ids.',
        description: 'kiosk and kds devices of the location; absent: every one not yet covered by a subscription',
      }),
    ),
  },
  { additionalProperties: false },
);
export const DeviceSubscriptionResponse = t.Object({
  data: t.Object({
    id: t.String(),
    provider_subscription_id: t.String(),
    status: t.String(),
    current_period_end: t.Nullable(Iso),
    device_ids: t.Array(t.String()),
    devices: t.Array(t.Object({ id: t.String(), subscription_active_until: Iso })),
  }),
});

/** `command` is checked by the use case after the device (one of reload, restart, sync, identify), so an unknown device is a 404 whatever the body says. */
export const RemoteControlBody = t.Object(
  {
    command: t.Optional(
      t.String({
        maxLength: 32,
        error: 'The command must be one of reload, restart, sync, identify.',
        description: 'required: reload (the screen), restart (the app), sync (its data again), identify (the screen shows its name)',
      }),
    ),
  },
  { additionalProperties: false },
);
export const RemoteControlResponse = t.Object({
  data: t.Object({
    id: t.String(),
    device_id: t.String(),
    command: t.String(),
    issued_at: Iso,
    online: t.Nullable(t.Boolean({ description: 'seen recently; an offline device misses the command (it is not queued)' })),
  }),
});

export const ReaderLabelBody = t.Object(
  // Required, checked by the use case after the device (an unknown device is a 404 whatever the body says).
  { label: t.Optional(t.String({ maxLength: 100, error: 'The label field is required and may not be greater than 100 characters.', description: 'required, 1-100 characters' })) },
  { additionalProperties: false },
);
export const ReaderLabelResponse = t.Object({ data: t.Object({ device_id: t.String(), reader_id: t.String(), label: t.String() }) });

export const DeviceCodeResponse = t.Object({
  data: t.Object({
    device_id: t.String(),
    code_id: t.String(),
    code: t.Nullable(t.String({ description: 'typed on the terminal; null once paired or expired' })),
    status: t.Union([t.Literal('UNPAIRED'), t.Literal('PAIRED'), t.Literal('EXPIRED')]),
    pair_by: t.String(),
    platform_a_device_id: t.Nullable(t.String()),
  }),
});

// ---- device profiles -----------------------------------------------------------------------

export const DeviceProfile = t.Object({
  id: t.String(),
  name: t.String(),
  type: ProfileType,
  settings: t.Record(t.String(), t.Unknown()),
  /** Live devices bound to this profile. */
  devices_count: Int(),
  created_at: Iso,
  updated_at: Iso,
});
export const DeviceProfileResponse = t.Object({ data: DeviceProfile });
export const DeviceProfileList = t.Object({ data: t.Array(DeviceProfile), total: Int(), page: Int(), per_page: Int() });
export const DeviceProfileListQuery = t.Object({ ...Paging, ...vendorIdField(), type: t.Optional(ProfileType) });
export const DeviceProfileOptionsQuery = t.Object({ ...vendorIdField(), type: t.Optional(ProfileType) });
export const DeviceProfileOptions = t.Object({ data: t.Array(t.Object({ value: t.String(), label: t.String(), type: ProfileType })) });

const Settings = t.Record(t.String(), t.Unknown(), { error: 'The settings field must be an object.' });

export const CreateDeviceProfileBody = t.Object(
  { name: Name, type: ProfileType, settings: t.Optional(Settings) },
  { additionalProperties: false },
);
export const UpdateDeviceProfileBody = t.Object(
  { name: t.Optional(Name), type: t.Optional(ProfileType), settings: t.Optional(Settings) },
  { additionalProperties: false },
);
export const DeleteProfileResponse = t.Object({ status: t.Literal('success'), unbound_devices: Int() });
