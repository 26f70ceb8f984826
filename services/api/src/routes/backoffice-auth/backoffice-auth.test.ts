import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { hashSecret } from '@pos/core/security/passwords';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let token: string;

async function login(email: string, password: string) {
  return api.call('POST', '/api/login', { body: { email, password } });
}

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('auth-a');
  b = await api.seed('auth-b');
  token = (await login(a.backoffice.email, a.backoffice.password)).body.token;
});
afterAll(() => api.close());

describe('POST /login', () => {
  test('returns a bearer token for good credentials', async () => {
    const r = await login(a.backoffice.email, a.backoffice.password);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ token: expect.any(String), token_type: 'Bearer', expires_in: 43200 });
  });

  test('wrong password and unknown email answer the same 422', async () => {
    const expected = { message: 'These credentials do not match our records.', errors: { email: ['These credentials do not match our records.'] } };
    expect(await login(a.backoffice.email, 'wrong')).toMatchObject({ status: 422, body: expected });
    expect(await login('nobody@example.com', 'wrong')).toMatchObject({ status: 422, body: expected });
  });

  test('an unverified email answers verification_required and no token', async () => {
    const email = `unverified-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await api.deps.db.insertInto('users').values({ id: crypto.randomUUID(), email, password_hash: await hashSecret('secret-pass'), name: 'U', business_info: '{}' }).execute();
    const r = await login(email, 'secret-pass');
    expect(r).toMatchObject({ status: 200, body: { status: 'verification_required', email } });
    expect(r.body.token).toBeUndefined();
    await api.deps.db.deleteFrom('users').where('email', '=', email).execute();
  });

  test('validation: malformed email is 422 with a field error', async () => {
    const r = await api.call('POST', '/api/login', { body: { email: 'nope', password: 'x' } });
    expect(r.status).toBe(422);
    expect(r.body.errors.email).toEqual(['The email field must be a valid email address.']);
  });
});

describe('authenticated back-office user', () => {
  test('GET /back-office/user: 401 without token, profile with one', async () => {
    expect(await api.call('GET', '/api/back-office/user')).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
    expect(await api.call('GET', '/api/back-office/user', { token: 'garbage' })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    const r = await api.call('GET', '/api/back-office/user', { token });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ email: a.backoffice.email, merchant: { id: a.merchant.id, slug: a.merchant.slug, pos_provider: 'firstparty' } });
  });

  test('profile updates', async () => {
    const p = await api.call('PUT', '/api/back-office/user-personal-info', { token, body: { name: 'Ann Owner', phone: '+32 470 12 34 56' } });
    expect(p.body.data).toMatchObject({ name: 'Ann Owner', phone: '+32 470 12 34 56' });
    const bi = await api.call('PUT', '/api/back-office/user-business-info', { token, body: { company_name: 'Ann BV', vat_number: 'BE0123456789' } });
    expect(bi.body.data.business_info).toEqual({ company_name: 'Ann BV', vat_number: 'BE0123456789' });
    expect((await api.call('PUT', '/api/back-office/user-business-info', { token, body: { unknown: 1 } })).status).toBe(422);
  });

  test('merchant options and set-merchant: only own merchants', async () => {
    const opts = await api.call('GET', '/api/back-office/merchant-options', { token });
    expect(opts.body.data).toEqual([{ value: a.merchant.id, label: expect.any(String), slug: a.merchant.slug }]);
    const foreign = await api.call('POST', '/api/back-office/set-merchant', { token, body: { merchant_id: b.merchant.id } });
    expect(foreign).toMatchObject({ status: 404, body: { message: 'Unable to locate the merchant you requested.' } });
    const own = await api.call('POST', '/api/back-office/set-merchant', { token, body: { merchant_id: a.merchant.id } });
    expect(own.status).toBe(200);
    expect(own.body.token).not.toBe(token);
  });

  test('a reseller switching to a merchant of its reseller is 404 like any non-member (it acts there through vendor_id)', async () => {
    const member = await makeMember(api, a, ['VIEW_TRANSACTIONS'], { allLocations: true });
    const reseller = crypto.randomUUID();
    await api.deps.db.updateTable('merchants').set({ reseller_id: reseller }).where('id', '=', b.merchant.id).execute();
    await api.deps.db.updateTable('users').set({ reseller_id: reseller }).where('id', '=', member.userId).execute();
    try {
      const s = await api.call('POST', '/api/back-office/set-merchant', { token: member.token, body: { merchant_id: b.merchant.id } });
      expect(s).toMatchObject({ status: 404, body: { message: 'Unable to locate the merchant you requested.' } });
      expect((await api.call('GET', '/api/back-office/user', { token: member.token })).status).toBe(200);
      const viaVendor = await api.call('GET', `/api/back-office/transactions/stats?vendor_id=${b.merchant.id}`, { token: member.token });
      expect(viaVendor.status).toBe(200);
    } finally {
      await api.deps.db.updateTable('merchants').set({ reseller_id: null }).where('id', '=', b.merchant.id).execute();
    }
  });

  test('an invitation not yet accepted gives no way into the merchant: no option, no set-merchant, no sign-in, no token', async () => {
    const ownerB = (await login(b.backoffice.email, b.backoffice.password)).body.token;
    const invitee = `pending-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const userId = crypto.randomUUID();
    // A verified account of merchant A (a real member) that merchant B invites.
    await api.deps.db.insertInto('users').values({ id: userId, email: invitee, password_hash: await hashSecret('pending-pass'), name: 'P', business_info: '{}', email_verified_at: new Date() }).execute();
    await api.deps.db.insertInto('memberships').values({ user_id: userId, merchant_id: a.merchant.id }).execute();
    const inv = await api.call('POST', '/api/back-office/settings/team/users', { token: ownerB, body: { email: invitee, name: 'Pending', role_ids: [], location_ids: [b.locations[0]!.id] } });
    expect(inv).toMatchObject({ status: 200, body: { data: { id: userId, status: 'invited' } } });
    const own = (await login(invitee, 'pending-pass')).body.token as string;

    expect((await api.call('GET', '/api/back-office/merchant-options', { token: own })).body.data.map((o: { value: string }) => o.value)).toEqual([a.merchant.id]);
    expect(await api.call('POST', '/api/back-office/set-merchant', { token: own, body: { merchant_id: b.merchant.id } })).toMatchObject({
      status: 404,
      body: { message: 'Unable to locate the merchant you requested.' },
    });
    expect((await api.call('GET', '/api/back-office/user', { token: own })).body.data.merchant.id).toBe(a.merchant.id);
    // A token for merchant B (however obtained) is not honoured while the invitation is pending.
    const forB = await api.deps.tokens.sign({ type: 'backoffice', sub: userId, merchant_id: b.merchant.id, tenant_database: b.merchant.tenant_database });
    expect(await api.call('GET', '/api/back-office/user', { token: forB })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    // Without merchant A, signing in does not fall back to the pending one.
    await api.deps.db.deleteFrom('memberships').where('user_id', '=', userId).where('merchant_id', '=', a.merchant.id).execute();
    expect(await login(invitee, 'pending-pass')).toMatchObject({ status: 422, body: { errors: { email: ['This account has no merchant yet.'] } } });
    await api.deps.db.insertInto('memberships').values({ user_id: userId, merchant_id: a.merchant.id }).execute();

    // Once accepted, B is one of the user's merchants.
    await api.deps.db.updateTable('invitations').set({ accepted_at: new Date() }).where('merchant_id', '=', b.merchant.id).where('user_id', '=', userId).execute();
    expect((await api.call('GET', '/api/back-office/merchant-options', { token: own })).body.data.map((o: { value: string }) => o.value).sort()).toEqual([a.merchant.id, b.merchant.id].sort());
    const switched = await api.call('POST', '/api/back-office/set-merchant', { token: own, body: { merchant_id: b.merchant.id } });
    expect(switched.status).toBe(200);
    expect((await api.call('GET', '/api/back-office/user', { token: switched.body.token })).body.data.merchant.id).toBe(b.merchant.id);
    expect((await api.call('GET', '/api/back-office/user', { token: forB })).status).toBe(200);
  });

  test('bootstrap aggregates own merchant only, even with vendor_id', async () => {
    const r = await api.call('GET', `/api/back-office/bootstrap?vendor_id=${b.merchant.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body.data.user.email).toBe(a.backoffice.email);
    expect(r.body.data.location_options.map((o: { value: string }) => o.value).sort()).toEqual(a.locations.map((l) => l.id).sort());
    expect(r.body.data.features).toEqual({ first_party_pos: true, first_party_pos_selectable: true, kiosk: true, kitchen_display: true, test_mode: true });
    expect(r.body.data.unread_notifications).toEqual([]);
  });

  test('start-using sets started_at once', async () => {
    expect((await api.call('POST', '/api/back-office/start-using', { token })).body).toEqual({ status: 'success' });
    const first = (await api.call('GET', '/api/back-office/user', { token })).body.data.merchant.started_at;
    expect(first).toEqual(expect.any(String));
    await api.call('POST', '/api/back-office/start-using', { token });
    expect((await api.call('GET', '/api/back-office/user', { token })).body.data.merchant.started_at).toBe(first);
  });

  test('validate-token, then logout revokes the token', async () => {
    const t2 = (await login(a.backoffice.email, a.backoffice.password)).body.token;
    expect(await api.call('GET', '/api/validate-token', { token: t2 })).toMatchObject({ status: 200, body: { status: 'success', type: 'backoffice' } });
    expect((await api.call('POST', '/api/logout', { token: t2 })).body).toEqual({ status: 'success' });
    expect(await api.call('GET', '/api/validate-token', { token: t2 })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    expect(await api.call('GET', '/api/back-office/user', { token: t2 })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
  });

  test('an expired token is 401 Invalid token', async () => {
    const expired = await api.deps.tokens.sign({ type: 'backoffice', sub: crypto.randomUUID(), merchant_id: a.merchant.id, tenant_database: a.merchant.tenant_database }, -10);
    expect(await api.call('GET', '/api/back-office/user', { token: expired })).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
  });
});
