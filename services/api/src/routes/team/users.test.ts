import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { hashInvitationToken } from '@pos/core/team/team-scope';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { dropInvitationMailJobs, invitationMailRows, invitationTokenIn, mailedInvitationToken, runInvitationMailJobs } from '../../testing/invitation-mail-jobs.ts';
import { login, makeMember, tenantOf } from './team.test-support.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerId: string;
let ownerIdB: string;
let roleA: string;
let roleA2: string;
let roleB: string;

const base = '/api/back-office/settings/team';
const FORBIDDEN = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
const USER_404 = { status: 404, body: { message: 'Unable to locate the user you requested.' } };
const DAY = 24 * 3600 * 1000;

const uniqueEmail = (p: string) => `${p}-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** The invitation mail jobs queued for the address (they name the invitation only). */
const outboxFor = (email: string) => invitationMailRows(api, email);

async function invitationOf(merchantId: string, userId: string) {
  return api.deps.db.selectFrom('invitations').selectAll().where('merchant_id', '=', merchantId).where('user_id', '=', userId).executeTakeFirst();
}

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('users-a');
  b = await api.seed('users-b');
  owner = await login(api, a.backoffice.email, a.backoffice.password);
  const ownerB = await login(api, b.backoffice.email, b.backoffice.password);
  ownerId = (await api.deps.db.selectFrom('users').select('id').where('email', '=', a.backoffice.email).executeTakeFirstOrThrow()).id;
  ownerIdB = (await api.deps.db.selectFrom('users').select('id').where('email', '=', b.backoffice.email).executeTakeFirstOrThrow()).id;
  roleA = (await api.call('POST', `${base}/roles`, { token: owner, body: { name: 'Waiter', permissions: ['VIEW_ITEMS'] } })).body.data.id;
  roleA2 = (await api.call('POST', `${base}/roles`, { token: owner, body: { name: 'Manager', permissions: ['VIEW_ITEMS', 'EDIT_ITEMS'] } })).body.data.id;
  roleB = (await api.call('POST', `${base}/roles`, { token: ownerB, body: { name: 'Waiter', permissions: [] } })).body.data.id;
});
afterAll(async () => {
  // Leave no invitation e-mails behind for a relay running against the same database.
  await dropInvitationMailJobs(api, [a.merchant.id, b.merchant.id]);
  await api.close();
});

describe('GET /team/users', () => {
  test('lists the members with status, roles and locations', async () => {
    const r = await api.call('GET', `${base}/users`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      {
        id: ownerId,
        name: 'Demo Owner',
        email: a.backoffice.email,
        status: 'active',
        is_owner: true,
        all_locations: true,
        roles: [{ id: expect.any(String), name: 'Owner' }],
        location_ids: a.locations.map((l) => l.id).sort(),
        invitation_expires_at: null,
        joined_at: expect.any(String),
      },
    ]);
  });
});

describe('POST /team/users (invite)', () => {
  let invitedId: string;
  const email = uniqueEmail('Invitee').toLowerCase();

  test('a new person: unverified account, membership, roles, locations, invitation and one outbox e-mail', async () => {
    const r = await api.call('POST', `${base}/users`, {
      token: owner,
      body: { email: email.toUpperCase(), name: 'Ivy Invitee', role_ids: [roleA], location_ids: [a.locations[1]!.id] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'success',
      data: {
        id: expect.any(String),
        name: 'Ivy Invitee',
        email,
        status: 'invited',
        is_owner: false,
        all_locations: false,
        roles: [{ id: roleA, name: 'Waiter' }],
        location_ids: [a.locations[1]!.id],
        invitation_expires_at: expect.any(String),
        joined_at: expect.any(String),
      },
    });
    invitedId = r.body.data.id;
    const expires = new Date(r.body.data.invitation_expires_at).getTime();
    expect(Math.abs(expires - (Date.now() + 7 * DAY))).toBeLessThan(60_000);

    const user = await api.deps.db.selectFrom('users').selectAll().where('id', '=', invitedId).executeTakeFirstOrThrow();
    expect(user.email_verified_at).toBeNull();
    // The random password hash is unusable: signing in fails.
    expect((await api.call('POST', '/api/login', { body: { email, password: '' } })).status).toBe(422);

    // The outbox names the invitation only: the worker issues the token as it sends the mail.
    const queued = await outboxFor(email);
    expect(queued).toHaveLength(1);
    const pending = await invitationOf(a.merchant.id, invitedId);
    expect(queued[0]).toEqual({ queue: 'notifications', job: 'team.invitation-mail', payload: { invitation_id: pending!.id } });
    expect(await runInvitationMailJobs(api, [a.merchant.id])).toBe(1);
    const mail = await api.mail!.waitFor(email);
    expect(mail.subject).toBe('You are invited to join Demo ' + a.merchant.slug);
    const token = invitationTokenIn(mail.text);
    expect(mail.text).toBe(`You have been invited to the back office of Demo ${a.merchant.slug}. Accept the invitation with this token within 7 days: ${token}`);
    expect(JSON.stringify(await api.deps.db.selectFrom('outbox').select('payload').execute())).not.toContain(token);
    const inv = await invitationOf(a.merchant.id, invitedId);
    expect(inv).toMatchObject({ id: pending!.id, token_hash: hashInvitationToken(token), accepted_at: null, invited_by: ownerId });
    expect(inv!.token_hash).not.toContain(token);
  });

  test('someone already in the merchant is 422 on email', async () => {
    const r = await api.call('POST', `${base}/users`, { token: owner, body: { email, name: 'Again', role_ids: [], location_ids: [] } });
    expect(r).toMatchObject({ status: 422, body: { errors: { email: ['This user is already a member of this team.'] } } });
    expect(await outboxFor(email)).toHaveLength(1);
  });

  test('unknown or foreign role and location ids are 422 with dot paths', async () => {
    const r = await api.call('POST', `${base}/users`, {
      token: owner,
      body: { email: uniqueEmail('bad'), name: 'Bad', role_ids: [roleA, roleB, 'nope'], location_ids: [b.locations[0]!.id] },
    });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual({
      'role_ids.1': ['The selected role_ids.1 is invalid.'],
      'role_ids.2': ['The selected role_ids.2 is invalid.'],
      'location_ids.0': ['The selected location_ids.0 is invalid.'],
    });
    const ownerRole = (await tenantOf(api, a).selectFrom('roles').select('id').where('is_owner', '=', true).executeTakeFirstOrThrow()).id;
    const o = await api.call('POST', `${base}/users`, { token: owner, body: { email: uniqueEmail('own'), name: 'Own', role_ids: [ownerRole], location_ids: [] } });
    expect(o).toMatchObject({ status: 422, body: { errors: { 'role_ids.0': ['The owner role cannot be assigned.'] } } });
    const shape = await api.call('POST', `${base}/users`, { token: owner, body: { email: 'not-an-email', name: 'X', role_ids: [], location_ids: [] } });
    expect(shape).toMatchObject({ status: 422, body: { errors: { email: ['The email field must be a valid email address.'] } } });
  });

  test('an existing account (member of another merchant) only gains the membership, and its name is not revealed', async () => {
    const r = await api.call('POST', `${base}/users`, { token: owner, body: { email: b.backoffice.email, name: 'Typed name', role_ids: [roleA2], location_ids: [] } });
    expect(r).toMatchObject({ status: 200, body: { data: { id: ownerIdB, name: 'Typed name', email: b.backoffice.email, status: 'invited', is_owner: false, roles: [{ id: roleA2, name: 'Manager' }], location_ids: [] } } });
    const users = await api.deps.db.selectFrom('users').select('id').where('email', '=', b.backoffice.email).execute();
    expect(users).toHaveLength(1);
    expect(await outboxFor(b.backoffice.email)).toHaveLength(1);
    // Still owner of merchant B.
    const mb = await api.deps.db.selectFrom('memberships').select(['merchant_id', 'is_owner']).where('user_id', '=', ownerIdB).orderBy('created_at').execute();
    expect(mb).toEqual([
      { merchant_id: b.merchant.id, is_owner: true },
      { merchant_id: a.merchant.id, is_owner: false },
    ]);
  });

  test('resend: new token, the old one no longer matches, exactly one more e-mail', async () => {
    const before = await invitationOf(a.merchant.id, invitedId);
    const oldToken = await mailedInvitationToken(api, email);
    const r = await api.call('POST', `${base}/users/${invitedId}/resend-invitation`, { token: owner });
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { id: invitedId, status: 'invited' } } });
    expect(await outboxFor(email)).toHaveLength(2);
    // The old link stops working with the resend, before the new mail leaves.
    expect((await api.call('GET', `/api/back-office/join-merchant?token=${oldToken}`)).status).toBe(404);
    await runInvitationMailJobs(api);
    const newToken = invitationTokenIn((await api.mail!.waitFor(email, (x) => !x.text.includes(oldToken))).text);
    expect(api.mail!.messages(email)).toHaveLength(2);
    expect(newToken).not.toBe(oldToken);
    const after = await invitationOf(a.merchant.id, invitedId);
    expect(after!.token_hash).toBe(hashInvitationToken(newToken));
    expect(after!.token_hash).not.toBe(before!.token_hash);
    const byOld = await api.deps.db.selectFrom('invitations').select('id').where('token_hash', '=', hashInvitationToken(oldToken)).executeTakeFirst();
    expect(byOld).toBeUndefined();
  });

  test('resend after acceptance, or for a never-invited member, is 409', async () => {
    await api.deps.db.updateTable('invitations').set({ accepted_at: new Date() }).where('merchant_id', '=', a.merchant.id).where('user_id', '=', ownerIdB).execute();
    expect(await api.call('POST', `${base}/users/${ownerIdB}/resend-invitation`, { token: owner })).toMatchObject({
      status: 409,
      body: { message: 'This user has already accepted the invitation.' },
    });
    expect(await api.call('POST', `${base}/users/${ownerId}/resend-invitation`, { token: owner })).toMatchObject({ status: 409, body: { message: 'This user has no pending invitation.' } });
    const list = await api.call('GET', `${base}/users`, { token: owner });
    expect(list.body.data.find((m: { id: string }) => m.id === ownerIdB)).toMatchObject({ status: 'active', invitation_expires_at: null });
  });

  test('PUT /users/{id}/roles replaces the roles', async () => {
    const r = await api.call('PUT', `${base}/users/${invitedId}/roles`, { token: owner, body: { role_ids: [roleA2, roleA] } });
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { roles: [{ id: roleA2, name: 'Manager' }, { id: roleA, name: 'Waiter' }] } } });
    const bad = await api.call('PUT', `${base}/users/${invitedId}/roles`, { token: owner, body: { role_ids: [roleB] } });
    expect(bad).toMatchObject({ status: 422, body: { errors: { 'role_ids.0': ['The selected role_ids.0 is invalid.'] } } });
    const none = await api.call('PUT', `${base}/users/${invitedId}/roles`, { token: owner, body: { role_ids: [] } });
    expect(none.body.data.roles).toEqual([]);
    await api.call('PUT', `${base}/users/${invitedId}/roles`, { token: owner, body: { role_ids: [roleA] } });
  });

  test("the owner's owner role survives a role assignment", async () => {
    const r = await api.call('PUT', `${base}/users/${ownerId}/roles`, { token: owner, body: { role_ids: [roleA] } });
    expect(r.status).toBe(200);
    expect(r.body.data.roles.map((x: { name: string }) => x.name)).toEqual(['Owner', 'Waiter']);
    await api.call('PUT', `${base}/users/${ownerId}/roles`, { token: owner, body: { role_ids: [] } });
  });

  test('PUT /users/{id}/locations replaces the grants and can make a global user', async () => {
    const both = a.locations.map((l) => l.id).sort();
    const r = await api.call('PUT', `${base}/users/${invitedId}/locations`, { token: owner, body: { location_ids: both } });
    expect(r).toMatchObject({ status: 200, body: { data: { location_ids: both, all_locations: false } } });
    const bad = await api.call('PUT', `${base}/users/${invitedId}/locations`, { token: owner, body: { location_ids: [a.locations[0]!.id, b.locations[0]!.id, 'x'] } });
    expect(bad.body.errors).toEqual({ 'location_ids.1': ['The selected location_ids.1 is invalid.'], 'location_ids.2': ['The selected location_ids.2 is invalid.'] });
    const global = await api.call('PUT', `${base}/users/${invitedId}/locations`, { token: owner, body: { location_ids: [], all_locations: true } });
    expect(global.body.data).toMatchObject({ location_ids: [], all_locations: true });
    // Absent all_locations keeps it.
    const kept = await api.call('PUT', `${base}/users/${invitedId}/locations`, { token: owner, body: { location_ids: [a.locations[0]!.id] } });
    expect(kept.body.data).toMatchObject({ location_ids: [a.locations[0]!.id], all_locations: true });
    const listed = await api.call('GET', `${base}/users/global`, { token: owner });
    expect(listed.body.data.map((m: { id: string }) => m.id).sort()).toEqual([ownerId, invitedId].sort());
    await api.call('PUT', `${base}/users/${invitedId}/locations`, { token: owner, body: { location_ids: [a.locations[1]!.id], all_locations: false } });
  });

  test("renaming a member who also belongs to another merchant changes only this merchant's name for them", async () => {
    const globalName = async () => (await api.deps.db.selectFrom('users').select('name').where('id', '=', ownerIdB).executeTakeFirstOrThrow()).name;
    const before = await globalName();
    const r = await api.call('PUT', `${base}/users/${ownerIdB}`, { token: owner, body: { name: 'Renamed by A' } });
    expect(r).toMatchObject({ status: 200, body: { data: { id: ownerIdB, name: 'Renamed by A' } } });
    expect(await globalName()).toBe(before);
    const ownerB = await login(api, b.backoffice.email, b.backoffice.password);
    const inB = await api.call('GET', `${base}/users`, { token: ownerB });
    expect(inB.body.data.find((m: { id: string }) => m.id === ownerIdB).name).toBe(before);
    const profile = await api.call('GET', '/api/back-office/user', { token: ownerB });
    expect(profile.status).toBe(200);
    expect(profile.body.data.name).toBe(before);
  });

  test('PUT /users/{id} renames', async () => {
    const r = await api.call('PUT', `${base}/users/${invitedId}`, { token: owner, body: { name: 'Ivy Renamed' } });
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { id: invitedId, name: 'Ivy Renamed' } } });
    expect((await api.call('PUT', `${base}/users/${invitedId}`, { token: owner, body: { name: '' } })).status).toBe(422);
  });

  test("another merchant's user, an unknown id and a non-UUID are 404 on every user route", async () => {
    const strangerB = (await api.deps.db.selectFrom('users').select('id').where('email', '=', b.backoffice.email).executeTakeFirstOrThrow()).id;
    const onlyB = await makeMember(api, b, []);
    for (const id of [onlyB.userId, crypto.randomUUID(), 'not-a-uuid']) {
      expect(await api.call('PUT', `${base}/users/${id}`, { token: owner, body: { name: 'X' } })).toMatchObject(USER_404);
      expect(await api.call('PUT', `${base}/users/${id}/roles`, { token: owner, body: { role_ids: [] } })).toMatchObject(USER_404);
      expect(await api.call('PUT', `${base}/users/${id}/locations`, { token: owner, body: { location_ids: [] } })).toMatchObject(USER_404);
      expect(await api.call('POST', `${base}/users/${id}/resend-invitation`, { token: owner })).toMatchObject(USER_404);
      expect(await api.call('DELETE', `${base}/users/${id}`, { token: owner })).toMatchObject(USER_404);
      expect(await api.call('PUT', `${base}/users/global/${id}`, { token: owner, body: { name: 'X' } })).toMatchObject(USER_404);
      expect(await api.call('DELETE', `${base}/users/global/${id}`, { token: owner })).toMatchObject(USER_404);
    }
    expect(strangerB).toBe(ownerIdB);
  });

  test('DELETE /users/{id}: not yourself, not the owner (409); else membership and tenant rows go', async () => {
    // Every location: the member removed below is a global user by now.
    const manager = await makeMember(api, a, ['DELETE_USERS'], { locationIds: [], allLocations: true });
    expect(await api.call('DELETE', `${base}/users/${manager.userId}`, { token: manager.token })).toMatchObject({ status: 409, body: { message: 'You cannot remove yourself from the team.' } });
    expect(await api.call('DELETE', `${base}/users/${ownerId}`, { token: manager.token })).toMatchObject({ status: 409, body: { message: 'The owner of the merchant cannot be removed.' } });

    const r = await api.call('DELETE', `${base}/users/${invitedId}`, { token: manager.token });
    expect(r).toMatchObject({ status: 200, body: { status: 'success' } });
    const tdb = tenantOf(api, a);
    expect(await tdb.selectFrom('user_roles').select('role_id').where('user_id', '=', invitedId).execute()).toEqual([]);
    expect(await tdb.selectFrom('user_locations').select('location_id').where('user_id', '=', invitedId).execute()).toEqual([]);
    expect(await tdb.selectFrom('member_settings').select('user_id').where('user_id', '=', invitedId).execute()).toEqual([]);
    expect(await invitationOf(a.merchant.id, invitedId)).toBeUndefined();
    // The never-verified account that belonged nowhere else is gone too.
    expect(await api.deps.db.selectFrom('users').select('id').where('id', '=', invitedId).executeTakeFirst()).toBeUndefined();

    // An account with another membership stays; its tokens for this merchant stop working.
    const ownerBTokenForA = await api.deps.tokens.sign({ type: 'backoffice', sub: ownerIdB, merchant_id: a.merchant.id, tenant_database: a.merchant.tenant_database });
    expect((await api.call('GET', '/api/back-office/user', { token: ownerBTokenForA })).status).toBe(200);
    expect((await api.call('DELETE', `${base}/users/${ownerIdB}`, { token: owner })).status).toBe(200);
    expect(await api.deps.db.selectFrom('users').select('id').where('id', '=', ownerIdB).executeTakeFirst()).toBeDefined();
    expect(await api.call('GET', '/api/back-office/user', { token: ownerBTokenForA })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
  });

  test('a removed person can be invited again', async () => {
    const r = await api.call('POST', `${base}/users`, { token: owner, body: { email: b.backoffice.email, name: 'B again', role_ids: [], location_ids: [a.locations[0]!.id] } });
    expect(r).toMatchObject({ status: 200, body: { data: { id: ownerIdB, status: 'invited', roles: [], location_ids: [a.locations[0]!.id] } } });
  });
});

describe('global users', () => {
  let globalId: string;
  const email = uniqueEmail('global');

  test('POST /users/global invites a member with every location', async () => {
    const r = await api.call('POST', `${base}/users/global`, { token: owner, body: { email, name: 'Gina Global', role_ids: [roleA] } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: 'Gina Global', email, status: 'invited', all_locations: true, location_ids: [], roles: [{ id: roleA, name: 'Waiter' }] });
    globalId = r.body.data.id;
    expect(await outboxFor(email)).toHaveLength(1);
    const extra = await api.call('POST', `${base}/users/global`, { token: owner, body: { email: uniqueEmail('x'), name: 'X', role_ids: [], location_ids: [] } });
    expect(extra.status).toBe(422);
  });

  test('GET /users/global lists only global members; GET /users lists everyone', async () => {
    const g = await api.call('GET', `${base}/users/global`, { token: owner });
    expect(g.status).toBe(200);
    expect(g.body.data.every((m: { all_locations: boolean }) => m.all_locations)).toBe(true);
    expect(g.body.data.map((m: { id: string }) => m.id)).toContain(globalId);
    const all = await api.call('GET', `${base}/users`, { token: owner });
    expect(all.body.data.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining([globalId, ownerIdB]));
    expect(g.body.data.map((m: { id: string }) => m.id)).not.toContain(ownerIdB);
  });

  test('PUT and DELETE /users/global/{id} work on global members only', async () => {
    const r = await api.call('PUT', `${base}/users/global/${globalId}`, { token: owner, body: { name: 'Gina G.' } });
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { id: globalId, name: 'Gina G.', all_locations: true } } });
    // A location-scoped member is not in the global collection.
    expect(await api.call('PUT', `${base}/users/global/${ownerIdB}`, { token: owner, body: { name: 'X' } })).toMatchObject(USER_404);
    expect(await api.call('DELETE', `${base}/users/global/${ownerIdB}`, { token: owner })).toMatchObject(USER_404);
    expect(await api.call('DELETE', `${base}/users/global/${ownerId}`, { token: owner })).toMatchObject({ status: 409 });
    expect(await api.call('DELETE', `${base}/users/global/${globalId}`, { token: owner })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await api.call('GET', `${base}/users/global`, { token: owner }).then((x) => x.body.data.map((m: { id: string }) => m.id))).not.toContain(globalId);
  });
});

describe('permission gates on user routes', () => {
  test('each route needs exactly its slug', async () => {
    const target = await makeMember(api, a, []);
    const none = await makeMember(api, a, ['VIEW_ROLES', 'EDIT_ITEMS']);
    const calls: [string, string, unknown?][] = [
      ['GET', `${base}/users`],
      ['GET', `${base}/users/global`],
      ['POST', `${base}/users`, { email: uniqueEmail('g'), name: 'G', role_ids: [], location_ids: [] }],
      ['POST', `${base}/users/global`, { email: uniqueEmail('g'), name: 'G', role_ids: [] }],
      ['POST', `${base}/users/${target.userId}/resend-invitation`],
      ['PUT', `${base}/users/${target.userId}/roles`, { role_ids: [] }],
      ['PUT', `${base}/users/${target.userId}/locations`, { location_ids: [] }],
      ['PUT', `${base}/users/${target.userId}`, { name: 'N' }],
      ['PUT', `${base}/users/global/${target.userId}`, { name: 'N' }],
      ['DELETE', `${base}/users/${target.userId}`],
      ['DELETE', `${base}/users/global/${target.userId}`],
    ];
    for (const [method, path, body] of calls) expect(await api.call(method, path, { token: none.token, body })).toMatchObject(FORBIDDEN);

    const slugFor: Record<string, string> = {
      roles: 'ASSIGN_ROLES',
      locations: 'EDIT_USER_LOCATION_ACCESS',
    };
    // VIEW_ITEMS too: roleA holds it, and a member assigns only roles within their own permissions.
    const assigner = await makeMember(api, a, [slugFor.roles!, 'VIEW_ITEMS']);
    expect((await api.call('PUT', `${base}/users/${target.userId}/roles`, { token: assigner.token, body: { role_ids: [roleA] } })).status).toBe(200);
    expect(await api.call('PUT', `${base}/users/${target.userId}/locations`, { token: assigner.token, body: { location_ids: [] } })).toMatchObject(FORBIDDEN);
    const locator = await makeMember(api, a, [slugFor.locations!]);
    expect((await api.call('PUT', `${base}/users/${target.userId}/locations`, { token: locator.token, body: { location_ids: [] } })).status).toBe(200);
    const viewer = await makeMember(api, a, ['VIEW_USERS']);
    expect((await api.call('GET', `${base}/users`, { token: viewer.token })).status).toBe(200);
    expect((await api.call('GET', `${base}/users/global`, { token: viewer.token })).status).toBe(200);
    expect(await api.call('PUT', `${base}/users/${target.userId}`, { token: viewer.token, body: { name: 'N' } })).toMatchObject(FORBIDDEN);
  });

  test('an invited account with an unknown password cannot sign in until it sets one', async () => {
    const email = uniqueEmail('pw');
    await api.call('POST', `${base}/users`, { token: owner, body: { email, name: 'Pw', role_ids: [], location_ids: [] } });
    const u = await api.deps.db.selectFrom('users').select(['password_hash']).where('email', '=', email).executeTakeFirstOrThrow();
    expect(u.password_hash).toStartWith('$argon2id$');
    expect(await Bun.password.verify('', u.password_hash)).toBe(false);
  });
});

// Spec 1 section 5.8: permissions are "scoped to the locations granted to the user". A member changes
// location access only within their own grant; every location (a global user) needs a caller holding
// every location (docs/decisions.md, "Team: grants stay within the granter's grant").
describe('location grants stay within the caller\'s grant', () => {
  const grantsOf = async (userId: string) =>
    (await tenantOf(api, a).selectFrom('user_locations').select('location_id').where('user_id', '=', userId).orderBy('location_id').execute()).map((g) => g.location_id);
  const isGlobal = async (userId: string) =>
    (await tenantOf(api, a).selectFrom('member_settings').select('all_locations').where('user_id', '=', userId).executeTakeFirst())?.all_locations ?? false;

  test('EDIT_USER_LOCATION_ACCESS at location [1] only: neither location [0] nor every location, for themselves or another member; nothing written', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const member = await makeMember(api, a, ['EDIT_USER_LOCATION_ACCESS', 'VIEW_SALES_REPORTS'], { locationIds: [loc1] });
    const sales0 = () => api.call('GET', `/api/back-office/reports/sales?from=2026-01-01&to=2026-01-02&location_id=${loc0}`, { token: member.token });
    expect((await sales0()).status).toBe(403);
    const put = (userId: string, body: unknown) => api.call('PUT', `${base}/users/${userId}/locations`, { token: member.token, body });

    const refused = await put(member.userId, { location_ids: [loc0, loc1], all_locations: true });
    expect([refused.status, refused.body]).toEqual([403, { message: 'Unauthorized: Insufficient permissions' }]);
    expect(await put(member.userId, { location_ids: [loc1], all_locations: true })).toMatchObject(FORBIDDEN);
    expect(await put(member.userId, { location_ids: [loc0, loc1] })).toMatchObject(FORBIDDEN);
    expect(await grantsOf(member.userId)).toEqual([loc1]);
    expect(await isGlobal(member.userId)).toBe(false);
    expect((await sales0()).status).toBe(403);

    // Another member: no location outside the grant added or taken away, the global flag neither set nor cleared.
    const both = await makeMember(api, a, [], { locationIds: [loc0, loc1] });
    expect(await put(both.userId, { location_ids: [loc1] })).toMatchObject(FORBIDDEN);
    expect(await grantsOf(both.userId)).toEqual([loc0, loc1].sort());
    const global = await makeMember(api, a, [], { locationIds: [], allLocations: true });
    expect(await put(global.userId, { location_ids: [], all_locations: false })).toMatchObject(FORBIDDEN);
    expect(await isGlobal(global.userId)).toBe(true);

    // A member reaching location [0] (or every location) is out of reach whatever the change, even one within the grant.
    expect(await put(both.userId, { location_ids: [loc0] })).toMatchObject(FORBIDDEN);
    expect(await put(global.userId, { location_ids: [loc1] })).toMatchObject(FORBIDDEN);
    expect(await grantsOf(both.userId)).toEqual([loc0, loc1].sort());
    expect(await grantsOf(global.userId)).toEqual([]);

    // Within the grant it works: location [1] given and taken.
    const plain = await makeMember(api, a, [], { locationIds: [] });
    expect(await put(plain.userId, { location_ids: [loc1] })).toMatchObject({ status: 200, body: { data: { location_ids: [loc1], all_locations: false } } });
    expect(await put(plain.userId, { location_ids: [] })).toMatchObject({ status: 200, body: { data: { location_ids: [], all_locations: false } } });
    // An unknown id is still the 422 it always was.
    expect(await put(plain.userId, { location_ids: [crypto.randomUUID()] })).toMatchObject({ status: 422, body: { errors: { 'location_ids.0': ['The selected location_ids.0 is invalid.'] } } });
  });

  // As role assignment and member edits (docs/decisions.md, "Permissions and location grants"): the
  // member's whole grant within the caller's, and a location given only to a member whose permissions
  // the caller holds (there the member would act with them).
  test('EDIT_USER_LOCATION_ACCESS at location [1]: no grant change for a member reaching location [0], no location given to a member holding more; nothing written', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const member = await makeMember(api, a, ['EDIT_USER_LOCATION_ACCESS'], { locationIds: [loc1] });
    const put = (userId: string, body: unknown) => api.call('PUT', `${base}/users/${userId}/locations`, { token: member.token, body });
    const devices0 = await makeMember(api, a, ['DELETE_DEVICES'], { locationIds: [loc0] });
    const refused = await put(devices0.userId, { location_ids: [loc0, loc1] });
    expect([refused.status, refused.body]).toEqual([403, { message: 'Unauthorized: Insufficient permissions' }]);
    expect(await grantsOf(devices0.userId)).toEqual([loc0]);

    // Within the grant, but holding DELETE_DEVICES the caller lacks: location [1] is not given, and may be taken.
    const devices = await makeMember(api, a, ['DELETE_DEVICES'], { locationIds: [] });
    expect(await put(devices.userId, { location_ids: [loc1] })).toMatchObject(FORBIDDEN);
    expect(await grantsOf(devices.userId)).toEqual([]);
    const devices1 = await makeMember(api, a, ['DELETE_DEVICES'], { locationIds: [loc1] });
    expect(await put(devices1.userId, { location_ids: [] })).toMatchObject({ status: 200, body: { data: { location_ids: [] } } });
    // The owner gives it.
    expect((await api.call('PUT', `${base}/users/${devices.userId}/locations`, { token: owner, body: { location_ids: [loc1] } })).status).toBe(200);
    expect(await grantsOf(devices.userId)).toEqual([loc1]);
  });

  test('a caller holding every location grants any location and every location', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const manager = await makeMember(api, a, ['EDIT_USER_LOCATION_ACCESS'], { locationIds: [], allLocations: true });
    const target = await makeMember(api, a, [], { locationIds: [loc1] });
    const r = await api.call('PUT', `${base}/users/${target.userId}/locations`, { token: manager.token, body: { location_ids: [loc0], all_locations: true } });
    expect(r).toMatchObject({ status: 200, body: { data: { location_ids: [loc0], all_locations: true } } });
    expect(await isGlobal(target.userId)).toBe(true);
  });

  test('CREATE_USERS at location [1] only: no global member, no invitation to location [0]; location [1] is fine', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const member = await makeMember(api, a, ['CREATE_USERS'], { locationIds: [loc1] });
    const userRows = (email: string) => api.deps.db.selectFrom('users').select('id').where('email', '=', email).execute();
    const globalEmail = uniqueEmail('esc-global');
    expect(await api.call('POST', `${base}/users/global`, { token: member.token, body: { email: globalEmail, name: 'Global', role_ids: [member.roleId] } })).toMatchObject(FORBIDDEN);
    expect(await userRows(globalEmail)).toEqual([]);
    const l0Email = uniqueEmail('esc-l0');
    expect(await api.call('POST', `${base}/users`, { token: member.token, body: { email: l0Email, name: 'L0', role_ids: [member.roleId], location_ids: [loc0, loc1] } })).toMatchObject(FORBIDDEN);
    expect(await userRows(l0Email)).toEqual([]);
    expect(await outboxFor(l0Email)).toEqual([]);
    const l1Email = uniqueEmail('esc-l1');
    const ok = await api.call('POST', `${base}/users`, { token: member.token, body: { email: l1Email, name: 'L1', role_ids: [member.roleId], location_ids: [loc1] } });
    expect(ok).toMatchObject({ status: 200, body: { status: 'success', data: { email: l1Email, location_ids: [loc1], all_locations: false, status: 'invited' } } });
  });
});

describe('PUT /users/{id}/locations sent several times at once', () => {
  test('each request replaces the grants in turn: all 200, no 500, the grants are one of the requested sets', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const member = await makeMember(api, a, ['VIEW_ITEMS'], { locationIds: [loc0] });
    const sets = [[loc1], [loc0, loc1].sort()];
    const rs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api.call('PUT', `${base}/users/${member.userId}/locations`, { token: owner, body: { location_ids: sets[i % 2] } })),
    );
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const grants = (await tenantOf(api, a).selectFrom('user_locations').select('location_id').where('user_id', '=', member.userId).orderBy('location_id').execute()).map((g) => g.location_id);
    expect(sets).toContainEqual(grants);
  });
});

// Spec 1 section 5.8 scopes permissions to the granted locations; a member hands out neither
// permissions they do not hold nor changes to members outside their grant (docs/decisions.md,
// "Permissions and location grants").
describe('role assignment stays within the caller\'s permissions and grant', () => {
  const rolesOf = async (userId: string) =>
    (await tenantOf(api, a).selectFrom('user_roles').select('role_id').where('user_id', '=', userId).orderBy('role_id').execute()).map((r) => r.role_id);
  const roleWith = async (permissions: string[]) => {
    const id = Bun.randomUUIDv7();
    await tenantOf(api, a).insertInto('roles').values({ id, name: `Esc ${id.slice(-8)}`, permissions }).execute();
    return id;
  };

  test('ASSIGN_ROLES at location [1]: no role holding a permission the caller lacks, for themselves or another member; nothing written', async () => {
    const loc1 = a.locations[1]!.id;
    const member = await makeMember(api, a, ['ASSIGN_ROLES', 'VIEW_ITEMS'], { locationIds: [loc1] });
    const big = await roleWith(['ASSIGN_ROLES', 'VIEW_ITEMS', 'DELETE_USERS', 'EDIT_USER_LOCATION_ACCESS']);
    const put = (userId: string, role_ids: string[]) => api.call('PUT', `${base}/users/${userId}/roles`, { token: member.token, body: { role_ids } });

    const self = await put(member.userId, [member.roleId, big]);
    expect([self.status, self.body]).toEqual([403, { message: 'Unauthorized: Insufficient permissions' }]);
    expect(await rolesOf(member.userId)).toEqual([member.roleId]);
    const peer = await makeMember(api, a, [], { locationIds: [loc1] });
    expect(await put(peer.userId, [big])).toMatchObject(FORBIDDEN);
    expect(await rolesOf(peer.userId)).toEqual([peer.roleId]);
    // Nor taken away: a role holding more than the caller stays.
    const bigHolder = await makeMember(api, a, ['VIEW_ITEMS', 'EDIT_ITEMS'], { locationIds: [loc1] });
    expect(await put(bigHolder.userId, [])).toMatchObject(FORBIDDEN);
    expect(await rolesOf(bigHolder.userId)).toEqual([bigHolder.roleId]);
    // POST /users gives roles too.
    const email = uniqueEmail('esc-role');
    expect(await api.call('POST', `${base}/users`, { token: member.token, body: { email, name: 'E', role_ids: [big], location_ids: [loc1] } })).toMatchObject(FORBIDDEN);
    expect(await api.deps.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);

    // Within the caller's permissions it works (roleA holds VIEW_ITEMS), and a kept role is no change.
    expect(await put(peer.userId, [peer.roleId, roleA])).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await rolesOf(peer.userId)).toEqual([peer.roleId, roleA].sort());
    expect((await put(bigHolder.userId, [bigHolder.roleId, roleA])).status).toBe(200);
  });

  test('ASSIGN_ROLES at location [1]: no role change for a global member or one reaching location [0]', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const member = await makeMember(api, a, ['ASSIGN_ROLES', 'VIEW_ITEMS'], { locationIds: [loc1] });
    const put = (userId: string, role_ids: string[]) => api.call('PUT', `${base}/users/${userId}/roles`, { token: member.token, body: { role_ids } });
    const global = await makeMember(api, a, [], { locationIds: [], allLocations: true });
    const wider = await makeMember(api, a, [], { locationIds: [loc0, loc1] });
    for (const target of [global, wider]) {
      expect(await put(target.userId, [target.roleId, roleA])).toMatchObject(FORBIDDEN);
      expect(await put(target.userId, [])).toMatchObject(FORBIDDEN);
      expect(await rolesOf(target.userId)).toEqual([target.roleId]);
    }
    expect(await put(ownerId, [roleA])).toMatchObject(FORBIDDEN);
    // A caller holding every location (and the permissions) may.
    const manager = await makeMember(api, a, ['ASSIGN_ROLES', 'VIEW_ITEMS'], { locationIds: [], allLocations: true });
    expect((await api.call('PUT', `${base}/users/${global.userId}/roles`, { token: manager.token, body: { role_ids: [global.roleId, roleA] } })).status).toBe(200);
    // The owner holds every permission: any role, any member.
    const big = await roleWith(['DELETE_USERS', 'EDIT_ROLES']);
    expect((await api.call('PUT', `${base}/users/${wider.userId}/roles`, { token: owner, body: { role_ids: [big] } })).status).toBe(200);
  });
});

describe('members are edited and removed only within the caller\'s grant', () => {
  test('EDIT_USERS / DELETE_USERS at location [1]: not a global member, not one reaching location [0]; nothing written', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const member = await makeMember(api, a, ['EDIT_USERS', 'DELETE_USERS'], { locationIds: [loc1] });
    const global = await makeMember(api, a, [], { locationIds: [], allLocations: true, name: 'Global G' });
    const wider = await makeMember(api, a, [], { locationIds: [loc0, loc1], name: 'Wider W' });
    const nameOf = async (userId: string) => (await api.call('GET', `${base}/users`, { token: owner })).body.data.find((m: { id: string }) => m.id === userId)?.name;
    const isMember = async (userId: string) => !!(await api.deps.db.selectFrom('memberships').select('user_id').where('merchant_id', '=', a.merchant.id).where('user_id', '=', userId).executeTakeFirst());

    expect(await api.call('PUT', `${base}/users/global/${global.userId}`, { token: member.token, body: { name: 'Renamed' } })).toMatchObject(FORBIDDEN);
    expect(await api.call('PUT', `${base}/users/${global.userId}`, { token: member.token, body: { name: 'Renamed' } })).toMatchObject(FORBIDDEN);
    expect(await api.call('PUT', `${base}/users/${wider.userId}`, { token: member.token, body: { name: 'Renamed' } })).toMatchObject(FORBIDDEN);
    expect(await api.call('PUT', `${base}/users/${ownerId}`, { token: member.token, body: { name: 'Renamed' } })).toMatchObject(FORBIDDEN);
    expect(await nameOf(global.userId)).toBe('Global G');
    expect(await nameOf(wider.userId)).toBe('Wider W');
    expect(await nameOf(ownerId)).toBe('Demo Owner');

    expect(await api.call('DELETE', `${base}/users/global/${global.userId}`, { token: member.token })).toMatchObject(FORBIDDEN);
    expect(await api.call('DELETE', `${base}/users/${global.userId}`, { token: member.token })).toMatchObject(FORBIDDEN);
    expect(await api.call('DELETE', `${base}/users/${wider.userId}`, { token: member.token })).toMatchObject(FORBIDDEN);
    expect(await isMember(global.userId)).toBe(true);
    expect(await isMember(wider.userId)).toBe(true);
    // The owner stays the 409 it always was.
    expect(await api.call('DELETE', `${base}/users/${ownerId}`, { token: member.token })).toMatchObject({ status: 409, body: { message: 'The owner of the merchant cannot be removed.' } });

    // Within the grant it works.
    const inside = await makeMember(api, a, [], { locationIds: [loc1] });
    expect(await api.call('PUT', `${base}/users/${inside.userId}`, { token: member.token, body: { name: 'Inside I' } })).toMatchObject({ status: 200, body: { data: { name: 'Inside I' } } });
    expect(await api.call('DELETE', `${base}/users/${inside.userId}`, { token: member.token })).toMatchObject({ status: 200, body: { status: 'success' } });
    // A caller holding every location reaches everyone.
    const manager = await makeMember(api, a, ['EDIT_USERS', 'DELETE_USERS'], { locationIds: [], allLocations: true });
    expect((await api.call('PUT', `${base}/users/global/${global.userId}`, { token: manager.token, body: { name: 'Global 2' } })).status).toBe(200);
    expect((await api.call('DELETE', `${base}/users/${wider.userId}`, { token: manager.token })).status).toBe(200);
  });
});
