import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import type { Access } from '../auth/access.ts';
import { activeFdmsFor, GKS_REGIME, isSigning } from '../fiscal/active-fdm.ts';
import { locationsWithFiscalHistory } from '../fiscal/export-journal.ts';
import { registerRequiresSigning } from './fiscal-mandate.ts';
import { holdsAny, reportableLocations } from './reportable-locations.ts';

/** The only permission of `GET /back-office/pos/fiscal-locations`, checked here (spec 2). */
export const FISCAL_LOCATIONS_PERMISSION = 'VIEW_POS_REPORTS';

export interface FiscalLocation {
  regime: 'gks' | null;
  mandated: boolean;
  signing: boolean;
  has_fiscal_history: boolean;
}

export interface FiscalLocationsScope {
  readonly tdb: TenantDb;
  readonly access: Access;
  readonly now: Date;
}

/**
 * Spec 2 `GET /pos/fiscal-locations`: `{<locationId>: {regime, mandated, signing, has_fiscal_history}}`
 * for every location the caller may report on (403 without VIEW_POS_REPORTS).
 * - `signing`: the location has an active enrolment of the Belgian regime (`isSigning`);
 * - `has_fiscal_history`: at least one journaled fiscal event; stays true after retirement;
 * - `mandated`: what the register enforces (`registerRequiresSigning`: every location);
 * - `regime`: `gks` when mandated, enrolled in any state (active or retired), or with history; else null.
 * Always a plain object, `{}` when the caller may report on no location.
 */
export async function fiscalLocations(scope: FiscalLocationsScope): Promise<Record<string, FiscalLocation>> {
  if (!holdsAny(scope.access, [FISCAL_LOCATIONS_PERMISSION])) throw errors.insufficientPermissions();
  const locations = await reportableLocations(scope.tdb, scope.access);
  const out: Record<string, FiscalLocation> = {};
  if (locations.length === 0) return out;
  const ids = locations.map((l) => l.id);
  const [active, enrolledRows, history] = await Promise.all([
    activeFdmsFor(scope.tdb, ids),
    scope.tdb.selectFrom('fdm_devices').select('location_id').distinct().where('location_id', 'in', ids).execute(),
    locationsWithFiscalHistory(scope.tdb, ids),
  ]);
  const enrolled = new Set(enrolledRows.map((r) => r.location_id));
  for (const l of locations) {
    const mandated = registerRequiresSigning(l, scope.now);
    const has_fiscal_history = history.has(l.id);
    out[l.id] = {
      regime: mandated || enrolled.has(l.id) || has_fiscal_history ? GKS_REGIME : null,
      mandated,
      signing: isSigning(active.get(l.id)),
      has_fiscal_history,
    };
  }
  return out;
}
