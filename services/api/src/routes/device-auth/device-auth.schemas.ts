import { t } from 'elysia';

export const ActivateBody = t.Object({
  activation_code: t.String({ minLength: 1, maxLength: 64, error: 'The activation code field is required.' }),
});

/** Answer of activate and admin-switch (spec 1 "Device authentication"). */
export const DeviceTokenResponse = t.Object({
  token: t.String(),
  device_details: t.Object({ id: t.String(), location_id: t.String(), merchant_slug: t.String() }),
});

const Location = t.Object({ id: t.String(), name: t.String(), timezone: t.String() });

export const DeviceInfoResponse = t.Object({
  data: t.Object({
    id: t.String(),
    name: t.String(),
    type: t.String(),
    location: Location,
    merchant: t.Object({ id: t.String(), slug: t.String(), name: t.String() }),
    profile: t.Nullable(t.Object({ id: t.String(), name: t.String(), type: t.String(), settings: t.Record(t.String(), t.Unknown()) })),
  }),
});

export const NetworkInfoBody = t.Object(
  {
    ip_address: t.Optional(t.String({ maxLength: 64 })),
    ssid: t.Optional(t.String({ maxLength: 64 })),
    mac_address: t.Optional(t.String({ maxLength: 64 })),
    connection_type: t.Optional(t.String({ maxLength: 32 })),
    app_version: t.Optional(t.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
export const NetworkInfoResponse = t.Object({ status: t.Literal('success'), network_info: t.Record(t.String(), t.Unknown()) });

export const HeartbeatResponse = t.Object({ status: t.Literal('success'), server_time: t.String({ format: 'date-time' }) });

export const Success = t.Object({ status: t.Literal('success') });

export const SwitchTargets = t.Object({
  data: t.Array(t.Object({ id: t.String(), name: t.String(), type: t.String(), location: Location })),
});

export const AdminSwitchBody = t.Object(
  { device_id: t.String({ format: 'uuid', error: 'The device id field must be a valid UUID.' }) },
  { additionalProperties: false },
);
