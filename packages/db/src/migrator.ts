import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration';
import type { CentralDb } from './database.ts';
import { migrationDb } from './migration-dialect.ts';
import { isTenantSchemaName } from './tenancy.ts';
import { isLockNotAvailable } from './pg-errors.ts';
import * as central001 from './migrations/central/2026-11-21-001-foundation.ts';
import * as central002team from './migrations/central/2026-11-21-002-team.ts';
import * as central003versions from './migrations/central/2026-11-23-003-tenant-schema-versions.ts';
import * as central003displayName from './migrations/central/2026-11-23-001-membership-display-name.ts';
import * as central020webhooks from './migrations/central/2026-11-23-020-webhooks.ts';
import * as central300integrations from './migrations/central/2026-11-24-300-integrations.ts';
import * as central601outboxNotify from './migrations/central/2026-11-24-601-outbox-notify.ts';
import * as central950tableQr from './migrations/central/2026-11-24-950-table-qr-directory.ts';
import * as central980registerA from './migrations/central/2026-11-24-980-register-a-location.ts';
import * as central801listings from './migrations/central/2026-11-24-801-restaurant-listings.ts';
import * as central701accounts from './migrations/central/2026-11-24-701-accounts.ts';
import * as tenant001 from './migrations/tenant/2026-11-21-001-foundation.ts';
import * as tenant002devices from './migrations/tenant/2026-11-21-002-devices.ts';
import * as tenant003team from './migrations/tenant/2026-11-21-003-team.ts';
import * as tenant004 from './migrations/tenant/2026-11-21-004-register.ts';
import * as tenant005 from './migrations/tenant/2026-11-21-005-tills-days.ts';
import * as tenant009seal from './migrations/tenant/2026-11-23-009-journal-seal.ts';
import * as tenant20261123catalog from './migrations/tenant/2026-11-23-010-catalog.ts';
import * as tenant20261123contents from './migrations/tenant/2026-11-23-011-contents-inventories.ts';
import * as tenant20261123transactions from './migrations/tenant/2026-11-23-012-transactions.ts';
import * as tenant20261123postcapture from './migrations/tenant/2026-11-23-013-post-capture.ts';
import * as tenant20261123kitchen from './migrations/tenant/2026-11-23-030-kitchen.ts';
import * as tenant20261123tickets from './migrations/tenant/2026-11-23-031-kitchen-tickets.ts';
import * as tenant20261124kdsLive from './migrations/tenant/2026-11-24-101-kds-live.ts';
import * as tenant20261124customers from './migrations/tenant/2026-11-24-201-customers-loyalty.ts';
import * as tenant20261124subscriptions from './migrations/tenant/2026-11-24-401-card-a-subscriptions.ts';
import * as tenant20261124capacity from './migrations/tenant/2026-11-24-402-order-capacity.ts';
import * as tenant20261124printers from './migrations/tenant/2026-11-24-501-printers.ts';
import * as central20261124printerTokens from './migrations/central/2026-11-24-501-printer-tokens.ts';
import * as tenant20261124channelSettings from './migrations/tenant/2026-11-24-801-channel-settings.ts';
import * as tenant20261124customerAccounts from './migrations/tenant/2026-11-24-901-customer-accounts.ts';
import * as tenant20261124tableQr from './migrations/tenant/2026-11-24-950-table-qr.ts';
import * as central941guidedSetup from './migrations/central/2026-11-24-941-guided-setup-videos.ts';
import * as central990autoSync from './migrations/central/2026-11-24-990-auto-sync.ts';
import * as central991autoSyncReinterpret from './migrations/central/2026-11-24-991-auto-sync-reinterpret.ts';
import * as central925registerCMappings from './migrations/central/2026-11-24-925-register-c-mappings.ts';
import * as central201registerCState from './migrations/central/2026-11-26-201-register-c-mapping-state.ts';
import * as tenant20261124billingProfiles from './migrations/tenant/2026-11-24-930-billing-profiles.ts';
import * as tenant20261124cancelAtPeriodEnd from './migrations/tenant/2026-11-24-931-subscription-cancel-at-period-end.ts';
import * as tenant20261124paymentProfiles from './migrations/tenant/2026-11-24-932-payment-profiles.ts';
import * as tenant20261124aiGeneration from './migrations/tenant/2026-11-24-940-ai-generation.ts';
import * as tenant20261124settings from './migrations/tenant/2026-11-24-970-settings.ts';
import * as tenant20261124branding from './migrations/tenant/2026-11-24-971-branding-profiles.ts';
import * as tenant20261125aiPurchases from './migrations/tenant/2026-11-25-901-ai-credit-purchases.ts';
import * as central801autoSyncOutcome from './migrations/central/2026-11-25-801-auto-sync-outcome.ts';
import * as tenant802marketplaceOrders from './migrations/tenant/2026-11-25-802-marketplace-orders.ts';
import * as central101registerBMappings from './migrations/central/2026-11-26-101-register-b-mappings.ts';
import * as tenant102registerBLinks from './migrations/tenant/2026-11-26-102-register-b-links.ts';
import * as tenant202registerCLinks from './migrations/tenant/2026-11-26-202-register-c-item-links.ts';
import * as tenant101stepsTrace from './migrations/tenant/2026-11-27-101-transaction-steps-trace.ts';
import * as tenant103registerSync from './migrations/tenant/2026-11-27-103-transaction-register-sync.ts';
import * as tenant104postCaptureKeys from './migrations/tenant/2026-11-27-104-post-capture-keys.ts';
import * as tenant105dailyStatsClaim from './migrations/tenant/2026-11-27-105-daily-stats-claim-in-trace.ts';
import * as tenant106keyClocks from './migrations/tenant/2026-11-27-106-idempotency-key-clocks.ts';
import * as tenant107createdId from './migrations/tenant/2026-11-27-107-transactions-created-id.ts';
import * as tenant108customer from './migrations/tenant/2026-11-27-108-transactions-customer-completed.ts';
import * as tenant109awaiting from './migrations/tenant/2026-11-27-109-transactions-awaiting-payment.ts';
import * as tenant110unpaid from './migrations/tenant/2026-11-27-110-transactions-unpaid-online.ts';
import * as tenant111verified from './migrations/tenant/2026-11-27-111-customer-contact-verified.ts';
import * as tenant150deviceRoutes from './migrations/tenant/2026-11-27-150-device-routes.ts';
import * as tenant151tillFlagged from './migrations/tenant/2026-11-27-151-till-flagged-variance.ts';
import * as tenant20261128customTaxRate from './migrations/tenant/2026-11-28-001-custom-tax-rate-unique.ts';
import * as tenant20261128locationPaymentProfile from './migrations/tenant/2026-11-28-020-location-payment-profile.ts';
import * as tenant20261128deviceClaims from './migrations/tenant/2026-11-28-070-device-subscription-claims.ts';
import * as tenant20261128cardBUnique from './migrations/tenant/2026-11-28-081-payment-profile-card-b-unique.ts';
import * as tenant20261128deliveryAddress from './migrations/tenant/2026-11-28-090-delivery-address.ts';
import * as tenant20261128ticketStationHistory from './migrations/tenant/2026-11-28-090-kitchen-ticket-station-history.ts';
import * as tenant20261129customerSignedIn from './migrations/tenant/2026-11-29-501-customer-signed-in.ts';
import * as tenant20261129tillMoneyBigint from './migrations/tenant/2026-11-29-502-till-money-bigint.ts';
import * as tenant20261130stockReservations from './migrations/tenant/2026-11-30-101-stock-reservations.ts';
import * as tenant20261130forgetDeletedTargets from './migrations/tenant/2026-11-30-301-forget-deleted-targets.ts';
import * as tenant20261130unsignedReservations from './migrations/tenant/2026-11-30-401-unsigned-reservations.ts';
import * as tenant20261130onlineCustomerContact from './migrations/tenant/2026-11-30-402-online-customer-contact.ts';
import * as tenant20261201refundRounding from './migrations/tenant/2026-12-01-510-refund-rounding.ts';
import * as tenant20261201onlineRequestKey from './migrations/tenant/2026-12-01-520-online-request-key.ts';
import * as tenant20261201tableQrChannel from './migrations/tenant/2026-12-01-540-table-qr-channel.ts';
import * as tenant20261202transactionsPending from './migrations/tenant/2026-12-02-700-transactions-pending.ts';
import * as tenant20261204posLayouts from './migrations/tenant/2026-12-04-100-pos-layouts.ts';
import * as tenant20261205kitchenTicketDue from './migrations/tenant/2026-12-05-100-kitchen-ticket-due.ts';
import * as tenant20261205readIndexes from './migrations/tenant/2026-12-05-200-read-indexes.ts';
import * as tenant20261206refundDays from './migrations/tenant/2026-12-06-100-refund-days.ts';
import * as tenant20261206listedAt from './migrations/tenant/2026-12-06-200-transactions-listed-at.ts';
import * as tenant20261206testModeNotFree from './migrations/tenant/2026-12-06-300-test-mode-not-free.ts';
import * as tenant20261206cardBStatus from './migrations/tenant/2026-12-06-101-payment-profile-card-b-status.ts';
import * as central401tokenRefreshLease from './migrations/central/2026-11-26-401-token-refresh-lease.ts';
import * as central501connectClaims from './migrations/central/2026-11-28-501-integration-connect-claims.ts';
import * as central601printerTokensNotify from './migrations/central/2026-11-28-601-printer-tokens-notify.ts';
import * as central701fdmRegistry from './migrations/central/2026-11-28-701-fdm-registry.ts';
import * as central550jobFailures from './migrations/central/2026-12-01-550-job-failures.ts';
import * as central101otpCredentialStamp from './migrations/central/2026-12-02-101-otp-credential-stamp.ts';
import * as central101menuSyncedAt from './migrations/central/2026-12-03-101-menu-synced-at.ts';
import * as central201webhookLogIndexes from './migrations/central/2026-12-05-201-webhook-log-indexes.ts';
import * as central101commissionReseller from './migrations/central/2026-12-06-101-commission-reseller.ts';
import * as central301commissionBaseAmount from './migrations/central/2026-12-06-301-commission-base-amount.ts';

/** Migrations are listed here (not read from disk) so a bundled service carries them, in name order (date-prefixed names order them). */
export const CENTRAL_MIGRATIONS: Record<string, Migration> = {
  '2026-11-21-001-foundation': central001,
  '2026-11-21-002-team': central002team,
  '2026-11-23-001-membership-display-name': central003displayName,
  '2026-11-23-003-tenant-schema-versions': central003versions,
  '2026-11-23-020-webhooks': central020webhooks,
  '2026-11-24-300-integrations': central300integrations,
  '2026-11-24-501-printer-tokens': central20261124printerTokens,
  '2026-11-24-601-outbox-notify': central601outboxNotify,
  '2026-11-24-701-accounts': central701accounts,
  '2026-11-24-801-restaurant-listings': central801listings,
  '2026-11-24-925-register-c-mappings': central925registerCMappings,
  '2026-11-24-941-guided-setup-videos': central941guidedSetup,
  '2026-11-24-950-table-qr-directory': central950tableQr,
  '2026-11-24-980-register-a-location': central980registerA,
  '2026-11-24-990-auto-sync': central990autoSync,
  '2026-11-24-991-auto-sync-reinterpret': central991autoSyncReinterpret,
  '2026-11-25-801-auto-sync-outcome': central801autoSyncOutcome,
  '2026-11-26-101-register-b-mappings': central101registerBMappings,
  '2026-11-26-201-register-c-mapping-state': central201registerCState,
  '2026-11-26-401-token-refresh-lease': central401tokenRefreshLease,
  '2026-11-28-501-integration-connect-claims': central501connectClaims,
  '2026-11-28-601-printer-tokens-notify': central601printerTokensNotify,
  '2026-11-28-701-fdm-registry': central701fdmRegistry,
  '2026-12-01-550-job-failures': central550jobFailures,
  '2026-12-02-101-otp-credential-stamp': central101otpCredentialStamp,
  '2026-12-03-101-menu-synced-at': central101menuSyncedAt,
  '2026-12-05-201-webhook-log-indexes': central201webhookLogIndexes,
  '2026-12-06-101-commission-reseller': central101commissionReseller,
  '2026-12-06-301-commission-base-amount': central301commissionBaseAmount,
};
export const TENANT_MIGRATIONS: Record<string, Migration> = {
  '2026-11-21-001-foundation': tenant001,
  '2026-11-21-002-devices': tenant002devices,
  '2026-11-21-003-team': tenant003team,
  '2026-11-21-004-register': tenant004,
  '2026-11-21-005-tills-days': tenant005,
  '2026-11-23-009-journal-seal': tenant009seal,
  '2026-11-23-010-catalog': tenant20261123catalog,
  '2026-11-23-011-contents-inventories': tenant20261123contents,
  '2026-11-23-012-transactions': tenant20261123transactions,
  '2026-11-23-013-post-capture': tenant20261123postcapture,
  '2026-11-23-030-kitchen': tenant20261123kitchen,
  '2026-11-23-031-kitchen-tickets': tenant20261123tickets,
  '2026-11-24-101-kds-live': tenant20261124kdsLive,
  '2026-11-24-201-customers-loyalty': tenant20261124customers,
  '2026-11-24-401-card-a-subscriptions': tenant20261124subscriptions,
  '2026-11-24-402-order-capacity': tenant20261124capacity,
  '2026-11-24-501-printers': tenant20261124printers,
  '2026-11-24-801-channel-settings': tenant20261124channelSettings,
  '2026-11-24-901-customer-accounts': tenant20261124customerAccounts,
  '2026-11-24-930-billing-profiles': tenant20261124billingProfiles,
  '2026-11-24-931-subscription-cancel-at-period-end': tenant20261124cancelAtPeriodEnd,
  '2026-11-24-932-payment-profiles': tenant20261124paymentProfiles,
  '2026-11-24-940-ai-generation': tenant20261124aiGeneration,
  '2026-11-24-950-table-qr': tenant20261124tableQr,
  '2026-11-24-970-settings': tenant20261124settings,
  '2026-11-24-971-branding-profiles': tenant20261124branding,
  '2026-11-25-802-marketplace-orders': tenant802marketplaceOrders,
  '2026-11-25-901-ai-credit-purchases': tenant20261125aiPurchases,
  '2026-11-26-102-register-b-links': tenant102registerBLinks,
  '2026-11-26-202-register-c-item-links': tenant202registerCLinks,
  '2026-11-27-101-transaction-steps-trace': tenant101stepsTrace,
  '2026-11-27-103-transaction-register-sync': tenant103registerSync,
  '2026-11-27-104-post-capture-keys': tenant104postCaptureKeys,
  '2026-11-27-105-daily-stats-claim-in-trace': tenant105dailyStatsClaim,
  '2026-11-27-106-idempotency-key-clocks': tenant106keyClocks,
  '2026-11-27-107-transactions-created-id': tenant107createdId,
  '2026-11-27-108-transactions-customer-completed': tenant108customer,
  '2026-11-27-109-transactions-awaiting-payment': tenant109awaiting,
  '2026-11-27-110-transactions-unpaid-online': tenant110unpaid,
  '2026-11-27-111-customer-contact-verified': tenant111verified,
  '2026-11-27-150-device-routes': tenant150deviceRoutes,
  '2026-11-27-151-till-flagged-variance': tenant151tillFlagged,
  '2026-11-28-001-custom-tax-rate-unique': tenant20261128customTaxRate,
  '2026-11-28-020-location-payment-profile': tenant20261128locationPaymentProfile,
  '2026-11-28-070-device-subscription-claims': tenant20261128deviceClaims,
  '2026-11-28-081-payment-profile-card-b-unique': tenant20261128cardBUnique,
  '2026-11-28-090-delivery-address': tenant20261128deliveryAddress,
  '2026-11-28-090-kitchen-ticket-station-history': tenant20261128ticketStationHistory,
  '2026-11-29-501-customer-signed-in': tenant20261129customerSignedIn,
  '2026-11-29-502-till-money-bigint': tenant20261129tillMoneyBigint,
  '2026-11-30-101-stock-reservations': tenant20261130stockReservations,
  '2026-11-30-301-forget-deleted-targets': tenant20261130forgetDeletedTargets,
  '2026-11-30-401-unsigned-reservations': tenant20261130unsignedReservations,
  '2026-11-30-402-online-customer-contact': tenant20261130onlineCustomerContact,
  '2026-12-01-510-refund-rounding': tenant20261201refundRounding,
  '2026-12-01-520-online-request-key': tenant20261201onlineRequestKey,
  '2026-12-01-540-table-qr-channel': tenant20261201tableQrChannel,
  '2026-12-02-700-transactions-pending': tenant20261202transactionsPending,
  '2026-12-04-100-pos-layouts': tenant20261204posLayouts,
  '2026-12-05-100-kitchen-ticket-due': tenant20261205kitchenTicketDue,
  '2026-12-05-200-read-indexes': tenant20261205readIndexes,
  '2026-12-06-100-refund-days': tenant20261206refundDays,
  '2026-12-06-101-payment-profile-card-b-status': tenant20261206cardBStatus,
  '2026-12-06-200-transactions-listed-at': tenant20261206listedAt,
  '2026-12-06-300-test-mode-not-free': tenant20261206testModeNotFree,
};

/**
 * Identifies the tenant migration set. With unordered migrations allowed, the newest name alone does not
 * say whether an older-dated file landed later, so the fingerprint covers every name.
 */
export const TENANT_MIGRATIONS_FINGERPRINT = createHash('sha256').update(Object.keys(TENANT_MIGRATIONS).sort().join('\n')).digest('hex').slice(0, 32);
const LATEST_TENANT_MIGRATION = Object.keys(TENANT_MIGRATIONS).sort().at(-1)!;

class StaticProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.migrations;
  }
}

function check(result: MigrationResultSet, where: string): void {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    throw new Error(`Migration failed in ${where}${failed ? ` at ${failed.migrationName}` : ''}: ${String((result.error as Error)?.message ?? result.error)}`);
  }
}

/** The migrations recorded in `schema`, in name order; null when it has no migration table yet (a new schema). */
async function executedMigrations(db: CentralDb, schema: string): Promise<string[] | null> {
  const table = await sql<{ t: string | null }>`select to_regclass(quote_ident(${schema}) || '.kysely_migration')::text as t`.execute(db);
  if (!table.rows[0]?.t) return null;
  const rows = await sql<{ name: string }>`select name from ${sql.id(schema, 'kysely_migration')} order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

/**
 * Migrations recorded in `schema` that this release does not know: a newer release migrated it (a
 * rollback, or an old pod still running during a rolling update). Kysely refuses such a schema
 * ("corrupted migrations"), which made every older API and worker stop at start after a deploy.
 */
export async function unknownMigrations(db: CentralDb, schema: string, known: Readonly<Record<string, Migration>>): Promise<string[]> {
  return ((await executedMigrations(db, schema)) ?? []).filter((n) => !Object.hasOwn(known, n));
}

/** What a migration run did not do because the database is ahead of this release. */
export type AheadOfRelease = (where: string, unknown: readonly string[]) => void;

/**
 * How migrations of a live schema wait for their tables. A migration waiting for a table's lock (behind
 * a long report, say) queues every later query of that table behind it, so it waits at most
 * `lockTimeoutMs`, gives the lock up and tries again later. Each such migration commits on its own: one
 * transaction for all of a schema's migrations held the first one's locks until the last committed.
 */
export interface MigrationLocking {
  /** Longest wait for one lock (default 2 s). */
  lockTimeoutMs?: number;
  /** Tries of one migration that found its tables busy (default 10), then the run fails. */
  attempts?: number;
  /** Wait before the second try, doubled for each next one, at most 30 s (default 1 s): about 4 minutes in all. */
  backoffMs?: number;
  /** Told of each try that gave up waiting. */
  onBusy?: (where: string, migration: string, attempt: number) => void;
}

const LOCK_TIMEOUT_MS = 2_000;
const LOCK_ATTEMPTS = 10;
const LOCK_BACKOFF_MS = 1_000;

/**
 * Applies the migrations of `known` that `executed` lacks. A new schema (nothing executed: a new
 * merchant, a fresh install) takes them all in one transaction: nobody else uses its tables yet. A live
 * schema takes them one transaction each, under `locking`.
 */
async function applyPending(
  migrator: (lockTimeoutMs?: number) => Migrator,
  known: Readonly<Record<string, Migration>>,
  executed: readonly string[] | null,
  where: string,
  locking: MigrationLocking = {},
): Promise<void> {
  if (!executed || executed.length === 0) return check(await migrator().migrateToLatest(), where);
  if (Object.keys(known).every((n) => executed.includes(n))) return;
  const attempts = locking.attempts ?? LOCK_ATTEMPTS;
  const live = migrator(locking.lockTimeoutMs ?? LOCK_TIMEOUT_MS);
  let attempt = 1;
  for (;;) {
    const result = await live.migrateUp();
    if (!result.error) {
      if (!result.results?.length) return;
      attempt = 1;
      continue;
    }
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? '';
    if (!isLockNotAvailable(result.error) || attempt >= attempts) return check(result, where);
    locking.onBusy?.(where, failed, attempt);
    await new Promise((r) => setTimeout(r, Math.min(30_000, (locking.backoffMs ?? LOCK_BACKOFF_MS) * 2 ** (attempt - 1))));
    attempt++;
  }
}

/**
 * Brings the central schema to this release's migrations. A schema a newer release migrated is left as
 * it is (`onAhead` is told): a release never migrates a database past it, and its code reads what it knows.
 */
export async function migrateCentral(db: CentralDb, onAhead?: AheadOfRelease, locking?: MigrationLocking): Promise<void> {
  const executed = await executedMigrations(db, 'public');
  const ahead = (executed ?? []).filter((n) => !Object.hasOwn(CENTRAL_MIGRATIONS, n));
  if (ahead.length > 0) return onAhead?.('central schema', ahead);
  const migrator = (lockTimeoutMs?: number) =>
    new Migrator({ db: migrationDb(db, 'public', lockTimeoutMs), migrationTableSchema: 'public', provider: new StaticProvider(CENTRAL_MIGRATIONS), allowUnorderedMigrations: true });
  await applyPending(migrator, CENTRAL_MIGRATIONS, executed, 'central schema', locking);
}

/** Creates the tenant schema when missing, brings it to the latest tenant migration and records that centrally. */
export async function migrateTenant(db: CentralDb, schema: string, onAhead?: AheadOfRelease, locking?: MigrationLocking): Promise<void> {
  if (!isTenantSchemaName(schema)) throw new Error('Invalid tenant schema name');
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  // Migrated by a newer release: left as it is, its recorded migration set too.
  const executed = await executedMigrations(db, schema);
  const ahead = (executed ?? []).filter((n) => !Object.hasOwn(TENANT_MIGRATIONS, n));
  if (ahead.length > 0) return onAhead?.(`tenant schema ${schema}`, ahead);
  const migrator = (lockTimeoutMs?: number) =>
    new Migrator({
      db: migrationDb(db, schema, lockTimeoutMs).withSchema(schema),
      provider: new StaticProvider(TENANT_MIGRATIONS),
      migrationTableSchema: schema,
      // Features land in parallel branches; a later-dated file may be applied before an earlier one.
      allowUnorderedMigrations: true,
    });
  await applyPending(migrator, TENANT_MIGRATIONS, executed, `tenant schema ${schema}`, locking);
  await db
    .insertInto('tenant_schema_versions')
    .values({ schema_name: schema, fingerprint: TENANT_MIGRATIONS_FINGERPRINT, latest: LATEST_TENANT_MIGRATION, migrated_at: new Date() })
    .onConflict((oc) => oc.column('schema_name').doUpdateSet({ fingerprint: TENANT_MIGRATIONS_FINGERPRINT, latest: LATEST_TENANT_MIGRATION, migrated_at: new Date() }))
    .execute();
}

/** Tenant schemas whose recorded migration set is not the current one (never migrated, or behind): one query. */
export async function pendingTenantSchemas(db: CentralDb): Promise<string[]> {
  const rows = await db
    .selectFrom('merchants as m')
    .leftJoin('tenant_schema_versions as v', 'v.schema_name', 'm.tenant_database')
    .select('m.tenant_database')
    .where((eb) => eb.or([eb('v.fingerprint', 'is', null), eb('v.fingerprint', '!=', TENANT_MIGRATIONS_FINGERPRINT)]))
    .orderBy('m.created_at')
    .execute();
  return rows.map((r) => r.tenant_database);
}

export interface MigrateAllOptions {
  /** Tenant schemas migrated side by side (default 4); each holds one connection while it runs. */
  concurrency?: number;
  /** Called after each tenant schema, for progress reports. */
  onProgress?: (p: { done: number; total: number; schema: string }) => void;
  /** Told of each schema left alone because a newer release migrated it. */
  onAhead?: AheadOfRelease;
  /** How migrations of live schemas wait for their tables' locks. */
  locking?: MigrationLocking;
}

/**
 * Central first, then every tenant schema not already at the current migration set, `concurrency` at a
 * time. Schemas already current cost nothing beyond the one query that finds the others.
 */
export async function migrateAll(db: CentralDb, opts: MigrateAllOptions = {}): Promise<{ tenants: number; migrated: number }> {
  await migrateCentral(db, opts.onAhead, opts.locking);
  const { n } = await db.selectFrom('merchants').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const pending = await pendingTenantSchemas(db);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < pending.length) {
      const schema = pending[next++]!;
      await migrateTenant(db, schema, opts.onAhead, opts.locking);
      opts.onProgress?.({ done: ++done, total: pending.length, schema });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 4, pending.length)) }, worker));
  return { tenants: Number(n), migrated: pending.length };
}
