import type { Selectable } from 'kysely';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { iso, isoOrNull, notFound } from './pos-admin-scope.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Fiscal data module enrolments (`fdm_devices`) of a location. At most one is active per location
 * (the register signs with it); retiring one keeps it listed with `retired_at`, and its journal and
 * the location's fiscal history stay.
 */

export type FdmDeviceRow = Selectable<TenantTables['fdm_devices']>;

export interface FdmDeviceView {
  id: string;
  location_id: string;
  fdm_id: string;
  regime: string;
  status: 'active' | 'retired';
  mode: 'software' | 'remote';
  created_at: string;
  retired_at: string | null;
}

export const ACTIVE_FDM_EXISTS = 'This location already has an active fiscal data module: retire it first.';
export const FDM_ID_TAKEN = 'This fiscal data module is already enrolled.';
export const REMOTE_NOT_CONFIGURED = 'No remote fiscal data module is configured for this device.';

export function presentFdmDevice(r: FdmDeviceRow): FdmDeviceView {
  return {
    id: r.id,
    location_id: r.location_id,
    fdm_id: r.fdm_id,
    regime: r.regime,
    status: r.status,
    mode: r.mode,
    created_at: iso(r.created_at),
    retired_at: isoOrNull(r.retired_at),
  };
}

/** An enrolment of the location, or 404 `fiscal device`: another location's or merchant's id is not found. */
export async function findFdmDevice(tdb: TenantDb | TenantTx, locationId: string, id: string, opts: { lock?: boolean } = {}): Promise<FdmDeviceRow> {
  if (!isUuid(id)) throw notFound('fiscal device');
  let q = tdb.selectFrom('fdm_devices').selectAll().where('id', '=', id).where('location_id', '=', locationId);
  if (opts.lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('fiscal device');
  return row;
}
