import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { hashSecret } from '@pos/core/security/passwords';
import type { TestApi } from '../../testing/harness.ts';

export const tenantOf = (api: TestApi, m: DemoSeedResult): TenantDb => bindTenant(api.deps.db, m.merchant.tenant_database);

export async function login(api: TestApi, email: string, password: string): Promise<string> {
  const r = await api.call('POST', '/api/login', { body: { email, password } });
  if (r.status !== 200 || typeof r.body.token !== 'string') throw new Error(`login failed: ${r.status} ${r.text}`);
  return r.body.token;
}

export interface LimitedMember {
  userId: string;
  email: string;
  roleId: string;
  token: string;
}

/**
 * A verified member of `m` with a known password and one tenant role holding exactly `permissions`,
 * granted `locationIds` (or every location with `allLocations`), signed in through POST /api/login.
 */
export async function makeMember(api: TestApi, m: DemoSeedResult, permissions: string[], opts: { locationIds?: string[]; allLocations?: boolean; name?: string } = {}): Promise<LimitedMember> {
  const tag = crypto.randomUUID().slice(0, 8);
  const email = `member-${tag}@example.com`;
  const password = `pass-${tag}-secret`;
  const userId = Bun.randomUUIDv7();
  const roleId = Bun.randomUUIDv7();
  await api.deps.db
    .insertInto('users')
    .values({ id: userId, email, password_hash: await hashSecret(password), name: opts.name ?? `Member ${tag}`, business_info: '{}', email_verified_at: new Date(), active_merchant_id: m.merchant.id })
    .execute();
  await api.deps.db.insertInto('memberships').values({ user_id: userId, merchant_id: m.merchant.id }).execute();
  const tdb = tenantOf(api, m);
  await tdb.insertInto('roles').values({ id: roleId, name: `Limited ${tag}`, permissions }).execute();
  await tdb.insertInto('user_roles').values({ user_id: userId, role_id: roleId }).execute();
  const locationIds = opts.locationIds ?? [m.locations[0]!.id];
  if (locationIds.length) await tdb.insertInto('user_locations').values(locationIds.map((location_id) => ({ user_id: userId, location_id }))).execute();
  if (opts.allLocations) await tdb.insertInto('member_settings').values({ user_id: userId, all_locations: true }).execute();
  return { userId, email, roleId, token: await login(api, email, password) };
}
