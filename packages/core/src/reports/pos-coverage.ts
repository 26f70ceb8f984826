import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import type { Access } from '../auth/access.ts';
import { FIRST_PARTY_PROVIDER, isFirstPartyMerchant } from '../pos/first-party.ts';
import { holdsAny, reportableLocations } from './reportable-locations.ts';

/** `GET /back-office/reports/pos-coverage`: 403 unless the caller holds one of these (checked here, not by middleware). */
export const POS_COVERAGE_PERMISSIONS = ['VIEW_SALES_REPORTS', 'VIEW_POS_REPORTS', 'VIEW_KITCHEN_REPORTS'] as const;

/** Merchant-scoped register integrations, in lookup order: one record answers for every location. */
export const MERCHANT_SCOPED_PROVIDERS = ['platform-a', 'register-b', 'register-c'] as const;

/** A resolved register integration: the provider word and whether its connection is live. */
export interface ResolvedIntegration {
  readonly provider: string;
  readonly connected: boolean;
}

export interface PosCoverageEntry {
  pos_provider: string | null;
  pos_connected: boolean;
}

export interface PosCoverageScope {
  readonly tdb: TenantDb;
  readonly merchant: { readonly pos_provider: string | null };
  readonly access: Access;
}

/**
 * The merchant-scoped integration (platform-a, register-b or register-c), or null.
 *
 * This project has no integration tables yet (no migration creates the platform-a, register-b or
 * register-c records: their administration routes of spec 1 are not built), so none of these
 * providers can be connected and there is nothing to look up: the answer is null, by construction,
 * not by a guess. When those integrations land, this function queries their records (first match
 * in the order platform-a, register-b, register-c) and reports `connected` from the record's
 * status. Its contract then: a query that fails must throw (an error response), never read as
 * "not connected".
 */
export async function merchantScopedIntegration(_tdb: TenantDb): Promise<ResolvedIntegration | null> {
  return null;
}

/**
 * The location's own register integration: its register-d provider (the register vendor word of the
 * `/register-d/{provider}/{locationId}` record), else its register-a record; or null.
 *
 * As for `merchantScopedIntegration`: no register-d or register-a tables exist in this project, so
 * no location can be connected through them and the answer is null. When they land, this queries
 * the location's records, and a failed query throws.
 */
export async function locationIntegration(_tdb: TenantDb, _locationId: string): Promise<ResolvedIntegration | null> {
  return null;
}

/**
 * Spec 2 `GET /reports/pos-coverage`: `{<locationId>: {pos_provider, pos_connected}}` for every
 * location the caller may report on (bound merchant's locations intersected with the grant).
 * Resolution, first match wins:
 * 1. `firstparty` when the merchant carries the first-party marker: every location, connected (the
 *    register is ours: being on it is the connection);
 * 2. the merchant-scoped integration (platform-a, register-b, register-c), for every location;
 * 3. the location's own register-d provider, else its register-a record;
 * 4. `pos_provider` null and `pos_connected` false.
 * `pos_connected` of an integration is its record's connection status. A failed lookup throws (the
 * caller answers 5xx); it is never turned into `pos_connected: false`. Always a plain object, `{}`
 * when the caller may report on no location.
 */
export async function posCoverage(scope: PosCoverageScope): Promise<Record<string, PosCoverageEntry>> {
  if (!holdsAny(scope.access, POS_COVERAGE_PERMISSIONS)) throw errors.insufficientPermissions();
  const locations = await reportableLocations(scope.tdb, scope.access);
  const out: Record<string, PosCoverageEntry> = {};
  if (locations.length === 0) return out;
  if (isFirstPartyMerchant(scope.merchant)) {
    for (const l of locations) out[l.id] = { pos_provider: FIRST_PARTY_PROVIDER, pos_connected: true };
    return out;
  }
  const merchantWide = await merchantScopedIntegration(scope.tdb);
  for (const l of locations) {
    const found = merchantWide ?? (await locationIntegration(scope.tdb, l.id));
    out[l.id] = found ? { pos_provider: found.provider, pos_connected: found.connected } : { pos_provider: null, pos_connected: false };
  }
  return out;
}
