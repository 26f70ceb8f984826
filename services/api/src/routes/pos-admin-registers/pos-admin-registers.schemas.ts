import { t } from 'elysia';
import { TERMINAL_PROVIDERS } from '@pos/core/pos-admin/register-records';
import { Iso, Text, Uuid } from '../pos-admin/pos-admin.schemas.ts';
import { PathId } from '../shared.schemas.ts';

/** Schemas of a location's registers and their card terminals (`/back-office/pos/{locationId}/registers`). */
export const RegisterParams = t.Object({ locationId: PathId(), registerId: PathId() });

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
