import { defaultSyncZone } from '@pos/db';
import { errors } from '@pos/kernel';
import type { BackofficeActionScope } from '../auth/backoffice-scope.ts';
import { logActivity } from '../activity/log-activity.ts';
import { autoSyncStatus, merchantConnection, validateAutoSyncPayload, writeAutoSync, type AutoSyncPayload, type AutoSyncStatus } from './auto-sync.ts';

/**
 * Use cases of the merchant-level integrations (platform-a, register-b, register-c): their auto-sync
 * schedule, their status and their disabling (spec 1 "Auto-sync schedule payload", "register-b",
 * "register-c"). A merchant without the provider's connection gets 404 `integration` on writes.
 */

/** The integration use cases work in the back-office action scope (`auth/backoffice-scope.ts`). */
export type MerchantIntegrationScope = BackofficeActionScope;

/** The merchant's connection of `provider`, or 404 `Unable to locate the integration you requested.` */
export async function requireMerchantConnection(scope: Pick<MerchantIntegrationScope, 'db' | 'tdb' | 'merchant'>, provider: string) {
  const target = await merchantConnection(scope.db, scope.merchant, provider);
  if (!target) throw errors.notFound('integration');
  return target;
}

/** `POST /platform-a/sync-time`, `PUT /register-c/sync-time`: validates and writes the schedule, logs it. */
export async function saveAutoSyncSchedule(scope: MerchantIntegrationScope, provider: string, body: AutoSyncPayload, opts: { platformA: boolean }): Promise<AutoSyncStatus> {
  validateAutoSyncPayload(body, opts);
  const target = await requireMerchantConnection(scope, provider);
  const data = await writeAutoSync(scope.db, target, body, scope.now);
  await logActivity(scope.tdb, { userId: scope.userId, action: 'updated', subject: 'integration_auto_sync', properties: { provider, sync_time: data.sync_time, sync_timezone: data.sync_timezone } });
  return data;
}

export interface MerchantIntegrationStatus extends AutoSyncStatus {
  readonly connected: boolean;
  readonly status: string;
  readonly connected_at: string | null;
  /** The provider account (register-b's `external_ref`); only providers that have one show it. */
  readonly account_id?: string | null;
}

/**
 * The connection's status and schedule (`sync_timezone` never null, rule 6); `disconnected` with the
 * default zone when the merchant has none. `withAccount` adds `account_id` (register-b).
 */
export async function merchantIntegrationStatus(scope: Pick<MerchantIntegrationScope, 'db' | 'tdb' | 'merchant'>, provider: string, opts: { withAccount?: boolean } = {}): Promise<MerchantIntegrationStatus> {
  const { db, merchant } = scope;
  const target = await merchantConnection(db, merchant, provider);
  const account = opts.withAccount ? { account_id: null } : {};
  if (!target) {
    const zone = await defaultSyncZone(db, { tenantDatabase: merchant.tenant_database, provider, locationId: null });
    return { connected: false, status: 'disconnected', ...account, connected_at: null, sync_time: null, sync_timezone: zone, enable_auto_sync: false, next_sync_at: null, last_sync: null };
  }
  if (opts.withAccount) {
    const ref = await db.selectFrom('integration_connections').select('external_ref').where('id', '=', target.connectionId).executeTakeFirstOrThrow();
    Object.assign(account, { account_id: ref.external_ref });
  }
  const schedule = await autoSyncStatus(db, target);
  return { connected: target.status === 'active', status: target.status, ...account, connected_at: target.connectedAt?.toISOString() ?? null, ...schedule };
}

/**
 * `POST /register-b/disable`, `POST /register-c/disable`: the connection is disabled and its tokens
 * dropped; the schedule is kept for a reconnect (the scheduler claims active connections only).
 */
export async function disableMerchantIntegration(scope: MerchantIntegrationScope, provider: string): Promise<void> {
  const target = await requireMerchantConnection(scope, provider);
  const now = scope.now;
  await scope.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('integration_connections')
      .set({ status: 'disabled', access_token_encrypted: null, refresh_token_encrypted: null, token_expires_at: null, updated_at: now })
      .where('id', '=', target.connectionId)
      .execute();
    await trx.updateTable('integration_auto_syncs').set({ next_run_at: null, updated_at: now }).where('connection_id', '=', target.connectionId).execute();
  });
  await logActivity(scope.tdb, { userId: scope.userId, action: 'disabled', subject: 'integration', properties: { provider } });
}
