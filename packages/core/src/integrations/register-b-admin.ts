import { sql, type Transaction } from 'kysely';
import type { CentralTables, TenantTables } from '@pos/db';
import { errors } from '@pos/kernel';
import { ProviderError } from '@pos/providers/shared/provider-error';
import type { RegisterBClient } from '@pos/providers/register-b/register-b-client';
import { registerBFailure } from './register-b-connection.ts';
import { logActivity } from '../activity/log-activity.ts';
import { merchantConnection, validateAutoSyncPayload, writeAutoSync, type AutoSyncPayload } from './auto-sync.ts';
import { merchantIntegrationStatus, type MerchantIntegrationScope, type MerchantIntegrationStatus } from './merchant-integrations.ts';

export const REGISTER_B = 'register-b';

export type RegisterBStatus = MerchantIntegrationStatus & { readonly account_id: string | null };

/** register-b's status: the merchant-level status with `account_id` (the account its webhooks carry). */
export async function registerBStatus(scope: Pick<MerchantIntegrationScope, 'db' | 'tdb' | 'merchant'>): Promise<RegisterBStatus> {
  return (await merchantIntegrationStatus(scope, REGISTER_B, { withAccount: true })) as RegisterBStatus;
}

export const LINK_CODE_REQUIRED = 'The link code field is required.';
export const LINK_CODE_INVALID = 'The link code is not valid for this register-b account.';
export const ACCOUNT_UNKNOWN = 'register-b has no account with this id.';

/**
 * An account is connected only with the link code its owner copied from register-b's back office: one
 * partner token reaches every register-b account, so without the code any merchant could connect an
 * account nobody had connected yet and read its relations and products. Checked at register-b, before
 * anything is written: a wrong code or an unknown account is a 422 on its field.
 */
async function proveAccount(client: RegisterBClient | null, accountId: string, linkCode: string | undefined): Promise<void> {
  if (linkCode === undefined) throw errors.field('link_code', LINK_CODE_REQUIRED);
  if (!client) throw errors.unavailable('register-b is not configured.');
  try {
    await client.linkAccount(accountId, linkCode);
  } catch (e) {
    if (e instanceof ProviderError && e.kind === 'http' && e.status === 403 && e.code === 'invalid_link_code') throw errors.field('link_code', LINK_CODE_INVALID);
    if (e instanceof ProviderError && e.kind === 'http' && e.status === 404) throw errors.field('account_id', ACCOUNT_UNKNOWN);
    registerBFailure(e);
  }
}

/**
 * Another register-b account replaces the merchant's: what named the OLD account's records goes with it,
 * in the same commit. Branch ids, relation numbers and product ids are the account's own (relation numbers
 * count from the same start in every account), so a link kept across the change would name a stranger's
 * record in the new account: orders placed at its branch, loyalty points credited to its relation, its
 * products written over our items; its probed capabilities and live-inventory switch go too. Our items and
 * customers stay (unlinked); a sync of the new account links anew.
 */
async function dropAccountLinks(trx: Transaction<CentralTables>, merchant: { id: string; tenant_database: string }, connectionId: string): Promise<void> {
  // The probed capabilities and the live-inventory switch were the old account's too (probe the new one).
  await trx.updateTable('integration_connections').set({ settings: JSON.stringify({}) }).where('id', '=', connectionId).execute();
  await trx.deleteFrom('register_b_mappings').where('merchant_id', '=', merchant.id).where('connection_id', '=', connectionId).execute();
  const tenant = (trx as unknown as Transaction<TenantTables>).withSchema(merchant.tenant_database);
  await tenant.deleteFrom('register_b_relations').execute();
  await tenant.deleteFrom('register_b_items').execute();
}

/**
 * `POST /back-office/register-b`: initiate (with `account_id` and its `link_code`) or save the settings
 * and the auto-sync schedule. The connection is `integration_connections` with `external_ref` the
 * register-b account; one account belongs to one merchant (its webhooks find the tenant by it): an
 * account connected elsewhere is 409. Connecting an account (a new one, another one, or again after a
 * disable) proves it with its link code; saving the settings of the active connection does not.
 * Without a connection, `account_id` is required (422). Answers the new status.
 */
export async function saveRegisterB(scope: MerchantIntegrationScope, client: RegisterBClient | null, body: AutoSyncPayload & { account_id?: string; link_code?: string }): Promise<RegisterBStatus> {
  const { db, merchant, now } = scope;
  const { account_id: accountId, link_code: linkCode, ...schedule } = body;
  validateAutoSyncPayload(schedule, { platformA: false });
  if (accountId !== undefined) {
    const current = await db.selectFrom('integration_connections').select(['external_ref', 'status']).where('merchant_id', '=', merchant.id).where('provider', '=', REGISTER_B).orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
    if (!(current?.status === 'active' && current.external_ref === accountId)) await proveAccount(client, accountId, linkCode);
    // One merchant, one register-b connection: connects of one merchant take turns (two first connects at
    // once each inserted a connection; the older one kept its account, active and unreachable).
    await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`integration-connect:${REGISTER_B}:${merchant.id}`}, 0))`.execute(trx);
      const existing = await merchantConnection(trx, merchant, REGISTER_B);
      const owner = await trx.selectFrom('integration_connections').select('id').where('provider', '=', REGISTER_B).where('external_ref', '=', accountId).executeTakeFirst();
      if (owner && owner.id !== existing?.connectionId) throw errors.conflict('This register-b account is already connected.');
      if (existing) {
        const before = await trx.selectFrom('integration_connections').select('external_ref').where('id', '=', existing.connectionId).executeTakeFirstOrThrow();
        await trx
          .updateTable('integration_connections')
          .set({ external_ref: accountId, status: 'active', connected_at: existing.status === 'active' && owner ? existing.connectedAt : now, updated_at: now })
          .where('id', '=', existing.connectionId)
          .execute();
        if (before.external_ref !== accountId) await dropAccountLinks(trx, merchant, existing.connectionId);
      } else {
        const inserted = await trx
          .insertInto('integration_connections')
          .values({ id: Bun.randomUUIDv7(), provider: REGISTER_B, external_ref: accountId, merchant_id: merchant.id, status: 'active', settings: JSON.stringify({}), connected_at: now, created_at: now, updated_at: now })
          .onConflict((oc) => oc.constraint('integration_connections_provider_ref').doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!inserted) throw errors.conflict('This register-b account is already connected.');
      }
    });
  } else if (!(await merchantConnection(db, merchant, REGISTER_B))) throw errors.field('account_id', 'The account id field is required.');
  const target = (await merchantConnection(db, merchant, REGISTER_B))!;
  if (schedule.sync_time !== undefined || schedule.sync_timezone !== undefined) await writeAutoSync(db, target, schedule, now);
  await logActivity(scope.tdb, { userId: scope.userId, action: 'updated', subject: 'integration', properties: { provider: REGISTER_B } });
  return registerBStatus(scope);
}
