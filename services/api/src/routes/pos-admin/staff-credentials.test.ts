import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { pinFingerprint, verifySecret } from '@pos/core/security/passwords';
import { PIN_IN_USE } from '@pos/core/pos-admin/staff-credential-records';
import { CASHIER_PERMISSIONS, REGISTER_PERMISSIONS } from '@pos/domain/permissions';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';
import { queuedWorkEvents, runQueuedWorkEvents } from '../pos-tills/register-test-support.ts';
import { ISO, nothing, tdbOf, UUID_V7 } from './pos-admin.test-support.ts';

let api: TestApi;
let m: DemoSeedResult;
let owner: string;

const BASE = '/api/back-office/pos/staff-credentials';
const pinIsUsed = { status: 422, body: { message: PIN_IN_USE, errors: { pin: [PIN_IN_USE] } } };

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('pos-staff-admin');
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

const create = (body: unknown, token = owner) => api.call('POST', BASE, { token, body });
const pinLogin = async (pin: string) => api.call('POST', '/api/pos/staff/pin-login', { token: await api.deviceToken(m, 'pos', 1), deviceKey: true, body: { pin } });
const rowOf = (id: string) => tdbOf(api, m).selectFrom('staff_credentials').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
/** A PIN no seeded or created credential holds. */
let nextPin = 40_000_000;
const freshPin = () => String(nextPin++);

describe('GET /back-office/pos/staff-credentials', () => {
  test('lists the live credentials by name, never a PIN or hash', async () => {
    const r = await api.call('GET', BASE, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [
        { id: expect.stringMatching(UUID_V7), name: 'Carl Cashier', role: 'cashier', permissions: [...CASHIER_PERMISSIONS], user_id: null, created_at: expect.stringMatching(ISO) },
        { id: expect.stringMatching(UUID_V7), name: 'Marie Manager', role: 'manager', permissions: [...REGISTER_PERMISSIONS], user_id: null, created_at: expect.stringMatching(ISO) },
      ],
    });
    // As a JSON value: a bare four-digit PIN can occur inside an id or a date ("2026") by chance.
    for (const s of m.staff) expect(r.text).not.toContain(`"${s.pin}"`);
    expect(r.text).not.toContain('argon2');
  });
});

describe('POST /back-office/pos/staff-credentials', () => {
  test('creates a credential; the PIN is stored as an argon2id hash and a keyed fingerprint only, and signs in on the register', async () => {
    const pin = freshPin();
    const r = await create({ name: '  Wendy Waiter ', role: 'waiter', pin, permissions: ['take_orders', 'settle', 'take_orders'] });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ data: { id: expect.stringMatching(UUID_V7), name: 'Wendy Waiter', role: 'waiter', permissions: ['take_orders', 'settle'], user_id: null, created_at: expect.stringMatching(ISO) } });
    expect(r.text).not.toContain(`"${pin}"`);
    const row = await rowOf(r.body.data.id);
    expect(row.pin_hash).toStartWith('$argon2id$');
    expect(await verifySecret(pin, row.pin_hash)).toBe(true);
    expect(row.pin_fingerprint).toBe(pinFingerprint(api.env.PIN_PEPPER, m.merchant.tenant_database, pin));
    expect(r.text).not.toContain(row.pin_hash);
    expect(r.text).not.toContain(row.pin_fingerprint);
    const login = await pinLogin(pin);
    expect(login.status).toBe(200);
    expect(login.body.staff).toEqual({ id: r.body.data.id, name: 'Wendy Waiter', role: 'waiter' });
    expect(login.body.pos_permissions).toEqual(['take_orders', 'settle']);
  });

  test('a PIN held by a live credential of the merchant is 422 pin "This PIN is already in use."', async () => {
    expect(await create({ name: 'Copy', role: 'cashier', pin: m.staff[0]!.pin, permissions: [] })).toMatchObject(pinIsUsed);
    const pin = freshPin();
    expect((await create({ name: 'First', role: 'cashier', pin, permissions: [] })).status).toBe(201);
    expect(await create({ name: 'Second', role: 'cashier', pin, permissions: [] })).toMatchObject(pinIsUsed);
  });

  test('the same PIN in another merchant is independent', async () => {
    const other = await api.seed('pos-staff-other');
    const r = await create({ name: 'Elsewhere', role: 'cashier', pin: m.staff[0]!.pin, permissions: [] }, await api.ownerToken(other));
    expect(r.status).toBe(201);
  });

  test('validation: PIN of 4-8 digits, register permissions only, no unknown keys', async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const r = await create({ name: 'V', role: 'cashier', pin: freshPin(), permissions: [], ...body });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toContain(field);
    };
    await bad({ pin: '123' }, 'pin');
    await bad({ pin: '123456789' }, 'pin');
    await bad({ pin: '12a4' }, 'pin');
    await bad({ permissions: ['VIEW_ITEMS'] }, 'permissions.0');
    await bad({ name: '   ' }, 'name');
    await bad({ user_id: 'nope' }, 'user_id');
    await bad({ pin_hash: 'x' }, 'pin_hash');
    const r = await create({ name: 'V', role: 'cashier', pin: '1234', permissions: ['VIEW_ITEMS'] });
    expect(r.body.errors['permissions.0']).toEqual([`Each permission must be one of: ${REGISTER_PERMISSIONS.join(', ')}.`]);
  });

  test('user_id links a back-office member once; a non-member is not found (404)', async () => {
    const member = await makeMember(api, m, [], { name: 'Linked Member' });
    const r = await create({ name: 'Linked', role: 'manager', pin: freshPin(), permissions: ['approve_as_manager'], user_id: member.userId });
    expect(r.status).toBe(201);
    expect(r.body.data.user_id).toBe(member.userId);
    expect(await create({ name: 'Again', role: 'manager', pin: freshPin(), permissions: [], user_id: member.userId })).toMatchObject({
      status: 422,
      body: { errors: { user_id: ['This member already has a register credential.'] } },
    });
    expect(await create({ name: 'Stranger', role: 'manager', pin: freshPin(), permissions: [], user_id: nothing() })).toMatchObject({
      status: 404,
      body: { message: 'Unable to locate the user you requested.' },
    });
  });

  test('a person whose team invitation is still pending is not a member yet: 404 (before: linked)', async () => {
    const email = `pending-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const invited = await api.call('POST', '/api/back-office/settings/team/users', { token: owner, body: { email, name: 'Pending Pat', role_ids: [], location_ids: [m.locations[0]!.id] } });
    expect(invited.status).toBe(200);
    const userId = (await api.deps.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
    expect(await create({ name: 'Pending', role: 'cashier', pin: freshPin(), permissions: [], user_id: userId })).toMatchObject({
      status: 404,
      body: { message: 'Unable to locate the user you requested.' },
    });
  });
});

describe('GET /back-office/pos/staff-credentials/assignable-staff', () => {
  test('members of the merchant without a live credential; a deleted credential frees its member', async () => {
    const m2 = await api.seed('pos-assignable');
    const owner2 = await api.ownerToken(m2);
    const a = await makeMember(api, m2, [], { name: 'Aaron Assignable' });
    const b = await makeMember(api, m2, [], { name: 'Bella Busy' });
    const linked = await api.call('POST', BASE, { token: owner2, body: { name: 'Bella', role: 'cashier', pin: freshPin(), permissions: [], user_id: b.userId } });
    expect(linked.status).toBe(201);
    const r = await api.call('GET', `${BASE}/assignable-staff`, { token: owner2 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [
        { id: a.userId, name: 'Aaron Assignable', email: a.email },
        { id: expect.any(String), name: 'Demo Owner', email: m2.backoffice.email },
      ],
    });
    expect((await api.call('DELETE', `${BASE}/${linked.body.data.id}`, { token: owner2 })).status).toBe(200);
    const after = await api.call('GET', `${BASE}/assignable-staff`, { token: owner2 });
    expect(after.body.data.map((x: { name: string }) => x.name)).toEqual(['Aaron Assignable', 'Bella Busy', 'Demo Owner']);
  });
});

describe('PUT /back-office/pos/staff-credentials/{credentialId}', () => {
  test('updates name, role and permissions; a key left out keeps its value; the PIN is untouched', async () => {
    const pin = freshPin();
    const c = (await create({ name: 'Pat', role: 'cashier', pin, permissions: ['take_orders'] })).body.data;
    const before = await rowOf(c.id);
    const r = await api.call('PUT', `${BASE}/${c.id}`, { token: owner, body: { name: 'Pat Supervisor', permissions: ['take_orders', 'refund', 'approve_as_manager'] } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { ...c, name: 'Pat Supervisor', permissions: ['take_orders', 'refund', 'approve_as_manager'] } });
    const r2 = await api.call('PUT', `${BASE}/${c.id}`, { token: owner, body: { role: 'supervisor' } });
    expect(r2.body).toEqual({ data: { ...c, name: 'Pat Supervisor', role: 'supervisor', permissions: ['take_orders', 'refund', 'approve_as_manager'] } });
    const after = await rowOf(c.id);
    expect([after.pin_hash, after.pin_fingerprint]).toEqual([before.pin_hash, before.pin_fingerprint]);
  });

  test('404 for an unknown, malformed or deleted id; an empty body changes nothing; a pin is refused (422)', async () => {
    expect(await api.call('PUT', `${BASE}/${nothing()}`, { token: owner, body: { name: 'X' } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the staff credential you requested.' } });
    expect((await api.call('PUT', `${BASE}/nope`, { token: owner, body: { name: 'X' } })).status).toBe(404);
    const c = (await create({ name: 'Gone', role: 'cashier', pin: freshPin(), permissions: [] })).body.data;
    expect((await api.call('DELETE', `${BASE}/${c.id}`, { token: owner })).status).toBe(200);
    expect((await api.call('PUT', `${BASE}/${c.id}`, { token: owner, body: { name: 'X' } })).status).toBe(404);
    expect((await api.call('PUT', `${BASE}/${nothing()}`, { token: owner, body: {} })).status).toBe(404);
    const kept = (await create({ name: 'Kept', role: 'cashier', pin: freshPin(), permissions: [] })).body.data;
    expect(await api.call('PUT', `${BASE}/${kept.id}`, { token: owner, body: {} })).toMatchObject({ status: 200, body: { data: kept } });
    expect((await api.call('PUT', `${BASE}/${nothing()}`, { token: owner, body: { pin: '1234' } })).status).toBe(422);
  });
});

describe('POST /back-office/pos/staff-credentials/{credentialId}/reset-pin', () => {
  test('sets the given PIN and answers it once; the old PIN stops working', async () => {
    const oldPin = freshPin();
    const c = (await create({ name: 'Resetter', role: 'cashier', pin: oldPin, permissions: ['take_orders'] })).body.data;
    const newPin = freshPin();
    const r = await api.call('POST', `${BASE}/${c.id}/reset-pin`, { token: owner, body: { pin: newPin } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: c, pin: newPin });
    const row = await rowOf(c.id);
    expect(await verifySecret(newPin, row.pin_hash)).toBe(true);
    expect(row.pin_fingerprint).toBe(pinFingerprint(api.env.PIN_PEPPER, m.merchant.tenant_database, newPin));
    expect((await pinLogin(oldPin)).status).toBe(422);
    expect((await pinLogin(newPin)).status).toBe(200);
    // its own current PIN again is fine; another live credential's is not
    expect((await api.call('POST', `${BASE}/${c.id}/reset-pin`, { token: owner, body: { pin: newPin } })).status).toBe(200);
    expect(await api.call('POST', `${BASE}/${c.id}/reset-pin`, { token: owner, body: { pin: m.staff[1]!.pin } })).toMatchObject(pinIsUsed);
  });

  test('without a PIN (no body, or an empty one) the server draws a 6-digit PIN', async () => {
    const c = (await create({ name: 'Drawn', role: 'cashier', pin: freshPin(), permissions: [] })).body.data;
    const r = await api.call('POST', `${BASE}/${c.id}/reset-pin`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: c, pin: expect.stringMatching(/^\d{6}$/) });
    expect(await verifySecret(r.body.pin, (await rowOf(c.id)).pin_hash)).toBe(true);
    const r2 = await api.call('POST', `${BASE}/${c.id}/reset-pin`, { token: owner, body: {} });
    expect(r2.body.pin).toMatch(/^\d{6}$/);
    expect((await pinLogin(r2.body.pin)).status).toBe(200);
    expect((await api.call('POST', `${BASE}/${c.id}/reset-pin`, { token: owner, body: { pin: '12' } })).status).toBe(422);
    expect((await api.call('POST', `${BASE}/${nothing()}/reset-pin`, { token: owner, body: {} })).status).toBe(404);
  });
});

describe('DELETE /back-office/pos/staff-credentials/{credentialId}', () => {
  test('soft delete: open staff sessions end (401 on the register, work-out queued with the deletion, then signed), the PIN is free again', async () => {
    const pin = freshPin();
    const c = (await create({ name: 'Leaver', role: 'cashier', pin, permissions: ['take_orders'] })).body.data;
    const device = await api.deviceToken(m, 'pos', 0);
    const login = await api.call('POST', '/api/pos/staff/pin-login', { token: device, deviceKey: true, body: { pin } });
    expect(login.status).toBe(200);
    const staffToken = login.body.staff_token as string;
    expect((await api.call('GET', '/api/pos/orders?state=open', { token: device, deviceKey: true, staffToken })).status).toBe(200);

    const r = await api.call('DELETE', `${BASE}/${c.id}`, { token: owner });
    expect(r).toMatchObject({ status: 200, body: { status: 'success' } });

    expect(await api.call('GET', '/api/pos/orders?state=open', { token: device, deviceKey: true, staffToken })).toMatchObject({ status: 401, body: { message: 'Invalid POS staff token' } });
    const tdb = tdbOf(api, m);
    expect((await rowOf(c.id)).deleted_at).toBeInstanceOf(Date);
    const sessions = await tdb.selectFrom('pos_staff_sessions').select(['id', 'ended_at']).where('staff_id', '=', c.id).execute();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.ended_at).toBeInstanceOf(Date);
    // The worker's part: the work-in of the login and the work-out the deletion queued.
    expect((await queuedWorkEvents(api, m.merchant.tenant_database)).filter((q) => q.payload.session_id === sessions[0]!.id).map((q) => q.payload.kind)).toEqual(['work_in', 'work_out']);
    await runQueuedWorkEvents(api, m.merchant.tenant_database);
    const journal = await tdb.selectFrom('fiscal_journal').select(['event_kind', 'subject_id']).where('subject_type', '=', 'pos_staff_session').where('subject_id', 'like', `${sessions[0]!.id}:%`).orderBy('seq').execute();
    expect(journal).toEqual([
      { event_kind: 'work_in', subject_id: `${sessions[0]!.id}:work_in` },
      { event_kind: 'work_out', subject_id: `${sessions[0]!.id}:work_out` },
    ]);

    const list = await api.call('GET', BASE, { token: owner });
    expect(list.body.data.some((x: { id: string }) => x.id === c.id)).toBe(false);
    expect((await pinLogin(pin)).status).toBe(422);
    expect((await create({ name: 'Successor', role: 'cashier', pin, permissions: [] })).status).toBe(201);
    expect(await api.call('DELETE', `${BASE}/${c.id}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the staff credential you requested.' } });
  });
});

describe('staff credentials are merchant-wide: writing them needs every location', () => {
  const FORBIDDEN = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };

  test('a member holding MANAGE_POS_STAFF at some locations lists them but cannot create, update, reset or delete (403, nothing written)', async () => {
    const partial = await makeMember(api, m, ['MANAGE_POS_STAFF'], { locationIds: [m.locations[1]!.id] });
    const before = (await api.call('GET', BASE, { token: owner })).body.data;
    expect((await api.call('GET', BASE, { token: partial.token })).status).toBe(200);
    const manager = before.find((c: { role: string }) => c.role === 'manager');
    const pin = freshPin();
    // The check comes before validation, like the permission's.
    expect(await create({ name: 'Mallory', role: 'manager', pin, permissions: ['approve_as_manager'] }, partial.token)).toMatchObject(FORBIDDEN);
    expect(await create({ pin: 'x' }, partial.token)).toMatchObject(FORBIDDEN);
    expect(await api.call('PUT', `${BASE}/${manager.id}`, { token: partial.token, body: { permissions: ['approve_as_manager'] } })).toMatchObject(FORBIDDEN);
    expect(await api.call('POST', `${BASE}/${manager.id}/reset-pin`, { token: partial.token, body: { pin } })).toMatchObject(FORBIDDEN);
    expect(await api.call('DELETE', `${BASE}/${manager.id}`, { token: partial.token })).toMatchObject(FORBIDDEN);
    expect((await api.call('GET', BASE, { token: owner })).body.data).toEqual(before);
    expect((await pinLogin(pin)).status).toBe(422);

    // A member granted every location may.
    const global = await makeMember(api, m, ['MANAGE_POS_STAFF'], { allLocations: true });
    const made = await create({ name: 'Gina Global', role: 'cashier', pin, permissions: ['take_orders'] }, global.token);
    expect(made.status).toBe(201);
    expect((await api.call('POST', `${BASE}/${made.body.data.id}/reset-pin`, { token: global.token, body: { pin: freshPin() } })).status).toBe(200);
    expect((await api.call('DELETE', `${BASE}/${made.body.data.id}`, { token: global.token })).status).toBe(200);
  });
});
