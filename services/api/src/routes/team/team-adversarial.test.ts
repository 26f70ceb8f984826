import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type CentralDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { dropInvitationMailJobs, invitationMailRows } from '../../testing/invitation-mail-jobs.ts';
import { login, makeMember, tenantOf } from './team.test-support.ts';

// An adversarial pass on the team routes (identity): a member removed while another write of theirs
// waits for the membership's lock. Real PostgreSQL and Redis.
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
const base = '/api/back-office/settings/team';
const USER_404 = { status: 404, body: { message: 'Unable to locate the user you requested.' } };

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('team-adv');
  owner = await login(api, m.backoffice.email, m.backoffice.password);
});
/** Merchants whose invitations were mailed. */
const mailed: string[] = [];
afterAll(async () => {
  // Leave no invitation e-mails behind for a relay running against the same database.
  await dropInvitationMailJobs(api, mailed);
  await api.close();
});

/** What the tenant still holds of a user: roles, grants, settings. */
async function tenantRows(userId: string) {
  const tdb = tenantOf(api, m);
  return {
    roles: (await tdb.selectFrom('user_roles').select('role_id').where('user_id', '=', userId).execute()).length,
    locations: (await tdb.selectFrom('user_locations').select('location_id').where('user_id', '=', userId).execute()).length,
    settings: (await tdb.selectFrom('member_settings').select('user_id').where('user_id', '=', userId).execute()).length,
  };
}

/**
 * Holds the member's membership row locked (as `DELETE /team/users/{id}` does while it runs), sends
 * `request`, lets it reach the lock, then removes the member the way the removal does and commits.
 */
async function removedWhileWaiting(userId: string, request: () => Promise<{ status: number; body: unknown }>) {
  let pending!: Promise<{ status: number; body: unknown }>;
  await api.deps.db.transaction().execute(async (tx) => {
    await tx.selectFrom('memberships').select('user_id').where('merchant_id', '=', m.merchant.id).where('user_id', '=', userId).forUpdate().execute();
    pending = request();
    await Bun.sleep(400);
    await tx.deleteFrom('memberships').where('merchant_id', '=', m.merchant.id).where('user_id', '=', userId).execute();
    const ttx = bindTenant(tx as unknown as CentralDb, m.merchant.tenant_database);
    await ttx.deleteFrom('user_roles').where('user_id', '=', userId).execute();
    await ttx.deleteFrom('user_locations').where('user_id', '=', userId).execute();
    await ttx.deleteFrom('member_settings').where('user_id', '=', userId).execute();
  });
  return pending;
}

describe('a write to a member removed while it waited for the lock', () => {
  test('roles, locations, rename and a second removal answer 404 and leave nothing of the member behind', async () => {
    const loc1 = m.locations[1]!.id;
    const role = (await api.call('POST', `${base}/roles`, { token: owner, body: { name: `Waiter ${crypto.randomUUID().slice(0, 6)}`, permissions: ['VIEW_ITEMS'] } })).body.data.id as string;
    const writes: [string, () => Promise<{ status: number; body: unknown }>][] = [
      ['roles', () => api.call('PUT', `${base}/users/${member}/roles`, { token: owner, body: { role_ids: [role] } })],
      ['locations', () => api.call('PUT', `${base}/users/${member}/locations`, { token: owner, body: { location_ids: [loc1], all_locations: true } })],
      ['rename', () => api.call('PUT', `${base}/users/${member}`, { token: owner, body: { name: 'Ghost' } })],
      ['remove', () => api.call('DELETE', `${base}/users/${member}`, { token: owner })],
    ];
    let member = '';
    for (const [name, send] of writes) {
      member = (await makeMember(api, m, ['VIEW_ITEMS'])).userId;
      const r = await removedWhileWaiting(member, send);
      expect([name, r]).toMatchObject([name, USER_404]);
      expect([name, await tenantRows(member)]).toEqual([name, { roles: 0, locations: 0, settings: 0 }]);
      const logged = await tenantOf(api, m).selectFrom('activity_logs').select('action').where('subject_id', '=', member).execute();
      expect([name, logged]).toEqual([name, []]);
    }
  });
});

describe('invitation mails to one address are capped (mail flooding under any merchant name)', () => {
  const outboxTo = async (email: string) => (await invitationMailRows(api, email)).length;

  test('5 per address per 15 minutes across invitations, resends and merchants: the 6th is 429, no mail queued, the last link still works', async () => {
    const email = `flood-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const calm = `calm-${crypto.randomUUID().slice(0, 8)}@example.com`;
    mailed.push(m.merchant.id);
    const invited = await api.call('POST', `${base}/users`, { token: owner, body: { email, name: 'Flo', role_ids: [], location_ids: [m.locations[0]!.id] } });
    expect(invited.status).toBe(200);
    const userId = invited.body.data.id as string;
    for (let i = 0; i < 4; i++) expect((await api.call('POST', `${base}/users/${userId}/resend-invitation`, { token: owner })).status).toBe(200);
    expect(await outboxTo(email)).toBe(5);
    const before = await api.deps.db.selectFrom('invitations').select(['token_hash', 'expires_at']).where('merchant_id', '=', m.merchant.id).where('user_id', '=', userId).executeTakeFirstOrThrow();
    const over = await api.call('POST', `${base}/users/${userId}/resend-invitation`, { token: owner });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
    expect(await outboxTo(email)).toBe(5);
    expect(await api.deps.db.selectFrom('invitations').select(['token_hash', 'expires_at']).where('merchant_id', '=', m.merchant.id).where('user_id', '=', userId).executeTakeFirstOrThrow()).toEqual(before);
    // Another merchant inviting the same address (any case) is refused too, and creates no membership.
    const other = await api.seed('team-adv-b');
    mailed.push(other.merchant.id);
    const ownerB = await login(api, other.backoffice.email, other.backoffice.password);
    const elsewhere = await api.call('POST', `${base}/users/global`, { token: ownerB, body: { email: email.toUpperCase(), name: 'Flo', role_ids: [] } });
    expect(elsewhere.status).toBe(429);
    expect(await api.deps.db.selectFrom('memberships').select('user_id').where('merchant_id', '=', other.merchant.id).where('user_id', '=', userId).execute()).toEqual([]);
    expect(await outboxTo(email)).toBe(5);
    // Another address is not affected.
    expect((await api.call('POST', `${base}/users`, { token: ownerB, body: { email: calm, name: 'Cal', role_ids: [], location_ids: [other.locations[0]!.id] } })).status).toBe(200);
  });
});

describe('removing a member who holds a register credential', () => {
  test('the linked credential is retired with the membership: its PIN no longer signs in, its open session ends', async () => {
    const member = await makeMember(api, m, ['VIEW_ITEMS'], { allLocations: true });
    const pin = '60417382';
    const created = await api.call('POST', '/api/back-office/pos/staff-credentials', { token: owner, body: { name: 'Leaving soon', role: 'cashier', pin, permissions: ['take_orders'], user_id: member.userId } });
    expect(created.status).toBe(201);
    const device = await api.deviceToken(m, 'pos', 0);
    const signIn = () => api.call('POST', '/api/pos/staff/pin-login', { token: device, deviceKey: true, body: { pin } });
    const session = await signIn();
    expect(session.status).toBe(200);
    expect((await api.call('DELETE', `${base}/users/${member.userId}`, { token: owner })).status).toBe(200);
    expect(await signIn()).toMatchObject({ status: 422, body: { errors: { pin: ['The PIN is not recognised.'] } } });
    // The session opened before the removal answers 401 now.
    expect((await api.call('POST', '/api/pos/staff/pin-logout', { token: device, deviceKey: true, headers: { 'x-pos-staff-token': session.body.staff_token } })).status).toBe(401);
    const row = await tenantOf(api, m).selectFrom('staff_credentials').select(['deleted_at']).where('id', '=', created.body.data.id).executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeInstanceOf(Date);
  });
});

describe('a member\'s roles or locations set while the role or location is deleted', () => {
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token: owner, body });

  test('never a 500: the set wins (the delete takes the link with it, or refuses) or the delete does (422 on the id)', async () => {
    const member = await makeMember(api, m, ['VIEW_ITEMS'], { locationIds: [m.locations[0]!.id] });
    for (let round = 0; round < 8; round++) {
      const role = (await call('POST', `${base}/roles`, { name: `Race ${round} ${crypto.randomUUID().slice(0, 6)}`, permissions: ['VIEW_ITEMS'] })).body.data.id as string;
      const [set, del] = await Promise.all([call('PUT', `${base}/users/${member.userId}/roles`, { role_ids: [role] }), call('DELETE', `${base}/roles/${role}`)]);
      expect(set.status === 200 || set.status === 422).toBe(true);
      expect(del.status).toBeLessThan(500);
      const loc = (await call('POST', '/api/back-office/settings/locations', { name: `Race ${round} ${crypto.randomUUID().slice(0, 6)}`, timezone: 'Europe/Brussels', country: 'BE' })).body.data.id as string;
      const [grant, gone] = await Promise.all([call('PUT', `${base}/users/${member.userId}/locations`, { location_ids: [m.locations[0]!.id, loc] }), call('DELETE', `/api/back-office/settings/locations/${loc}`)]);
      expect(grant.status === 200 || grant.status === 422).toBe(true);
      expect(gone.status).toBeLessThan(500);
    }
  });
});
