import type { CentralDb, TenantDb } from '@pos/db';
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
  /** The integration records (issue 17); without it no integration can be found (first-party and null only). */
  readonly integrations?: IntegrationLookup;
}

/** Where the integration records are: central `integration_connections` of the bound merchant. */
export interface IntegrationLookup {
  readonly central: CentralDb;
  readonly merchantId: string;
}

/** The merchant's register integration records, read once per request (a failed query throws). */
async function integrationRows(lookup: IntegrationLookup): Promise<{ provider: string; location_id: string | null; status: string }[]> {
  return lookup.central
    .selectFrom('integration_connections')
    .select(['provider', 'location_id', 'status'])
    .where('merchant_id', '=', lookup.merchantId)
    .where((eb) => eb.or([eb('provider', 'in', [...MERCHANT_SCOPED_PROVIDERS, 'register-a']), eb('provider', 'like', 'register-d%')]))
    .orderBy('created_at')
    .limit(2000)
    .execute();
}

/**
 * The merchant-scoped integration (platform-a, register-b or register-c), or null: the first active one in
 * that order, else the first of any status. `connected` is the record's status `active`. A disabled
 * record is kept (its log) and must not hide the live one behind it.
 */
export function merchantScopedIntegration(rows: readonly { provider: string; status: string }[]): ResolvedIntegration | null {
  const scoped = MERCHANT_SCOPED_PROVIDERS.flatMap((provider) => rows.filter((x) => x.provider === provider));
  const r = scoped.find((x) => x.status === 'active') ?? scoped[0];
  return r ? { provider: r.provider, connected: r.status === 'active' } : null;
}

/**
 * The location's own register integration: its register-d record (provider word `register-d…` with
 * the location; an active one first), else its register-a record (`connected` once a store is selected: status `active`);
 * or null.
 */
export function locationIntegration(rows: readonly { provider: string; location_id: string | null; status: string }[], locationId: string): ResolvedIntegration | null {
  const own = rows.filter((x) => x.location_id === locationId);
  // A location switched from one register-d vendor to another keeps the old, disabled record: the live one answers.
  const d = own.find((x) => x.provider.startsWith('register-d') && x.status === 'active') ?? own.find((x) => x.provider.startsWith('register-d'));
  if (d) return { provider: d.provider, connected: d.status === 'active' };
  const a = own.find((x) => x.provider === 'register-a');
  if (a) return { provider: 'register-a', connected: a.status === 'active' };
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
 *    (of the merchant-scoped records, an active one before a disabled one: a disabled record is kept);
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
  const rows = scope.integrations ? await integrationRows(scope.integrations) : [];
  const merchantWide = merchantScopedIntegration(rows);
  for (const l of locations) {
    const found = merchantWide ?? locationIntegration(rows, l.id);
    out[l.id] = found ? { pos_provider: found.provider, pos_connected: found.connected } : { pos_provider: null, pos_connected: false };
  }
  return out;
}
