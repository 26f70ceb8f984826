import { sql } from 'kysely';
import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { merchantConnection, validateAutoSyncPayload, writeAutoSync, type AutoSyncPayload } from './auto-sync.ts';
import { merchantIntegrationStatus, type MerchantIntegrationScope, type MerchantIntegrationStatus } from './merchant-integrations.ts';

export const REGISTER_B = 'register-b';

export type RegisterBStatus = MerchantIntegrationStatus & { readonly account_id: string | null };

/** register-b's status: the merchant-level status with `account_id` (the account its webhooks carry). */
export async function registerBStatus(scope: Pick<MerchantIntegrationScope, 'db' | 'tdb' | 'merchant'>): Promise<RegisterBStatus> {
  return (await merchantIntegrationStatus(scope, REGISTER_B, { withAccount: true })) as RegisterBStatus;
}

/**
 * `POST /back-office/register-b`: initiate (with `account_id`) or save the settings and the auto-sync
 * schedule. The connection is `integration_connections` with `external_ref` the register-b account;
 * one account belongs to one merchant (its webhooks find the tenant by it): an account connected
 * elsewhere is 409. Without a connection, `account_id` is required (422). Answers the new status.
 */
export async function saveRegisterB(scope: MerchantIntegrationScope, body: AutoSyncPayload & { account_id?: string }): Promise<RegisterBStatus> {
  const { db, merchant, now } = scope;
  const { account_id: accountId, ...schedule } = body;
  validateAutoSyncPayload(schedule, { platformA: false });
  if (accountId !== undefined) {
    // One merchant, one register-b connection: connects of one merchant take turns (two first connects at
    // once each inserted a connection; the older one kept its account, active and unreachable).
    await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`integration-connect:${REGISTER_B}:${merchant.id}`}, 0))`.execute(trx);
      const existing = await merchantConnection(trx, merchant, REGISTER_B);
      const owner = await trx.selectFrom('integration_connections').select('id').where('provider', '=', REGISTER_B).where('external_ref', '=', accountId).executeTakeFirst();
      if (owner && owner.id !== existing?.connectionId) throw errors.conflict('This register-b account is already connected.');
      if (existing) {
        await trx
          .updateTable('integration_connections')
          .set({ external_ref: accountId, status: 'active', connected_at: existing.status === 'active' && owner ? existing.connectedAt : now, updated_at: now })
          .where('id', '=', existing.connectionId)
          .execute();
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
