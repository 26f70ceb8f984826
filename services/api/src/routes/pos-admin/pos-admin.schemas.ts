import { t } from 'elysia';
import { REGISTER_PERMISSIONS } from '@pos/domain/permissions';
import { TENDER_ROWS } from '@pos/domain/reports/sales-by-tender';
import { TERMINAL_PROVIDERS } from '@pos/core/pos-admin/register-records';
import { DateString, Paging, PathId, Pin as PinOf, vendorIdField } from '../shared.schemas.ts';

/**
 * Schemas of the back-office register administration (spec 2 "Back-office routes for the first-party
 * register"), under `/back-office/pos`. Path ids are plain strings: an id that is not a UUID is a
 * 404 (checked by the use case), never a 422. Bodies refuse keys they do not declare (422).
 */

const Iso = t.String({ format: 'date-time' });
const Uuid = (field: string) => t.String({ format: 'uuid', error: `The ${field} field must be a valid UUID.` });
const Text = (field: string, max: number) => t.String({ minLength: 1, maxLength: max, pattern: '\\S', error: `The ${field} field is required and may not be greater than ${max} characters.` });

export const Success = t.Object({ status: t.Literal('success') });

export const LocationParams = t.Object({ locationId: PathId() });
export const CredentialParams = t.Object({ credentialId: PathId() });
export const RegisterParams = t.Object({ locationId: PathId(), registerId: PathId() });
export const DrawerParams = t.Object({ locationId: PathId(), drawerId: PathId() });
export const FdmDeviceParams = t.Object({ locationId: PathId(), fdmDeviceId: PathId() });
export const BusinessDayParams = t.Object({ locationId: PathId(), businessDayId: PathId() });

/** `admin-vendor-override`: every route of this file accepts `vendor_id`. */
const vendorId = vendorIdField('admin-vendor-override: merchant id to act on (internal admins and the merchant\'s reseller)');
export const VendorQuery = t.Object(vendorId);

export const IncludeRetiredQuery = t.Object({ ...vendorId, include_retired: t.Optional(t.Boolean({ error: 'The include retired field must be true or false.' })) });

// ---- staff credentials ------------------------------------------------------------------------

/** A register PIN: 4 to 8 digits. */
const Pin = PinOf('The pin must be 4 to 8 digits.');
const RegisterPermission = t.UnionEnum(REGISTER_PERMISSIONS, { error: `Each permission must be one of: ${REGISTER_PERMISSIONS.join(', ')}.` });
const Permissions = t.Array(RegisterPermission, { maxItems: 64 });

/** A credential as the back office sees it: never the PIN, its hash or its fingerprint. */
export const StaffCredential = t.Object({
  id: t.String(),
  name: t.String(),
  role: t.String(),
  permissions: t.Array(t.String()),
  user_id: t.Nullable(t.String()),
  created_at: Iso,
});
export const StaffCredentialResponse = t.Object({ data: StaffCredential });
export const StaffCredentialList = t.Object({ data: t.Array(StaffCredential) });
export const AssignableStaffList = t.Object({ data: t.Array(t.Object({ id: t.String(), name: t.String(), email: t.String() })) });

export const CreateStaffCredentialBody = t.Object(
  {
    name: Text('name', 120),
    role: Text('role', 60),
    pin: Pin,
    permissions: Permissions,
    user_id: t.Optional(t.Nullable(Uuid('user id'))),
  },
  { additionalProperties: false },
);

export const UpdateStaffCredentialBody = t.Object(
  { name: t.Optional(Text('name', 120)), role: t.Optional(Text('role', 60)), permissions: t.Optional(Permissions) },
  { additionalProperties: false },
);

/** `pin` absent (or no body): the server draws a random 6-digit PIN. */
export const ResetPinBody = t.Optional(t.Object({ pin: t.Optional(Pin) }, { additionalProperties: false }));
/** The new PIN is answered once, here; it is stored only hashed. */
export const ResetPinResponse = t.Object({ data: StaffCredential, pin: t.String() });

// ---- registers --------------------------------------------------------------------------------

const TerminalProvider = t.UnionEnum(TERMINAL_PROVIDERS, { error: `The provider must be one of: ${TERMINAL_PROVIDERS.join(', ')}.` });

export const Terminal = t.Object({ provider: t.String(), terminal_id: t.String(), label: t.Nullable(t.String()), paired_at: t.String() });
export const Register = t.Object({
  id: t.String(),
  location_id: t.String(),
  name: t.String(),
  device_id: t.Nullable(t.String()),
  drawer_id: t.Nullable(t.String()),
  terminal: t.Nullable(Terminal),
  retired_at: t.Nullable(Iso),
  created_at: Iso,
});
export const RegisterResponse = t.Object({ data: Register });
export const RegisterList = t.Object({ data: t.Array(Register) });

export const CreateRegisterBody = t.Object(
  { name: Text('name', 120), device_id: t.Optional(t.Nullable(Uuid('device id'))), drawer_id: t.Optional(t.Nullable(Uuid('drawer id'))) },
  { additionalProperties: false },
);
export const UpdateRegisterBody = t.Object(
  { name: t.Optional(Text('name', 120)), device_id: t.Optional(t.Nullable(Uuid('device id'))), drawer_id: t.Optional(t.Nullable(Uuid('drawer id'))) },
  { additionalProperties: false },
);
export const PairTerminalBody = t.Object(
  { provider: TerminalProvider, terminal_id: Text('terminal id', 100), label: t.Optional(t.Nullable(t.String({ maxLength: 100, error: 'The label may not be greater than 100 characters.' }))) },
  { additionalProperties: false },
);
export const TerminalLabelBody = t.Object(
  { label: t.Nullable(t.String({ maxLength: 100, error: 'The label may not be greater than 100 characters.' })) },
  { additionalProperties: false },
);

// ---- drawers ----------------------------------------------------------------------------------

const DrawerKind = t.Union([t.Literal('physical'), t.Literal('virtual')], { error: 'The kind must be physical or virtual.' });
export const Drawer = t.Object({
  id: t.String(),
  location_id: t.String(),
  name: t.String(),
  kind: t.String(),
  /** Frozen at creation, rendered verbatim; a rename never changes it. */
  fiscal_identity: t.Nullable(t.Object({ drawerId: t.String(), drawerName: t.String() })),
  retired_at: t.Nullable(Iso),
  created_at: Iso,
});
export const DrawerResponse = t.Object({ data: Drawer });
export const DrawerList = t.Object({ data: t.Array(Drawer) });
export const CreateDrawerBody = t.Object({ name: Text('name', 120), kind: DrawerKind }, { additionalProperties: false });
export const RenameDrawerBody = t.Object({ name: Text('name', 120) }, { additionalProperties: false });

// ---- fiscal devices ---------------------------------------------------------------------------

export const FdmDevice = t.Object({
  id: t.String(),
  location_id: t.String(),
  fdm_id: t.String(),
  regime: t.String(),
  status: t.String(),
  mode: t.String(),
  created_at: Iso,
  retired_at: t.Nullable(Iso),
});
export const FdmDeviceResponse = t.Object({ data: FdmDevice });
export const FdmDeviceList = t.Object({ data: t.Array(FdmDevice) });
export const EnrolFdmDeviceBody = t.Object(
  {
    fdm_id: t.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', maxLength: 64, error: 'The fdm id must be 1 to 64 letters, digits, dots, dashes or underscores.' }),
    mode: t.Union([t.Literal('software'), t.Literal('remote')], { error: 'The mode must be software or remote.' }),
  },
  { additionalProperties: false },
);
export const UpdateFdmDeviceBody = t.Object({ status: t.Literal('retired', { error: 'The status can only be set to retired.' }) }, { additionalProperties: false });

// ---- business days and the fiscal journal -----------------------------------------------------

export const PagingQuery = t.Object({
  ...vendorId,
  ...Paging,
});

const BusinessDayFields = {
  id: t.String(),
  business_date: t.String(),
  status: t.String(),
  z_report_no: t.Nullable(t.Integer()),
  opened_at: Iso,
  closed_at: t.Nullable(Iso),
};
export const BusinessDayList = t.Object({ data: t.Array(t.Object(BusinessDayFields)), total: t.Integer(), page: t.Integer(), per_page: t.Integer() });

const TenderRow = t.Object({ label: t.UnionEnum(TENDER_ROWS), amount: t.Integer(), count: t.Integer() });
export const BusinessDayResponse = t.Object({
  data: t.Object({
    ...BusinessDayFields,
    location_id: t.String(),
    /** The Z report JSON verbatim as stored at close (decimal major units); null while open. */
    z_report: t.Unknown(),
    /** The day's sales per tender row, integer cents, gross of refunds. */
    sales_by_tender: t.Array(TenderRow),
    refunds: t.Object({ count: t.Integer(), amount: t.Integer() }),
  }),
});

export const FiscalEventsQuery = t.Object({ ...vendorId, from: t.Optional(DateString('from')), to: t.Optional(DateString('to')) });

const FiscalEvent = t.Object({
  id: t.String(),
  fdm_id: t.String(),
  seq: t.Integer(),
  event_kind: t.String(),
  /** The canonical event text the entry's hash covers. */
  payload: t.String(),
  status: t.String(),
  sign_result: t.Unknown(),
  sign_error: t.Unknown(),
  prev_hash: t.String(),
  hash: t.String(),
  result_hash: t.Nullable(t.String()),
  subject_type: t.Nullable(t.String()),
  subject_id: t.Nullable(t.String()),
  created_at: Iso,
  completed_at: t.Nullable(Iso),
});
const Verification = t.Union([
  t.Object({ ok: t.Literal(true), count: t.Integer(), pending: t.Integer(), failed: t.Integer(), last_seq: t.Integer() }),
  t.Object({ ok: t.Literal(false), seq: t.Integer(), problem: t.String(), detail: t.String() }),
]);
export const FiscalEventsResponse = t.Object({
  data: t.Array(
    t.Object({
      fdm_id: t.String(),
      mode: t.Nullable(t.String()),
      status: t.Nullable(t.String()),
      entries: t.Array(FiscalEvent),
      verification: Verification,
    }),
  ),
});

export const FiscalLocationsResponse = t.Object({
  fiscal_locations: t.Record(
    t.String(),
    t.Object({ regime: t.Nullable(t.Literal('gks')), mandated: t.Boolean(), signing: t.Boolean(), has_fiscal_history: t.Boolean() }),
  ),
});
