import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { TEAM_INVITATION_MAIL_JOB } from '@pos/kernel/queues/index';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { login, makeMember, tenantOf } from '../team/team.test-support.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerId: string;
let roleId: string;
let invitedId: string;
let invitationId: string;

const team = '/api/back-office/settings/team';
const path = '/api/back-office/settings/activity-logs/datatable';

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('logs-a');
  b = await api.seed('logs-b');
  owner = await login(api, a.backoffice.email, a.backoffice.password);
  ownerId = (await api.deps.db.selectFrom('users').select('id').where('email', '=', a.backoffice.email).executeTakeFirstOrThrow()).id;
  // A known sequence of team writes.
  roleId = (await api.call('POST', `${team}/roles`, { token: owner, body: { name: 'Barista', permissions: ['VIEW_ITEMS'] } })).body.data.id;
  await api.call('PUT', `${team}/roles/${roleId}`, { token: owner, body: { name: 'Head barista', permissions: ['VIEW_ITEMS', 'EDIT_ITEMS'] } });
  const email = `log-${crypto.randomUUID().slice(0, 8)}@example.com`;
  invitedId = (await api.call('POST', `${team}/users`, { token: owner, body: { email, name: 'Logan', role_ids: [], location_ids: [] } })).body.data.id;
  invitationId = (await api.deps.db.selectFrom('invitations').select('id').where('merchant_id', '=', a.merchant.id).where('user_id', '=', invitedId).executeTakeFirstOrThrow()).id;
  await api.call('PUT', `${team}/users/${invitedId}/roles`, { token: owner, body: { role_ids: [roleId] } });
  await api.call('PUT', `${team}/users/${invitedId}/locations`, { token: owner, body: { location_ids: [a.locations[0]!.id] } });
  await api.call('POST', `${team}/users/${invitedId}/resend-invitation`, { token: owner });
  await api.call('PUT', `${team}/users/${invitedId}`, { token: owner, body: { name: 'Logan L.' } });
  await api.call('PUT', `${team}/users/${invitedId}/roles`, { token: owner, body: { role_ids: [] } });
  await api.call('DELETE', `${team}/roles/${roleId}`, { token: owner });
  await api.call('DELETE', `${team}/users/${invitedId}`, { token: owner });
});
afterAll(async () => {
  await api.deps.db.deleteFrom('outbox').where('job', '=', TEAM_INVITATION_MAIL_JOB).where(sql<string>`payload->>'invitation_id'`, '=', invitationId).execute();
  await api.close();
});

const phrase = (r: { action: string; subject: string }) => `${r.action} ${r.subject}`;

describe('GET /back-office/settings/activity-logs/datatable', () => {
  test('every team write, newest first, with the acting user', async () => {
    const r = await api.call('GET', path, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body.data.map(phrase)).toEqual([
      'removed user',
      'deleted role',
      'assigned roles user',
      'updated user',
      'resent invitation user',
      'updated locations user',
      'assigned roles user',
      'invited user',
      'updated role',
      'created role',
    ]);
    expect(r.body).toMatchObject({ total: 10, page: 1, per_page: 25 });
    expect(r.body.data[9]).toEqual({
      id: expect.any(String),
      user: { id: ownerId, name: 'Demo Owner' },
      action: 'created',
      subject: 'role',
      subject_id: roleId,
      properties: { name: 'Barista', permissions: ['VIEW_ITEMS'] },
      created_at: expect.any(String),
    });
    expect(r.body.data[0]).toMatchObject({ subject_id: invitedId, properties: { name: 'Logan L.' } });
  });

  test('paginates', async () => {
    const p1 = await api.call('GET', `${path}?page=1&per_page=4`, { token: owner });
    const p3 = await api.call('GET', `${path}?page=3&per_page=4`, { token: owner });
    expect(p1.body).toMatchObject({ total: 10, page: 1, per_page: 4 });
    expect(p1.body.data.map(phrase)).toEqual(['removed user', 'deleted role', 'assigned roles user', 'updated user']);
    expect(p3.body.data.map(phrase)).toEqual(['updated role', 'created role']);
    const past = await api.call('GET', `${path}?page=9&per_page=4`, { token: owner });
    expect(past.body).toEqual({ data: [], total: 10, page: 9, per_page: 4 });
    expect((await api.call('GET', `${path}?per_page=1000`, { token: owner })).status).toBe(422);
    expect((await api.call('GET', `${path}?page=0`, { token: owner })).status).toBe(422);
  });

  test('search matches action or subject; subject and user_id filter', async () => {
    const s = await api.call('GET', `${path}?search=role`, { token: owner });
    expect(s.body.data.map(phrase)).toEqual(['deleted role', 'assigned roles user', 'assigned roles user', 'updated role', 'created role']);
    const phraseSearch = await api.call('GET', `${path}?search=${encodeURIComponent('invited user')}`, { token: owner });
    expect(phraseSearch.body.data.map(phrase)).toEqual(['invited user']);
    const bySubject = await api.call('GET', `${path}?subject=role`, { token: owner });
    expect(bySubject.body).toMatchObject({ total: 3 });
    const wildcard = await api.call('GET', `${path}?search=%25`, { token: owner });
    expect(wildcard.body.total).toBe(0);
    const byUser = await api.call('GET', `${path}?user_id=${ownerId}&per_page=1`, { token: owner });
    expect(byUser.body).toMatchObject({ total: 10, per_page: 1 });
    expect((await api.call('GET', `${path}?user_id=${crypto.randomUUID()}`, { token: owner })).body.total).toBe(0);
    expect(await api.call('GET', `${path}?user_id=nope`, { token: owner })).toMatchObject({ status: 422, body: { errors: { user_id: ['The user_id field must be a valid UUID.'] } } });
  });

  test("another merchant sees only its own log; the short path answers the same", async () => {
    const ownerB = await login(api, b.backoffice.email, b.backoffice.password);
    expect((await api.call('GET', path, { token: ownerB })).body).toEqual({ data: [], total: 0, page: 1, per_page: 25 });
    const short = await api.call('GET', '/api/back-office/activity-logs/datatable?per_page=2', { token: owner });
    expect(short).toMatchObject({ status: 200, body: { total: 10, per_page: 2 } });
  });

  test('a system entry (no user) answers user null', async () => {
    const tdb = tenantOf(api, b);
    await tdb.insertInto('activity_logs').values({ id: Bun.randomUUIDv7(), user_id: null, action: 'synced', subject: 'menu', subject_id: null, properties: '{}' }).execute();
    const ownerB = await login(api, b.backoffice.email, b.backoffice.password);
    const r = await api.call('GET', path, { token: ownerB });
    expect(r.body.data).toEqual([{ id: expect.any(String), user: null, action: 'synced', subject: 'menu', subject_id: null, properties: {}, created_at: expect.any(String) }]);
  });

  test('403 without VIEW_ACTIVITY_LOGS, 200 with it', async () => {
    const none = await makeMember(api, a, ['VIEW_USERS']);
    expect(await api.call('GET', path, { token: none.token })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await api.call('GET', '/api/back-office/activity-logs/datatable', { token: none.token })).toMatchObject({ status: 403 });
    const viewer = await makeMember(api, a, ['VIEW_ACTIVITY_LOGS']);
    expect((await api.call('GET', path, { token: viewer.token })).status).toBe(200);
    expect(await api.call('GET', path)).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
  });
});

describe('activity within the location grant', () => {
  test('a member granted loc1 only reads no loc0 activity (device entries, location-bound properties, a grant naming loc0); merchant-wide entries stay', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const dev = (name: string, location_id: string) => api.call('POST', '/api/back-office/devices', { token: owner, body: { name, type: 'kiosk', location_id } });
    const secret = (await dev('Secret loc0 kiosk', loc0)).body.data;
    const open = (await dev('Open loc1 kiosk', loc1)).body.data;
    // A device entry without a location in its properties is still its device's location's.
    expect((await api.call('PUT', `/api/back-office/devices/${secret.id}`, { token: owner, body: { name: 'Secret loc0 kiosk 2' } })).status).toBe(200);
    const tdb = tenantOf(api, a);
    const entry = (action: string, subject: string, subject_id: string | null, properties: Record<string, unknown>) =>
      tdb.insertInto('activity_logs').values({ id: Bun.randomUUIDv7(), user_id: ownerId, action, subject, subject_id, properties: JSON.stringify(properties) }).execute();
    await entry('created', 'drawer', crypto.randomUUID(), { location_id: loc0, name: 'Loc0 drawer' });
    await entry('updated', 'location', loc0, { fields: ['name'] });
    await entry('updated locations', 'user', crypto.randomUUID(), { location_ids: [loc0, loc1], all_locations: false });
    await entry('updated', 'location', loc1, { fields: ['name'] });
    await entry('updated locations', 'user', crypto.randomUUID(), { location_ids: [loc1], all_locations: false });

    const member = await makeMember(api, a, ['VIEW_ACTIVITY_LOGS'], { locationIds: [loc1] });
    const all = await api.call('GET', `${path}?per_page=100`, { token: member.token });
    expect(all.status).toBe(200);
    const leaks = all.body.data.filter((e: any) => e.subject_id === secret.id || e.subject_id === loc0 || JSON.stringify(e.properties).includes(loc0));
    expect(leaks).toEqual([]);
    const devices = await api.call('GET', `${path}?per_page=100&subject=device`, { token: member.token });
    expect(devices.body).toMatchObject({ total: 1, data: [{ action: 'created', subject: 'device', subject_id: open.id, properties: { name: 'Open loc1 kiosk', type: 'kiosk', location_id: loc1 } }] });
    // loc1's own entries and the merchant-wide ones (the team's roles) are shown, and counted.
    expect(all.body.data.map(phrase).slice(0, 3)).toEqual(['updated locations user', 'updated location', 'created device']);
    expect(all.body.data.filter((e: any) => e.subject === 'role').length).toBe(3);
    expect(all.body.total).toBe(all.body.data.length);

    // Every location: the owner, and a member granted both, read everything.
    const ownerDevices = await api.call('GET', `${path}?per_page=100&subject=device`, { token: owner });
    expect(ownerDevices.body.total).toBe(3);
    const both = await makeMember(api, a, ['VIEW_ACTIVITY_LOGS'], { locationIds: [loc0, loc1] });
    expect((await api.call('GET', `${path}?per_page=100`, { token: both.token })).body.total).toBe((await api.call('GET', `${path}?per_page=100`, { token: owner })).body.total);
  });

  test('a table closed at loc0 is loc0\'s activity: hidden from a member granted loc1, older entries without location_id too; so is a loc0 billing subscription\'s', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const section = a.table_sections[0]!;
    expect(section.location_id).toBe(loc0);
    const scan = async (table: number) => (await api.call('GET', `/api/table-qr-ordering/${loc0}/${section.id}/${table}`)).body.data.id as string;
    const first = await scan(3);
    expect((await api.call('POST', `/api/back-office/table-sections/${section.id}/tables/3/close`, { token: owner })).status).toBe(200);
    const tdb = tenantOf(api, a);
    const written = await tdb.selectFrom('activity_logs').select('properties').where('subject', '=', 'table session').where('subject_id', '=', first).executeTakeFirstOrThrow();
    expect(written.properties).toEqual({ table_section_id: section.id, table_number: 3, location_id: loc0 });
    // Entries written before the location was recorded: placed through their session, or (session gone) hidden.
    const entry = (subject: string, subject_id: string, properties: Record<string, unknown>) =>
      tdb.insertInto('activity_logs').values({ id: Bun.randomUUIDv7(), user_id: ownerId, action: 'closed', subject, subject_id, properties: JSON.stringify(properties) }).execute();
    const second = await scan(4);
    expect((await api.call('POST', `/api/back-office/table-sections/${section.id}/tables/4/close`, { token: owner })).status).toBe(200);
    await tdb.deleteFrom('activity_logs').where('subject_id', '=', second).execute();
    await entry('table session', second, { table_section_id: section.id, table_number: 4 });
    await entry('table session', crypto.randomUUID(), { table_section_id: crypto.randomUUID(), table_number: 5 });
    const sub = Bun.randomUUIDv7();
    await tdb
      .insertInto('billing_subscriptions')
      .values({ id: sub, provider_subscription_id: `sub_${sub.slice(-12)}`, customer_id: 'cus_logs', location_id: loc0, price_id: null, device_ids: JSON.stringify([]), status: 'active', current_period_end: null, cancel_reason: null, canceled_at: null, payment_method_id: null, mandate_id: null, recovered_by: null, event_created: 1 })
      .execute();
    await entry('billing_subscription', sub, { provider_subscription_id: `sub_${sub.slice(-12)}` });

    const read = async (token: string, subject: string) => (await api.call('GET', `${path}?per_page=100&subject=${encodeURIComponent(subject)}`, { token })).body;
    const outside = await makeMember(api, a, ['VIEW_ACTIVITY_LOGS'], { locationIds: [loc1] });
    expect(await read(outside.token, 'table session')).toMatchObject({ total: 0, data: [] });
    expect(await read(outside.token, 'billing_subscription')).toMatchObject({ total: 0, data: [] });
    // loc0's member reads the two placed closures (not the one of no known location); the owner all three.
    const inside = await makeMember(api, a, ['VIEW_ACTIVITY_LOGS'], { locationIds: [loc0] });
    const theirs = await read(inside.token, 'table session');
    expect(theirs.total).toBe(2);
    expect(theirs.data.map((e: any) => e.subject_id).sort()).toEqual([first, second].sort());
    expect((await read(inside.token, 'billing_subscription')).total).toBe(1);
    expect((await read(owner, 'table session')).total).toBe(3);
  });
});
