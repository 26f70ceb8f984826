import type { CentralDb } from '@pos/db';
import { REGISTER_B } from './register-b-admin.ts';

/**
 * Whether a merchant is integrated with register-b: its newest register-b connection is active, as the
 * administration and the order dispatch read it. Online payments follow it (spec 3 "Online ordering
 * payment creation" rule 3).
 */
export async function registerBIntegrated(central: CentralDb, merchantId: string): Promise<boolean> {
  const conn = await central
    .selectFrom('integration_connections')
    .select('status')
    .where('merchant_id', '=', merchantId)
    .where('provider', '=', REGISTER_B)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return conn?.status === 'active';
}
