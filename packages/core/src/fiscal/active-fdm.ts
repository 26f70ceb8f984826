import type { TenantDb } from '@pos/db';

/** The Belgian fiscal data module regime (GKS 2.0), the only one the register signs under. */
export const GKS_REGIME = 'gks';

/** A location's enrolment of a fiscal data module (`fdm_devices`). */
export interface FdmEnrolment {
  readonly id: string;
  readonly location_id: string;
  readonly fdm_id: string;
  readonly regime: string;
  readonly status: 'active' | 'retired';
  readonly mode: 'software' | 'remote';
}

const COLUMNS = ['id', 'location_id', 'fdm_id', 'regime', 'status', 'mode'] as const;

/**
 * The location's active enrolment (latest first if there were ever two), or null.
 * Accepts a transaction (`TenantTx` is a `TenantDb`).
 */
export async function activeFdmFor(tdb: TenantDb, locationId: string): Promise<FdmEnrolment | null> {
  const row = await tdb
    .selectFrom('fdm_devices')
    .select(COLUMNS)
    .where('location_id', '=', locationId)
    .where('status', '=', 'active')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** Active enrolments of several locations at once (the fiscal-locations report), by location id. */
export async function activeFdmsFor(tdb: TenantDb, locationIds: readonly string[]): Promise<Map<string, FdmEnrolment>> {
  const out = new Map<string, FdmEnrolment>();
  if (locationIds.length === 0) return out;
  const rows = await tdb
    .selectFrom('fdm_devices')
    .select(COLUMNS)
    .where('location_id', 'in', [...locationIds])
    .where('status', '=', 'active')
    .orderBy('created_at', 'asc')
    .execute();
  for (const r of rows) out.set(r.location_id, r); // the latest wins
  return out;
}

/** True when the enrolment signs: active and of the Belgian regime (spec 2, `signing`). */
export function isSigning(enrolment: FdmEnrolment | null | undefined): enrolment is FdmEnrolment {
  return enrolment?.status === 'active' && enrolment.regime === GKS_REGIME;
}
