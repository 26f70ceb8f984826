import type { CentralDb } from '@pos/db';
import type { DeliveryBSimulator } from '@pos/providers/delivery-b/delivery-b-simulator';
import { DELIVERY_B_ACCOUNT } from './delivery-b-account.ts';
import { encryptSecret, parseTokenKey } from './token-crypto.ts';

/**
 * Tests: the merchant's delivery-b account as the OAuth callback leaves it (an active `delivery-b-account`
 * connection holding the account's access token, encrypted with `tokenKeyHex`), the simulator accepting that
 * token for the account, and `stores` put in the account. `externalRef` (default the account) lets two
 * merchants' rows reach one simulated account (a store both may try to connect). Answers the connection id.
 */
export async function connectTestDeliveryBAccount(db: CentralDb, sim: DeliveryBSimulator, o: { merchantId: string; tokenKeyHex: string; account?: string; externalRef?: string; stores?: readonly string[] }): Promise<string> {
  const key = parseTokenKey(o.tokenKeyHex);
  if (!key) throw new Error('tokenKeyHex must be an INTEGRATION_TOKEN_KEY');
  const account = o.account ?? `dbacct-${crypto.randomUUID().slice(0, 8)}`;
  const token = `at_test_${crypto.randomUUID()}`;
  sim.addAccountToken(token, account);
  for (const id of o.stores ?? []) {
    const s = sim.stores.get(id);
    if (s) s.account = account;
    else sim.addStore(id, id, account);
  }
  const id = Bun.randomUUIDv7();
  const now = new Date();
  await db
    .insertInto('integration_connections')
    .values({ id, provider: DELIVERY_B_ACCOUNT, external_ref: o.externalRef ?? account, merchant_id: o.merchantId, status: 'active', access_token_encrypted: encryptSecret(key, token), settings: JSON.stringify({}), connected_at: now, created_at: now, updated_at: now })
    .execute();
  return id;
}
