import { withWriteRetry, type CentralDb, type TenantDb, type TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import type { BackofficeActionScope } from '../auth/backoffice-scope.ts';

/**
 * What the back-office register-administration use cases (spec 2 "Back-office routes for the
 * first-party register") work on: the central database (memberships, users), the bound merchant
 * (after admin-vendor-override) and its tenant store, the acting back-office user and "now" from the
 * injected clock. Permission, `first-party-pos` and `location-owner` are checked by the route before
 * a use case runs; use cases still scope every record to its location (another location's or
 * merchant's id is a 404).
 */
export type PosAdminScope = BackofficeActionScope;

/** One tenant transaction, retried on serialization failure or deadlock (DESIGN 2, concurrency). */
export function inTenantTx<T>(tdb: TenantDb, work: (tx: TenantTx) => Promise<T>): Promise<T> {
  return withWriteRetry(() => tdb.transaction().execute(work));
}

const iso = (d: Date): string => d.toISOString();
/** Timestamps leave the use cases as ISO 8601 strings (UTC). */
export const isoOrNull = (d: Date | null): string | null => (d === null ? null : iso(d));
export { iso };

/** 404 `Unable to locate the {model} you requested.` */
export const notFound = (model: string) => errors.notFound(model);
