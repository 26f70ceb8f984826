import type { CentralDb, TenantDb } from '@pos/db';
import type { RegisterBClient } from '@pos/providers/register-b/register-b-client';
import type { FinaliseStep } from '../customers/finalise-steps.ts';
import { REGISTER_B } from './register-b-admin.ts';

/**
 * The finalisation step that pushes the loyalty points a transaction earned to register-b (spec 3
 * "The deferred finalisation job runs loyalty earn (including pushing points to register-b)"). It
 * runs after `loyalty_earn` in its own error boundary, and pushes what the ledger says was earned
 * for the transaction (nothing earned, nothing pushed), to the register-b relation linked to the
 * customer (`register_b_relations`), under the merchant's active register-b account. register-b
 * keeps the credit idempotent by our transaction id, so a re-run finds the same credit.
 */
export function registerBPointsStep(central: CentralDb, client: RegisterBClient, tenantDatabase: string, tdb: TenantDb): FinaliseStep {
  return {
    name: 'register_b_points',
    run: async (t) => {
      if (!t.customer_id) return 'skipped: no customer';
      const earned = await tdb.selectFrom('loyalty_ledger').select('points').where('transaction_id', '=', t.id).where('kind', '=', 'earn').executeTakeFirst();
      if (!earned) return 'skipped: no points earned';
      // The merchant's newest register-b connection, as the dispatch and the administration read it.
      const conn = await central
        .selectFrom('integration_connections as c')
        .innerJoin('merchants as m', 'm.id', 'c.merchant_id')
        .select(['c.status', 'c.external_ref'])
        .where('m.tenant_database', '=', tenantDatabase)
        .where('c.provider', '=', REGISTER_B)
        .orderBy('c.created_at', 'desc')
        .orderBy('c.id', 'desc')
        .executeTakeFirst();
      if (!conn || conn.status !== 'active') return 'skipped: register-b is not connected';
      const link = await tdb.selectFrom('register_b_relations').select('relation_number').where('customer_id', '=', t.customer_id).executeTakeFirst();
      if (!link) return 'skipped: the customer is not linked to a register-b relation';
      const r = await client.addPoints(conn.external_ref, link.relation_number, t.id, earned.points);
      return r.created ? `pushed ${earned.points} points to relation ${link.relation_number}` : `skipped: already pushed to relation ${link.relation_number}`;
    },
  };
}
