import { bindTenant } from '@pos/db';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { BACKOFFICE_PERMISSIONS } from '@pos/domain/permissions';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { login, makeMember, tenantOf } from './team.test-support.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
let ownerRoleId: string;
let ownerRoleIdB: string;

const base = '/api/back-office/settings/team';
const FORBIDDEN = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('roles-a');
  b = await api.seed('roles-b');
  owner = await login(api, a.backoffice.email, a.backoffice.password);
  ownerB = await login(api, b.backoffice.email, b.backoffice.password);
  ownerRoleId = (await tenantOf(api, a).selectFrom('roles').select('id').where('is_owner', '=', true).executeTakeFirstOrThrow()).id;
  ownerRoleIdB = (await tenantOf(api, b).selectFrom('roles').select('id').where('is_owner', '=', true).executeTakeFirstOrThrow()).id;
});
afterAll(() => api.close());

describe('GET /team/permission-list', () => {
  test('the catalogue grouped, no permission needed', async () => {
    const nobody = await makeMember(api, a, []);
    const r = await api.call('GET', `${base}/permission-list`, { token: nobody.token });
    expect(r.status).toBe(200);
    const roles = r.body.data.find((g: { group: string }) => g.group === 'Roles');
    expect(roles).toEqual({
      group: 'Roles',
      permissions: [
        { value: 'VIEW_ROLES', label: 'View roles' },
        { value: 'CREATE_ROLES', label: 'Create roles' },
        { value: 'EDIT_ROLES', label: 'Edit roles' },
        { value: 'DELETE_ROLES', label: 'Delete roles' },
        { value: 'ASSIGN_ROLES', label: 'Assign roles' },
      ],
    });
    const all = r.body.data.flatMap((g: { permissions: { value: string }[] }) => g.permissions.map((p) => p.value));
    expect(all.sort()).toEqual([...BACKOFFICE_PERMISSIONS].sort());
  });

  test('401 without a token', async () => {
    expect(await api.call('GET', `${base}/permission-list`)).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
  });
});

describe('roles CRUD', () => {
  let roleId: string;

  test('POST /roles creates a role', async () => {
    const r = await api.call('POST', `${base}/roles`, { token: owner, body: { name: '  Shift lead ', permissions: ['VIEW_ITEMS', 'EDIT_ITEMS', 'VIEW_ITEMS'] } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'success',
      data: { id: expect.any(String), name: 'Shift lead', is_owner: false, permissions: ['VIEW_ITEMS', 'EDIT_ITEMS'], users_count: 0, created_at: expect.any(String) },
    });
    roleId = r.body.data.id;
  });

  test('GET /roles lists owner first with user counts; GET /roles/{id} answers one', async () => {
    const list = await api.call('GET', `${base}/roles`, { token: owner });
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toEqual({ id: ownerRoleId, name: 'Owner', is_owner: true, permissions: [...BACKOFFICE_PERMISSIONS], users_count: 1, created_at: expect.any(String) });
    expect(list.body.data.find((x: { id: string }) => x.id === roleId)).toMatchObject({ name: 'Shift lead', users_count: 0 });
    const one = await api.call('GET', `${base}/roles/${roleId}`, { token: owner });
    expect(one).toMatchObject({ status: 200, body: { data: { id: roleId, name: 'Shift lead', is_owner: false, permissions: ['VIEW_ITEMS', 'EDIT_ITEMS'], users_count: 0 } } });
  });

  test('GET /roles/options lists assignable roles (not the owner role), no permission needed', async () => {
    const nobody = await makeMember(api, a, []);
    const r = await api.call('GET', `${base}/roles/options`, { token: nobody.token });
    expect(r.status).toBe(200);
    expect(r.body.data).toContainEqual({ value: roleId, label: 'Shift lead' });
    expect(r.body.data.map((o: { value: string }) => o.value)).not.toContain(ownerRoleId);
  });

  test('duplicate name (any case) is 422 on name', async () => {
    const r = await api.call('POST', `${base}/roles`, { token: owner, body: { name: 'SHIFT LEAD', permissions: [] } });
    expect(r).toMatchObject({ status: 422, body: { message: 'The name has already been taken.', errors: { name: ['The name has already been taken.'] } } });
    // The same name in another merchant is fine.
    expect((await api.call('POST', `${base}/roles`, { token: ownerB, body: { name: 'Shift lead', permissions: [] } })).status).toBe(200);
  });

  test('unknown permissions are 422 with dot paths', async () => {
    const r = await api.call('POST', `${base}/roles`, { token: owner, body: { name: 'Bad', permissions: ['VIEW_ITEMS', 'FLY', 'take_orders'] } });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      message: 'The selected permissions.1 is invalid. (and 1 more errors)',
      errors: { 'permissions.1': ['The selected permissions.1 is invalid.'], 'permissions.2': ['The selected permissions.2 is invalid.'] },
    });
    const missing = await api.call('POST', `${base}/roles`, { token: owner, body: { name: 'No perms key' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.permissions).toBeDefined();
  });

  test('PUT /roles/{id} replaces name and permissions', async () => {
    const r = await api.call('PUT', `${base}/roles/${roleId}`, { token: owner, body: { name: 'Floor lead', permissions: ['VIEW_MENUS'] } });
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { id: roleId, name: 'Floor lead', permissions: ['VIEW_MENUS'], is_owner: false } } });
    // Keeping its own name is not a duplicate.
    expect((await api.call('PUT', `${base}/roles/${roleId}`, { token: owner, body: { name: 'floor lead', permissions: ['VIEW_MENUS'] } })).status).toBe(200);
    const bad = await api.call('PUT', `${base}/roles/${roleId}`, { token: owner, body: { name: 'Floor lead', permissions: ['NOPE'] } });
    expect(bad).toMatchObject({ status: 422, body: { errors: { 'permissions.0': ['The selected permissions.0 is invalid.'] } } });
  });

  test('the owner role cannot be edited or deleted (409)', async () => {
    expect(await api.call('PUT', `${base}/roles/${ownerRoleId}`, { token: owner, body: { name: 'Boss', permissions: [] } })).toMatchObject({
      status: 409,
      body: { message: 'The owner role cannot be edited.' },
    });
    expect(await api.call('DELETE', `${base}/roles/${ownerRoleId}`, { token: owner })).toMatchObject({ status: 409, body: { message: 'The owner role cannot be deleted.' } });
  });

  test("another merchant's role, a random id and a non-UUID are 404", async () => {
    const notFound = { status: 404, body: { message: 'Unable to locate the role you requested.' } };
    expect(await api.call('GET', `${base}/roles/${ownerRoleIdB}`, { token: owner })).toMatchObject(notFound);
    expect(await api.call('PUT', `${base}/roles/${ownerRoleIdB}`, { token: owner, body: { name: 'X', permissions: [] } })).toMatchObject(notFound);
    expect(await api.call('DELETE', `${base}/roles/${ownerRoleIdB}`, { token: owner })).toMatchObject(notFound);
    expect(await api.call('GET', `${base}/roles/${crypto.randomUUID()}`, { token: owner })).toMatchObject(notFound);
    expect(await api.call('GET', `${base}/roles/not-a-uuid`, { token: owner })).toMatchObject(notFound);
    expect(await api.call('DELETE', `${base}/roles/123`, { token: owner })).toMatchObject(notFound);
  });

  test('a role held by members cannot be deleted (409); an unused one can', async () => {
    const holder = await makeMember(api, a, ['VIEW_ITEMS']);
    const inUse = await api.call('DELETE', `${base}/roles/${holder.roleId}`, { token: owner });
    expect(inUse.status).toBe(409);
    expect(inUse.body).toEqual({ message: expect.stringContaining('is assigned to 1 user'), reason: 'role_in_use' });
    const del = await api.call('DELETE', `${base}/roles/${roleId}`, { token: owner });
    expect(del).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await api.call('GET', `${base}/roles/${roleId}`, { token: owner })).toMatchObject({ status: 404 });
  });

  test('writes are in the activity log', async () => {
    const rows = await tenantOf(api, a).selectFrom('activity_logs').select(['action', 'subject', 'subject_id', 'properties']).where('subject', '=', 'role').orderBy('id').execute();
    expect(rows.map((r) => `${r.action} ${r.subject}`)).toEqual(['created role', 'updated role', 'updated role', 'deleted role']);
    expect(rows[0]).toMatchObject({ subject_id: roleId, properties: { name: 'Shift lead', permissions: ['VIEW_ITEMS', 'EDIT_ITEMS'] } });
  });
});

describe('permission gates', () => {
  test('each route needs exactly its slug', async () => {
    const none = await makeMember(api, a, ['VIEW_ITEMS']);
    const some = (await api.call('POST', `${base}/roles`, { token: owner, body: { name: `Gate ${crypto.randomUUID().slice(0, 6)}`, permissions: [] } })).body.data.id as string;
    expect(await api.call('GET', `${base}/roles`, { token: none.token })).toMatchObject(FORBIDDEN);
    expect(await api.call('GET', `${base}/roles/${some}`, { token: none.token })).toMatchObject(FORBIDDEN);
    expect(await api.call('POST', `${base}/roles`, { token: none.token, body: { name: 'X', permissions: [] } })).toMatchObject(FORBIDDEN);
    expect(await api.call('PUT', `${base}/roles/${some}`, { token: none.token, body: { name: 'X', permissions: [] } })).toMatchObject(FORBIDDEN);
    expect(await api.call('DELETE', `${base}/roles/${some}`, { token: none.token })).toMatchObject(FORBIDDEN);

    // VIEW_ROLES reads but does not write; CREATE_ROLES creates.
    const viewer = await makeMember(api, a, ['VIEW_ROLES', 'CREATE_ROLES']);
    expect((await api.call('GET', `${base}/roles`, { token: viewer.token })).status).toBe(200);
    expect((await api.call('GET', `${base}/roles/${some}`, { token: viewer.token })).status).toBe(200);
    expect(await api.call('PUT', `${base}/roles/${some}`, { token: viewer.token, body: { name: 'X', permissions: [] } })).toMatchObject(FORBIDDEN);
    expect((await api.call('POST', `${base}/roles`, { token: viewer.token, body: { name: `By viewer ${crypto.randomUUID().slice(0, 6)}`, permissions: [] } })).status).toBe(200);
    // (VIEW_ITEMS too: a role is given only permissions the caller holds.)
    const editor = await makeMember(api, a, ['EDIT_ROLES', 'DELETE_ROLES', 'VIEW_ITEMS']);
    expect((await api.call('PUT', `${base}/roles/${some}`, { token: editor.token, body: { name: `Renamed ${crypto.randomUUID().slice(0, 6)}`, permissions: ['VIEW_ITEMS'] } })).status).toBe(200);
    expect((await api.call('DELETE', `${base}/roles/${some}`, { token: editor.token })).status).toBe(200);
  });

  test('a device token is refused (type:backoffice)', async () => {
    const dev = await api.deps.tokens.sign({ type: 'pos', sub: a.devices[0]!.id, merchant_id: a.merchant.id, tenant_database: a.merchant.tenant_database, ver: 0 });
    expect(await api.call('GET', `${base}/roles`, { token: dev })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
  });
});

describe('admin-vendor-override', () => {
  test('an internal admin acts on the merchant named by vendor_id; a plain owner of another merchant cannot', async () => {
    const admin = await makeMember(api, b, []);
    await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('id', '=', admin.userId).execute();
    const r = await api.call('GET', `${base}/roles?vendor_id=${a.merchant.id}`, { token: admin.token });
    expect(r.status).toBe(200);
    expect(r.body.data[0]).toMatchObject({ id: ownerRoleId, is_owner: true });
    expect(await api.call('GET', `${base}/roles?vendor_id=${a.merchant.id}`, { token: ownerB })).toMatchObject(FORBIDDEN);
    await api.deps.db.updateTable('users').set({ is_global_admin: false }).where('id', '=', admin.userId).execute();
  });
});

// A role can only be given (or lose) permissions the caller holds, and a role's permissions change
// only when every member holding it is within the caller's grant (docs/decisions.md, "Permissions and
// location grants").
describe('role writes stay within the caller\'s permissions', () => {
  const permsOf = async (roleId: string) => (await tenantOf(api, a).selectFrom('roles').select('permissions').where('id', '=', roleId).executeTakeFirstOrThrow()).permissions;
  const tag = () => crypto.randomUUID().slice(0, 6);

  test('CREATE_ROLES: no role with a permission the caller lacks; nothing written', async () => {
    const creator = await makeMember(api, a, ['CREATE_ROLES', 'VIEW_ITEMS'], { locationIds: [a.locations[1]!.id] });
    const name = `Escalate ${tag()}`;
    const r = await api.call('POST', `${base}/roles`, { token: creator.token, body: { name, permissions: ['VIEW_ITEMS', 'DELETE_USERS'] } });
    expect([r.status, r.body]).toEqual([403, { message: 'Unauthorized: Insufficient permissions' }]);
    expect(await tenantOf(api, a).selectFrom('roles').select('id').where('name', '=', name).execute()).toEqual([]);
    expect(await api.call('POST', `${base}/roles`, { token: creator.token, body: { name, permissions: [...BACKOFFICE_PERMISSIONS] } })).toMatchObject(FORBIDDEN);
    // Its own permissions are fine; an unknown one is still the 422.
    expect((await api.call('POST', `${base}/roles`, { token: creator.token, body: { name, permissions: ['VIEW_ITEMS', 'CREATE_ROLES'] } })).status).toBe(200);
    expect(await api.call('POST', `${base}/roles`, { token: creator.token, body: { name: `U ${tag()}`, permissions: ['NOPE'] } })).toMatchObject({ status: 422, body: { errors: { 'permissions.0': ['The selected permissions.0 is invalid.'] } } });
    // The owner holds every permission.
    expect((await api.call('POST', `${base}/roles`, { token: owner, body: { name: `All ${tag()}`, permissions: [...BACKOFFICE_PERMISSIONS] } })).status).toBe(200);
  });

  test('EDIT_ROLES: neither its own role nor another gains or loses a permission the caller lacks; nothing written', async () => {
    const editor = await makeMember(api, a, ['EDIT_ROLES', 'VIEW_ITEMS'], { locationIds: [a.locations[1]!.id] });
    const put = (roleId: string, name: string, permissions: string[]) => api.call('PUT', `${base}/roles/${roleId}`, { token: editor.token, body: { name, permissions } });
    const own = await tenantOf(api, a).selectFrom('roles').select('name').where('id', '=', editor.roleId).executeTakeFirstOrThrow();
    expect(await put(editor.roleId, own.name, ['EDIT_ROLES', 'VIEW_ITEMS', 'ASSIGN_ROLES', 'DELETE_USERS'])).toMatchObject(FORBIDDEN);
    expect(await permsOf(editor.roleId)).toEqual(['EDIT_ROLES', 'VIEW_ITEMS']);
    const other = (await api.call('POST', `${base}/roles`, { token: owner, body: { name: `Other ${tag()}`, permissions: ['VIEW_ITEMS', 'EDIT_ITEMS'] } })).body.data.id as string;
    expect(await put(other, `Other ${tag()}`, ['VIEW_ITEMS', 'EDIT_ITEMS', 'DELETE_ITEMS'])).toMatchObject(FORBIDDEN);
    expect(await put(other, `Other ${tag()}`, ['VIEW_ITEMS'])).toMatchObject(FORBIDDEN);
    expect(await permsOf(other)).toEqual(['VIEW_ITEMS', 'EDIT_ITEMS']);
    // Renaming, or changing only permissions the caller holds, is fine.
    expect((await put(other, `Renamed ${tag()}`, ['EDIT_ITEMS', 'VIEW_ITEMS'])).status).toBe(200);
    expect((await put(other, `Renamed ${tag()}`, ['EDIT_ITEMS'])).status).toBe(200);
    expect(await permsOf(other)).toEqual(['EDIT_ITEMS']);
  });

  test('EDIT_ROLES at location [1]: no permission change of a role held by a member outside the grant', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const editor = await makeMember(api, a, ['EDIT_ROLES', 'VIEW_ITEMS'], { locationIds: [loc1] });
    const shared = (await api.call('POST', `${base}/roles`, { token: owner, body: { name: `Shared ${tag()}`, permissions: [] } })).body.data.id as string;
    const holder = await makeMember(api, a, [], { locationIds: [loc0] });
    await tenantOf(api, a).insertInto('user_roles').values({ user_id: holder.userId, role_id: shared }).execute();
    expect(await api.call('PUT', `${base}/roles/${shared}`, { token: editor.token, body: { name: `Shared ${tag()}`, permissions: ['VIEW_ITEMS'] } })).toMatchObject(FORBIDDEN);
    expect(await permsOf(shared)).toEqual([]);
    const manager = await makeMember(api, a, ['EDIT_ROLES', 'VIEW_ITEMS'], { locationIds: [], allLocations: true });
    expect((await api.call('PUT', `${base}/roles/${shared}`, { token: manager.token, body: { name: `Shared ${tag()}`, permissions: ['VIEW_ITEMS'] } })).status).toBe(200);
  });
});

describe('a role deleted several times at once', () => {
  test('an unused role deleted five times at once: one 200 and one log entry, the others the 404 a later delete gets', async () => {
    for (let round = 0; round < 3; round++) {
      const id = (await api.call('POST', `${base}/roles`, { token: owner, body: { name: `Twice ${round} ${crypto.randomUUID().slice(0, 6)}`, permissions: [] } })).body.data.id as string;
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => api.call('DELETE', `${base}/roles/${id}`, { token: owner })));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 404, 404, 404, 404]);
      const logs = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('activity_logs').select('id').where('subject_id', '=', id).where('action', '=', 'deleted').execute();
      expect(logs.length).toBe(1);
    }
  });
});
