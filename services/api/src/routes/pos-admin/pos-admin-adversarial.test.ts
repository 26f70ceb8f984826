import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { FDM_ID_TAKEN } from '@pos/core/pos-admin/fdm-device-records';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';
import { registerSession, tdbOf } from './pos-admin.test-support.ts';

/** A tester's pass over the register's back office: staff credentials, registers, drawers, fiscal devices, business days. */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('posadm-adv');
  other = await api.seed('posadm-adv-b');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
});
afterAll(() => api.close());

const loc0 = () => m.locations[0]!.id;
const call = (method: string, path: string, body?: unknown, token = owner) => api.call(method, `/api/back-office/pos/${path}`, { token, ...(body === undefined ? {} : { body }) });

describe('fiscal data modules across merchants', () => {
  test("another merchant's fdm id cannot be enrolled (its signing key and remote module are the module's, not the merchant's): 409, nothing written", async () => {
    const theirs = (await call('GET', `${other.locations[0]!.id}/fdm-devices`, undefined, otherOwner)).body.data[0];
    const mine = (await call('GET', `${loc0()}/fdm-devices`)).body.data[0];
    expect((await call('PUT', `${loc0()}/fdm-devices/${mine.id}`, { status: 'retired' })).status).toBe(200);
    const r = await call('POST', `${loc0()}/fdm-devices`, { fdm_id: theirs.fdm_id, mode: 'software' });
    expect({ status: r.status, body: r.body }).toEqual({ status: 409, body: { message: FDM_ID_TAKEN, reason: 'fdm_enrolled' } });
    expect(await tdbOf(api, m).selectFrom('fdm_devices').select('fdm_id').where('fdm_id', '=', theirs.fdm_id).execute()).toEqual([]);
  });
});

describe('fiscal journal export', () => {
  test("a window reaching the calendar's last date (9999-12-31) is answered 200, never a 500", async () => {
    for (const q of ['?to=9999-12-31', '?from=9999-12-31', '?from=1970-01-01&to=9999-12-31']) {
      const r = await call('GET', `${loc0()}/fiscal-events${q}`);
      expect([q, r.status, r.body.data?.length]).toEqual([q, 200, 1]);
    }
  });
});

describe("staff credentials linked to the merchant's owner", () => {
  test("a member holding MANAGE_POS_STAFF (every location) cannot create, reset, edit or delete the owner's credential (403, nothing written); the owner can", async () => {
    const ownerUser = await api.deps.db.selectFrom('users').select('id').where('email', '=', m.backoffice.email).executeTakeFirstOrThrow();
    const manager = await makeMember(api, m, ['MANAGE_POS_STAFF'], { allLocations: true });
    const denied = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    const asManager = async (method: string, path: string, body?: unknown) => {
      const r = await call(method, path, body, manager.token);
      return { status: r.status, body: r.body };
    };
    // Linking a new credential to the owner: the manager would sign in at the register as the owner.
    expect(await asManager('POST', 'staff-credentials', { name: 'Owner (forged)', role: 'owner', pin: '90417', permissions: ['approve_as_manager'], user_id: ownerUser.id })).toEqual(denied);
    const created = await call('POST', 'staff-credentials', { name: 'The Owner', role: 'owner', pin: '90418', permissions: ['approve_as_manager'], user_id: ownerUser.id });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const before = await tdbOf(api, m).selectFrom('staff_credentials').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(await asManager('POST', `staff-credentials/${id}/reset-pin`, { pin: '90419' })).toEqual(denied);
    expect(await asManager('POST', `staff-credentials/${id}/reset-pin`)).toEqual(denied);
    expect(await asManager('PUT', `staff-credentials/${id}`, { permissions: [] })).toEqual(denied);
    expect(await asManager('DELETE', `staff-credentials/${id}`)).toEqual(denied);
    expect(await tdbOf(api, m).selectFrom('staff_credentials').selectAll().where('id', '=', id).executeTakeFirstOrThrow()).toEqual(before);
    // Other credentials stay the manager's to manage; the owner manages its own.
    const cashier = (await call('GET', 'staff-credentials')).body.data.find((c: any) => c.role === 'cashier');
    expect((await asManager('PUT', `staff-credentials/${cashier.id}`, { name: 'Carla Cashier' })).status).toBe(200);
    expect((await call('PUT', `staff-credentials/${id}`, { name: 'Owner' })).status).toBe(200);
    expect((await call('POST', `staff-credentials/${id}/reset-pin`, { pin: '90420' })).status).toBe(200);
  });
});

describe('drawers: retiring while a till opens on it', () => {
  test('a retire and a till opening at once: never both (a till left open on a retired drawer); the loser is the 409 or the 422 of the rules', async () => {
    const s = await registerSession(api, m, 'manager', 1);
    const h = { token: s.device, deviceKey: true, staffToken: s.staff };
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const d = await call('POST', `${loc0()}/drawers`, { name: `Race drawer ${i}`, kind: 'physical' });
      const [open, retire] = await Promise.all([
        api.call('POST', '/api/pos/tills', { ...h, body: { mode: 'register_drawer', opening_float: 0, drawer_id: d.body.data.id } }),
        call('POST', `${loc0()}/drawers/${d.body.data.id}/retire`),
      ]);
      outcomes.push(`${open.status}/${retire.status}`);
      if (open.status === 200) expect({ status: retire.status, reason: retire.body.reason }).toEqual({ status: 409, reason: 'till_not_closed' });
      else expect({ status: open.status, body: open.body }).toEqual({ status: 422, body: { message: 'The selected drawer_id is not a drawer of this location.', errors: { drawer_id: ['The selected drawer_id is not a drawer of this location.'] } } });
      if (open.status === 200) {
        // Close it so the register can open the next round's till.
        for (const [step, body] of [['end', {}], ['count', { counted: 0 }], ['close', {}]] as const) expect((await api.call('POST', `/api/pos/tills/${open.body.id}/${step}`, { ...h, body })).status).toBe(200);
      }
    }
    const onRetired = await tdbOf(api, m)
      .selectFrom('pos_tills')
      .innerJoin('drawers', 'drawers.id', 'pos_tills.drawer_id')
      .select('pos_tills.id')
      .where('drawers.retired_at', 'is not', null)
      .where('pos_tills.opened_at', '>', sql<Date>`drawers.retired_at`)
      .execute();
    expect({ outcomes: outcomes.filter((o) => o === '200/200'), onRetired }).toEqual({ outcomes: [], onRetired: [] });
  });
});

describe('registers: binding a drawer being retired', () => {
  test('a register bound to a drawer while it is retired never ends live on the retired drawer', async () => {
    const reg = await call('POST', `${loc0()}/registers`, { name: 'Race register' });
    expect(reg.status).toBe(201);
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const d = await call('POST', `${loc0()}/drawers`, { name: `Bind race ${i}`, kind: 'physical' });
      const [bind, retire] = await Promise.all([call('PUT', `${loc0()}/registers/${reg.body.data.id}`, { drawer_id: d.body.data.id }), call('POST', `${loc0()}/drawers/${d.body.data.id}/retire`)]);
      const stored = await tdbOf(api, m).selectFrom('pos_registers').select('drawer_id').where('id', '=', reg.body.data.id).executeTakeFirstOrThrow();
      outcomes.push(`${bind.status}/${retire.status}/${stored.drawer_id === d.body.data.id ? 'bound' : 'unbound'}`);
    }
    expect(outcomes.filter((o) => o.endsWith('/bound'))).toEqual([]);
  });
});
