import { t } from 'elysia';
import { ApprovalToken, PathId, vendorIdField, Int } from '../shared.schemas.ts';

export const DISCOVERY_KEYS = ['mac', 'ip', 'model', 'device_name', 'serial', 'paper_width_mm', 'mac_source'] as const;
export const UNKNOWN_KEY_MESSAGE = `A printer entry may only have the keys ${DISCOVERY_KEYS.join(', ')}.`;
export const INVALID_IP_MESSAGE = 'The ip must be a valid IP address.';
/** A discovery entry whose `mac` is all zeros or the broadcast address (422 on `printers.N.mac`). */
export const PLACEHOLDER_MAC_MESSAGE = 'The mac must be the printer\'s own address, not 00:00:00:00:00:00 or FF:FF:FF:FF:FF:FF.';

const Text64 = (field: string) => t.String({ maxLength: 64, error: `The ${field} may not be greater than 64 characters.` });

/** Spec 2 "Printer routes", discovery report: one contract for the register and the kiosk. */
export const DiscoveryEntry = t.Object(
  {
    mac: t.String({ maxLength: 17, pattern: '^[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}\\1[0-9A-Fa-f]{2}\\1[0-9A-Fa-f]{2}\\1[0-9A-Fa-f]{2}\\1[0-9A-Fa-f]{2}$', error: 'The mac must be a valid MAC address.' }),
    ip: t.Optional(t.String({ maxLength: 45, error: INVALID_IP_MESSAGE })),
    model: t.Optional(Text64('model')),
    device_name: t.Optional(Text64('device name')),
    serial: t.Optional(Text64('serial')),
    paper_width_mm: t.Optional(t.Union([t.Literal(58), t.Literal(80)], { error: 'The paper width mm must be 58 or 80.' })),
    mac_source: t.Optional(t.Nullable(t.Union([t.Literal('ipp-uuid'), t.Literal('vendor-http'), t.Literal('manual')], { error: 'The selected mac source is invalid.' }))),
  },
  { additionalProperties: false, error: UNKNOWN_KEY_MESSAGE },
);
export const DiscoveryBody = t.Object(
  { printers: t.Array(DiscoveryEntry, { minItems: 1, maxItems: 16, error: 'The printers field must list 1 to 16 printers.' }) },
  { additionalProperties: false },
);
export const DiscoveryResponse = t.Object({ reported: Int(), known: Int() });

export const Printer = t.Object({
  id: t.String(),
  location_id: t.String(),
  mac: t.String(),
  ip: t.Nullable(t.String()),
  model: t.Nullable(t.String()),
  device_name: t.Nullable(t.String()),
  serial: t.Nullable(t.String()),
  paper_width_mm: t.Nullable(Int()),
  mac_source: t.String(),
  state: t.Union([t.Literal('unconfigured'), t.Literal('configured'), t.Literal('paired'), t.Literal('retired')]),
  name: t.Nullable(t.String()),
  role: t.Union([t.Literal('receipt'), t.Literal('kitchen')]),
  station_id: t.Nullable(t.String()),
  printer_profile_id: t.Nullable(t.String()),
  poll_interval_seconds: Int(),
  online: t.Boolean({ description: 'polled within 2 x its poll interval + 5 s' }),
  last_poll_at: t.Nullable(t.String()),
  pending_jobs: Int({ description: 'jobs waiting to print (kept while the printer is offline)' }),
  created_at: t.String(),
});
export const PrinterList = t.Object({ data: t.Array(Printer) });
export const PrinterResponse = t.Object({ data: Printer });

export const PosPrinterListQuery = t.Object({
  state: t.Optional(t.Union([t.Literal('unconfigured'), t.Literal('paired')], { error: 'The selected state is invalid.' })),
});
export const IdParams = t.Object({ id: PathId() });

const ConfigureFields = {
  name: t.String({ minLength: 1, maxLength: 64, pattern: '\\S', error: 'The name field is required and may not be greater than 64 characters.' }),
  role: t.Optional(t.Union([t.Literal('receipt'), t.Literal('kitchen')], { error: 'The selected role is invalid.' })),
  station_id: t.Optional(t.Nullable(t.String({ format: 'uuid', maxLength: 36, error: 'The selected station id is invalid.' }))),
  paper_width_mm: t.Optional(t.Union([t.Literal(58), t.Literal(80)], { error: 'The paper width mm must be 58 or 80.' })),
  printer_profile_id: t.Optional(t.Nullable(t.String({ format: 'uuid', maxLength: 36, error: 'The selected printer profile id is invalid.' }))),
  poll_interval_seconds: t.Optional(Int({ minimum: 1, maximum: 86_400, error: 'The poll interval seconds must be a whole number between 1 and 86400.' })),
};
export const ConfigureBody = t.Object(ConfigureFields, { additionalProperties: false });
export const PosConfigureBody = t.Object({ ...ConfigureFields, approval_token: t.Optional(ApprovalToken({ description: 'from POST /pos/staff/escalate for `manage_printers`' })) }, { additionalProperties: false });
export const PosApprovalBody = t.Optional(t.Object({ approval_token: t.Optional(ApprovalToken({ description: 'from POST /pos/staff/escalate for `manage_printers`' })) }, { additionalProperties: false }));

export const PairingSession = t.Object({
  id: t.String(),
  printer_id: t.String(),
  state: t.Union([t.Literal('awaiting_write'), t.Literal('awaiting_first_poll'), t.Literal('paired'), t.Literal('expired')]),
  expires_at: t.String(),
  written_at: t.Nullable(t.String()),
  paired_at: t.Nullable(t.String()),
  created_at: t.String(),
});
export const PairingRead = t.Object({ pairing_session: PairingSession });
export const PairingStarted = t.Object({
  pairing_session: PairingSession,
  printer_token: t.String({ description: 'shown once: only its hash is kept' }),
  poll_url: t.String(),
  poll_interval_seconds: Int(),
});
export const TestPrintResponse = t.Object({ status: t.Literal('queued'), print_job_id: t.String() });
export const RotateResponse = t.Object({ printer_token: t.String({ description: 'shown once; the previous token stops working now' }), printer: Printer });
export const RetireResponse = t.Object({ status: t.Literal('success'), cancelled_jobs: Int() });

export const VendorQuery = t.Object(vendorIdField());
export const UnconfiguredQuery = t.Object({ ...vendorIdField(), location_id: t.Optional(t.String({ format: 'uuid', maxLength: 36, error: 'The selected location id is invalid.' })) });

export const PrinterListQuery = t.Object({
  ...vendorIdField(),
  location_id: t.Optional(t.String({ format: 'uuid', maxLength: 36, error: 'The selected location id is invalid.' })),
  state: t.Optional(t.Union([t.Literal('unconfigured'), t.Literal('configured'), t.Literal('paired')], { error: 'The selected state is invalid.' })),
});

export const KioskTestPrintResponse = t.Object({ status: t.Literal('queued'), printers: Int({ description: 'receipt printers of the kiosk\'s location the test print went to' }) });
