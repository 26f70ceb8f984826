import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { hashSecret } from '@pos/core/security/passwords';
import type { TestApi } from '../../testing/harness.ts';

/** Signs in with email and password; the bearer token. */
export async function loginToken(api: TestApi, email: string, password: string): Promise<string> {
  const r = await api.call('POST', '/api/login', { body: { email, password } });
  if (r.status !== 200 || typeof r.body.token !== 'string') throw new Error(`login failed: ${r.status} ${r.text}`);
  return r.body.token;
}

/**
 * A verified member of `m` holding one role with exactly `permissions`, granted `locationIds`; returns
 * their back-office token. The user goes with the merchant when the harness drops it.
 */
export async function limitedUserToken(api: TestApi, m: DemoSeedResult, permissions: string[], locationIds: string[]): Promise<string> {
  const userId = Bun.randomUUIDv7();
  const email = `limited-${userId.slice(-12)}@example.com`;
  const password = 'limited-pass-123';
  await api.deps.db
    .insertInto('users')
    .values({ id: userId, email, password_hash: await hashSecret(password), name: 'Limited', business_info: JSON.stringify({}), email_verified_at: new Date(), active_merchant_id: m.merchant.id })
    .execute();
  await api.deps.db.insertInto('memberships').values({ user_id: userId, merchant_id: m.merchant.id, is_owner: false }).execute();
  const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  const roleId = Bun.randomUUIDv7();
  await tdb.insertInto('roles').values({ id: roleId, name: `Limited ${roleId.slice(-8)}`, permissions }).execute();
  await tdb.insertInto('user_roles').values({ user_id: userId, role_id: roleId }).execute();
  if (locationIds.length) await tdb.insertInto('user_locations').values(locationIds.map((location_id) => ({ user_id: userId, location_id }))).execute();
  return loginToken(api, email, password);
}
