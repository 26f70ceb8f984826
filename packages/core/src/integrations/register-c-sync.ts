import { bindTenant, type CentralDb, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import type { RegisterCClient } from '@pos/providers/register-c/register-c-client';
import { logActivity } from '../activity/log-activity.ts';
import type { MerchantIntegrationScope } from './merchant-integrations.ts';
import { applyRegisterCMenuDiff, registerCMenuDiff, registerCSourceItems, type RegisterCApplyCounts } from './register-c-catalog.ts';
import { mappingQuery, mappingRow, registerCAccess, registerCClientFor, registerCMapping, viaRegisterC, type RegisterCConfig, type RegisterCMappingRow } from './register-c-access.ts';
import type { SyncContext, SyncOutcome } from './sync-runners.ts';

/**
 * The register-c sync of a mapping: register-c's items at the mapped location -> our catalog rows
 * linked by sku (register-c-catalog.ts). Names and prices of linked items follow register-c, items
 * register-c dropped are hidden; new register-c items are created only where register-c is the
 * location's menu source (`POST /menu-suggestion/{id}/use`), elsewhere they stay a suggestion.
 * The outcome is kept on the mapping (`last_synced_at`, `last_sync_counts`).
 */
async function syncOne(db: CentralDb, tdb: TenantDb, client: RegisterCClient, merchantId: string, mapping: RegisterCMappingRow, now: Date): Promise<RegisterCApplyCounts> {
  const source = await registerCSourceItems(client, mapping.registerCLocationId);
  const diff = await registerCMenuDiff(tdb, mapping.locationId, source);
  const counts = await applyRegisterCMenuDiff(tdb, mapping.locationId, diff, { create: mapping.menuSource, now });
  await db
    .updateTable('register_c_mappings')
    .set({ last_synced_at: now, last_sync_counts: JSON.stringify(counts) })
    .where('merchant_id', '=', merchantId)
    .where('location_id', '=', mapping.locationId)
    .execute();
  return counts;
}

/** `POST /mappings/{id}/sync`: syncs that mapping now; a paused mapping is 409 `mapping_paused`. */
export async function syncRegisterCMapping(scope: MerchantIntegrationScope, config: RegisterCConfig, locationId: string): Promise<{ upvendo_location_id: string; register_c_location_id: string; synced_at: string; counts: RegisterCApplyCounts }> {
  const access = await registerCAccess(scope, config);
  const mapping = await registerCMapping(scope, access, locationId);
  if (mapping.status === 'paused') throw errors.conflict('The register-c mapping is paused.', { reason: 'mapping_paused' });
  const counts = await viaRegisterC(() => syncOne(scope.db, scope.tdb, access.client, scope.merchant.id, mapping, scope.now));
  await logActivity(scope.tdb, { userId: scope.userId, action: 'synced', subject: 'register_c_mapping', properties: { location_id: mapping.locationId, ...counts } });
  return { upvendo_location_id: mapping.locationId, register_c_location_id: mapping.registerCLocationId, synced_at: scope.now.toISOString(), counts };
}

/**
 * The scheduled sync (the `register-c` entry of sync-runners): every active mapping of the
 * connection, in location order; a provider failure stops the run and is recorded by the job.
 */
export async function runRegisterCSync(ctx: SyncContext, config: RegisterCConfig): Promise<SyncOutcome> {
  const c = ctx.connection;
  if (!config.apiUrl || !config.tokenKey) return { status: 'not_configured', detail: 'register-c is not configured (REGISTER_C_API_URL, INTEGRATION_TOKEN_KEY).' };
  const client = await registerCClientFor(ctx.central, config, c, ctx.now);
  if (!client) return { status: 'error', detail: 'The register-c connection has no usable access token: reconnect it.', retry: false };
  const mappings = (await mappingQuery(ctx.central).where('connection_id', '=', c.id).where('status', '=', 'active').orderBy('location_id').execute()).map(mappingRow);
  const tdb = bindTenant(ctx.central, c.tenantDatabase);
  const totals = { locations: 0, created: 0, updated: 0, hidden: 0, suggested: 0 };
  for (const m of mappings) {
    const counts = await syncOne(ctx.central, tdb, client, c.merchantId, m, ctx.now());
    totals.locations++;
    totals.created += counts.created;
    totals.updated += counts.updated;
    totals.hidden += counts.hidden;
    totals.suggested += counts.suggested;
  }
  return { status: 'ok', counts: totals };
}
