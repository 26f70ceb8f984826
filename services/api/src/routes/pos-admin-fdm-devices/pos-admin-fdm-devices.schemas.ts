import { t } from 'elysia';
import { Iso } from '../pos-admin/pos-admin.schemas.ts';
import { PathId } from '../shared.schemas.ts';

/** Schemas of a location's fiscal data module enrolments (`/back-office/pos/{locationId}/fdm-devices`). */
export const FdmDeviceParams = t.Object({ locationId: PathId(), fdmDeviceId: PathId() });

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
